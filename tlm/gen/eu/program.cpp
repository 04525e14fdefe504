#include "tlm/gen/eu/program.h"

#include <algorithm>
#include <array>

#include "tlm/core/format_hex.h"

namespace gpuvp::gen::eu {

bool BufferInstructionMemory::read(std::uint64_t address, std::uint8_t* out, std::size_t bytes) {
  if (address < base_ || address - base_ > bytes_.size() || bytes_.size() - (address - base_) < bytes) return false;
  std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(address - base_), bytes, out);
  return true;
}

Program::Program(InstructionMemory& memory, std::uint64_t kernel_address, Generation gen, std::uint32_t max_bytes)
    : memory_(memory),
      kernel_address_(kernel_address),
      instruction_base_(kernel_address),
      gen_(gen),
      max_bytes_(max_bytes) {}

const ExecInstruction& Program::decode_at(std::uint32_t pc) {
  ExecInstruction& x = instructions_.emplace_back();
  x.pc = pc;
  const std::uint64_t address = kernel_address_ + pc;
  std::array<std::uint8_t, 16> bytes{};
  if (pc % 8 != 0) {
    x.error = "instruction pointer " + core::format_hex(pc) + " is not 8-byte aligned";
  } else if (pc >= max_bytes_) {
    x.error = "instruction pointer " + core::format_hex(pc) + " beyond the kernel limit of " +
              core::format_hex(max_bytes_) + " bytes";
  } else if (!memory_.read(address, bytes.data(), 8)) {
    x.error = "instruction fetch fault at " + core::format_hex(address, 8);
  } else {
    const bool compacted = (bytes[3] & 0x20U) != 0;  // bit 29, CmptCtrl
    x.length = compacted ? 8 : 16;
    if (!compacted && !memory_.read(address + 8, bytes.data() + 8, 8)) {
      x.error = "instruction fetch fault at " + core::format_hex(address + 8, 8);
    } else {
      DecodeResult r = decode(bytes.data(), gen_);
      if (auto* d = std::get_if<DecodedInstruction>(&r)) {
        x.inst = *d;
        x.timing = timing_of(x.inst);
        if (fast_paths_enabled()) x.fast = plan_fast_op(x.inst);
      } else {
        x.error = "decode error at " + core::format_hex(pc) + ": " + std::get<DecodeError>(r).reason;
      }
    }
  }
  // Only aligned, in-range offsets are cached; others fault each time they are reached (they never are in a
  // well-formed kernel).
  if (pc % 8 == 0 && pc < max_bytes_) {
    const std::size_t slot = pc / 8;
    if (slots_.size() <= slot) slots_.resize(slot + 1, nullptr);
    slots_[slot] = &x;
  }
  return x;
}

std::shared_ptr<Program> DecodeCache::program(std::uint64_t kernel_address, Generation gen) {
  auto& entry = programs_[{kernel_address, gen}];
  if (entry) {
    ++hits_;
  } else {
    ++misses_;
    entry = std::make_shared<Program>(memory_, kernel_address, gen);
  }
  return entry;
}

void DecodeCache::invalidate() {
  ++invalidations_;
  programs_.clear();
}

}  // namespace gpuvp::gen::eu
