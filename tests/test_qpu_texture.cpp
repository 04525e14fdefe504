// The TMU's texture lookups (tlm/vc4/qpu/texture_sampler.*) over a fake memory: the decode of P0-P3 (PeterLemon's
// RGBA32R setup, every field, every error), each type's conversion to r4 by hand, T-format and LT texel addressing
// (micro-tiles of distinct colours sampled at hand-chosen texels, their positions worked out from the guide's
// section 11 and Mesa's vc4_tiling.c order), the tiling rule by size, mip level addresses, each wrap mode outside
// [0, 1), nearest and bilinear filtering at and between texel centres, the level chosen from a quad's LOD with its
// bias and BSLOD, the mipmap filters, cube map faces, FLIPY, the memory lines list, the lookup's errors and guest
// coordinates that are NaN, infinite or huge. Expected values are worked out by hand in the comments; where the
// hardware's rounding is not published (bilinear and mipmap blends) a channel may differ by 1.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/qpu_test_environment.h"
#include "tlm/vc4/qpu/qpu_assembler.h"
#include "tlm/vc4/qpu/qpu_core.h"
#include "tlm/vc4/qpu/texture_sampler.h"

namespace gpuvp::vc4::qpu {
namespace {

constexpr std::uint32_t kMemoryBase = 0x10000;
constexpr std::uint32_t kMemoryBytes = 0x40000;  // up to 0x50000
constexpr std::uint32_t kBase = 0x20000;         // a texture's level 0 (4 KiB aligned, room below for mip levels)

class FakeMemory : public DmaMemory {
 public:
  bool read_memory(std::uint32_t address, void* data, std::uint32_t bytes) override {
    if (address < kMemoryBase || address - kMemoryBase + static_cast<std::uint64_t>(bytes) > bytes_.size()) {
      return false;
    }
    std::memcpy(data, bytes_.data() + (address - kMemoryBase), bytes);
    ++reads;
    return true;
  }
  bool write_memory(std::uint32_t address, const void* data, std::uint32_t bytes) override {
    if (address < kMemoryBase || address - kMemoryBase + static_cast<std::uint64_t>(bytes) > bytes_.size()) {
      return false;
    }
    std::memcpy(bytes_.data() + (address - kMemoryBase), data, bytes);
    return true;
  }
  void put32(std::uint32_t address, std::uint32_t value) { ASSERT_TRUE(write_memory(address, &value, 4)); }
  void put16(std::uint32_t address, std::uint16_t value) { ASSERT_TRUE(write_memory(address, &value, 2)); }
  void put8(std::uint32_t address, std::uint8_t value) { ASSERT_TRUE(write_memory(address, &value, 1)); }
  // `count` words of `value` from `address` on.
  void fill32(std::uint32_t address, std::uint32_t count, std::uint32_t value) {
    for (std::uint32_t i = 0; i < count; ++i) put32(address + 4 * i, value);
  }
  unsigned reads = 0;

