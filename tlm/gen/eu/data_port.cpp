#include "tlm/gen/eu/data_port.h"

#include <algorithm>
#include <cstring>

#include "tlm/core/format_hex.h"

namespace gpuvp::gen::eu {

namespace {

// Descriptor fields (Mesa brw_eu.h brw_dp_desc, gen8+): 7:0 BTI, 13:8 message control, 18:14 message type.
std::uint32_t bti_of(std::uint32_t desc) { return desc & 0xFFU; }
std::uint32_t control_of(std::uint32_t desc) { return (desc >> 8) & 0x3FU; }
std::uint32_t type_of(std::uint32_t desc) { return (desc >> 14) & 0x1FU; }

// DC0 message types (Mesa brw_eu_defines.h GFX7_DATAPORT_DC_*).
constexpr std::uint32_t kDc0OwordBlockRead = 0;
constexpr std::uint32_t kDc0UnalignedOwordBlockRead = 1;
constexpr std::uint32_t kDc0DwordScatteredRead = 3;
constexpr std::uint32_t kDc0ByteScatteredRead = 4;
constexpr std::uint32_t kDc0MemoryFence = 7;
constexpr std::uint32_t kDc0OwordBlockWrite = 8;
constexpr std::uint32_t kDc0DwordScatteredWrite = 11;
constexpr std::uint32_t kDc0ByteScatteredWrite = 12;
// DC1 message types (Mesa HSW_DATAPORT_DC_PORT1_*, GFX8/GFX9_DATAPORT_DC_PORT1_A64_*).
constexpr std::uint32_t kDc1UntypedRead = 1;
constexpr std::uint32_t kDc1UntypedAtomic = 2;
constexpr std::uint32_t kDc1UntypedWrite = 9;
constexpr std::uint32_t kDc1A64ScatteredRead = 0x10;
constexpr std::uint32_t kDc1A64UntypedRead = 0x11;
constexpr std::uint32_t kDc1A64UntypedAtomic = 0x12;
constexpr std::uint32_t kDc1A64OwordBlockRead = 0x14;
constexpr std::uint32_t kDc1A64OwordBlockWrite = 0x15;
constexpr std::uint32_t kDc1A64UntypedWrite = 0x19;
constexpr std::uint32_t kDc1A64ScatteredWrite = 0x1A;

// OWord block sizes (message control 2:0; Mesa BRW_DATAPORT_OWORD_BLOCK_*): 1 OW low/high half, 2, 4, 8 OWords.
unsigned oword_block_bytes(std::uint32_t control, bool& high_half) {
  high_half = (control & 7U) == 1;
  switch (control & 7U) {
    case 0:
    case 1:
      return 16;
    case 2:
      return 32;
    case 3:
      return 64;
    case 4:
      return 128;
    default:
      return 0;
  }
}

// BRW_AOP_* on 32- or 64-bit values; src1 is the second operand of CMPWR. Returns the new value.
template <typename T>
T atomic_op(std::uint32_t op, T old, T src0, T src1) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case 1:
      return old & src0;
    case 2:
      return old | src0;
    case 3:
      return old ^ src0;
    case 4:
      return src0;
    case 5:
      return old + 1;
    case 6:
    case 15:
      return old - 1;
    case 7:
      return old + src0;
    case 8:
      return old - src0;
    case 9:
      return src0 - old;
    case 10:
      return static_cast<T>(std::max(static_cast<S>(old), static_cast<S>(src0)));
    case 11:
      return static_cast<T>(std::min(static_cast<S>(old), static_cast<S>(src0)));
    case 12:
      return std::max(old, src0);
    case 13:
      return std::min(old, src0);
    case 14:
      return old == src0 ? src1 : old;
    default:
      return old;
  }
}

// Operands an atomic op takes from the payload (Mesa brw_fs_nir: INC/DEC/PREDEC none, CMPWR two).
// Shared local memory takes an address modulo the 64 KiB a Gen9 subslice holds: IGC 1.0.12504 sets bit 28 in the
// addresses of __local pointers (its Gen9 code ORs 0x10000000 into every SLM message address of a kernel with a
// __local argument), which the hardware must ignore for that code to work.
std::uint64_t slm_offset(std::uint64_t address) { return address & 0xFFFFU; }

unsigned atomic_operands(std::uint32_t op) {
  if (op == 5 || op == 6 || op == 15) return 0;
  return op == 14 ? 2 : 1;
}

}  // namespace

