#include "platform/aub_reader.h"

#include <algorithm>
#include <cstring>

#include "tlm/core/format_hex.h"

namespace gpuvp::platform::aub {

namespace {

constexpr std::uint32_t kHeaderBytes = 4;

std::uint32_t header_type(std::uint32_t h) { return h >> 29; }
std::uint32_t header_opcode(std::uint32_t h) { return h >> 23 & 0x3F; }
std::uint32_t header_sub_opcode(std::uint32_t h) { return h >> 16 & 0x7F; }
std::uint32_t header_count(std::uint32_t h) { return h & 0xFFFF; }

std::uint32_t make_header(std::uint32_t opcode, std::uint32_t sub_opcode, std::uint32_t count) {
  return kRecordType << 29 | opcode << 23 | sub_opcode << 16 | count;
}

std::uint32_t dword_at(const std::vector<std::uint8_t>& b, std::size_t dword) {
  std::uint32_t v = 0;
  std::memcpy(&v, b.data() + dword * 4, 4);  // AUB files are little-endian, as is every host gpuvp builds on
  return v;
}

std::uint64_t qword_at(const std::vector<std::uint8_t>& b, std::size_t dword) {
  return std::uint64_t{dword_at(b, dword + 1)} << 32 | dword_at(b, dword);
}

void put_dword(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void put_data(std::vector<std::uint8_t>& b, const std::vector<std::uint8_t>& data) {
  b.insert(b.end(), data.begin(), data.end());
  while (b.size() % 4 != 0) b.push_back(0);  // NEO pads data to whole dwords with zeros
}

// A memtrace record's header count: its length in dwords minus one (NEO sets dwordCount = dwords - 1).
void set_count(std::vector<std::uint8_t>& b) {
  const auto count = static_cast<std::uint32_t>(b.size() / 4 - 1);
  std::uint32_t h = dword_at(b, 0) | count;
  std::memcpy(b.data(), &h, 4);
}

// Register sizes (RegisterSizeValues, DataSizeValues): 0 byte, 1 word, 2 dword, 3 qword.
std::uint32_t size_bytes(std::uint32_t code) { return 1u << code; }

std::uint32_t size_code(std::uint32_t bytes) {
  switch (bytes) {
    case 1:
      return 0;
    case 2:
      return 1;
    case 8:
      return 3;
    default:
      return 2;
  }
}

std::string hex(std::uint64_t v) { return core::format_hex(v); }

}  // namespace

const char* to_string(AddressSpace space) {
  switch (space) {
    case AddressSpace::kGttGfx:
      return "GGTT graphics address";
    case AddressSpace::kLocal:
      return "local memory";
    case AddressSpace::kPhysical:
      return "physical memory";
    case AddressSpace::kGttPdEntry:
      return "GTT PD entry";
    case AddressSpace::kGttEntry:
      return "GGTT entry";
    case AddressSpace::kPpgttGfx:
      return "PPGTT graphics address";
    case AddressSpace::kPpgttEntry:
      return "PPGTT PT entry";
    case AddressSpace::kNonapertureGttGfx:
      return "non-aperture GGTT graphics address";
    case AddressSpace::kPhysicalPdpEntry:
      return "PDP entry";
    case AddressSpace::kPpgttPdEntry:
      return "PPGTT PD entry";
    case AddressSpace::kPml4Entry:
      return "PML4 entry";
    case AddressSpace::kPowerContext:
      return "power context";
  }
  return "address space";
}

std::string address_space_name(std::uint32_t space) {
  if (space <= static_cast<std::uint32_t>(AddressSpace::kPowerContext)) {
    return to_string(static_cast<AddressSpace>(space));
  }
  return "address space " + std::to_string(space);
}

std::string sub_opcode_name(std::uint32_t opcode, std::uint32_t sub_opcode) {
  if (opcode == kOpcodeLegacy && sub_opcode == kSubOpContextCreate) return "PPGTT context create";
  if (opcode == kOpcodeLegacy && sub_opcode == kSubOpBinaryDump) return "binary dump";
  if (opcode == kOpcodeLegacy && sub_opcode == kSubOpBitmapDump) return "bitmap dump";
  if (opcode != kOpcodeMemtrace) return "opcode " + hex(opcode) + " sub-opcode " + hex(sub_opcode);
  switch (static_cast<SubOp>(sub_opcode)) {
    case SubOp::kRegisterCompare:
      return "register compare";
    case SubOp::kRegisterPoll:
      return "register poll";
    case SubOp::kRegisterWrite:
      return "register write";
    case SubOp::kMemoryCompare:
      return "memory compare";
    case SubOp::kMemoryPoll:
      return "memory poll";
    case SubOp::kMemoryWrite:
      return "memory write";
    case SubOp::kFrameBegin:
      return "frame begin";
    case SubOp::kComment:
      return "comment";
    case SubOp::kDelay:
      return "delay";
    case SubOp::kMemoryDump:
      return "memory dump";
    case SubOp::kMemoryWriteDiscontiguous:
      return "discontiguous memory write";
    case SubOp::kTestPhaseMarker:
      return "test phase marker";
    case SubOp::kMemoryContinuousRegion:
      return "continuous memory region";
    case SubOp::kVersion:
      return "version";
    case SubOp::kPredicate:
      return "predicate";
    case SubOp::kDumpCompress:
      return "dump compress";
  }
  return "sub-opcode " + hex(sub_opcode);
}

AubReader::AubReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

void AubReader::fail(std::uint64_t at, const std::string& what) const {
  throw AubError(name_ + ": offset " + hex(at) + ": " + what);
}

bool AubReader::next(Record& r) {
  std::uint8_t head[kHeaderBytes];
  in_.read(reinterpret_cast<char*>(head), kHeaderBytes);
  const auto got = static_cast<std::size_t>(in_.gcount());
  if (got == 0) return false;
  if (got < kHeaderBytes) {
    fail(offset_, "truncated record header (" + std::to_string(got) + " of 4 bytes)");
  }
  std::uint32_t h = 0;
  std::memcpy(&h, head, 4);
  if (header_type(h) != kRecordType) {
    fail(offset_, "not an AUB record: header " + hex(h) + " has type " + std::to_string(header_type(h)) +
                      ", expected 7" + (offset_ == 0 ? " (is this an AUB file?)" : ""));
  }
  const std::uint32_t opcode = header_opcode(h);
  std::uint64_t dwords = 0;
  if (opcode == kOpcodeMemtrace) {
    dwords = std::uint64_t{header_count(h)} + 1;  // aub_services.h getPacketSize(): dwordCount + 1
  } else if (opcode == kOpcodeLegacy) {
    dwords = std::uint64_t{header_count(h)} + 2;  // AubPpgttContextCreate: DwordLength excludes the header
  } else {
    // No public source gives the length convention of other opcodes: the rest of the file cannot be framed.
    fail(offset_, "record header " + hex(h) + " has opcode " + hex(opcode) + ", which no AUB source documents");
  }
  const auto length = static_cast<std::size_t>(dwords * 4);
  body_.resize(length);  // at most 65537 dwords: bounded by the 16-bit count
  std::memcpy(body_.data(), head, kHeaderBytes);
  in_.read(reinterpret_cast<char*>(body_.data() + kHeaderBytes), static_cast<std::streamsize>(length - kHeaderBytes));
  const auto body_got = static_cast<std::size_t>(in_.gcount());
  if (body_got < length - kHeaderBytes) {
    fail(offset_, sub_opcode_name(opcode, header_sub_opcode(h)) + " record of " + std::to_string(length) +
                      " bytes is truncated: the file ends after " + std::to_string(body_got + kHeaderBytes));
  }
  r = Record{};
  r.offset = offset_;
  r.header = h;
  r.opcode = opcode;
  r.sub_opcode = header_sub_opcode(h);
  r.length = static_cast<std::uint32_t>(length);
  decode(r);
  offset_ += length;
  ++records_;
  return true;
}

void AubReader::decode(Record& r) const {
  const std::vector<std::uint8_t>& b = body_;
  const std::size_t dwords = b.size() / 4;
  const std::string what = sub_opcode_name(r.opcode, r.sub_opcode) + " record";
  auto need = [&](std::size_t min_dwords) {
    if (dwords < min_dwords) {
      fail(r.offset,
           what + " has " + std::to_string(dwords) + " dwords, at least " + std::to_string(min_dwords) + " expected");
    }
  };
  // Data that must fill the record exactly (NEO pads it to whole dwords).
  auto take_data = [&](std::size_t first_dword, std::uint32_t size) {
    const std::size_t room = (dwords - first_dword) * 4;
    if (size > room || room - size >= 4) {
      fail(r.offset,
           what + " says " + std::to_string(size) + " data bytes, but the record holds " + std::to_string(room));
    }
    r.data.assign(b.begin() + static_cast<std::ptrdiff_t>(first_dword * 4),
                  b.begin() + static_cast<std::ptrdiff_t>(first_dword * 4 + size));
  };
  if (r.opcode == kOpcodeLegacy && r.sub_opcode == kSubOpBinaryDump) {
    // AubCaptureBinaryDumpHD (aub_header.h): base (u64), width, height, pitch (u64 each), {surface type 3:0, GTT type
    // 5:4}, directory handle, two reserved dwords, output file name (4 bytes); NEO aub_alloc_dump.inl
    // dumpBufferInBinFormat writes it with height 1 and GTT type 1.
    need(14);
    r.kind = Record::Kind::kBinaryDump;
    r.address = qword_at(b, 1);
    r.dump_width = qword_at(b, 3);
    r.dump_height = qword_at(b, 5);
    r.dump_pitch = qword_at(b, 7);
    r.dump_gtt = dword_at(b, 9) >> 4 & 3;
    return;
  }
  if (r.opcode == kOpcodeLegacy) {
    if (r.sub_opcode != kSubOpContextCreate) return;  // framed, not decoded
    need(11);                                         // header, handle, flags, four 64-bit root pointers
    r.kind = Record::Kind::kContextCreate;
    r.context_handle = dword_at(b, 1);
    r.context_64bit = (dword_at(b, 2) >> 1 & 1) != 0;
    r.context_root = qword_at(b, 3);
    return;
  }
  switch (static_cast<SubOp>(r.sub_opcode)) {
    case SubOp::kVersion: {
      need(6);  // CmdServicesMemTraceVersion: getBaseLength() 4 + header + command line
      r.kind = Record::Kind::kVersion;
      const std::uint32_t id = dword_at(b, 2);
      r.stepping = id >> 3 & 0x1F;
      r.device = id >> 8 & 0xFF;
      const char* line = reinterpret_cast<const char*>(b.data() + 20);
      r.text.assign(line, strnlen(line, b.size() - 20));
      return;
    }
    case SubOp::kComment: {
      need(2);
      r.kind = Record::Kind::kComment;
      const char* text = reinterpret_cast<const char*>(b.data() + 8);
      r.text.assign(text, strnlen(text, b.size() - 8));
      return;
    }
    case SubOp::kRegisterWrite:
    case SubOp::kRegisterPoll:
    case SubOp::kRegisterCompare: {
      need(6);  // header, offset, flags, mask low, mask high, data
      const std::uint32_t flags = dword_at(b, 2);
      r.register_offset = dword_at(b, 1);
      r.register_space = flags >> 28;
      r.access_size = size_bytes(flags >> 16 & 0xF);
      if ((flags >> 16 & 0xF) > 3)
        fail(r.offset, what + " has register size code " + std::to_string(flags >> 16 & 0xF));
      if (r.access_size == 8) need(7);
      r.mask = qword_at(b, 3);
      r.value = r.access_size == 8 ? qword_at(b, 5) : dword_at(b, 5);
      if (r.sub_opcode == static_cast<std::uint32_t>(SubOp::kRegisterWrite)) {
        r.kind = Record::Kind::kRegisterWrite;
      } else if (r.sub_opcode == static_cast<std::uint32_t>(SubOp::kRegisterPoll)) {
        r.kind = Record::Kind::kRegisterPoll;
        r.timeout_ignore = (flags >> 1 & 1) != 0;
        r.not_equal = (flags >> 2 & 1) != 0;
      } else {
        r.kind = Record::Kind::kRegisterCompare;
        r.no_read_expect = (flags & 1) != 0;
      }
      return;
    }
    case SubOp::kMemoryWrite: {
      need(5);  // header, address (2), flags, size
      r.kind = Record::Kind::kMemoryWrite;
      r.address = qword_at(b, 1);
      const std::uint32_t flags = dword_at(b, 3);
      r.hint = flags >> 20 & 0xFF;
      r.address_space = flags >> 28;
      take_data(5, dword_at(b, 4));
      return;
    }
    case SubOp::kMemoryCompare: {
      need(5);  // header, address low, address high, flags, size
      r.kind = Record::Kind::kMemoryCompare;
      r.address = qword_at(b, 1);
      const std::uint32_t flags = dword_at(b, 3);
      r.no_read_expect = (flags & 1) != 0;
      r.not_equal = (flags >> 7 & 1) != 0;  // CompareOperationValues: 1 not equal
      r.hint = flags >> 20 & 0xFF;
      r.address_space = flags >> 28;
      take_data(5, dword_at(b, 4));
      return;
    }
    case SubOp::kMemoryPoll: {
      need(7);  // header, address (2), flags, mask low, mask high, data
      r.kind = Record::Kind::kMemoryPoll;
      r.address = qword_at(b, 1);
      const std::uint32_t flags = dword_at(b, 3);
      r.not_equal = (flags & 1) != 0;
      r.access_size = size_bytes(flags >> 4 & 3);
      r.timeout_ignore = (flags >> 8 & 1) != 0;
      r.hint = flags >> 20 & 0xFF;
      r.address_space = flags >> 28;
      if (r.access_size == 8) need(8);
      r.mask = qword_at(b, 4);
      r.value = r.access_size == 8 ? qword_at(b, 6) : dword_at(b, 6);
      return;
    }
    default:
      return;  // framed, not decoded: replay skips it with a diagnostic
  }
}

std::vector<std::uint8_t> encode_version(std::uint32_t device, std::uint32_t stepping) {
  std::vector<std::uint8_t> b;
  put_dword(b, make_header(kOpcodeMemtrace, static_cast<std::uint32_t>(SubOp::kVersion), 0));
  put_dword(b, 0);  // memtrace file version
  // Recording method 1 (physical) and capture tool 1 (GenKmdCapture), as AubFileStream::init writes them.
  put_dword(b, (stepping & 0x1F) << 3 | (device & 0xFF) << 8 | 1u << 18 | 1u << 28);
  put_dword(b, 0);
  put_dword(b, 0);
  put_dword(b, 0x004F454E);  // "NEO\0"
  set_count(b);
  return b;
}

std::vector<std::uint8_t> encode_comment(const std::string& text) {
  std::vector<std::uint8_t> b;
  put_dword(b, make_header(kOpcodeMemtrace, static_cast<std::uint32_t>(SubOp::kComment), 0));
  put_dword(b, 0);  // no sync flags
  std::vector<std::uint8_t> bytes(text.begin(), text.end());
  bytes.push_back(0);
  put_data(b, bytes);
  set_count(b);
  return b;
}

namespace {
std::vector<std::uint8_t> register_record(SubOp sub, std::uint32_t offset, std::uint32_t flags, std::uint32_t mask,
                                          std::uint32_t value) {
  std::vector<std::uint8_t> b;
  put_dword(b, make_header(kOpcodeMemtrace, static_cast<std::uint32_t>(sub), 0));
  put_dword(b, offset);
  put_dword(b, flags | size_code(4) << 16);  // dword, MMIO space 0
  put_dword(b, mask);
  put_dword(b, sub == SubOp::kRegisterCompare ? 0xFFFFFFFF : 0);  // NEO's expectMMIO sets both mask halves
  put_dword(b, value);
  set_count(b);
  return b;
}
}  // namespace

std::vector<std::uint8_t> encode_register_write(std::uint32_t offset, std::uint32_t value) {
  return register_record(SubOp::kRegisterWrite, offset, 0, 0xFFFFFFFF, value);
}

std::vector<std::uint8_t> encode_register_poll(std::uint32_t offset, std::uint32_t mask, std::uint32_t value,
                                               bool not_equal) {
  return register_record(SubOp::kRegisterPoll, offset, not_equal ? 1u << 2 : 0, mask, value);
}

std::vector<std::uint8_t> encode_register_compare(std::uint32_t offset, std::uint32_t value) {
  return register_record(SubOp::kRegisterCompare, offset, 0, 0xFFFFFFFF, value);
}

std::vector<std::uint8_t> encode_memory_write(std::uint64_t address, std::uint32_t address_space, std::uint32_t hint,
                                              const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> b;
  put_dword(b, make_header(kOpcodeMemtrace, static_cast<std::uint32_t>(SubOp::kMemoryWrite), 0));
  put_dword(b, static_cast<std::uint32_t>(address));
  put_dword(b, static_cast<std::uint32_t>(address >> 32));
  put_dword(b, (hint & 0xFF) << 20 | (address_space & 0xF) << 28);
  put_dword(b, static_cast<std::uint32_t>(data.size()));
  put_data(b, data);
  set_count(b);
  return b;
}

std::vector<std::uint8_t> encode_memory_compare(std::uint64_t address, std::uint32_t address_space,
                                                const std::vector<std::uint8_t>& data, bool not_equal) {
  std::vector<std::uint8_t> b;
  put_dword(b, make_header(kOpcodeMemtrace, static_cast<std::uint32_t>(SubOp::kMemoryCompare), 0));
  put_dword(b, static_cast<std::uint32_t>(address));
  put_dword(b, static_cast<std::uint32_t>(address >> 32));
  put_dword(b, (not_equal ? 1u << 7 : 0) | (address_space & 0xF) << 28);
  put_dword(b, static_cast<std::uint32_t>(data.size()));
  put_data(b, data);
  set_count(b);
  return b;
}

std::vector<std::uint8_t> encode_binary_dump(std::uint64_t address, std::uint64_t size, std::uint32_t gtt) {
  std::vector<std::uint8_t> b;
  put_dword(b, make_header(kOpcodeLegacy, kSubOpBinaryDump, 12));  // 14 dwords, count = dwords - 2
  for (std::uint64_t v : {address, size, std::uint64_t{1}, size}) {
    put_dword(b, static_cast<std::uint32_t>(v));
    put_dword(b, static_cast<std::uint32_t>(v >> 32));
  }
  put_dword(b, (gtt & 3) << 4);
  for (int i = 0; i < 4; ++i) put_dword(b, 0);  // directory handle, reserved, file name
  return b;
}

std::vector<std::uint8_t> encode_memory_poll(std::uint64_t address, std::uint32_t address_space,
                                             std::uint32_t size_bytes_, std::uint64_t mask, std::uint64_t value,
                                             bool not_equal) {
  std::vector<std::uint8_t> b;
  put_dword(b, make_header(kOpcodeMemtrace, static_cast<std::uint32_t>(SubOp::kMemoryPoll), 0));
  put_dword(b, static_cast<std::uint32_t>(address));
  put_dword(b, static_cast<std::uint32_t>(address >> 32));
  put_dword(b, (not_equal ? 1u : 0) | size_code(size_bytes_) << 4 | (address_space & 0xF) << 28);
  put_dword(b, static_cast<std::uint32_t>(mask));
  put_dword(b, static_cast<std::uint32_t>(mask >> 32));
  put_dword(b, static_cast<std::uint32_t>(value));
  if (size_bytes_ == 8) put_dword(b, static_cast<std::uint32_t>(value >> 32));
  set_count(b);
  return b;
}

}  // namespace gpuvp::platform::aub