 private:
  std::vector<std::uint8_t> bytes_ = std::vector<std::uint8_t>(kMemoryBytes, 0xEE);
};

std::uint32_t fbits(float f) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}
Vector splat(std::uint32_t value) {
  Vector v{};
  v.fill(value);
  return v;
}
Vector splatf(float f) { return splat(fbits(f)); }

// P0 (guide table 15): BASE 31:12, CSWIZ 11:10, CMMODE 9, FLIPY 8, TYPE 7:4, MIPLVLS 3:0.
std::uint32_t p0(std::uint32_t base, unsigned type, unsigned last_level = 0, bool cube = false, bool flip = false) {
  return base | (cube ? 1U << 9 : 0U) | (flip ? 1U << 8 : 0U) | (type & 15U) << 4 | last_level;
}
// P1 (guide table 16): TYPE4 31, HEIGHT 30:20, WIDTH 18:8, MAGFILT 7, MINFILT 6:4, WRAP_T 3:2, WRAP_S 1:0.
std::uint32_t p1(unsigned type, unsigned width, unsigned height, bool mag_nearest, unsigned min_filter,
                 unsigned wrap_s = 0, unsigned wrap_t = 0) {
  return (type >> 4) << 31 | (height & 2047U) << 20 | (width & 2047U) << 8 | (mag_nearest ? 1U << 7 : 0U) |
         min_filter << 4 | wrap_t << 2 | wrap_s;
}
constexpr unsigned kRgba8888 = 0, kRgbx8888 = 1, kRgba4444 = 2, kRgba5551 = 3, kRgb565 = 4, kLuminance = 5, kAlpha = 6,
                   kLumAlpha = 7, kRgba32r = 16;
constexpr unsigned kRepeat = 0, kClamp = 1, kMirror = 2, kBorder = 3;
constexpr unsigned kMinLinear = 0, kMinNearest = 1, kNearMipNear = 2, kNearMipLin = 3, kLinMipNear = 4, kLinMipLin = 5;

TextureParams decode_ok(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2 = 0, std::uint32_t w3 = 0,
                        unsigned count = 2) {
  TextureParams params;
  std::string error;
  EXPECT_TRUE(decode_texture_params({w0, w1, w2, w3}, count, params, error)) << error;
  return params;
}
std::string decode_error(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2 = 0, std::uint32_t w3 = 0,
                         unsigned count = 2) {
  TextureParams params;
  std::string error;
  EXPECT_FALSE(decode_texture_params({w0, w1, w2, w3}, count, params, error));
  return error;
}

Vector sample_ok(const TextureParams& params, FakeMemory& memory, const Vector& s, const Vector& t,
                 const Vector* r = nullptr, const Vector* b = nullptr, std::vector<std::uint32_t>* lines = nullptr) {
  Vector result{};
  std::vector<std::uint32_t> seen;
  std::string error;
  EXPECT_TRUE(sample_texture(params, s, t, r, b, memory, result, seen, error)) << error;
  if (lines != nullptr) *lines = seen;
  return result;
}

// Each byte of `got` within `tolerance` of `want`'s.
::testing::AssertionResult near_rgba(std::uint32_t got, std::uint32_t want, unsigned tolerance = 1) {
  for (unsigned c = 0; c < 4; ++c) {
    const int g = static_cast<int>((got >> (8 * c)) & 0xFFU), w = static_cast<int>((want >> (8 * c)) & 0xFFU);
    if (std::abs(g - w) > static_cast<int>(tolerance)) {
      char text[80];
      std::snprintf(text, sizeof text, "got 0x%08x, want 0x%08x (byte %u)", got, want, c);
      return ::testing::AssertionFailure() << text;
    }
  }
  return ::testing::AssertionSuccess();
}

// A raster RGBA32R texture of width x height at kBase whose texel (x, y) is 0xFF000000 | y << 8 | x.
void raster_coordinates(FakeMemory& memory, unsigned width, unsigned height) {
  const unsigned stride = (width + 3) / 4 * 4 * 4;  // rows padded to a micro-tile's 4 texels
  for (unsigned y = 0; y < height; ++y) {
    for (unsigned x = 0; x < width; ++x) memory.put32(kBase + y * stride + 4 * x, 0xFF000000U | y << 8 | x);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Decode

TEST(QpuTexture, DecodesPeterLemonsRgba32rSetup) {
  // PeterLemon's V3D Texture demo: P0 = the 4 KiB aligned texture address, P1 = 0x80000000 | 32 << 20 | 32 << 8
  // (RGBA32R through TYPE4, 32x32, linear filters, repeat), two uniforms for its t and s writes.
  const TextureParams p = decode_ok(0x0000A000, 0x80000000U | 32U << 20 | 32U << 8);
  EXPECT_EQ(p.base, 0xA000U);
  EXPECT_EQ(p.type, TextureType::kRgba32r);
  EXPECT_EQ(p.width, 32U);
  EXPECT_EQ(p.height, 32U);
  EXPECT_EQ(p.last_level, 0U);
  EXPECT_FALSE(p.cube);
  EXPECT_FALSE(p.flip_y);
  EXPECT_FALSE(p.mag_nearest);
  EXPECT_EQ(p.min_filter, MinFilter::kLinear);
  EXPECT_EQ(p.wrap_s, TextureWrap::kRepeat);
  EXPECT_EQ(p.wrap_t, TextureWrap::kRepeat);
  EXPECT_EQ(p.cube_stride, 0U);
  EXPECT_FALSE(p.lod_from_b);
}

TEST(QpuTexture, DecodesEveryField) {
  // P0: base 0x12345000, CSWIZ 2, cube, flip, RGB565 (4), MIPLVLS 7.
  const std::uint32_t w0 = 0x12345000U | 2U << 10 | 1U << 9 | 1U << 8 | 4U << 4 | 7U;
  // P1: height 100, ETCFLIP, width 200, MAGFILT nearest, MINFILT 5, WRAP_T mirror, WRAP_S clamp.
  const std::uint32_t w1 = 100U << 20 | 1U << 19 | 200U << 8 | 1U << 7 | 5U << 4 | 2U << 2 | 1U;
  // P2 as Mesa's write_texture_p2: PTYPE 1, a 0x123000-byte stride (CMST = stride >> 12 at bit 12), BSLOD.
  const TextureParams p = decode_ok(w0, w1, 1U << 30 | 0x123000U | 1U, 0, 3);
  EXPECT_EQ(p.base, 0x12345000U);
  EXPECT_EQ(p.cache_swizzle, 2U);
  EXPECT_TRUE(p.cube);
  EXPECT_TRUE(p.flip_y);
  EXPECT_EQ(p.type, TextureType::kRgb565);
  EXPECT_EQ(p.last_level, 7U);
  EXPECT_EQ(p.height, 100U);
  EXPECT_TRUE(p.etc_flip);
  EXPECT_EQ(p.width, 200U);
  EXPECT_TRUE(p.mag_nearest);
  EXPECT_EQ(p.min_filter, MinFilter::kLinMipLin);
  EXPECT_EQ(p.wrap_t, TextureWrap::kMirror);
  EXPECT_EQ(p.wrap_s, TextureWrap::kClamp);
  EXPECT_EQ(p.cube_stride, 0x123000U);
  EXPECT_TRUE(p.lod_from_b);

  // Width and height 0 mean 2048 (guide table 16; Mesa writes width0 & 2047).
  const TextureParams big = decode_ok(0x1000, p1(kRgba8888, 0, 0, false, kMinLinear));
  EXPECT_EQ(big.width, 2048U);
  EXPECT_EQ(big.height, 2048U);
  // The stride may come in P3 after an unused P2 (PTYPE 0), without BSLOD.
  const TextureParams p3 = decode_ok(0x1000, p1(kRgba8888, 8, 8, false, kMinLinear), 0, 1U << 30 | 0x5000U, 4);
  EXPECT_EQ(p3.cube_stride, 0x5000U);
  EXPECT_FALSE(p3.lod_from_b);
  // Parameters the lookup did not take are not looked at: a child-image P2 with only two taken.
  const TextureParams two = decode_ok(0x1000, p1(kRgba8888, 8, 8, false, kMinLinear), 2U << 30, 3U << 30, 2);
  EXPECT_EQ(two.cube_stride, 0U);
  // Every type the sampler models decodes, type 16 through TYPE4.
  for (unsigned type : {kRgba8888, kRgbx8888, kRgba4444, kRgba5551, kRgb565, kLuminance, kAlpha, kLumAlpha, kRgba32r}) {
    EXPECT_EQ(static_cast<unsigned>(decode_ok(0x1000 | (type & 15U) << 4, p1(type, 4, 4, false, 0)).type), type);
  }
}

TEST(QpuTexture, DecodeErrorsNameTheFieldAndValue) {
  const std::uint32_t ok1 = p1(kRgba8888, 8, 8, false, kMinLinear);
  for (unsigned count : {0U, 1U, 5U}) {
    EXPECT_NE(decode_error(0x1000, ok1, 0, 0, count).find("2 to 4 config parameters"), std::string::npos) << count;
  }
  // Types 18-31 are undefined (table 18 ends at 17).
  EXPECT_EQ(decode_error(0x1000 | 2U << 4, 1U << 31 | ok1),
            "texture type 18 (P0 TYPE 2, P1 TYPE4 1) is undefined (the guide's table 18 ends at 17)");
  EXPECT_NE(decode_error(0x1000 | 15U << 4, 1U << 31 | ok1).find("texture type 31 "), std::string::npos);
  // The types the sampler does not model, each by name.
  const std::pair<unsigned, const char*> unmodelled[] = {{8, "ETC1"}, {9, "S16F"},    {10, "S8"},
                                                         {11, "S16"}, {12, "BW1"},    {13, "A4"},
                                                         {14, "A1"},  {15, "RGBA64"}, {17, "YUYV422R"}};
  for (const auto& [type, name] : unmodelled) {
    EXPECT_EQ(decode_error(0x1000 | (type & 15U) << 4, p1(type, 8, 8, false, 0)),
              "texture type " + std::to_string(type) + " (" + name + ") is not modelled");
  }
  for (unsigned min : {6U, 7U}) {
    EXPECT_EQ(decode_error(0x1000, p1(kRgba8888, 8, 8, false, min)),
              "P1 MINFILT " + std::to_string(min) + " is undefined (0-5: the guide's table 19)");
  }
  // Child images (PTYPE 2, 3) in P2 or P3.
  EXPECT_EQ(decode_error(0x1000, ok1, 2U << 30 | 0x5005U, 0, 3),
            "P2 PTYPE 2 (child image dimensions, 0x80005005) is not modelled");
  EXPECT_EQ(decode_error(0x1000, ok1, 0, 3U << 30, 4), "P3 PTYPE 3 (child image offsets, 0xc0000000) is not modelled");
  EXPECT_EQ(decode_error(0x1000, ok1, 1U << 30 | 0x1000, 1U << 30 | 0x2000, 4),
            "P2 and P3 both give a cube map stride (PTYPE 1): which one counts is undefined");
  // Cube maps with the border wrap mode on either axis.
  EXPECT_EQ(decode_error(0x1000 | 1U << 9, p1(kRgba8888, 8, 8, false, 0, kBorder, kClamp), 1U << 30 | 0x1000, 0, 3),
            "cube map mode with the border wrap mode (s border, t clamp) is undefined");
  EXPECT_EQ(decode_error(0x1000 | 1U << 9, p1(kRgba8888, 8, 8, false, 0, kRepeat, kBorder), 1U << 30 | 0x1000, 0, 3),
            "cube map mode with the border wrap mode (s repeat, t border) is undefined");
}

// ---------------------------------------------------------------------------------------------------------------
// Texel formats

TEST(QpuTexture, ConvertsEachTypeToR4ByHand) {
  // r4: byte 0 red (luminance), 1 green, 2 blue, 3 alpha.
  EXPECT_EQ(texel_to_r4(TextureType::kRgba8888, 0x80402010U), 0x80402010U);
  EXPECT_EQ(texel_to_r4(TextureType::kRgba32r, 0x80402010U), 0x80402010U);
  EXPECT_EQ(texel_to_r4(TextureType::kRgbx8888, 0x00402010U), 0xFF402010U);
  // RGBA4444 0x1234: red 1, green 2, blue 3, alpha 4 (top nibble first), each x 17.
  EXPECT_EQ(texel_to_r4(TextureType::kRgba4444, 0x1234U), 0x44332211U);
  // RGBA5551: red 31 (15:11), green 0 (10:6), blue 16 (5:1) -> 0x84, alpha bit 0.
  EXPECT_EQ(texel_to_r4(TextureType::kRgba5551, 0xF800U | 16U << 1 | 1U), 0xFF8400FFU);
  EXPECT_EQ(texel_to_r4(TextureType::kRgba5551, 0xF800U | 16U << 1), 0x008400FFU);
  // RGB565: red 0x10 -> 0x84, green 0x20 -> 0x82, blue 1 -> 0x08, alpha 1.0.
  EXPECT_EQ(texel_to_r4(TextureType::kRgb565, 0x10U << 11 | 0x20U << 5 | 1U), 0xFF088284U);
  EXPECT_EQ(texel_to_r4(TextureType::kLuminance, 0x5AU), 0xFF5A5A5AU);
  EXPECT_EQ(texel_to_r4(TextureType::kAlpha, 0x5AU), 0x5A000000U);
  // LUMALPHA: the first byte in memory (low) luminance, the second alpha.
  EXPECT_EQ(texel_to_r4(TextureType::kLumAlpha, 0xC35AU), 0xC35A5A5AU);
}

TEST(QpuTexture, ReadsEachTypeFromMemoryLittleEndian) {
  // A 4x4 texture of each type (LT: 4 <= 4 micro-tiles), texels (0, 0) and (1, 0) at the first two texel positions
  // of micro-tile 0, sampled nearest at their centres.
  struct Case {
    unsigned type;
    std::vector<std::uint8_t> bytes;  // texel (0, 0) then (1, 0)
    std::uint32_t want0, want1;
  };
  const Case cases[] = {
      {kRgba8888, {0x10, 0x20, 0x40, 0x80, 1, 2, 3, 4}, 0x80402010U, 0x04030201U},
      {kRgbx8888, {0x10, 0x20, 0x40, 0x00, 1, 2, 3, 4}, 0xFF402010U, 0xFF030201U},
      {kRgba4444, {0x34, 0x12, 0xF0, 0x0F}, 0x44332211U, 0x00FFFF00U},
      {kRgba5551, {0x21, 0xF8, 0x01, 0x00}, 0xFF8400FFU, 0xFF000000U},
      {kRgb565, {0x01, 0x84, 0x1F, 0x00}, 0xFF088284U, 0xFFFF0000U},
      {kLuminance, {0x5A, 0x01}, 0xFF5A5A5AU, 0xFF010101U},
      {kAlpha, {0x5A, 0x01}, 0x5A000000U, 0x01000000U},
      {kLumAlpha, {0x5A, 0xC3, 0x01, 0x02}, 0xC35A5A5AU, 0x02010101U},
  };
  for (const Case& c : cases) {
    FakeMemory memory;
    for (unsigned i = 0; i < c.bytes.size(); ++i) memory.put8(kBase + i, c.bytes[i]);
    const TextureParams p = decode_ok(p0(kBase, c.type), p1(c.type, 4, 4, true, kMinNearest));
    Vector s = splatf(0.125f);  // texel 0
    s[1] = fbits(0.375f);       // texel 1
    const Vector got = sample_ok(p, memory, s, splatf(0.125f));
    EXPECT_EQ(got[0], c.want0) << texture_type_name(c.type);
    EXPECT_EQ(got[1], c.want1) << texture_type_name(c.type);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Layouts

TEST(QpuTexture, TilingRuleBySize) {
  const auto level0 = [](unsigned type, unsigned w, unsigned h) {
    return texture_level(decode_ok(p0(kBase, type), p1(type, w, h, false, 0)), 0);
  };
  // LT when a side is at most 4 micro-tiles: 16 texels at 32 bpp, 32 at 16 and 8 bpp (vc4_validate.c size_is_lt).
  EXPECT_EQ(level0(kRgba8888, 16, 64).layout, MemoryLayout::kLt);
  EXPECT_EQ(level0(kRgba8888, 64, 16).layout, MemoryLayout::kLt);
  EXPECT_EQ(level0(kRgba8888, 17, 64).layout, MemoryLayout::kT);
  EXPECT_EQ(level0(kRgba8888, 64, 17).layout, MemoryLayout::kT);
  EXPECT_EQ(level0(kRgb565, 32, 64).layout, MemoryLayout::kLt);
  EXPECT_EQ(level0(kRgb565, 33, 64).layout, MemoryLayout::kT);
  EXPECT_EQ(level0(kRgb565, 64, 16).layout, MemoryLayout::kLt);  // 16-bit micro-tiles are 4 high
  EXPECT_EQ(level0(kRgb565, 64, 17).layout, MemoryLayout::kT);
  EXPECT_EQ(level0(kLuminance, 32, 64).layout, MemoryLayout::kLt);
  EXPECT_EQ(level0(kLuminance, 64, 32).layout, MemoryLayout::kLt);  // 8-bit micro-tiles are 8x8
  EXPECT_EQ(level0(kLuminance, 33, 33).layout, MemoryLayout::kT);
  EXPECT_EQ(level0(kRgba32r, 64, 64).layout, MemoryLayout::kLinear);
  // Padding: T to 32x32 texels at 32 bpp; LT to 4x4; raster rows to 4 texels.
  const TextureLevel t = level0(kRgba8888, 17, 17);
  EXPECT_EQ(t.padded_width, 32U);
  EXPECT_EQ(t.padded_height, 32U);
  EXPECT_EQ(t.bytes, 4096U);
  const TextureLevel lt = level0(kRgba8888, 5, 6);
  EXPECT_EQ(lt.padded_width, 8U);
  EXPECT_EQ(lt.padded_height, 8U);
  const TextureLevel raster = level0(kRgba32r, 5, 3);
  EXPECT_EQ(raster.padded_width, 8U);
  EXPECT_EQ(raster.padded_height, 3U);
  EXPECT_EQ(raster.bytes, 96U);
}

TEST(QpuTexture, TFormatTexelAddressing) {
  // 64x64 RGBA8888: T-format, 2x2 tiles of 32x32 texels, 16 micro-tiles across. Every micro-tile m (64 bytes from
  // kBase + 64 m) holds 0xFF000000 | m in all its texels.
  FakeMemory memory;
  for (std::uint32_t m = 0; m < 256; ++m) memory.fill32(kBase + 64 * m, 16, 0xFF000000U | m);
  const TextureParams p = decode_ok(p0(kBase, kRgba8888), p1(kRgba8888, 64, 64, true, kMinNearest));
  ASSERT_EQ(texture_level(p, 0).layout, MemoryLayout::kT);
  // Hand-worked positions (tile rows alternate: even rows left to right, odd right to left; sub-tiles BL, TL, TR, BR
  // on even rows and TR, BR, BL, TL on odd, "bottom" the first in memory; micro-tiles raster within a sub-tile):
  struct Texel {
    unsigned x, y, micro_tile;
  };
  const Texel texels[] = {
      {5, 1, 1},      // utile (1, 0): tile 0, sub-tile BL (0), utile 1 within it
      {40, 3, 66},    // utile (10, 0): tile 1 (4096 B), BL, utile 2 -> 4096 + 128
      {20, 10, 57},   // utile (5, 2): tile 0, bottom-right = 4th on an even row (3072), utile (1, 2) = 9 -> 3072 + 576
      {3, 33, 224},   // utile (0, 8): row 1 is odd, so tile x 0 is the second: tile 3 (12288); BL = 3rd (2048)
      {35, 40, 168},  // utile (8, 10): tile row 1 reversed, x 1 first: tile 2 (8192); BL (2048); utile (0, 2) = 8
      {4, 60, 253},   // utile (1, 15): tile 3 (12288); top-left = 4th on an odd row (3072); utile (1, 3) = 13
  };
  Vector s = splatf(0.5f / 64), t = splatf(0.5f / 64);
  for (unsigned i = 0; i < 6; ++i) {
    s[i] = fbits((static_cast<float>(texels[i].x) + 0.5f) / 64);
    t[i] = fbits((static_cast<float>(texels[i].y) + 0.5f) / 64);
  }
  const Vector got = sample_ok(p, memory, s, t);
  for (unsigned i = 0; i < 6; ++i) {
    EXPECT_EQ(got[i], 0xFF000000U | texels[i].micro_tile) << "texel (" << texels[i].x << ", " << texels[i].y << ")";
    EXPECT_EQ(texel_address(p, texture_level(p, 0), 0, texels[i].x, texels[i].y) & ~63U,
              kBase + 64 * texels[i].micro_tile);
  }
  EXPECT_EQ(got[6], 0xFF000000U);  // texel (0, 0): micro-tile 0
  // Within a micro-tile, texels are in raster order: texel (2, 3) is word 3 x 4 + 2 = 14.
  memory.put32(kBase + 4 * 14, 0x12345678U);
  EXPECT_EQ(sample_ok(p, memory, splatf(2.5f / 64), splatf(3.5f / 64))[0], 0x12345678U);
}

TEST(QpuTexture, LtTexelAddressing) {
  FakeMemory memory;
  // 16x8 RGBA8888: LT, 4 micro-tiles across. Texel (9, 6) is micro-tile (2, 1) = 6, word (6 % 4) x 4 + 9 % 4 = 9.
  memory.put32(kBase + 6 * 64 + 9 * 4, 0xA1B2C3D4U);
  // Texel (15, 7): micro-tile (3, 1) = 7, word 15.
  memory.put32(kBase + 7 * 64 + 15 * 4, 0x01020304U);
  const TextureParams p = decode_ok(p0(kBase, kRgba8888), p1(kRgba8888, 16, 8, true, kMinNearest));
  ASSERT_EQ(texture_level(p, 0).layout, MemoryLayout::kLt);
  Vector s = splatf(9.5f / 16), t = splatf(6.5f / 8);
  s[1] = fbits(15.5f / 16);
  t[1] = fbits(7.5f / 8);
  Vector got = sample_ok(p, memory, s, t);
  EXPECT_EQ(got[0], 0xA1B2C3D4U);
  EXPECT_EQ(got[1], 0x01020304U);

  // 32x8 RGB565: LT (32 <= 4 micro-tiles of 8), micro-tiles 8x4. Texel (17, 5): micro-tile (2, 1) = 6, texel
  // (5 % 4) x 8 + 17 % 8 = 9, 2 bytes each.
  memory.put16(kBase + 0x1000 + 6 * 64 + 9 * 2, 0xF800);  // red
  const TextureParams q = decode_ok(p0(kBase + 0x1000, kRgb565), p1(kRgb565, 32, 8, true, kMinNearest));
  ASSERT_EQ(texture_level(q, 0).layout, MemoryLayout::kLt);
  got = sample_ok(q, memory, splatf(17.5f / 32), splatf(5.5f / 8));
  EXPECT_EQ(got[0], 0xFF0000FFU);

  // 16x16 LUMINANCE: LT, micro-tiles 8x8, 2 across. Texel (10, 9): micro-tile (1, 1) = 3, texel 1 x 8 + 2 = 10.
  memory.put8(kBase + 0x2000 + 3 * 64 + 10, 0x77);
  const TextureParams l = decode_ok(p0(kBase + 0x2000, kLuminance), p1(kLuminance, 16, 16, true, kMinNearest));
  got = sample_ok(l, memory, splatf(10.5f / 16), splatf(9.5f / 16));
  EXPECT_EQ(got[0], 0xFF777777U);
}

TEST(QpuTexture, MipLevelsLieBelowTheBase) {
  // 16x16 RGBA8888, 5 levels: level 1 8x8 LT (256 B) ends at the base, level 2 4x4 (64 B) below it, level 3 2x2
  // padded to a 4x4 micro-tile (64 B), level 4 1x1 (64 B).
  const TextureParams p = decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, false, kNearMipNear));
  const std::uint32_t want[] = {kBase, kBase - 256, kBase - 320, kBase - 384, kBase - 448};
  for (unsigned level = 0; level <= 4; ++level) EXPECT_EQ(texture_level(p, level).address, want[level]) << level;
  EXPECT_EQ(texture_level(p, 3).width, 2U);
  EXPECT_EQ(texture_level(p, 3).padded_width, 4U);
  // 64x64: level 1 32x32 is T (4096 B), level 2 16x16 LT (1024 B).
  const TextureParams big = decode_ok(p0(kBase, kRgba8888, 2), p1(kRgba8888, 64, 64, false, kNearMipNear));
  EXPECT_EQ(texture_level(big, 1).layout, MemoryLayout::kT);
  EXPECT_EQ(texture_level(big, 1).address, kBase - 4096);
  EXPECT_EQ(texture_level(big, 2).layout, MemoryLayout::kLt);
  EXPECT_EQ(texture_level(big, 2).address, kBase - 5120);
  // 48x40: levels past 0 in power-of-two containers (64x64 >> 1 = 32x32: T, 4096 B; then 16x16 LT).
  const TextureParams npot = decode_ok(p0(kBase, kRgba8888, 2), p1(kRgba8888, 48, 40, false, kNearMipNear));
  EXPECT_EQ(texture_level(npot, 0).padded_width, 64U);
  EXPECT_EQ(texture_level(npot, 1).width, 32U);
  EXPECT_EQ(texture_level(npot, 1).height, 32U);
  EXPECT_EQ(texture_level(npot, 1).address, kBase - 4096);
  EXPECT_EQ(texture_level(npot, 2).address, kBase - 5120);
  // Raster 20x4: level 1 is 16x2, rows of 16 texels: 128 B.
  const TextureParams raster = decode_ok(p0(kBase, 0, 1), p1(kRgba32r, 20, 4, false, kNearMipNear));
  EXPECT_EQ(texture_level(raster, 1).width, 16U);
  EXPECT_EQ(texture_level(raster, 1).height, 2U);
  EXPECT_EQ(texture_level(raster, 1).address, kBase - 128);
}

// ---------------------------------------------------------------------------------------------------------------
// Wrap modes, filters, flip

TEST(QpuTexture, WrapModesOutsideZeroToOne) {
  FakeMemory memory;
  raster_coordinates(memory, 4, 4);
  // Elements: s = 1.25 (texel 5), -0.25 (texel -1), 2.125 (texel 8), -1.375 (texel -6), all on row 2 (t = 0.625);
  // element 4 at texel x 1 and t = 1.25 (row 5).
  Vector s = splatf(0.375f), t = splatf(0.625f);
  s[0] = fbits(1.25f);
  s[1] = fbits(-0.25f);
  s[2] = fbits(2.125f);
  s[3] = fbits(-1.375f);
  t[4] = fbits(1.25f);
  struct Want {
    unsigned mode;
    std::array<unsigned, 5> coordinate;  // the texel x of elements 0-3, the texel y of element 4
  };
  // repeat: i mod 4; clamp: to [0, 3]; mirror: period 8, reflected (5 -> 2, -1 -> 0, 8 -> 0, -6 -> 2).
  const Want wants[] = {{kRepeat, {1, 3, 0, 2, 1}}, {kClamp, {3, 0, 3, 0, 3}}, {kMirror, {2, 0, 0, 2, 2}}};
  for (const Want& w : wants) {
    const TextureParams p = decode_ok(p0(kBase, 0), p1(kRgba32r, 4, 4, true, kMinNearest, w.mode, w.mode));
    const Vector got = sample_ok(p, memory, s, t);
    for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(got[i], 0xFF000200U | w.coordinate[i]) << w.mode << " element " << i;
    EXPECT_EQ(got[4], 0xFF000001U | w.coordinate[4] << 8) << w.mode;
    EXPECT_EQ(got[5], 0xFF000201U) << w.mode;  // inside: texel (1, 2)
  }
  // Border: element 0 of the r write is the border colour (in r4's layout); no r write: 0.
  const TextureParams p = decode_ok(p0(kBase, 0), p1(kRgba32r, 4, 4, true, kMinNearest, kBorder, kBorder));
  Vector r = splat(0x55555555U);
  r[0] = 0x11223344U;
  Vector got = sample_ok(p, memory, s, t, &r);
  for (unsigned i = 0; i < 5; ++i) EXPECT_EQ(got[i], 0x11223344U) << i;
  EXPECT_EQ(got[5], 0xFF000201U);
  got = sample_ok(p, memory, s, t);
  for (unsigned i = 0; i < 5; ++i) EXPECT_EQ(got[i], 0U) << i;
  // Bilinear at the right edge (s = 1: halfway between texel 3 and the border): half texel (3, 2) = 0xFF000203, half
  // 0x11223344 -> 0x88, 0x11, 0x1A.8, 0x23.8.
  const TextureParams linear = decode_ok(p0(kBase, 0), p1(kRgba32r, 4, 4, false, kMinLinear, kBorder, kBorder));
  got = sample_ok(linear, memory, splatf(1.0f), splatf(0.625f), &r);
  EXPECT_TRUE(near_rgba(got[0], 0x88111B24U));
}

TEST(QpuTexture, NearestAndBilinearAtAndBetweenTexelCentres) {
  FakeMemory memory;
  // A 4x4 raster texture: (0, 0) = 0, (1, 0) = 0xFF804020, (0, 1) = 0x000000FF, (1, 1) = 0, the rest 0.
  for (unsigned i = 0; i < 16; ++i) memory.put32(kBase + 4 * i, 0);
  memory.put32(kBase + 4, 0xFF804020U);
  memory.put32(kBase + 16, 0x000000FFU);
  const TextureParams nearest = decode_ok(p0(kBase, 0), p1(kRgba32r, 4, 4, true, kMinNearest, kClamp, kClamp));
  const TextureParams linear = decode_ok(p0(kBase, 0), p1(kRgba32r, 4, 4, false, kMinLinear, kClamp, kClamp));
  // Element 0: texel (1, 0)'s centre (s = 1.5 / 4, t = 0.5 / 4). Element 1: halfway between texels 0 and 1 of row 0
  // (s = 1 / 4). Element 2: a quarter of the way (s = 0.75 / 4). Element 3: between the four texels (0-1, 0-1).
  Vector s = splatf(0.375f), t = splatf(0.125f);
  s[1] = fbits(0.25f);
  s[2] = fbits(0.1875f);
  s[3] = fbits(0.25f);
  t[3] = fbits(0.25f);
  Vector got = sample_ok(nearest, memory, s, t);
  EXPECT_EQ(got[0], 0xFF804020U);
  EXPECT_EQ(got[1], 0xFF804020U);  // floor(1.0) = texel 1
  EXPECT_EQ(got[2], 0U);           // floor(0.75) = texel 0
  EXPECT_EQ(got[3], 0U);           // texel (1, 1)
  got = sample_ok(linear, memory, s, t);
  EXPECT_EQ(got[0], 0xFF804020U);  // at a centre the texel itself, exactly
  // Halfway: 0x10, 0x20, 0x40, 0x7F.8.
  EXPECT_TRUE(near_rgba(got[1], 0x80402010U));
  // A quarter: 0x08, 0x10, 0x20, 0x3F.C.
  EXPECT_TRUE(near_rgba(got[2], 0x40201008U));
  // Four texels equally: (0x20 + 0xFF) / 4 = 0x47.C, 0x40 / 4, 0x80 / 4, 0xFF / 4 = 0x3F.C.
  EXPECT_TRUE(near_rgba(got[3], 0x40201048U));
}

TEST(QpuTexture, FlipYReadsFromTheLastRow) {
  FakeMemory memory;
  raster_coordinates(memory, 4, 4);
  Vector t = splatf(0.125f);  // row 0's centre
  const TextureParams plain = decode_ok(p0(kBase, 0), p1(kRgba32r, 4, 4, true, kMinNearest));
  const TextureParams flipped = decode_ok(p0(kBase, 0, 0, false, true), p1(kRgba32r, 4, 4, true, kMinNearest));
  EXPECT_EQ(sample_ok(plain, memory, splatf(0.375f), t)[0], 0xFF000001U);
  EXPECT_EQ(sample_ok(flipped, memory, splatf(0.375f), t)[0], 0xFF000301U);
}

// ---------------------------------------------------------------------------------------------------------------
// Levels of detail

constexpr std::uint32_t kLevelColour[] = {0xFF0000AAU, 0xFF00BB00U, 0xFFCC0000U, 0x11111111U, 0x22222222U};

// 16x16 RGBA8888 with 5 levels, each level one colour (the level's bytes as MipLevelsLieBelowTheBase works out).
void mip_chain(FakeMemory& memory) {
  memory.fill32(kBase, 256, kLevelColour[0]);
  memory.fill32(kBase - 256, 64, kLevelColour[1]);
  memory.fill32(kBase - 320, 16, kLevelColour[2]);
  memory.fill32(kBase - 384, 16, kLevelColour[3]);
  memory.fill32(kBase - 448, 16, kLevelColour[4]);
}

// Quad q's elements step by steps[q] texels per pixel in x and y (of 16): s = (1 + x step) / 16, t = (1 + y step)
// / 16.
void quads(const std::array<float, 4>& steps, Vector& s, Vector& t) {
  for (unsigned i = 0; i < 16; ++i) {
    const float step = steps[i / 4];
    s[i] = fbits((1.0f + static_cast<float>(i & 1U) * step) / 16);
    t[i] = fbits((1.0f + static_cast<float>((i >> 1) & 1U) * step) / 16);
  }
}

TEST(QpuTexture, MipLevelFromTheQuadsLodAndBias) {
  FakeMemory memory;
  mip_chain(memory);
  const TextureParams p = decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, true, kNearMipNear));
  Vector s{}, t{};
  // Two texels per pixel: rho 2, lambda 1, the nearest level ceil(1.5) - 1 = 1.
  quads({2, 2, 2, 2}, s, t);
  Vector got = sample_ok(p, memory, s, t);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(got[i], kLevelColour[1]) << i;
  // Bias +1: level 2; -1: lambda 0, magnification from level 0; +10: the last level.
  const std::pair<float, unsigned> biased[] = {{1.0f, 2}, {-1.0f, 0}, {10.0f, 4}};
  for (const auto& [bias, level] : biased) {
    const Vector b = splatf(bias);
    got = sample_ok(p, memory, s, t, nullptr, &b);
    for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(got[i], kLevelColour[level]) << bias << " element " << i;
  }
  // The bias is per element: element 5's +1 moves only it.
  Vector b = splatf(0.0f);
  b[5] = fbits(1.0f);
  got = sample_ok(p, memory, s, t, nullptr, &b);
  EXPECT_EQ(got[4], kLevelColour[1]);
  EXPECT_EQ(got[5], kLevelColour[2]);
  // Each quad its own LOD: steps 1, 2, 4, 8 texels give lambda 0, 1, 2, 3.
  quads({1, 2, 4, 8}, s, t);
  got = sample_ok(p, memory, s, t);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(got[i], kLevelColour[i / 4]) << i;
  // rho is the longer step: quad 0 steps 4 texels along x and 1 along y, quad 1 the other way round (lambda 2);
  // quad 2 steps 2 along x only, quad 3 2 along y only (lambda 1).
  const float xy_steps[4][2] = {{4, 1}, {1, 4}, {2, 0}, {0, 2}};
  for (unsigned i = 0; i < 16; ++i) {
    s[i] = fbits((1.0f + static_cast<float>(i & 1U) * xy_steps[i / 4][0]) / 16);
    t[i] = fbits((1.0f + static_cast<float>((i >> 1) & 1U) * xy_steps[i / 4][1]) / 16);
  }
  got = sample_ok(p, memory, s, t);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(got[i], kLevelColour[i < 8 ? 2 : 1]) << i;
  // The nearest level rounds (GL's ceil(lambda + 1/2) - 1): two texels per pixel with bias 0.7 is lambda 1.7, level
  // 2; with bias 0.3, level 1.
  quads({2, 2, 2, 2}, s, t);
  b = splatf(0.7f);
  b[4] = fbits(0.3f);
  got = sample_ok(p, memory, s, t, nullptr, &b);
  EXPECT_EQ(got[0], kLevelColour[2]);
  EXPECT_EQ(got[4], kLevelColour[1]);
  // BSLOD (P2 PTYPE 1 bit 0): b is the LOD itself, whatever the quads; b not written: LOD 0.
  const TextureParams bslod =
      decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, true, kNearMipNear), 1U << 30 | 1U, 0, 3);
  b = splatf(3.0f);
  got = sample_ok(bslod, memory, s, t, nullptr, &b);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(got[i], kLevelColour[3]) << i;
  got = sample_ok(bslod, memory, s, t);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(got[i], kLevelColour[0]) << i;
  // Min filters that use level 0 only ignore the LOD.
  const TextureParams level0 = decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, true, kMinNearest));
  quads({8, 8, 8, 8}, s, t);
  EXPECT_EQ(sample_ok(level0, memory, s, t)[0], kLevelColour[0]);
}