// The 64-byte lines one message touches, in the order its lanes first touch them, with the bytes they read (one
// range per line: what the line's read request returns) and write (a byte mask: only written bytes go back).
class DataPort::Lines {
 public:
  static constexpr unsigned kLineBytes = 64;

  void clear() {
    lines_.clear();
    last_ = 0;
  }
  // Planning: an access of `bytes` at `address` (it may cross a line boundary).
  void note(std::uint64_t address, unsigned bytes, bool write) {
    segments(address, bytes, [&](Line& l, unsigned offset, unsigned n) {
      if (write) {
        l.written |= mask(offset, n);
      } else {
        l.read_lo = std::min(l.read_lo, offset);
        l.read_hi = std::max(l.read_hi, offset + n);
      }
    });
  }
  // Reads every line's requested bytes; false on a memory fault.
  bool fetch(GpuMemory& memory, DataPortStats& stats) {
    for (Line& l : lines_) {
      if (l.read_hi <= l.read_lo) continue;
      if (!memory.read(l.base + l.read_lo, l.data + l.read_lo, l.read_hi - l.read_lo)) return false;
      ++stats.lines_read;
    }
    return true;
  }
  // Executing: the lanes' bytes, from and into the lines (a later lane sees an earlier lane's write, as atomics on
  // one address need).
  void load(std::uint64_t address, std::uint8_t* out, unsigned bytes) {
    segments(address, bytes, [&](Line& l, unsigned offset, unsigned n) {
      std::memcpy(out, l.data + offset, n);
      out += n;
    });
  }
  void store(std::uint64_t address, const std::uint8_t* in, unsigned bytes) {
    segments(address, bytes, [&](Line& l, unsigned offset, unsigned n) {
      std::memcpy(l.data + offset, in, n);
      in += n;
    });
  }
  // Notes each line in `log` (the EU array's memory timing).
  void log_to(MemoryLog& log) const {
    for (const Line& l : lines_) {
      std::uint8_t flags = 0;
      if (l.read_hi > l.read_lo) flags |= MemoryLine::kRead;
      if (l.written != 0) flags |= MemoryLine::kWrite;
      if (flags != 0) log.lines.push_back({l.base, flags});
    }
  }
  // Writes each run of written bytes back; false on a memory fault.
  bool flush(GpuMemory& memory, DataPortStats& stats) {
    for (Line& l : lines_) {
      if (l.written == 0) continue;
      ++stats.lines_written;
      unsigned i = 0;
      while (i < kLineBytes) {
        if (((l.written >> i) & 1U) == 0) {
          ++i;
          continue;
        }
        unsigned end = i;
        while (end < kLineBytes && ((l.written >> end) & 1U) != 0) ++end;
        if (!memory.write(l.base + i, l.data + i, end - i)) return false;
        i = end;
      }
    }
    return true;
  }

 private:
  struct Line {
    std::uint64_t base = 0;
    std::uint64_t written = 0;  // bit i: byte i was written
    unsigned read_lo = kLineBytes, read_hi = 0;
    std::uint8_t data[kLineBytes] = {};
  };
  static std::uint64_t mask(unsigned offset, unsigned n) { return (n >= 64 ? ~0ULL : (1ULL << n) - 1) << offset; }
  Line& line(std::uint64_t base) {
    if (last_ < lines_.size() && lines_[last_].base == base) return lines_[last_];
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].base == base) {
        last_ = i;
        return lines_[i];
      }
    }
    last_ = lines_.size();
    lines_.emplace_back();
    lines_.back().base = base;
    return lines_.back();
  }
  // Calls f(line, offset in it, bytes) for each line part of [address, address + bytes), in address order (modulo
  // 2^64, as the lanes' addresses wrap).
  template <typename F>
  void segments(std::uint64_t address, unsigned bytes, F f) {
    while (bytes > 0) {
      const auto offset = static_cast<unsigned>(address % kLineBytes);
      const unsigned n = std::min(bytes, kLineBytes - offset);
      f(line(address - offset), offset, n);
      address += n;
      bytes -= n;
    }
  }

  std::vector<Line> lines_;
  std::size_t last_ = 0;  // the line found last: lanes mostly touch the same line as the lane before
};

// One message: its payload and response registers, its lanes, and memory through a surface.
class DataPort::Access {
 public:
  Access(DataPort& port, const Message& m, ThreadState& t, Lines& lines, bool planning)
      : port_(port), m_(m), t_(t), lines_(lines), planning_(planning) {}

  // The planning run notes the memory accesses only; the executing run counts statistics.
  bool executing() const { return !planning_; }

