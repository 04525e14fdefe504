// A small GPGPU host driver model (the project's own, in the shape of NEO's Gen9 dispatch): it lays a kernel, its
// interface descriptor, binding table and buffer surface states and its thread payload out in heaps, and emits the
// command sequence NEO emits (PIPELINE_SELECT, STATE_BASE_ADDRESS, MEDIA_VFE_STATE, MEDIA_INTERFACE_DESCRIPTOR_LOAD,
// GPGPU_WALKER, MEDIA_STATE_FLUSH, PIPE_CONTROL) into a legacy ring. Addresses are GGTT addresses (no PPGTT).
// Payload layout: reference-eu-opencl.md §2 (IGC's indirect payload on Gen9): r0 header, per-thread local IDs, then
// the cross-thread data.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tb/host/i915_driver.h"

namespace gpuvp::host {

struct GpgpuKernel {
  std::vector<std::uint8_t> instructions;
  unsigned simd = 16;  // 8, 16 or 32
  std::array<std::uint32_t, 3> local_size{16, 1, 1};
  std::array<std::uint32_t, 3> groups{1, 1, 1};
  std::vector<std::uint8_t> cross_thread;    // padded to whole registers
  std::vector<I915Driver::Buffer> surfaces;  // binding table entry i
  std::vector<std::uint64_t> surface_bytes;  // each surface's size (0: the buffer's size)
  std::uint32_t slm_bytes = 0;
  bool barrier = false;
  std::uint32_t per_thread_scratch = 0;  // MEDIA_VFE_STATE code (1 KiB << n), with a scratch buffer if used
  bool program_l3 = true;                // LRI L3CNTLREG as NEO does (false leaves it as it is: error tests)
};

class GpgpuDriver {
 public:
  explicit GpgpuDriver(I915Driver& driver);

  // Bytes of the one GGTT buffer that holds a dispatch's heaps (instructions, dynamic and surface state, payload).
  static constexpr std::uint64_t kHeapBytes = 0x40000;

  // Lays the dispatch out in fresh heaps and emits its commands; submit and wait with the I915Driver.
  void dispatch(I915Driver::Ring& ring, const GpgpuKernel& kernel);
  // The same in heaps the caller owns (kHeapBytes, from I915Driver::alloc), reused once the dispatch that last used
  // them completed, as NEO recycles its heaps: the driver model never frees memory, so a long-running workload
  // (tb/bench/bench_soak) cannot take fresh heaps per dispatch.
  void dispatch(I915Driver::Ring& ring, const GpgpuKernel& kernel, const I915Driver::Buffer& heap);

  // Per-thread local ID blocks as NEO generates them: for each thread, X, Y and Z IDs as uint16 per channel, one
  // register per dimension (two for SIMD32).
  static std::vector<std::uint8_t> local_ids(unsigned simd, const std::array<std::uint32_t, 3>& local_size);
  static unsigned threads_per_group(unsigned simd, const std::array<std::uint32_t, 3>& local_size);

 private:
  I915Driver& driver_;
};

}  // namespace gpuvp::host
