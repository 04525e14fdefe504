// GuC firmware images: the CSS header of i915's intel_uc_fw_abi.h (struct uc_css_header, 128 bytes), the layout
// checks i915 applies before loading (intel_uc_fw.c), and packing a uCode into a signed image.
//
// Image = CSS header | uCode | RSA signature (key_size_dw) | modulus (modulus_size_dw) | exponent (exponent_size_dw).
// No public source says what the GuC boot ROM signs; this model signs the bytes the DMA copies (header and uCode)
// with RSA-2048, PKCS#1 v1.5 over SHA-256.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp::firmware {

struct CssHeader {
  std::uint32_t module_type = 0;
  std::uint32_t header_size_dw = 0;  // every non-uCode dword: header, key, modulus, exponent
  std::uint32_t header_version = 0;
  std::uint32_t module_id = 0;
  std::uint32_t module_vendor = 0;
  std::uint32_t date = 0;     // day 7:0, month 15:8, year 31:16
  std::uint32_t size_dw = 0;  // uCode plus header_size_dw
  std::uint32_t key_size_dw = 0;
  std::uint32_t modulus_size_dw = 0;
  std::uint32_t exponent_size_dw = 0;
  std::uint32_t time = 0;
  char username[8] = {};
  char buildnumber[12] = {};
  std::uint32_t sw_version = 0;  // GuC: major 23:16, minor 15:8, patch 7:0
  std::uint32_t reserved[14] = {};
  std::uint32_t header_info = 0;
};
static_assert(sizeof(CssHeader) == 128, "uc_css_header is 128 bytes");

CssHeader read_css_header(const std::uint8_t* bytes);  // 128 little-endian bytes

struct ImageLayout {
  CssHeader header;
  std::size_t ucode_offset = 0;
  std::size_t ucode_size = 0;
  std::size_t rsa_offset = 0;
  std::size_t rsa_size = 0;
};

// The checks i915 makes on a fetched image (intel_uc_fw.c): the header fits, header_size_dw minus key, modulus and
// exponent is the 128-byte header ("CSS header definition mismatch"), the uCode and the RSA signature fit in the
// file. Returns an empty string and fills layout, or what is wrong.
std::string check_image(const std::vector<std::uint8_t>& image, ImageLayout& layout);

// Packs ucode with a CSS header and signs it with the RSA-2048 private key in private_key_pem (a file). Throws
// std::runtime_error naming the problem.
std::vector<std::uint8_t> pack_image(const std::vector<std::uint8_t>& ucode, const std::string& private_key_pem,
                                     std::uint32_t sw_version);

std::vector<std::uint8_t> read_file(const std::string& path);  // throws std::runtime_error naming the file

// Build products: the signed image (guc.bin), its ELF with symbols (for gdb) and the TEST signing key.
const char* default_firmware_path();
const char* default_firmware_elf_path();
const char* test_key_path();

}  // namespace gpuvp::firmware
