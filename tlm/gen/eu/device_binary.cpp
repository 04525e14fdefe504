#include "tlm/gen/eu/device_binary.h"

#include <cstring>

namespace gpuvp::gen::eu {
namespace {

constexpr std::uint32_t kShtOpenClDeviceBinary = 0xff000005;  // NEO elf/ocl_elf.h SHT_OPENCL_DEV_BINARY
constexpr std::uint32_t kProgramMagic = 0x494E5443;           // SProgramBinaryHeader.Magic "CTNI"
constexpr std::size_t kProgramHeaderSize = 28;
constexpr std::size_t kKernelHeaderSize = 40;

// Bounds-checked little-endian reads of a byte range.
class Reader {
 public:
  Reader(const std::vector<std::uint8_t>& bytes, std::size_t begin, std::size_t end, const char* what)
      : bytes_(bytes), begin_(begin), end_(end), what_(what) {}
  template <typename T>
  T get(std::size_t offset) const {
    need(offset, sizeof(T));
    T value{};
    std::memcpy(&value, bytes_.data() + begin_ + offset, sizeof(T));
    return value;
  }
  void need(std::size_t offset, std::size_t size) const {
    if (offset > end_ - begin_ || size > end_ - begin_ - offset) {
      throw DeviceBinaryError(std::string("truncated ") + what_ + ": " + std::to_string(size) + " bytes at offset " +
                              std::to_string(offset) + " run past its end (" + std::to_string(end_ - begin_) +
                              " bytes)");
    }
  }
  const std::uint8_t* at(std::size_t offset) const { return bytes_.data() + begin_ + offset; }

 private:
  const std::vector<std::uint8_t>& bytes_;
  std::size_t begin_;
  std::size_t end_;
  const char* what_;
};

// The device-binary section of the ELF container: [begin, end) in the file.
std::pair<std::size_t, std::size_t> device_section(const std::vector<std::uint8_t>& bytes) {
  const Reader elf(bytes, 0, bytes.size(), "ELF file");
  if (elf.get<std::uint8_t>(4) != 2) throw DeviceBinaryError("not an ELF64 file");
  const auto shoff = elf.get<std::uint64_t>(0x28);
  const auto shentsize = elf.get<std::uint16_t>(0x3A);
  const auto shnum = elf.get<std::uint16_t>(0x3C);
  if (shentsize < 0x28) throw DeviceBinaryError("ELF section headers of " + std::to_string(shentsize) + " bytes");
  for (unsigned i = 0; i < shnum; ++i) {
    const std::size_t sh = shoff + std::size_t{i} * shentsize;
    if (elf.get<std::uint32_t>(sh + 4) != kShtOpenClDeviceBinary) continue;
    const auto offset = elf.get<std::uint64_t>(sh + 0x18);
    const auto size = elf.get<std::uint64_t>(sh + 0x20);
    elf.need(offset, size);
    return {offset, offset + size};
  }
  throw DeviceBinaryError("no OpenCL device binary section (ELF section type 0xff000005)");
}

}  // namespace

bool is_elf(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x7F && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
}

std::uint32_t device_family(Generation gen) { return gen == Generation::kGen9 ? 12 : 11; }

DeviceProgram parse_device_binary(const std::vector<std::uint8_t>& bytes) {
  const auto [begin, end] = device_section(bytes);
  const Reader program(bytes, begin, end, "device binary section");
  if (program.get<std::uint32_t>(0) != kProgramMagic) throw DeviceBinaryError("device binary without the CTNI magic");
  DeviceProgram result;
  result.device_family = program.get<std::uint32_t>(8);
  const auto kernels = program.get<std::uint32_t>(16);
  std::size_t offset = kProgramHeaderSize + program.get<std::uint32_t>(24);  // after the program's patch list
  for (std::uint32_t k = 0; k < kernels; ++k) {
    // SKernelBinaryHeaderCommon: CheckSum, uint64 ShaderHashCode, KernelNameSize, PatchListSize, KernelHeapSize,
    // GeneralStateHeapSize, DynamicStateHeapSize, SurfaceStateHeapSize, KernelUnpaddedSize.
    program.need(offset, kKernelHeaderSize);
    const auto name_size = program.get<std::uint32_t>(offset + 12);
    const auto patch_size = program.get<std::uint32_t>(offset + 16);
    const auto heap_size = program.get<std::uint32_t>(offset + 20);
    const std::uint64_t state_sizes = std::uint64_t{program.get<std::uint32_t>(offset + 24)} +
                                      program.get<std::uint32_t>(offset + 28) + program.get<std::uint32_t>(offset + 32);
    const auto unpadded = program.get<std::uint32_t>(offset + 36);
    if (unpadded > heap_size) {
      throw DeviceBinaryError("kernel " + std::to_string(k) + ": unpadded size " + std::to_string(unpadded) +
                              " exceeds its heap of " + std::to_string(heap_size) + " bytes");
    }
    offset += kKernelHeaderSize;
    program.need(offset, std::uint64_t{name_size} + heap_size + state_sizes + patch_size);
    DeviceKernel kernel;
    const char* name = reinterpret_cast<const char*>(program.at(offset));
    kernel.name.assign(name, strnlen(name, name_size));
    offset += name_size;
    kernel.heap.assign(program.at(offset), program.at(offset) + unpadded);
    offset += heap_size + state_sizes + patch_size;
    result.kernels.push_back(std::move(kernel));
  }
  return result;
}

}  // namespace gpuvp::gen::eu
