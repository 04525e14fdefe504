#include "platform/disasm_command.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "tlm/gen/eu/decoder.h"
#include "tlm/gen/eu/device_binary.h"
#include "tlm/gen/eu/disassembler.h"

namespace gpuvp::platform {
namespace {

namespace eu = gpuvp::gen::eu;

std::string offset_text(std::size_t offset) {
  std::array<char, 24> buf{};  // "0x" and up to 16 digits
  std::snprintf(buf.data(), buf.size(), "0x%08zX", offset);
  return buf.data();
}

// One instruction per line, walked as the hardware walks a kernel: a compacted instruction (CmptCtrl, bit 29) is 8
// bytes, a native one 16; a compacted one is printed expanded with iga64's "{Compacted}" option.
void list_instructions(const std::string& path, const std::vector<std::uint8_t>& code, eu::Generation gen,
                       std::ostream& out) {
  std::size_t offset = 0;
  while (offset < code.size()) {
    const std::size_t left = code.size() - offset;
    const std::size_t size = left >= 4 && (code[offset + 3] & 0x20) != 0 ? 8 : 16;
    if (left < size) {
      throw std::runtime_error(path + ": truncated instruction at offset " + offset_text(offset) + " (" +
                               std::to_string(left) + " of " + std::to_string(size) + " bytes)");
    }
    const eu::DecodedAt at = eu::decode_at(code.data() + offset, left, gen);
    const eu::Disassembly d = eu::disassemble(at.result, static_cast<std::uint32_t>(offset));
    if (d.ok()) {
      out << d.text << '\n';
    } else {
      out << "// " << offset_text(offset) << ": decode error: " << d.error << '\n';
    }
    offset += at.length;
  }
}

}  // namespace

int run_disasm(const std::string& path, int gen_number, std::ostream& out) {
  const eu::Generation gen = gen_number == 8 ? eu::Generation::kGen8 : eu::Generation::kGen9;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!eu::is_elf(bytes)) {
    list_instructions(path, bytes, gen, out);
    return 0;
  }
  eu::DeviceProgram program;
  try {
    program = eu::parse_device_binary(bytes);
  } catch (const eu::DeviceBinaryError& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  if (program.device_family != eu::device_family(gen)) {
    throw std::runtime_error(path + ": device binary for GPU family " + std::to_string(program.device_family) +
                             ", not Gen" + std::to_string(gen_number) + " (family " +
                             std::to_string(eu::device_family(gen)) + "); see --gen");
  }
  for (const eu::DeviceKernel& kernel : program.kernels) {
    out << "// kernel " << kernel.name << ": " << kernel.heap.size() << " bytes\n";
    list_instructions(path + " kernel " + kernel.name, kernel.heap, gen, out);
  }
  return 0;
}

}  // namespace gpuvp::platform