TEST(QpuTexture, MipmapFiltersBlendTwoLevels) {
  FakeMemory memory;
  mip_chain(memory);
  Vector s{}, t{};
  quads({2, 2, 2, 2}, s, t);
  const Vector half = splatf(0.5f);  // lambda 1.5: levels 1 and 2 half each
  // 0xFF00BB00 and 0xFFCC0000 halfway: 0, 0x5D.8, 0x66, 0xFF.
  for (unsigned min : {kNearMipLin, kLinMipLin}) {
    const TextureParams p = decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, true, min));
    const Vector got = sample_ok(p, memory, s, t, nullptr, &half);
    EXPECT_TRUE(near_rgba(got[0], 0xFF665E00U)) << min;
  }
  // LIN_MIP_NEAR at lambda 1.5: the nearest level, ceil(2) - 1 = 1.
  const TextureParams lin_near = decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, true, kLinMipNear));
  EXPECT_EQ(sample_ok(lin_near, memory, s, t, nullptr, &half)[0], kLevelColour[1]);
  // The switch-over point: one texel per pixel with bias 0.4 is lambda 0.4. With a linear magnification filter and
  // NEAR_MIP_LIN that is still magnification (GL's c = 0.5): level 0 alone. With a nearest one it is minification:
  // 0.6 level 0 + 0.4 level 1 = 0x66, 0x4A.C, 0, 0xFF.
  quads({1, 1, 1, 1}, s, t);
  const Vector bias = splatf(0.4f);
  const TextureParams mag_linear = decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, false, kNearMipLin));
  EXPECT_EQ(sample_ok(mag_linear, memory, s, t, nullptr, &bias)[0], kLevelColour[0]);
  const TextureParams mag_nearest = decode_ok(p0(kBase, kRgba8888, 4), p1(kRgba8888, 16, 16, true, kNearMipLin));
  EXPECT_TRUE(near_rgba(sample_ok(mag_nearest, memory, s, t, nullptr, &bias)[0], 0xFF004B66U));
}

