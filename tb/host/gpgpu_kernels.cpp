#include "tb/host/gpgpu_kernels.h"

#include <iterator>

namespace gpuvp::host {

namespace {
#include "saxpy.inc"
#include "slm_reverse_count.inc"
}  // namespace

std::vector<std::uint8_t> saxpy_kernel() { return {std::begin(k_saxpy), std::end(k_saxpy)}; }

std::vector<std::uint8_t> slm_reverse_count_kernel() {
  return {std::begin(k_slm_reverse_count), std::end(k_slm_reverse_count)};
}

}  // namespace gpuvp::host
