// guc_pack: turns a flat GuC uCode binary into a signed firmware image (CSS header, uCode, RSA signature, modulus,
// exponent). Usage: guc_pack PRIVATE_KEY.pem UCODE.bin OUT.bin
#include <cstdio>
#include <exception>
#include <fstream>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: guc_pack PRIVATE_KEY.pem UCODE.bin OUT.bin\n");
    return 2;
  }
  try {
    const auto ucode = gpuvp::firmware::read_file(argv[2]);
    const auto image = gpuvp::firmware::pack_image(
        ucode, argv[1], (GUC_FIRMWARE_VERSION_MAJOR << 16) | (GUC_FIRMWARE_VERSION_MINOR << 8));
    std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
    if (!out) {
      std::fprintf(stderr, "guc_pack: cannot write '%s'\n", argv[3]);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "guc_pack: %s\n", e.what());
    return 1;
  }
  return 0;
}