  unsigned payload_length() const { return m_.message_length() + (m_.split ? (m_.ex_desc >> 6) & 0xFU : 0); }
  // Payload register i (0-based across both parts of a split send), or -1 past the payload.
  int payload_reg(unsigned i) const {
    const unsigned first = m_.message_length();
    if (i < first) return static_cast<int>(m_.payload_reg + i);
    if (m_.split && i - first < ((m_.ex_desc >> 6) & 0xFU)) return static_cast<int>(m_.payload1_reg + i - first);
    return -1;
  }
  bool need_payload(unsigned grfs, std::string& error) const {
    if (payload_length() >= grfs) return true;
    error = "message length " + std::to_string(payload_length()) + " is shorter than the " + std::to_string(grfs) +
            " registers its type needs";
    return false;
  }
  bool need_response(unsigned grfs, std::string& error) const {
    if (m_.dst_null || m_.response_length() >= grfs) return true;
    error = "response length " + std::to_string(m_.response_length()) + " is shorter than the " + std::to_string(grfs) +
            " registers its type returns";
    return false;
  }
  std::uint32_t payload_dword(unsigned grf, unsigned dword) const {
    return t_.grf_read<std::uint32_t>(static_cast<unsigned>(payload_reg(grf)) * ThreadState::kRegBytes + dword * 4);
  }
  // Dword `lane` of a block of registers that starts at payload register `grf` (lane 8 is in the next register).
  std::uint32_t lane_dword(unsigned grf, unsigned lane) const { return payload_dword(grf + lane / 8, lane % 8); }
  std::uint64_t lane_qword(unsigned grf, unsigned lane) const {
    return std::uint64_t{payload_dword(grf + lane / 4, lane % 4 * 2 + 1)} << 32 |
           payload_dword(grf + lane / 4, lane % 4 * 2);
  }
  void respond_dword(unsigned grf, unsigned lane, std::uint32_t value) {
    if (m_.dst_null || planning_) return;
    t_.grf_write<std::uint32_t>((m_.dst_reg + grf + lane / 8) * ThreadState::kRegBytes + lane % 8 * 4, value);
  }
  void respond_bytes(unsigned byte_offset, const void* data, unsigned bytes) {
    if (m_.dst_null || planning_) return;
    std::memcpy(t_.grf.data() + m_.dst_reg * ThreadState::kRegBytes + byte_offset, data, bytes);
  }

  unsigned header() const { return m_.header_present() ? 1 : 0; }
  // Lanes of a SIMD8/16 message with the send's enabled channels.
  std::uint32_t lanes(unsigned simd) const { return m_.channel_mask & (simd >= 32 ? ~0U : (1U << simd) - 1); }

  // Reads/writes `bytes` at `offset` of a surface; out-of-bounds buffer bytes read 0 and writes are dropped. Memory
  // is the message's lines (read before, written after the executing run).
  void load(const Surface& s, std::uint64_t offset, void* out, unsigned bytes) {
    auto* p = static_cast<std::uint8_t*>(out);
    switch (s.kind) {
      case Surface::Kind::kNull:
        std::memset(p, 0, bytes);
        return;
      case Surface::Kind::kSlm: {
        std::vector<std::uint8_t>& slm = *port_.bindings_.slm;
        offset = slm_offset(offset);
        if (planning_) port_.note_slm(offset, bytes, false);
        for (unsigned i = 0; i < bytes; ++i) p[i] = offset + i < slm.size() ? slm[offset + i] : 0;
        if (offset + bytes > slm.size()) count_out_of_bounds();
        return;
      }
      case Surface::Kind::kBuffer:
        if (offset + bytes > s.size) {
          count_out_of_bounds();
          std::memset(p, 0, bytes);
          if (offset >= s.size) return;
          bytes = static_cast<unsigned>(s.size - offset);  // the part inside the buffer
        }
        break;
      case Surface::Kind::kStateless:
        break;
    }
    if (planning_) {
      lines_.note(s.base + offset, bytes, false);
      std::memset(p, 0, bytes);
    } else {
      port_.stats_.bytes_read += bytes;
      lines_.load(s.base + offset, p, bytes);
    }
  }
  void store(const Surface& s, std::uint64_t offset, const void* in, unsigned bytes) {
    const auto* p = static_cast<const std::uint8_t*>(in);
    switch (s.kind) {
      case Surface::Kind::kNull:
        return;
      case Surface::Kind::kSlm: {
        offset = slm_offset(offset);
        if (planning_) {
          port_.note_slm(offset, bytes, true);
          return;
        }
        std::vector<std::uint8_t>& slm = *port_.bindings_.slm;
        for (unsigned i = 0; i < bytes; ++i) {
          if (offset + i < slm.size()) slm[offset + i] = p[i];
        }
        if (offset + bytes > slm.size()) count_out_of_bounds();
        return;
      }
      case Surface::Kind::kBuffer:
        if (offset + bytes > s.size) {
          count_out_of_bounds();
          if (offset >= s.size) return;
          bytes = static_cast<unsigned>(s.size - offset);
        }
        break;
      case Surface::Kind::kStateless:
        break;
    }
    if (planning_) {
      lines_.note(s.base + offset, bytes, true);
    } else {
      port_.stats_.bytes_written += bytes;
      lines_.store(s.base + offset, p, bytes);
    }
  }