// ---------------------------------------------------------------------------------------------------------------
// Cube maps

TEST(QpuTexture, CubeMapFacesAndFaceCoordinates) {
  // Six 8x8 RGBA8888 faces (LT, 256 B), one stride (4096 B) apart, +X, -X, +Y, -Y, +Z, -Z; texel (x, y) of face f
  // is 0xFF000000 | f << 16 | y << 8 | x (LT: micro-tile (x / 4, y / 4) of 2 across, word (y % 4) x 4 + x % 4).
  FakeMemory memory;
  for (unsigned f = 0; f < 6; ++f) {
    for (unsigned y = 0; y < 8; ++y) {
      for (unsigned x = 0; x < 8; ++x) {
        const unsigned offset = ((y / 4) * 2 + x / 4) * 64 + ((y % 4) * 4 + x % 4) * 4;
        memory.put32(kBase + f * 4096 + offset, 0xFF000000U | f << 16 | y << 8 | x);
      }
    }
  }
  const TextureParams p = decode_ok(p0(kBase, kRgba8888, 0, true),
                                    p1(kRgba8888, 8, 8, true, kMinNearest, kClamp, kClamp), 1U << 30 | 4096U, 0, 3);
  // Directions (x, y, z) and the face, texel OpenGL 2.0's table 3.21 gives: s = (sc + 1) / 2, t = (tc + 1) / 2.
  struct Direction {
    float x, y, z;
    unsigned face, tx, ty;
  };
  const Direction directions[] = {
      {1.0f, 0.2f, -0.3f, 0, 5, 3},    // +X: sc = -z = 0.3 -> 5.2, tc = -y = -0.2 -> 3.2
      {-1.0f, 0.0f, 0.0f, 1, 4, 4},    // -X: sc = z = 0, tc = -y = 0 -> 4
      {0.25f, 1.0f, -0.5f, 2, 5, 2},   // +Y: sc = x = 0.25 -> 5, tc = z = -0.5 -> 2
      {-0.1f, -1.0f, 0.5f, 3, 3, 2},   // -Y: sc = x = -0.1 -> 3.6, tc = -z = -0.5 -> 2
      {0.5f, 0.5f, 1.0f, 4, 6, 2},     // +Z: sc = x = 0.5 -> 6, tc = -y = -0.5 -> 2
      {0.5f, -0.25f, -1.0f, 5, 2, 5},  // -Z: sc = -x = -0.5 -> 2, tc = -y = 0.25 -> 5
  };
  Vector s = splatf(1.0f), t = splatf(0.0f), r = splatf(0.0f);
  for (unsigned i = 0; i < 6; ++i) {
    s[i] = fbits(directions[i].x);
    t[i] = fbits(directions[i].y);
    r[i] = fbits(directions[i].z);
  }
  std::vector<std::uint32_t> lines;
  Vector got = sample_ok(p, memory, s, t, &r, nullptr, &lines);
  for (unsigned i = 0; i < 6; ++i) {
    const Direction& d = directions[i];
    EXPECT_EQ(got[i], 0xFF000000U | d.face << 16 | d.ty << 8 | d.tx) << "direction " << i;
  }
  EXPECT_EQ(got[6], 0xFF000404U);  // (1, 0, 0): +X's centre
  // No r write: z is 0 ("params that are not written will be treated as zero"): (0.5, 0.25) is (0.5, 0.25, 0), on
  // +X at sc = 0 -> 4, tc = -0.25 -> 3; with r = 1 it is on +Z.
  s = splatf(0.5f);
  t = splatf(0.25f);
  EXPECT_EQ(sample_ok(p, memory, s, t)[0], 0xFF000304U);
  r = splatf(1.0f);
  EXPECT_EQ(sample_ok(p, memory, s, t, &r)[0], 0xFF040306U);  // +Z: sc = 0.5 -> 6, tc = -0.25 -> 3
}

