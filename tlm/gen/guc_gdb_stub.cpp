#include "tlm/gen/guc_gdb_stub.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unicorn/unicorn.h>
#include <unistd.h>

namespace gpuvp::gen {

namespace {

// gdb's i386 register order (gdb/features/i386/32bit-core.xml): eax ecx edx ebx esp ebp esi edi eip eflags cs ss ds
// es fs gs, 32 bits each.
constexpr int kRegisters[] = {UC_X86_REG_EAX, UC_X86_REG_ECX,    UC_X86_REG_EDX, UC_X86_REG_EBX,
                              UC_X86_REG_ESP, UC_X86_REG_EBP,    UC_X86_REG_ESI, UC_X86_REG_EDI,
                              UC_X86_REG_EIP, UC_X86_REG_EFLAGS, UC_X86_REG_CS,  UC_X86_REG_SS,
                              UC_X86_REG_DS,  UC_X86_REG_ES,     UC_X86_REG_FS,  UC_X86_REG_GS};
constexpr int kRegisterCount = sizeof(kRegisters) / sizeof(kRegisters[0]);

const char kHex[] = "0123456789abcdef";

void append_hex_byte(std::string& out, std::uint8_t b) {
  out.push_back(kHex[b >> 4]);
  out.push_back(kHex[b & 0xF]);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses hex digits; false on anything else or on an empty field.
bool parse_hex(const std::string& text, std::uint64_t& value) {
  if (text.empty() || text.size() > 16) return false;
  value = 0;
  for (char c : text) {
    const int v = hex_value(c);
    if (v < 0) return false;
    value = value << 4 | static_cast<std::uint64_t>(v);
  }
  return true;
}

bool decode_bytes(const std::string& hex, std::size_t offset, std::size_t count, std::uint8_t* out) {
  if (hex.size() < offset + 2 * count) return false;
  for (std::size_t i = 0; i < count; ++i) {
    const int hi = hex_value(hex[offset + 2 * i]);
    const int lo = hex_value(hex[offset + 2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return true;
}

}  // namespace

GucGdbStub::GucGdbStub(std::uint16_t port, std::uint8_t* sram, std::size_t sram_size)
    : port_(port), sram_(sram), sram_size_(sram_size) {}

GucGdbStub::~GucGdbStub() {
  close_client();
  if (listener_ >= 0) ::close(listener_);
}

std::string GucGdbStub::listen() {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener_ < 0) return std::string("socket: ") + std::strerror(errno);
  const int one = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener_, 1) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listener_);
    listener_ = -1;
    return "cannot listen on 127.0.0.1:" + std::to_string(port_) + ": " + why;
  }
  return {};
}

void GucGdbStub::close_client() {
  if (client_ >= 0) ::close(client_);
  client_ = -1;
}

bool GucGdbStub::send_packet(const std::string& payload) {
  std::uint8_t sum = 0;
  for (char c : payload) sum = static_cast<std::uint8_t>(sum + static_cast<std::uint8_t>(c));
  std::string frame = "$" + payload + "#";
  append_hex_byte(frame, sum);
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (::send(client_, frame.data(), frame.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(frame.size())) return false;
    char ack = 0;
    if (::recv(client_, &ack, 1, 0) != 1) return false;
    if (ack == '+') return true;
  }
  return false;
}

bool GucGdbStub::read_packet(std::string& payload) {
  char c = 0;
  for (;;) {
    do {
      if (::recv(client_, &c, 1, 0) != 1) return false;
    } while (c != '$');
    payload.clear();
    std::uint8_t sum = 0;
    for (;;) {
      if (::recv(client_, &c, 1, 0) != 1) return false;
      if (c == '#') break;
      payload.push_back(c);
      sum = static_cast<std::uint8_t>(sum + static_cast<std::uint8_t>(c));
      if (payload.size() > 64 * 1024) return false;  // not gdb
    }
    char check[2];
    if (::recv(client_, check, 2, MSG_WAITALL) != 2) return false;
    const int hi = hex_value(check[0]);
    const int lo = hex_value(check[1]);
    const bool ok = hi >= 0 && lo >= 0 && (hi << 4 | lo) == sum;
    if (::send(client_, ok ? "+" : "-", 1, MSG_NOSIGNAL) != 1) return false;
    if (ok) return true;
  }
}

GucGdbStub::Resume GucGdbStub::stopped(uc_struct* uc) {
  if (detached_ || listener_ < 0) return Resume::kDetach;
  if (client_ < 0) {
    // gdb has kAttachTimeoutMs to connect; without it the firmware runs on undebugged.
    pollfd pfd{listener_, POLLIN, 0};
    if (::poll(&pfd, 1, kAttachTimeoutMs) != 1) {
      detached_ = true;
      return Resume::kDetach;
    }
    client_ = ::accept(listener_, nullptr, nullptr);
    if (client_ < 0) return Resume::kDetach;
    timeval tv{kAttachTimeoutMs / 1000, 0};
    ::setsockopt(client_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  } else if (!send_packet("S05")) {
    close_client();
    detached_ = true;
    return Resume::kDetach;
  }
  Resume resume = Resume::kContinue;
  bool done = false;
  std::string packet;
  while (!done) {
    if (!read_packet(packet)) {
      close_client();
      detached_ = true;
      return Resume::kDetach;
    }
    const std::string reply = handle(uc, packet, resume, done);
    if (done && resume != Resume::kDetach) break;  // the stop reply comes when the core stops again
    if (!send_packet(reply)) {
      close_client();
      detached_ = true;
      return Resume::kDetach;
    }
  }
  if (resume == Resume::kDetach) {
    close_client();
    detached_ = true;
  }
  return resume;
}

std::string GucGdbStub::handle(uc_struct* uc, const std::string& packet, Resume& resume, bool& done) {
  if (packet.empty()) return {};
  const char command = packet[0];
  const std::string args = packet.substr(1);
  switch (command) {
    case '?':
      return "S05";
    case 'g':
      return read_registers(uc);
    case 'G':
      return write_registers(uc, args);
    case 'm':
      return read_memory(args);
    case 'M':
      return write_memory(args);
    case 'c':
      resume = Resume::kContinue;
      done = true;
      return {};
    case 's':
      resume = Resume::kStep;
      done = true;
      return {};
    case 'D':
    case 'k':
      resume = Resume::kDetach;
      done = true;
      return "OK";
    case 'H':
      return "OK";
    case 'Z':
    case 'z': {
      // Z0,addr,kind: software breakpoints only (kept by the stub, not written into WOPCM).
      std::uint64_t address = 0;
      const auto first = args.find(',');
      const auto second = args.find(',', first + 1);
      if (args.rfind("0,", 0) != 0 || second == std::string::npos ||
          !parse_hex(args.substr(first + 1, second - first - 1), address)) {
        return {};
      }
      if (command == 'Z') {
        breakpoints_.insert(static_cast<std::uint32_t>(address));
      } else {
        breakpoints_.erase(static_cast<std::uint32_t>(address));
      }
      return "OK";
    }
    case 'q':
      if (packet.rfind("qSupported", 0) == 0) return "PacketSize=4000";
      if (packet == "qAttached") return "1";
      if (packet == "qC") return "QC1";
      if (packet == "qfThreadInfo") return "m1";
      if (packet == "qsThreadInfo") return "l";
      return {};
    case 'T':
      return "OK";
    default:
      return {};  // unsupported: gdb falls back
  }
}

std::string GucGdbStub::read_registers(uc_struct* uc) {
  std::string out;
  for (int id : kRegisters) {
    std::uint32_t v = 0;
    uc_reg_read(uc, id, &v);
    for (int b = 0; b < 4; ++b) append_hex_byte(out, static_cast<std::uint8_t>(v >> (8 * b)));
  }
  return out;
}

std::string GucGdbStub::write_registers(uc_struct* uc, const std::string& hex) {
  if (hex.size() < 8u * kRegisterCount) return "E01";
  for (int i = 0; i < kRegisterCount; ++i) {
    std::uint8_t bytes[4];
    if (!decode_bytes(hex, 8u * static_cast<std::size_t>(i), 4, bytes)) return "E01";
    // Segment registers keep their flat descriptors: only general registers, EIP and EFLAGS are written.
    if (kRegisters[i] == UC_X86_REG_CS || i > 10) continue;
    std::uint32_t v = 0;
    std::memcpy(&v, bytes, 4);
    uc_reg_write(uc, kRegisters[i], &v);
  }
  return "OK";
}

std::string GucGdbStub::read_memory(const std::string& args) {
  std::uint64_t address = 0, length = 0;
  const auto comma = args.find(',');
  if (comma == std::string::npos || !parse_hex(args.substr(0, comma), address) ||
      !parse_hex(args.substr(comma + 1), length) || length > 4096) {
    return "E01";
  }
  // Only WOPCM: reading the register window or graphics memory would have side effects and cost simulated time.
  if (address >= sram_size_ || length > sram_size_ - address) return "E14";
  std::string out;
  for (std::uint64_t i = 0; i < length; ++i) append_hex_byte(out, sram_[address + i]);
  return out;
}

std::string GucGdbStub::write_memory(const std::string& args) {
  std::uint64_t address = 0, length = 0;
  const auto comma = args.find(',');
  const auto colon = args.find(':');
  if (comma == std::string::npos || colon == std::string::npos || colon < comma ||
      !parse_hex(args.substr(0, comma), address) || !parse_hex(args.substr(comma + 1, colon - comma - 1), length) ||
      length > 4096) {
    return "E01";
  }
  if (address >= sram_size_ || length > sram_size_ - address) return "E14";
  if (!decode_bytes(args, colon + 1, length, sram_ + address)) return "E01";
  return "OK";
}

}  // namespace gpuvp::gen