  // An OWord block of `bytes` at `address`: written from the payload after the header, or read into the response;
  // a single OWord travels in the low or high half of its register.
  MessageResult oword_block(const Surface& s, std::uint64_t address, unsigned bytes, bool high, bool write) {
    std::uint8_t data[128];
    const unsigned first = high ? 16 : 0;
    if (write) {
      for (unsigned i = 0; i < bytes; ++i) {
        const unsigned src = first + i;
        data[i] = t_.grf[payload_reg(1 + src / 32) * ThreadState::kRegBytes + src % 32];
      }
      store(s, address, data, bytes);
    } else {
      load(s, address, data, bytes);
      respond_bytes(first, data, bytes);
    }
    return {};
  }

  MessageResult fault_result() {
    port_.memory_faulted_ = true;
    return {MessageStatus::kError, "memory fault"};
  }

 private:
  void count_out_of_bounds() {
    if (!planning_) ++port_.stats_.out_of_bounds;
  }

  DataPort& port_;
  const Message& m_;
  ThreadState& t_;
  Lines& lines_;
  bool planning_;
};

DataPort::DataPort(GpuMemory& memory) : memory_(memory), lines_(std::make_unique<Lines>()) {}
DataPort::~DataPort() = default;

void DataPort::bind(const DataPortBindings& bindings) {
  bindings_ = bindings;
  surfaces_.clear();
}

// A binding table entry is the SSH-relative offset of a 64-byte RENDER_SURFACE_STATE (bits 31:6); a buffer's size
// is (Depth[10:0] << 21 | Height[13:0] << 7 | Width[6:0]) + 1 bytes (NEO hw_helper.h SURFACE_STATE_BUFFER_LENGTH;
// genxml gen9.xml field positions), its base address in DW8-9.
bool DataPort::surface(std::uint32_t bti, Surface& out, std::string& error) {
  if (bti == kBtiSlm) {
    if (bindings_.slm == nullptr || bindings_.slm->empty()) {
      error = "shared local memory (BTI 254) used by a kernel whose interface descriptor allocates none";
      return false;
    }
    out = Surface{Surface::Kind::kSlm, 0, bindings_.slm->size()};
    return true;
  }
  if (bti == kBtiStateless || bti == kBtiStatelessNonCoherent) {
    out = Surface{Surface::Kind::kStateless, bindings_.general_state_base, 0};
    return true;
  }
  if (bti >= 240) {
    error = "binding table index " + std::to_string(bti) + " (a special index) is not modelled";
    return false;
  }
  const auto cached = surfaces_.find(bti);
  if (cached != surfaces_.end()) {
    out = cached->second;
    return true;
  }
  std::uint32_t entry = 0;
  const std::uint64_t entry_address = bindings_.surface_state_base + bindings_.binding_table + 4ULL * bti;
  if (!memory_.read(entry_address, &entry, 4)) {
    memory_faulted_ = true;
    error = "memory fault reading binding table entry " + std::to_string(bti);
    return false;
  }
  std::uint32_t rss[16];
  if (!memory_.read(bindings_.surface_state_base + (entry & ~0x3FU), rss, sizeof rss)) {
    memory_faulted_ = true;
    error = "memory fault reading the surface state of binding table entry " + std::to_string(bti);
    return false;
  }
  const std::uint32_t type = rss[0] >> 29;
  Surface s;
  if (type == 7) {  // SURFTYPE_NULL: reads return 0, writes are dropped
    s.kind = Surface::Kind::kNull;
  } else if (type == 4) {  // SURFTYPE_BUFFER
    s.kind = Surface::Kind::kBuffer;
    s.size = ((std::uint64_t{rss[3] >> 21 & 0x7FFU} << 21) | (std::uint64_t{rss[2] >> 16 & 0x3FFFU} << 7) |
              (rss[2] & 0x7FU)) +
             1;
    s.base = (std::uint64_t{rss[9] & 0xFFFFU} << 32) | rss[8];
  } else {
    error = "binding table entry " + std::to_string(bti) + " is a surface of type " + std::to_string(type) +
            " (only buffer and null surfaces are modelled; images and the sampler come later)";
    return false;
  }
  surfaces_[bti] = s;
  out = s;
  return true;
}