// ---------------------------------------------------------------------------------------------------------------
// Memory lines

TEST(QpuTexture, ListsEachMemoryLineOnceInReadOrder) {
  FakeMemory memory;
  raster_coordinates(memory, 32, 2);  // rows of 128 bytes
  // Nearest, every element on texel (5, 0): one line.
  const TextureParams nearest = decode_ok(p0(kBase, 0), p1(kRgba32r, 32, 2, true, kMinNearest, kClamp, kClamp));
  std::vector<std::uint32_t> lines;
  sample_ok(nearest, memory, splatf(5.5f / 32), splatf(0.25f), nullptr, nullptr, &lines);
  EXPECT_EQ(lines, (std::vector<std::uint32_t>{kBase}));
  // Element 0 on texel (20, 1) (byte 128 + 80), element 1 on texel (1, 0): lines in first-read order.
  Vector s = splatf(1.5f / 32), t = splatf(0.25f);
  s[0] = fbits(20.5f / 32);
  t[0] = fbits(0.75f);
  sample_ok(nearest, memory, s, t, nullptr, nullptr, &lines);
  EXPECT_EQ(lines, (std::vector<std::uint32_t>{kBase + 192, kBase}));
  // Bilinear at s = 16 / 32, t = 1 / 4: texels (15, 0) byte 60, (16, 0) byte 64, (15, 1) byte 188, (16, 1) byte 192
  // (row 1 with weight 0, still read: the 2x2 footprint).
  const TextureParams linear = decode_ok(p0(kBase, 0), p1(kRgba32r, 32, 2, false, kMinLinear, kClamp, kClamp));
  const Vector got = sample_ok(linear, memory, splatf(0.5f), splatf(0.25f), nullptr, nullptr, &lines);
  EXPECT_EQ(lines, (std::vector<std::uint32_t>{kBase, kBase + 64, kBase + 128, kBase + 192}));
  EXPECT_TRUE(near_rgba(got[0], 0xFF000010U));  // texels 15 and 16 of row 0 halfway: x = 15.5
  // Border texels read no memory.
  const TextureParams border = decode_ok(p0(kBase, 0), p1(kRgba32r, 32, 2, true, kMinNearest, kBorder, kBorder));
  memory.reads = 0;
  sample_ok(border, memory, splatf(-0.5f), splatf(0.25f), nullptr, nullptr, &lines);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(memory.reads, 0U);
}

