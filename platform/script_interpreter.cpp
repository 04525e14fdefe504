#include "platform/script_interpreter.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "platform/framebuffer_png.h"
#include "tlm/core/host_poll.h"
#include "tlm/core/report.h"

namespace gpuvp::platform {

namespace {

ScriptAnswer ok(std::string text = "OK") { return {std::move(text), false}; }
ScriptAnswer err(const std::string& why) { return {"ERR " + why, true}; }

std::string hex16(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

std::string ns_text(core::Picoseconds ps) { return std::to_string(ps / core::kPsPerNs); }

// Access width of readX/writeX/expectX from its suffix.
unsigned width_of(char suffix) {
  switch (suffix) {
    case 'b':
      return 1;
    case 'w':
      return 2;
    case 'l':
      return 4;
    case 'q':
      return 8;
    default:
      return 0;
  }
}

bool parse_number(const std::string& s, std::uint64_t& v) {
  // Only 0x hex and plain decimal here: size suffixes belong to configs, not to the register-level protocol.
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  for (std::size_t i = hex ? 2 : 0; i < s.size(); ++i) {
    if (hex ? !std::isxdigit(static_cast<unsigned char>(s[i])) : !std::isdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return core::parse_u64(s, v);
}

const char* status_text(int status) {
  switch (status) {
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:
      return "address error";
    case tlm::TLM_COMMAND_ERROR_RESPONSE:
      return "command error";
    case tlm::TLM_BURST_ERROR_RESPONSE:
      return "burst error";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE:
      return "byte enable error";
    case tlm::TLM_GENERIC_ERROR_RESPONSE:
      return "generic error";
    default:
      return "incomplete";
  }
}

}  // namespace

ScriptInterpreter::ScriptInterpreter(Platform& platform, std::string base_dir)
    : platform_(platform), base_dir_(std::move(base_dir)) {}

ScriptAnswer ScriptInterpreter::access_error(const char* what, std::uint64_t addr, int status) const {
  return err(std::string(what) + " at " + core::format_hex(addr) + " failed: " + status_text(status));
}

ScriptAnswer ScriptInterpreter::execute(const std::string& line) {
  std::string text = line.substr(0, line.find('#'));
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) return {};
  ++commands_;
  ScriptAnswer answer = run(words);
  // A host CPU waits for each access to complete: bring the kernel up to the host's local time after every command.
  platform_.host().sync();
  return answer;
}

ScriptAnswer ScriptInterpreter::run(const std::vector<std::string>& w) {
  const std::string& cmd = w[0];
  core::Initiator& host = platform_.host();
  auto args = [&](std::size_t lo, std::size_t hi) { return w.size() - 1 >= lo && w.size() - 1 <= hi; };
  auto usage = [&](const char* form) { return err("usage: " + std::string(form)); };

  // readX/writeX/expectX/pollX: the access width from the suffix.
  const bool rw_family = (cmd.size() == 6 && (cmd.rfind("write", 0) == 0)) ||
                         (cmd.size() == 5 && (cmd.rfind("read", 0) == 0 || cmd.rfind("poll", 0) == 0)) ||
                         (cmd.size() == 7 && cmd.rfind("expect", 0) == 0);
  if (rw_family && width_of(cmd.back()) != 0) {
    const unsigned width = width_of(cmd.back());
    const std::uint64_t limit = width == 8 ? ~0ULL : (1ULL << (8 * width)) - 1;
    const bool poll = cmd.rfind("poll", 0) == 0;
    std::uint64_t addr, value = 0, mask = limit, timeout_ns = 0;
    if (cmd[0] == 'r') {
      if (!args(1, 1)) return usage((cmd + " ADDR").c_str());
    } else if (cmd[0] == 'w') {
      if (!args(2, 2)) return usage((cmd + " ADDR VALUE").c_str());
    } else if (poll) {
      if (!args(3, 4)) return usage((cmd + " ADDR VALUE [MASK] TIMEOUT_NS").c_str());
    } else if (!args(2, 3)) {
      return usage((cmd + " ADDR VALUE [MASK]").c_str());
    }
    // A poll's time-out is its last argument; the mask, if any, comes before it.
    const std::size_t mask_at = poll ? (w.size() == 5 ? 3 : 0) : (w.size() > 3 ? 3 : 0);
    if (!parse_number(w[1], addr)) return err("bad address '" + w[1] + "'");
    if (w.size() > 2 && !parse_number(w[2], value)) return err("bad value '" + w[2] + "'");
    if (mask_at && !parse_number(w[mask_at], mask)) return err("bad mask '" + w[mask_at] + "'");
    if (poll && (!parse_number(w.back(), timeout_ns) || timeout_ns > (~0ULL) / core::kPsPerNs)) {
      return err("bad timeout '" + w.back() + "'");
    }
    if (value > limit || mask > limit) return err("value does not fit in " + std::to_string(width) + " bytes");
    if (cmd[0] == 'w') {
      auto status = host.write(addr, &value, width);  // little-endian host: the low bytes of value
      if (status != tlm::TLM_OK_RESPONSE) return access_error("write", addr, status);
      return ok();
    }
    const std::string masked = mask != limit ? " (mask " + core::format_hex(mask) + ")" : "";
    if (poll) {
      core::PollRequest request;
      request.addr = addr;
      request.width = width;
      request.value = value;
      request.mask = mask;
      request.timeout = timeout_ns * core::kPsPerNs;
      request.interval = platform_.params().host.poll_interval_ns * core::kPsPerNs;
      const core::PollResult r = core::poll(host, request);
      if (r.status != tlm::TLM_OK_RESPONSE) return access_error("poll read", addr, r.status);
      if (!r.matched) {
        return err("timeout at " + core::format_hex(addr) + ": expected " + core::format_hex(value) + masked +
                   ", last read " + core::format_hex(r.last) + " (" + std::to_string(r.reads) + " reads in " +
                   w.back() + " ns)");
      }
      return ok("OK " + ns_text(r.time));
    }
    std::uint64_t actual = 0;
    auto status = host.read(addr, &actual, width);
    if (status != tlm::TLM_OK_RESPONSE) return access_error("read", addr, status);
    if (cmd[0] == 'e' && (actual & mask) != value) {
      return err("expect failed at " + core::format_hex(addr) + ": expected " + core::format_hex(value) + ", actual " +
                 core::format_hex(actual) + masked);
    }
    return ok("OK " + hex16(actual));
  }

  if (cmd == "write") {
    if (!args(3, 3)) return usage("write ADDR SIZE 0xHEXBYTES");
    std::uint64_t addr, size;
    if (!parse_number(w[1], addr)) return err("bad address '" + w[1] + "'");
    if (!parse_number(w[2], size) || size == 0 || size > kMaxTransferBytes) {
      return err("bad size '" + w[2] + "' (1.." + std::to_string(kMaxTransferBytes) + ")");
    }
    const std::string& hex = w[3];
    if (hex.size() != 2 + 2 * size || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X')) {
      return err("data must be 0x followed by exactly " + std::to_string(2 * size) + " hex digits");
    }
    std::vector<unsigned char> bytes(size);
    for (std::uint64_t i = 0; i < size; ++i) {
      const char pair[3] = {hex[2 + 2 * i], hex[3 + 2 * i], 0};
      if (!std::isxdigit(static_cast<unsigned char>(pair[0])) || !std::isxdigit(static_cast<unsigned char>(pair[1]))) {
        return err("bad hex digit in data");
      }
      bytes[i] = static_cast<unsigned char>(std::strtoul(pair, nullptr, 16));
    }
    auto status = host.write(addr, bytes.data(), static_cast<unsigned>(size));
    if (status != tlm::TLM_OK_RESPONSE) return access_error("write", addr, status);
    return ok();
  }

  if (cmd == "read") {
    if (!args(2, 2)) return usage("read ADDR SIZE");
    std::uint64_t addr, size;
    if (!parse_number(w[1], addr)) return err("bad address '" + w[1] + "'");
    if (!parse_number(w[2], size) || size == 0 || size > kMaxTransferBytes) {
      return err("bad size '" + w[2] + "' (1.." + std::to_string(kMaxTransferBytes) + ")");
    }
    std::vector<unsigned char> bytes(size);
    auto status = host.read(addr, bytes.data(), static_cast<unsigned>(size));
    if (status != tlm::TLM_OK_RESPONSE) return access_error("read", addr, status);
    std::string out = "OK 0x";
    static const char kDigits[] = "0123456789abcdef";
    for (unsigned char b : bytes) {
      out += kDigits[b >> 4];
      out += kDigits[b & 15];
    }
    return ok(out);
  }

  if (cmd == "memset") {
    if (!args(3, 3)) return usage("memset ADDR SIZE BYTE");
    std::uint64_t addr, size, byte;
    if (!parse_number(w[1], addr)) return err("bad address '" + w[1] + "'");
    if (!parse_number(w[2], size)) return err("bad size '" + w[2] + "'");
    if (!parse_number(w[3], byte) || byte > 0xFF) return err("bad byte '" + w[3] + "'");
    if (size > kMaxMemsetBytes) {
      return err("memset of " + w[2] + " bytes: more than the protocol's " + std::to_string(kMaxMemsetBytes >> 30) +
                 " GiB per command");
    }
    // Chunked into page-sized bursts as a CPU's copy loop would issue them.
    std::vector<unsigned char> chunk(4096, static_cast<unsigned char>(byte));
    for (std::uint64_t done = 0; done < size;) {
      const auto n = static_cast<unsigned>(std::min<std::uint64_t>(chunk.size(), size - done));
      auto status = host.write(addr + done, chunk.data(), n);
      if (status != tlm::TLM_OK_RESPONSE) return access_error("memset", addr + done, status);
      done += n;
    }
    return ok();
  }

  if (cmd == "load") {
    if (!args(2, 2)) return usage("load ADDR FILE");
    std::uint64_t addr;
    if (!parse_number(w[1], addr)) return err("bad address '" + w[1] + "'");
    std::string path = w[2];
    if (!base_dir_.empty() && path[0] != '/') path = base_dir_ + "/" + path;
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
      return err("file '" + path + "' is not a regular file");  // a directory, a device such as /dev/zero
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) return err("cannot read file '" + path + "'");
    std::vector<unsigned char> chunk(4096);
    std::uint64_t done = 0;
    while (file) {
      file.read(reinterpret_cast<char*>(chunk.data()), static_cast<std::streamsize>(chunk.size()));
      const auto n = static_cast<unsigned>(file.gcount());
      if (n == 0) break;
      auto status = host.write(addr + done, chunk.data(), n);
      if (status != tlm::TLM_OK_RESPONSE) return access_error("load", addr + done, status);
      done += n;
    }
    return ok();
  }

  if (cmd == "dump_png") {
    if (!args(5, 6)) return usage("dump_png ADDR FORMAT WIDTH HEIGHT [STRIDE] FILE");
    std::uint64_t addr;
    if (!parse_number(w[1], addr)) return err("bad address '" + w[1] + "'");
    FramebufferImage image;
    if (!parse_framebuffer_format(w[2], image)) {
      return err("unknown format '" + w[2] + "' (" + kFramebufferFormatNames + ")");
    }
    const std::string max_side = std::to_string(vc4::kMaxSurfaceSide);
    std::uint64_t width, height;
    if (!parse_number(w[3], width) || width == 0 || width > vc4::kMaxSurfaceSide) {
      return err("bad width '" + w[3] + "' (1.." + max_side + ", the largest vc4 surface)");
    }
    if (!parse_number(w[4], height) || height == 0 || height > vc4::kMaxSurfaceSide) {
      return err("bad height '" + w[4] + "' (1.." + max_side + ", the largest vc4 surface)");
    }
    image.width = static_cast<std::uint32_t>(width);
    image.height = static_cast<std::uint32_t>(height);
    if (w.size() == 7) {
      if (!parse_number(w[5], image.stride) || image.stride == 0) return err("bad stride '" + w[5] + "'");
    }
    if (std::string why = check_framebuffer(image); !why.empty()) return err(why);
    const std::uint64_t span = framebuffer_span(image);
    if (addr > ~0ULL - span || platform_.memory_map().find(addr, span) == nullptr) {
      return err("the " + describe_framebuffer(image) + " image at " + core::format_hex(addr) + " (" +
                 std::to_string(span) + " bytes) is not inside DRAM");
    }
    std::string path = w.back();
    if (!base_dir_.empty() && path[0] != '/') path = base_dir_ + "/" + path;
    // Debug reads: the picture is an observation, not a CPU's accesses, and takes no simulated time.
    const std::string why = write_framebuffer_png(
        image,
        [&](std::uint64_t offset, std::uint8_t* data, std::size_t len) {
          return platform_.debug_read_dram(addr + offset, data, len);
        },
        path);
    if (!why.empty()) return err(why);
    return ok();
  }

  if (cmd == "clock_step") {
    if (!args(0, 1)) return usage("clock_step [NS]");
    core::Picoseconds step;
    if (w.size() == 2) {
      std::uint64_t ns;
      if (!parse_number(w[1], ns) || ns > (~0ULL) / core::kPsPerNs) return err("bad time '" + w[1] + "'");
      step = ns * core::kPsPerNs;
      // SystemC's time ends at 2^64 - 1 ps (about 213 days at its 1 ps resolution): a step past it would not move.
      const core::Picoseconds now = core::now_ps();
      if (step > core::to_ps(sc_core::sc_max_time()) - now) {
        return err("clock_step of " + w[1] + " ns goes past the end of simulated time (2^64 - 1 ps, at " +
                   ns_text(now) + " ns now)");
      }
    } else {
      // Without an argument: to the next scheduled activity of the model, or one quantum if nothing is scheduled.
      step = sc_core::sc_pending_activity_at_future_time() ? core::to_ps(sc_core::sc_time_to_pending_activity())
                                                           : std::max<core::Picoseconds>(core::global_quantum_ps(), 1);
    }
    host.sync();
    if (step) sc_core::wait(core::to_sc_time(step));
    return ok("OK " + ns_text(core::now_ps()));
  }

  if (cmd == "irq_wait") {
    if (!args(2, 2)) return usage("irq_wait LINE TIMEOUT_NS");
    core::InterruptLine* line = platform_.find_irq(w[1]);
    if (line == nullptr) return err("no interrupt line '" + w[1] + "'");
    std::uint64_t timeout_ns;
    if (!parse_number(w[2], timeout_ns) || timeout_ns > (~0ULL) / core::kPsPerNs) {
      return err("bad timeout '" + w[2] + "'");
    }
    if (!core::wait_for_interrupt(host, *line, timeout_ns * core::kPsPerNs)) {
      return err("timeout: interrupt line " + line->name() + " not raised within " + w[2] + " ns");
    }
    return ok("OK " + ns_text(core::now_ps()));
  }

  if (cmd == "stats_begin" || cmd == "stats_end") {
    if (!args(1, 1)) return usage(cmd == "stats_begin" ? "stats_begin NAME" : "stats_end NAME");
    const std::string& name = w[1];
    const bool valid = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
    if (!valid) return err("bad region name '" + name + "' (letters, digits, _ - .)");
    // At the host's own time: what the model did up to the command that marks the region.
    host.sync();
    const core::Picoseconds now = core::now_ps();
    const auto it = std::find_if(open_regions_.begin(), open_regions_.end(),
                                 [&](const auto& region) { return region.first == name; });
    if (cmd == "stats_begin") {
      if (it != open_regions_.end()) return err("region '" + name + "' is already open");
      open_regions_.emplace_back(name, core::stats().snapshot(now));
      return ok("OK " + ns_text(now));
    }
    if (it == open_regions_.end()) return err("no open region '" + name + "'");
    regions_.push_back({{"name", name},
                        {"begin_ps", it->second.at_ps},
                        {"end_ps", now},
                        {"stats", core::stats().since(it->second, now)}});
    open_regions_.erase(it);
    return ok("OK " + ns_text(now));
  }

  if (cmd == "irq_intercept_in") {
    if (!args(0, 0)) return usage("irq_intercept_in");
    return intercept_irqs();
  }

  return err("unknown command '" + cmd + "'");
}

nlohmann::json ScriptInterpreter::regions(core::Picoseconds end) const {
  nlohmann::json all = regions_;
  for (const auto& [name, from] : open_regions_) {
    all.push_back({{"name", name},
                   {"begin_ps", from.at_ps},
                   {"end_ps", end},
                   {"open_at_end", true},
                   {"stats", core::stats().since(from, end)}});
  }
  return all;
}

ScriptAnswer ScriptInterpreter::intercept_irqs() {
  // QEMU's qtest intercepts the inputs of the device named by a QOM path; here the one interrupt controller the
  // protocol sees is the host CPU's, so the command takes no path and covers every host line. Idempotent.
  if (intercepting_) return ok();
  intercepting_ = true;
  const auto& lines = platform_.host_irqs();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    lines[i].second->on_change([this, i](bool level) {
      if (notice_) notice_(std::string("IRQ ") + (level ? "raise " : "lower ") + std::to_string(i));
    });
  }
  return ok();
}

}  // namespace gpuvp::platform
