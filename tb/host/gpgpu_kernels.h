// The GPGPU host driver's own EU kernels (tb/host/kernels/*.asm, Gen9 IGA assembly assembled by iga64 at build time
// and embedded here): what the demo's GPGPU step and the GPGPU tests dispatch.
#pragma once

#include <cstdint>
#include <vector>

namespace gpuvp::host {

// c[gid] = s * a[gid] + b[gid] (float). SIMD16, one thread per work-group of 16; cross-thread data: s (float);
// binding table: 0 = a, 1 = b, 2 = c. The multiply and the add round separately.
std::vector<std::uint8_t> saxpy_kernel();

// Work-groups of 32 items as two SIMD16 threads with shared local memory (128 bytes) and a barrier: item i stores
// its local ID to SLM, then writes SLM[31 - i] to out[group * 32 + i] and atomically adds 1 to the 32-bit counter
// at the 64-bit graphics address in the cross-thread data. Binding table: 0 = out.
std::vector<std::uint8_t> slm_reverse_count_kernel();

}  // namespace gpuvp::host