// ---------------------------------------------------------------------------------------------------------------
// Errors and guest input

TEST(QpuTexture, ReadsOutsideMemoryAreErrorsNamingTheAddress) {
  FakeMemory memory;
  Vector result{};
  std::vector<std::uint32_t> lines;
  std::string error;
  // Level 0 past the memory's end.
  TextureParams p = decode_ok(p0(0x80000, kRgba8888), p1(kRgba8888, 16, 16, true, kMinNearest));
  EXPECT_FALSE(sample_texture(p, splatf(0.0f), splatf(0.0f), nullptr, nullptr, memory, result, lines, error));
  EXPECT_EQ(error, "texture lookup: element 0 reads texel (0, 0) of level 0 at 0x00080000, where there is no memory");
  // Level 1 below the memory's start (level 0 at its first byte): 0x10000 - 256.
  p = decode_ok(p0(kMemoryBase, kRgba8888, 1), p1(kRgba8888, 16, 16, true, kNearMipNear), 1U << 30 | 1U, 0, 3);
  const Vector b = splatf(1.0f);
  EXPECT_FALSE(sample_texture(p, splatf(0.0f), splatf(0.0f), nullptr, &b, memory, result, lines, error));
  EXPECT_EQ(error, "texture lookup: element 0 reads texel (0, 0) of level 1 at 0x0000ff00, where there is no memory");
  // Levels below address 0 wrap at 4 GiB: still just a read outside memory.
  p = decode_ok(p0(0, kRgba8888, 1), p1(kRgba8888, 16, 16, true, kNearMipNear), 1U << 30 | 1U, 0, 3);
  EXPECT_FALSE(sample_texture(p, splatf(0.0f), splatf(0.0f), nullptr, &b, memory, result, lines, error));
  EXPECT_NE(error.find("at 0xffffff00"), std::string::npos) << error;
  // A cube face past the memory: the face is named.
  p = decode_ok(p0(0x4F000, kRgba8888, 0, true), p1(kRgba8888, 8, 8, true, kMinNearest), 1U << 30 | 0x1000U, 0, 3);
  EXPECT_FALSE(sample_texture(p, splatf(-1.0f), splatf(0.0f), nullptr, nullptr, memory, result, lines, error));
  EXPECT_EQ(error,
            "texture lookup: element 0 reads texel (4, 4) of level 0 of cube face 1 at 0x000500c0, where there is no "
            "memory");  // face 1 at 0x50000, texel (4, 4) in micro-tile (1, 1) = 3
  // Parameters a caller made up rather than decoded.
  TextureParams made_up;
  made_up.width = 0;
  EXPECT_FALSE(sample_texture(made_up, splatf(0.0f), splatf(0.0f), nullptr, nullptr, memory, result, lines, error));
  EXPECT_NE(error.find("not what decode_texture_params gives"), std::string::npos) << error;
  made_up = TextureParams{};
  made_up.type = TextureType::kEtc1;
  EXPECT_FALSE(sample_texture(made_up, splatf(0.0f), splatf(0.0f), nullptr, nullptr, memory, result, lines, error));
  EXPECT_NE(error.find("ETC1"), std::string::npos) << error;
}