MessageResult DataPort::send(const Message& message, ThreadState& thread) {
  ++stats_.messages;
  memory_faulted_ = false;
  if (message.sfid != 0xA && message.sfid != 0xC) {
    return {MessageStatus::kError, "shared function " + std::to_string(message.sfid) + " is not the data port"};
  }
  const auto run = [&](bool planning) {
    return message.sfid == 0xA ? dc0(message, thread, *lines_, planning) : dc1(message, thread, *lines_, planning);
  };
  lines_->clear();
  slm_lines_.clear();
  const std::uint64_t atomics_before = stats_.atomics;
  MessageResult result = run(true);
  if (result.status == MessageStatus::kError) return result;
  const auto fault = [&] {
    memory_faulted_ = true;
    return MessageResult{MessageStatus::kError, "memory fault"};
  };
  if (!lines_->fetch(memory_, stats_)) return fault();
  result = run(false);
  if (result.status == MessageStatus::kError) return result;
  if (!lines_->flush(memory_, stats_)) return fault();
  if (MemoryLog* log = thread.memory_log) {
    lines_->log_to(*log);
    log->lines.insert(log->lines.end(), slm_lines_.begin(), slm_lines_.end());
    log->pending_atomics = static_cast<std::uint16_t>(std::min<std::uint64_t>(stats_.atomics - atomics_before, 0xFFFF));
  }
  return result;
}

// SLM is banked and timed per 64-byte line like the L3's data port path (Junkins, Gen9, 5.5.2: 64 B/clk per subslice).
void DataPort::note_slm(std::uint64_t offset, unsigned bytes, bool write) {
  if (bytes == 0) return;
  const std::uint8_t flag = MemoryLine::kSlm | (write ? MemoryLine::kWrite : MemoryLine::kRead);
  for (std::uint64_t line = offset / 64; line <= (offset + bytes - 1) / 64; ++line) {
    bool found = false;
    for (MemoryLine& l : slm_lines_) {
      if (l.address != line * 64) continue;
      l.flags |= flag;
      found = true;
      break;
    }
    if (!found) slm_lines_.push_back({line * 64, flag});
  }
}

