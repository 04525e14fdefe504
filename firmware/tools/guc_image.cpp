#include "firmware/tools/guc_image.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "firmware/guc/guc_abi.h"

namespace gpuvp::firmware {

CssHeader read_css_header(const std::uint8_t* bytes) {
  CssHeader h;
  std::memcpy(&h, bytes, sizeof h);  // the host and the GuC are both little-endian
  return h;
}

std::string check_image(const std::vector<std::uint8_t>& image, ImageLayout& layout) {
  if (image.size() < sizeof(CssHeader)) return "image smaller than the 128-byte CSS header";
  const CssHeader h = read_css_header(image.data());
  const std::uint64_t non_header_dw = std::uint64_t{h.key_size_dw} + h.modulus_size_dw + h.exponent_size_dw;
  if (h.header_size_dw < non_header_dw || (h.header_size_dw - non_header_dw) * 4 != sizeof(CssHeader)) {
    return "CSS header definition mismatch";
  }
  if (h.size_dw < h.header_size_dw) return "CSS header size_dw smaller than header_size_dw";
  layout.header = h;
  layout.ucode_offset = sizeof(CssHeader);
  layout.ucode_size = (std::size_t{h.size_dw} - h.header_size_dw) * 4;
  layout.rsa_offset = layout.ucode_offset + layout.ucode_size;
  layout.rsa_size = std::size_t{h.key_size_dw} * 4;
  if (layout.rsa_offset + layout.rsa_size > image.size()) {
    return "image truncated: uCode and RSA signature need " + std::to_string(layout.rsa_offset + layout.rsa_size) +
           " bytes, the file has " + std::to_string(image.size());
  }
  return {};
}

const char* default_firmware_path() { return GPUVP_GUC_FIRMWARE; }
const char* default_firmware_elf_path() { return GPUVP_GUC_FIRMWARE_ELF; }
const char* test_key_path() { return GPUVP_GUC_TEST_KEY; }

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct BnFree {
  void operator()(BIGNUM* b) const { BN_free(b); }
};

// Big-endian key component, padded to bytes.
std::vector<std::uint8_t> key_component(EVP_PKEY* key, const char* name, std::size_t bytes) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &raw) != 1) throw std::runtime_error(std::string("key has no ") + name);
  std::unique_ptr<BIGNUM, BnFree> bn(raw);
  std::vector<std::uint8_t> out(bytes);
  if (BN_bn2binpad(bn.get(), out.data(), static_cast<int>(bytes)) < 0) {
    throw std::runtime_error(std::string("key ") + name + " does not fit in " + std::to_string(bytes) + " bytes");
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> pack_image(const std::vector<std::uint8_t>& ucode, const std::string& private_key_pem,
                                     std::uint32_t sw_version) {
  std::FILE* f = std::fopen(private_key_pem.c_str(), "r");
  if (f == nullptr) throw std::runtime_error("cannot open key '" + private_key_pem + "'");
  std::unique_ptr<EVP_PKEY, PkeyFree> key(PEM_read_PrivateKey(f, nullptr, nullptr, nullptr));
  std::fclose(f);
  if (!key) throw std::runtime_error("'" + private_key_pem + "' is not a PEM private key");
  if (EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA || EVP_PKEY_get_bits(key.get()) != 2048) {
    throw std::runtime_error("'" + private_key_pem + "' is not an RSA-2048 key");
  }

  std::vector<std::uint8_t> padded = ucode;
  padded.resize((padded.size() + 3) / 4 * 4, 0);

  CssHeader h;
  h.module_type = GUC_CSS_MODULE_TYPE;
  h.header_size_dw = sizeof(CssHeader) / 4 + GUC_CSS_KEY_SIZE_DW + GUC_CSS_MODULUS_SIZE_DW + GUC_CSS_EXPONENT_SIZE_DW;
  h.header_version = 0x10000;
  h.module_vendor = GUC_CSS_VENDOR_INTEL;
  h.size_dw = h.header_size_dw + static_cast<std::uint32_t>(padded.size() / 4);
  h.key_size_dw = GUC_CSS_KEY_SIZE_DW;
  h.modulus_size_dw = GUC_CSS_MODULUS_SIZE_DW;
  h.exponent_size_dw = GUC_CSS_EXPONENT_SIZE_DW;
  std::memcpy(h.username, "gpuvp", 5);
  std::memcpy(h.buildnumber, "testkey", 7);
  h.sw_version = sw_version;

  std::vector<std::uint8_t> image(sizeof h);
  std::memcpy(image.data(), &h, sizeof h);
  image.insert(image.end(), padded.begin(), padded.end());

  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  std::size_t sig_len = GUC_CSS_KEY_SIZE_DW * 4;
  std::vector<std::uint8_t> signature(sig_len);
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature.data(), &sig_len, image.data(), image.size()) != 1 ||
      sig_len != signature.size()) {
    throw std::runtime_error("RSA signing failed");
  }
  image.insert(image.end(), signature.begin(), signature.end());
  const auto modulus = key_component(key.get(), OSSL_PKEY_PARAM_RSA_N, GUC_CSS_MODULUS_SIZE_DW * 4);
  image.insert(image.end(), modulus.begin(), modulus.end());
  const auto exponent = key_component(key.get(), OSSL_PKEY_PARAM_RSA_E, GUC_CSS_EXPONENT_SIZE_DW * 4);
  image.insert(image.end(), exponent.begin(), exponent.end());
  return image;
}

}  // namespace gpuvp::firmware