TEST(QpuTexture, NanInfinityAndHugeCoordinatesGiveResults) {
  FakeMemory memory;
  raster_coordinates(memory, 4, 4);
  const TextureParams clamp = decode_ok(p0(kBase, 0), p1(kRgba32r, 4, 4, true, kMinNearest, kClamp, kClamp));
  Vector s = splatf(0.0f), t = splatf(0.0f);
  s[0] = fbits(std::numeric_limits<float>::quiet_NaN());  // as 0: texel 0
  s[1] = fbits(std::numeric_limits<float>::infinity());   // clamped: texel 3
  s[2] = fbits(-std::numeric_limits<float>::infinity());  // texel 0
  s[3] = fbits(3.0e38f);                                  // texel 3
  s[4] = 0x00000001U;                                     // a denormal: 0
  const Vector got = sample_ok(clamp, memory, s, t);
  EXPECT_EQ(got[0], 0xFF000000U);
  EXPECT_EQ(got[1], 0xFF000003U);
  EXPECT_EQ(got[2], 0xFF000000U);
  EXPECT_EQ(got[3], 0xFF000003U);
  EXPECT_EQ(got[4], 0xFF000000U);

  // Every filter and wrap mode, 2D and cube, over bit patterns that include NaNs, infinities, denormals and huge
  // values for s, t, r and b: a result (all reads stay within the texture), never an error or a crash.
  FakeMemory mips;
  mip_chain(mips);
  std::uint32_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 1664525U + 1013904223U;
    return seed;
  };
  const std::uint32_t specials[] = {0x7FC00000U, 0xFFC00000U, 0x7F800000U, 0xFF800000U, 0x00000001U,
                                    0x80000000U, 0x7F7FFFFFU, 0xFF7FFFFFU, 0x3F800000U, 0x4F000000U};
  for (unsigned wrap : {kRepeat, kClamp, kMirror, kBorder}) {
    for (unsigned min = 0; min <= 5; ++min) {
      for (bool mag_nearest : {false, true}) {
        for (bool cube : {false, true}) {
          if (cube && wrap == kBorder) continue;  // a decode error
          const TextureParams p = decode_ok(p0(kBase, kRgba8888, 4, cube, true),
                                            p1(kRgba8888, 16, 16, mag_nearest, min, wrap, wrap), 1U << 30, 0, 3);
          for (unsigned round = 0; round < 8; ++round) {
            Vector vs{}, vt{}, vr{}, vb{};
            for (unsigned i = 0; i < 16; ++i) {
              vs[i] = (next() & 1U) != 0 ? specials[next() % 10] : next();
              vt[i] = (next() & 1U) != 0 ? specials[next() % 10] : next();
              vr[i] = (next() & 1U) != 0 ? specials[next() % 10] : next();
              vb[i] = (next() & 1U) != 0 ? specials[next() % 10] : next();
            }
            Vector result{};
            std::vector<std::uint32_t> lines;
            std::string error;
            // Cube faces past face 0 lie past this texture: give them no stride (every face reads face 0's memory).
            ASSERT_TRUE(sample_texture(p, vs, vt, &vr, &vb, mips, result, lines, error)) << error;
            EXPECT_TRUE(wrap == kBorder || !lines.empty());  // border mode may read nothing
          }
        }
      }
    }
  }
}