MessageResult DataPort::dc0(const Message& m, ThreadState& t, Lines& lines, bool planning) {
  Access a(*this, m, t, lines, planning);
  std::string error;
  const std::uint32_t control = control_of(m.desc);
  // Scratch block read/write (Mesa GFX7_DATAPORT_SCRATCH_*: desc bit 18 scratch, 17 write, 13:12 registers 1/2/-/4,
  // 11:0 offset in 32-byte units); the header's r0.5 carries the thread's scratch offset (bits 31:10), relative to
  // General State Base like stateless A32 accesses.
  if ((m.desc >> 18) & 1U) {
    const bool write = ((m.desc >> 17) & 1U) != 0;
    const unsigned regs = 1U << ((m.desc >> 12) & 3U);
    if (((m.desc >> 12) & 3U) == 2) return {MessageStatus::kError, "scratch block size 3 registers is reserved"};
    if (!m.header_present()) return {MessageStatus::kError, "scratch message without a header"};
    if (!a.need_payload(1 + (write ? regs : 0), error) || (!write && !a.need_response(regs, error))) {
      return {MessageStatus::kError, error};
    }
    const std::uint64_t base = (a.payload_dword(0, 5) & ~0x3FFU) + (m.desc & 0xFFFU) * 32ULL;
    const Surface s{Surface::Kind::kStateless, bindings_.general_state_base, 0};
    for (unsigned r = 0; r < regs; ++r) {
      std::uint8_t bytes[ThreadState::kRegBytes];
      if (write) {
        std::memcpy(bytes, t.grf.data() + a.payload_reg(1 + r) * ThreadState::kRegBytes, sizeof bytes);
        a.store(s, base + r * 32ULL, bytes, sizeof bytes);
      } else {
        a.load(s, base + r * 32ULL, bytes, sizeof bytes);
        a.respond_bytes(r * ThreadState::kRegBytes, bytes, sizeof bytes);
      }
    }
    return {};
  }
  const std::uint32_t type = type_of(m.desc);
  if (type == kDc0MemoryFence) {
    // Memory is coherent in the functional model: the fence completes at once; its response register (the commit
    // acknowledgement IGC waits on) is written with zeros.
    if (m.response_length() > 0 && !m.dst_null) {
      const std::uint8_t zeros[ThreadState::kRegBytes] = {};
      a.respond_bytes(0, zeros, sizeof zeros);
    }
    return {};
  }
  Surface s;
  if (!surface(bti_of(m.desc), s, error)) {
    return memory_faulted_ ? a.fault_result() : MessageResult{MessageStatus::kError, error};
  }
  switch (type) {
    case kDc0OwordBlockRead:
    case kDc0UnalignedOwordBlockRead:
    case kDc0OwordBlockWrite: {
      bool high = false;
      const unsigned bytes = oword_block_bytes(control, high);
      if (bytes == 0)
        return {MessageStatus::kError, "OWord block size " + std::to_string(control & 7U) + " is reserved"};
      if (!m.header_present()) return {MessageStatus::kError, "OWord block message without a header"};
      const bool write = type == kDc0OwordBlockWrite;
      const unsigned regs = std::max(1U, bytes / 32);
      if (!a.need_payload(1 + (write ? regs : 0), error) || (!write && !a.need_response(regs, error))) {
        return {MessageStatus::kError, error};
      }
      // Header DW2: the offset, in OWords for the aligned messages and in bytes for the unaligned read (Mesa
      // brw_oword_block_read_scratch divides by 16 on gen6+; IGC's unaligned reads put byte offsets there).
      const std::uint64_t offset =
          type == kDc0UnalignedOwordBlockRead ? a.payload_dword(0, 2) : std::uint64_t{a.payload_dword(0, 2)} * 16;
      return a.oword_block(s, offset, bytes, high, write);
    }
    case kDc0ByteScatteredRead:
    case kDc0ByteScatteredWrite:
    case kDc0DwordScatteredRead:
    case kDc0DwordScatteredWrite: {
      const bool dword = type == kDc0DwordScatteredRead || type == kDc0DwordScatteredWrite;
      const bool write = type == kDc0ByteScatteredWrite || type == kDc0DwordScatteredWrite;
      // Byte scattered: control bit 0 SIMD16, 3:2 data size 0/1/2 = 1/2/4 bytes. DWord scattered: 1:0 block size
      // 2 = 8 dwords, 3 = 16 dwords (Mesa brw_byte_scattered_*, GFX7_DATAPORT_DC_DWORD_SCATTERED_*).
      unsigned simd = 0;
      unsigned size = 4;
      if (dword) {
        if ((control & 3U) < 2)
          return {MessageStatus::kError,
                  "DWord scattered block size " + std::to_string(control & 3U) + " is not modelled"};
        simd = (control & 3U) == 3 ? 16 : 8;
      } else {
        simd = (control & 1U) ? 16 : 8;
        const unsigned ds = (control >> 2) & 3U;
        if (ds == 3) return {MessageStatus::kError, "byte scattered data size 3 is reserved"};
        size = 1U << ds;
      }
      const unsigned regs = simd / 8;
      const unsigned h = a.header();
      if (!a.need_payload(h + regs * (write ? 2 : 1), error) || (!write && !a.need_response(regs, error))) {
        return {MessageStatus::kError, error};
      }
      const std::uint32_t lanes = a.lanes(simd);
      for (unsigned lane = 0; lane < simd; ++lane) {
        if (((lanes >> lane) & 1U) == 0) continue;
        const std::uint64_t offset = a.lane_dword(h, lane);
        std::uint32_t value = 0;
        if (write) {
          value = a.lane_dword(h + regs, lane);
          a.store(s, offset, &value, size);
        } else {
          a.load(s, offset, &value, size);
          a.respond_dword(0, lane, value);
        }
      }
      return {};
    }
    default:
      return {MessageStatus::kError, "data cache (DC0) message type " + std::to_string(type) + " is not modelled"};
  }
}

