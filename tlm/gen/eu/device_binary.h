// Kernels of an ocloc device binary (`ocloc compile -device skl` writes `<name>_Gen9core.bin`): an ELF64 whose
// "Intel(R) OpenCL Device Binary" section (type 0xff000005) holds the patch-token program, a header and per kernel a
// header, its name and its kernel heap (instructions), then state heaps and patch tokens. Layout: Intel NEO
// shared/source/device_binary_format (elf/ocl_elf.h, patchtokens_decoder.cpp) and IGC patch_list.h.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlm/gen/eu/opcodes.h"

namespace gpuvp::gen::eu {

struct DeviceKernel {
  std::string name;
  std::vector<std::uint8_t> heap;  // the instructions: KernelUnpaddedSize bytes of the kernel heap
};

struct DeviceProgram {
  std::uint32_t device_family = 0;  // SProgramBinaryHeader.Device: 11 Gen8 core, 12 Gen9 core (IGFX_GEN*_CORE)
  std::vector<DeviceKernel> kernels;
};

// A malformed or truncated binary; what() is one line naming the problem.
class DeviceBinaryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when the bytes start like an ELF file (the device binary's container).
bool is_elf(const std::vector<std::uint8_t>& bytes);

// Parses the device binary; throws DeviceBinaryError.
DeviceProgram parse_device_binary(const std::vector<std::uint8_t>& bytes);

// The device family ocloc writes for a generation's binaries.
std::uint32_t device_family(Generation gen);

}  // namespace gpuvp::gen::eu