// ---- the core: a program's TMU writes make the lookup ----

// A QPU samples a 4x4 RGBA32R raster texture (PeterLemon's setup: P1 with type bit 4, nearest filters) at each
// texel's centre, element e at (e & 3, e >> 2): the T write takes P0 from the uniforms, the S write P1 and submits;
// load_tmu0 puts the 16 texels in r4. A second lookup with R and B writes takes P0-P3, the fifth parameter write is an
// error.
TEST(QpuTextureLookup, AProgramsTmuWritesTakeTheirParametersAndLoadTheTexels) {
  TestEnvironment env;
  Qpu qpu(2, env, QpuTiming{9, 0, 0});
  AssembledProgram program;
  std::string error;
  ASSERT_TRUE(assemble(R"(
      mov r0, elem
      and r1, r0, 3
      shr r2, r0, 2
      itof r1, r1
      itof r2, r2
      fadd r1, r1, 0.5
      fadd r2, r2, 0.5
      fmul r1, r1, 0.250000
      fmul r2, r2, 0.250000
      mov tmu0_t, r2
      mov tmu0_s, r1
      load_tmu0 nop
      mov r3, r4
      sig_end nop
      nop
      nop
  )",
                       program, error))
      << error;
  env.code = program.code;
  const std::uint32_t base = kMemory;  // 4 KiB aligned
  for (unsigned y = 0; y < 4; ++y) {
    for (unsigned x = 0; x < 4; ++x) env.set_word(base + 4 * (4 * y + x), 0xFF000000U | (y << 8) | x);
  }
  env.uniforms = {base, 0x80000000U | 4U << 20 | 4U << 8 | 1U << 7 | 1U << 4};
  qpu.start(kCode, kUniforms);
  Qpu::Step step = Qpu::Step::kIssued;
  unsigned stalls = 0;
  for (std::uint64_t cycle = 0; step == Qpu::Step::kIssued || step == Qpu::Step::kStalled; cycle += 4) {
    step = qpu.step(cycle);
    stalls += step == Qpu::Step::kStalled ? 1 : 0;
  }
  ASSERT_EQ(step, Qpu::Step::kEnded) << qpu.error();
  EXPECT_EQ(qpu.uniform_address(), kUniforms + 8);  // two parameters taken
  EXPECT_EQ(qpu.texture_requests(), 1u);
  EXPECT_EQ(stalls, 2u);  // issued at cycle 40, data at 49: load_tmu0 at 44 and 48 waits
  for (unsigned e = 0; e < 16; ++e) {
    const std::uint32_t raw = 0xFF000000U | ((e >> 2) << 8) | (e & 3U);
    EXPECT_EQ(qpu.acc(3)[e], texel_to_r4(TextureType::kRgba32r, raw)) << e;
  }
  // RGBA32R's bytes are R, G, B, A in memory: r4 holds the word as stored.
  EXPECT_EQ(texel_to_r4(TextureType::kRgba32r, 0xFF000102U), 0xFF000102U);
}

// An (s, t) lookup takes two request FIFO slots: eight fill the receive FIFO and four more the request FIFO's eight
// slots, so a thirteenth lookup's T write would wait forever; twelve are loaded back in order.
TEST(QpuTextureLookup, TwoComponentLookupsTakeTwoRequestSlotsEach) {
  const auto run_lookups = [](unsigned lookups, std::string& error) {
    TestEnvironment env;
    Qpu qpu(2, env, QpuTiming{9, 0, 0});
    std::string source = "mov r1, 0.125\nmov r2, 0.125\n";
    for (unsigned i = 0; i < lookups; ++i) source += "mov tmu0_t, r2\nmov tmu0_s, r1\n";
    for (unsigned i = 0; i < lookups; ++i) source += "load_tmu0 nop\n";
    AssembledProgram program;
    EXPECT_TRUE(assemble(source + "mov r3, r4\nsig_end nop\nnop\nnop\n", program, error)) << error;
    env.code = program.code;
    env.set_word(kMemory, 0xFF0000AAU);  // a 1x1 RGBA32R texture: every lookup reads this texel
    for (unsigned i = 0; i < lookups; ++i) {
      env.uniforms.push_back(kMemory);
      env.uniforms.push_back(0x80000000U | 1U << 20 | 1U << 8 | 1U << 7 | 1U << 4);
    }
    qpu.start(kCode, kUniforms);
    Qpu::Step step = Qpu::Step::kIssued;
    for (std::uint64_t cycle = 0; step == Qpu::Step::kIssued || step == Qpu::Step::kStalled; cycle += 4) {
      step = qpu.step(cycle);
    }
    error = qpu.error();
    return step == Qpu::Step::kEnded ? qpu.acc(3)[0] : 0U;
  };
  std::string error;
  EXPECT_EQ(run_lookups(12, error), texel_to_r4(TextureType::kRgba32r, 0xFF0000AAU)) << error;
  EXPECT_EQ(run_lookups(13, error), 0u);
  EXPECT_NE(error.find("a TMU0 T write with its request FIFO's 8 slots in use"), std::string::npos) << error;
}

TEST(QpuTextureLookup, AFifthParameterWriteAndABadSetupEndTheProgramWithTheReason) {
  for (const auto& [source, reason] :
       {std::pair<std::string, std::string>{"mov tmu0_t, r0\nmov tmu0_r, r0\nmov tmu0_b, r0\nmov tmu0_b, r0\n"
                                            "mov tmu0_t, r0\n",
                                            "a fifth TMU0 parameter write before its S write"},
        {"mov tmu1_t, r0\nmov tmu1_s, r0\n", "TMU1 texture lookup: "}}) {
    TestEnvironment env;
    Qpu qpu(2, env);
    AssembledProgram program;
    std::string error;
    ASSERT_TRUE(assemble(source + "sig_end nop\nnop\nnop\n", program, error)) << error;
    env.code = program.code;
    env.uniforms = {0, 0xFFFFFFFFU, 0, 0, 0, 0};  // P0 base 0 (no memory there), P1 type 31: undefined
    qpu.start(kCode, kUniforms);
    Qpu::Step step = Qpu::Step::kIssued;
    for (std::uint64_t cycle = 0; step == Qpu::Step::kIssued; cycle += 4) step = qpu.step(cycle);
    EXPECT_EQ(step, Qpu::Step::kError);
    EXPECT_NE(qpu.error().find(reason), std::string::npos) << qpu.error();
  }
}

}  // namespace
}  // namespace gpuvp::vc4::qpu