MessageResult DataPort::dc1(const Message& m, ThreadState& t, Lines& lines, bool planning) {
  Access a(*this, m, t, lines, planning);
  std::string error;
  const std::uint32_t type = type_of(m.desc);
  const std::uint32_t control = control_of(m.desc);
  const bool a64 = type >= 0x10;
  Surface s;
  if (a64) {
    s = Surface{Surface::Kind::kStateless, 0, 0};  // A64: full 64-bit graphics addresses
  } else if (!surface(bti_of(m.desc), s, error)) {
    return memory_faulted_ ? a.fault_result() : MessageResult{MessageStatus::kError, error};
  }
  const unsigned h = a.header();
  switch (type) {
    case kDc1UntypedRead:
    case kDc1UntypedWrite:
    case kDc1A64UntypedRead:
    case kDc1A64UntypedWrite: {
      // Message control 3:0: channel *disable* mask (X, Y, Z, W); 5:4 SIMD mode 1 = SIMD16, 2 = SIMD8 (SIMD4x2 is
      // a vertex-shader form IGC does not use). Data is channel-major: each enabled channel's lanes in 1 (SIMD8) or
      // 2 (SIMD16) registers.
      const std::uint32_t mode = (control >> 4) & 3U;
      if (mode != 1 && mode != 2)
        return {MessageStatus::kError,
                "untyped surface SIMD mode " + std::to_string(mode) + " (SIMD4x2) is not modelled"};
      const unsigned simd = mode == 1 ? 16 : 8;
      const bool write = type == kDc1UntypedWrite || type == kDc1A64UntypedWrite;
      const unsigned channels = 4 - static_cast<unsigned>(__builtin_popcount(control & 0xFU));
      const unsigned address_regs = (a64 ? 2 : 1) * simd / 8;
      const unsigned data_regs = simd / 8;
      if (!a.need_payload(h + address_regs + (write ? channels * data_regs : 0), error) ||
          (!write && !a.need_response(channels * data_regs, error))) {
        return {MessageStatus::kError, error};
      }
      const std::uint32_t lanes = a.lanes(simd);
      for (unsigned lane = 0; lane < simd; ++lane) {
        if (((lanes >> lane) & 1U) == 0) continue;
        const std::uint64_t address = a64 ? a.lane_qword(h, lane) : a.lane_dword(h, lane);
        unsigned slot = 0;
        for (unsigned c = 0; c < 4; ++c) {
          if ((control >> c) & 1U) continue;
          std::uint32_t value = 0;
          if (write) {
            value = a.lane_dword(h + address_regs + slot * data_regs, lane);
            a.store(s, address + 4ULL * c, &value, 4);
          } else {
            a.load(s, address + 4ULL * c, &value, 4);
            a.respond_dword(slot * data_regs, lane, value);
          }
          ++slot;
        }
      }
      return {};
    }
    case kDc1A64ScatteredRead:
    case kDc1A64ScatteredWrite: {
      // Control 1:0 subtype (0 byte, 1 dword, 2 qword), 3:2 data size (bytes: 1/2/4 bytes per lane; dword/qword: 1,
      // 2, 4, 8 elements per lane), 4 SIMD16 (Mesa GFX8_A64_SCATTERED_SUBTYPE_*, brw_dp_a64_byte_scattered_rw_desc).
      const std::uint32_t subtype = control & 3U;
      const unsigned simd = (control & 0x10U) ? 16 : 8;
      const bool write = type == kDc1A64ScatteredWrite;
      unsigned element = 0;
      unsigned elements = 1;
      if (subtype == 0) {
        element = 1U << ((control >> 2) & 3U);
        if (element > 4) return {MessageStatus::kError, "A64 byte scattered data size 3 is reserved"};
      } else if (subtype == 1 || subtype == 2) {
        element = subtype == 1 ? 4 : 8;
        elements = 1U << ((control >> 2) & 3U);
      } else {
        return {MessageStatus::kError, "A64 scattered subtype 3 (hword) is not modelled"};
      }
      // Per element: SIMD8 one register of dwords (two of qwords), SIMD16 twice that; bytes travel in dword slots.
      const unsigned element_regs = simd / 8 * (element == 8 ? 2 : 1);
      const unsigned address_regs = 2 * simd / 8;
      if (!a.need_payload(h + address_regs + (write ? elements * element_regs : 0), error) ||
          (!write && !a.need_response(elements * element_regs, error))) {
        return {MessageStatus::kError, error};
      }
      const std::uint32_t lanes = a.lanes(simd);
      for (unsigned lane = 0; lane < simd; ++lane) {
        if (((lanes >> lane) & 1U) == 0) continue;
        const std::uint64_t address = a.lane_qword(h, lane);
        for (unsigned e = 0; e < elements; ++e) {
          const unsigned reg = e * element_regs;
          if (element == 8) {
            std::uint64_t value = 0;
            if (write) {
              value = a.lane_qword(h + address_regs + reg, lane);
              a.store(s, address + 8ULL * e, &value, 8);
            } else {
              a.load(s, address + 8ULL * e, &value, 8);
              a.respond_bytes((reg + lane / 4) * ThreadState::kRegBytes + lane % 4 * 8, &value, 8);
            }
          } else {
            std::uint32_t value = 0;
            if (write) {
              value = a.lane_dword(h + address_regs + reg, lane);
              a.store(s, address + std::uint64_t{element} * e, &value, element);
            } else {
              a.load(s, address + std::uint64_t{element} * e, &value, element);
              a.respond_dword(reg, lane, value);
            }
          }
        }
      }
      return {};
    }
    case kDc1UntypedAtomic:
    case kDc1A64UntypedAtomic: {
      // Untyped: control 3:0 op, 4 SIMD8 (else SIMD16), 5 return data. A64: SIMD8 only, 4 = 64-bit operands,
      // 5 = return data (Mesa brw_dp_untyped_atomic_desc, brw_dp_a64_untyped_atomic_desc).
      const std::uint32_t op = control & 0xFU;
      if (op == 0) return {MessageStatus::kError, "atomic operation 0 is reserved"};
      const bool ret = (control & 0x20U) != 0;
      const bool wide = a64 && (control & 0x10U) != 0;
      const unsigned simd = a64 || (control & 0x10U) ? 8 : 16;
      const unsigned address_regs = (a64 ? 2 : 1) * simd / 8;
      const unsigned data_regs = simd / 8 * (wide ? 2 : 1);
      const unsigned operands = atomic_operands(op);
      if (!a.need_payload(h + address_regs + operands * data_regs, error) ||
          (ret && !a.need_response(data_regs, error))) {
        return {MessageStatus::kError, error};
      }
      const std::uint32_t lanes = a.lanes(simd);
      for (unsigned lane = 0; lane < simd; ++lane) {
        if (((lanes >> lane) & 1U) == 0) continue;
        const std::uint64_t address = a64 ? a.lane_qword(h, lane) : a.lane_dword(h, lane);
        if (a.executing()) ++stats_.atomics;
        if (wide) {
          std::uint64_t old = 0;
          a.load(s, address, &old, 8);
          const std::uint64_t src0 = operands > 0 ? a.lane_qword(h + address_regs, lane) : 0;
          const std::uint64_t src1 = operands > 1 ? a.lane_qword(h + address_regs + data_regs, lane) : 0;
          const std::uint64_t value = atomic_op<std::uint64_t>(op, old, src0, src1);
          a.store(s, address, &value, 8);
          if (ret) a.respond_bytes((lane / 4) * ThreadState::kRegBytes + lane % 4 * 8, &old, 8);
        } else {
          std::uint32_t old = 0;
          a.load(s, address, &old, 4);
          const std::uint32_t src0 = operands > 0 ? a.lane_dword(h + address_regs, lane) : 0;
          const std::uint32_t src1 = operands > 1 ? a.lane_dword(h + address_regs + data_regs, lane) : 0;
          const std::uint32_t value = atomic_op<std::uint32_t>(op, old, src0, src1);
          a.store(s, address, &value, 4);
          if (ret) a.respond_dword(0, lane, old);
        }
      }
      return {};
    }
    case kDc1A64OwordBlockRead:
    case kDc1A64OwordBlockWrite: {
      // Header QW0: the 64-bit address; control 2:0 block size as DC0's OWord blocks.
      bool high = false;
      const unsigned bytes = oword_block_bytes(control, high);
      if (bytes == 0)
        return {MessageStatus::kError, "OWord block size " + std::to_string(control & 7U) + " is reserved"};
      const bool write = type == kDc1A64OwordBlockWrite;
      const unsigned regs = std::max(1U, bytes / 32);
      if (!a.need_payload(1 + (write ? regs : 0), error) || (!write && !a.need_response(regs, error))) {
        return {MessageStatus::kError, error};
      }
      const std::uint64_t address = std::uint64_t{a.payload_dword(0, 1)} << 32 | a.payload_dword(0, 0);
      return a.oword_block(s, address, bytes, high, write);
    }
    default:
      return {MessageStatus::kError, "data cache (DC1) message type " + core::format_hex(type) +
                                         " is not modelled (typed surfaces, media block and float atomics come later)"};
  }
}

}  // namespace gpuvp::gen::eu
