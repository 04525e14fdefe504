#include "tlm/gen/ring_pointer.h"

#include <map>
#include <stdexcept>

// Register semantics (docs/gen-command-streamer.md; i915 gt/intel_engine_regs.h, gt/intel_ring.h):
//   RING_CTL  bit 0 RING_VALID, bits 20:12 RING_NR_PAGES = pages - 1, RING_CTL_SIZE(size) = size - PAGE_SIZE
//   RING_HEAD bits 20:2 HEAD_ADDR, bits 31:21 HEAD_WRAP_COUNT, HEAD_WRAP_ONE = 0x200000
//   RING_TAIL bits 20:3 TAIL_ADDR
//   (LNX drivers/gpu/drm/i915/gt/intel_engine_regs.h, same values in the older i915_reg.h copies)
//   driver free space = (head - tail - CACHELINE_BYTES) & (size - 1)
//   (LNX drivers/gpu/drm/i915/gt/intel_ring.h __intel_ring_space; CACHELINE_BYTES = 64)
//
// Every operation below is a pure function of the four registers and its argument, so an RTL implementation can be
// checked against it event by event. Defined corner cases (not reachable by a correct i915, but reachable by a buggy
// guest or a fuzzer, so the model and the RTL must agree on them):
//   * The size field may encode any page count 1..512, not only powers of two (i915 only programs powers of two:
//     intel_ring.h GEM_BUG_ON(!is_power_of_2(size))). The ring arithmetic of this model (consume, bytes_available,
//     head_address) is modulo size_bytes() for any page count; driver_space() is the driver's formula verbatim and
//     is only meaningful for power-of-two sizes.
//   * HEAD or TAIL offsets at or beyond the ring size (software wrote them, or the size was reduced afterwards) are
//     taken modulo the size by the hardware-side operations (consume, bytes_available, head_address). The registers
//     themselves keep the value software wrote until hardware next advances HEAD. empty() is bytes_available() == 0
//     (offsets compared modulo the size), so HEAD = 0, TAIL = size is empty.
//   * consume() does not check against bytes_available(): the hardware-model fetches where HEAD points, so
//     consuming past TAIL simply moves HEAD past TAIL (the ring then holds size - overrun bytes again, as real
//     hardware executing stale ring contents would). HEAD always advances modulo the size and the wrap count is
//     incremented once for every crossing of the ring end, modulo 2048 (11 bits).
//   * consume() of a byte count that is not a multiple of 4 drops the low two bits (HEAD_ADDR cannot hold them).
//   rtl/ring_ptr.sv implements the same rules (its consume port is 32 bits wide, with a page-granular divider for
//   the laps); tb/crosscheck compares the two cycle by cycle.

namespace gpuvp::gen {

namespace {
// RING_CTL bits this model keeps. The report-usage (2:1) and wait status (10, 11) bits are not modelled: the header
// defines only RING_VALID and the size field, so a write drops the rest.
constexpr std::uint32_t kCtlWritable = RingPointer::kCtlEnable | RingPointer::kCtlSizeMask;
constexpr std::uint32_t kHeadWritable = RingPointer::kHeadAddrMask | RingPointer::kHeadWrapMask;

// x modulo size for the (common) case x < 2 * size without a division; falls back to % otherwise.
inline std::uint32_t reduce(std::uint32_t x, std::uint32_t size) {
  if (x < size) return x;
  x -= size;
  return x < size ? x : x % size;
}
}  // namespace

void RingPointer::reset() {
  start_ = 0;
  ctl_ = 0;
  head_ = 0;
  tail_ = 0;
}

void RingPointer::write_start(std::uint32_t value) { start_ = value & kStartAddrMask; }

void RingPointer::write_ctl(std::uint32_t value) { ctl_ = value & kCtlWritable; }

void RingPointer::write_head(std::uint32_t value) { head_ = value & kHeadWritable; }

void RingPointer::write_tail(std::uint32_t value) { tail_ = value & kTailAddrMask; }

bool RingPointer::consume(std::uint32_t bytes) {
  const std::uint32_t size = size_bytes();  // 4096 .. 2 MiB, a multiple of 4096
  const std::uint32_t head = reduce(head_offset(), size);
  // 64-bit sum: bytes may be any 32-bit value (contract violation), the sum must not overflow.
  const std::uint64_t sum = std::uint64_t{head} + (bytes & ~3u);
  std::uint32_t new_head;
  std::uint32_t wraps;
  if (sum < size) {  // the per-command path: no wrap
    new_head = static_cast<std::uint32_t>(sum);
    wraps = 0;
  } else if (sum < 2ull * size) {  // the normal wrap: at most one crossing when bytes <= bytes_available()
    new_head = static_cast<std::uint32_t>(sum - size);
    wraps = 1;
  } else {  // consume far beyond available: one wrap per crossing of the end
    new_head = static_cast<std::uint32_t>(sum % size);
    wraps = static_cast<std::uint32_t>(sum / size);
  }
  // The wrap count occupies bits 31:21: adding wraps * HEAD_WRAP_ONE in 32-bit arithmetic wraps it modulo 2048.
  const std::uint32_t wrap_field = (head_ & kHeadWrapMask) + wraps * kHeadWrapOne;
  head_ = wrap_field | new_head;  // new_head < size <= 2 MiB and dword aligned: fits HEAD_ADDR exactly
  return wraps != 0;
}

std::uint32_t RingPointer::bytes_available() const {
  const std::uint32_t size = size_bytes();
  const std::uint32_t head = reduce(head_offset(), size);
  const std::uint32_t tail = reduce(tail_offset(), size);
  return tail >= head ? tail - head : tail + size - head;
}

std::uint32_t RingPointer::driver_space() const {
  // Verbatim __intel_ring_space(head, tail, size) on the register offsets (unsigned 32-bit arithmetic).
  return (head_offset() - tail_offset() - kCachelineBytes) & (size_bytes() - 1);
}

namespace {
struct ModelRegistry {
  std::map<std::string, RingPointerModelFactory> factories;
  std::string default_model = "tlm";
};
ModelRegistry& registry() {
  static ModelRegistry r;
  return r;
}
}  // namespace

void register_ring_pointer_model(const std::string& name, RingPointerModelFactory factory) {
  if (name == "tlm") throw std::invalid_argument("ring model 'tlm' is built in");
  registry().factories[name] = factory;
}

std::unique_ptr<RingPointerModel> make_ring_pointer_model(const std::string& name) {
  if (name == "tlm") return nullptr;
  const auto it = registry().factories.find(name);
  if (it == registry().factories.end()) {
    throw std::invalid_argument("ring model '" + name + "' is not available in this program");
  }
  return it->second();
}

const std::string& default_ring_model() { return registry().default_model; }
void set_default_ring_model(const std::string& name) { registry().default_model = name; }

}  // namespace gpuvp::gen
