// Frame buffers as PNG files (platform/framebuffer_png, hw/vc4/surface.h): the converters against pixel positions and
// values worked out by hand from the documented layouts (Mesa vc4_tiling.c's T-format: 4 KiB tiles of 1 KiB sub-tiles
// of 64-byte micro-tiles, tile rows alternating direction, sub-tiles BL TL TR BR on even rows and TR BR BL TL on odd
// ones; LT: micro-tiles in raster order; vc4_validate.c's padding), the byte order of RGBA8888 and BGR565, a PNG round
// trip read back with libpng, `gpuvp --dump-fb` on the demo's frame, the script command dump_png, and the error paths.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <png.h>
#include <unistd.h>

#include "hw/vc4/surface.h"
#include "platform/framebuffer_png.h"
#include "tests/support/run_gpuvp.h"

using namespace gpuvp;
using platform::FramebufferImage;
using vc4::ColorFormat;
using vc4::MemoryLayout;

namespace {

struct Rgba {
  std::uint8_t r, g, b, a;
  bool operator==(const Rgba& o) const { return r == o.r && g == o.g && b == o.b && a == o.a; }
};
std::ostream& operator<<(std::ostream& os, const Rgba& p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "(%02x %02x %02x %02x)", p.r, p.g, p.b, p.a);
  return os << buf;
}

FramebufferImage image_of(ColorFormat format, MemoryLayout layout, std::uint32_t w, std::uint32_t h,
                          std::uint64_t stride = 0) {
  FramebufferImage image;
  image.format = format;
  image.layout = layout;
  image.width = w;
  image.height = h;
  image.stride = stride;
  return image;
}

// Converts `memory` (the image's bytes from its first one); fails the test on an error.
std::vector<std::uint8_t> convert(const FramebufferImage& image, const std::vector<std::uint8_t>& memory) {
  std::vector<std::uint8_t> rgba;
  const std::string error = platform::framebuffer_to_rgba8(
      image,
      [&memory](std::uint64_t offset, std::uint8_t* data, std::size_t len) {
        if (offset > memory.size() || len > memory.size() - offset) return false;
        std::copy(memory.begin() + static_cast<std::ptrdiff_t>(offset),
                  memory.begin() + static_cast<std::ptrdiff_t>(offset + len), data);
        return true;
      },
      rgba);
  EXPECT_EQ(error, "");
  return rgba;
}

Rgba pixel(const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t x, std::uint32_t y) {
  const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 4;
  return {rgba.at(i), rgba.at(i + 1), rgba.at(i + 2), rgba.at(i + 3)};
}

// A tiled image whose every micro-tile holds its own index in memory order: RGBA8888 pixels 0xFF5A'iiii (R 0x5A, G and
// B the index), BGR565 pixels the index itself. The index a pixel shows is then the micro-tile it was read from.
std::vector<std::uint8_t> numbered_micro_tiles(const FramebufferImage& image) {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(platform::framebuffer_span(image)));
  const unsigned bpp = vc4::bytes_per_pixel(image.format);
  for (std::size_t at = 0; at < bytes.size(); at += bpp) {
    const auto index = static_cast<std::uint32_t>(at / vc4::kMicroTileBytes);
    if (bpp == 4) {
      const std::uint32_t v = 0xFF5A0000u | index;
      for (unsigned b = 0; b < 4; ++b) bytes[at + b] = static_cast<std::uint8_t>(v >> (8 * b));
    } else {
      bytes[at] = static_cast<std::uint8_t>(index);
      bytes[at + 1] = static_cast<std::uint8_t>(index >> 8);
    }
  }
  return bytes;
}
std::uint32_t micro_tile_shown(const FramebufferImage& image, const std::vector<std::uint8_t>& rgba, std::uint32_t x,
                               std::uint32_t y) {
  const Rgba p = pixel(rgba, image.width, x, y);
  if (image.format == ColorFormat::kRgba8888) {
    EXPECT_EQ(p.r, 0x5A);
    EXPECT_EQ(p.a, 0xFF);
    return static_cast<std::uint32_t>(p.g) << 8 | p.b;
  }
  // BGR565 widened back: the top bits of each channel are the stored ones.
  return static_cast<std::uint32_t>(p.r >> 3) << 11 | static_cast<std::uint32_t>(p.g >> 2) << 5 | (p.b >> 3);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A PNG read back with libpng: its size, its IHDR bit depth and colour type (bytes 24 and 25 of the file: signature,
// chunk length and type, width, height), and its pixels as RGBA8.
struct Png {
  bool ok = false;
  std::uint32_t width = 0, height = 0;
  int bit_depth = 0, color_type = 0;
  std::vector<std::uint8_t> rgba;
  std::string error;
};
Png read_png(const std::string& path) {
  Png out;
  const std::string file = slurp(path);
  if (file.size() < 26 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    out.error = "not a PNG file: '" + path + "'";
    return out;
  }
  out.bit_depth = static_cast<unsigned char>(file[24]);
  out.color_type = static_cast<unsigned char>(file[25]);
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&image, path.c_str()) == 0) {
    out.error = image.message;
    return out;
  }
  image.format = PNG_FORMAT_RGBA;
  out.width = image.width;
  out.height = image.height;
  out.rgba.resize(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr) == 0) {
    out.error = image.message;
    png_image_free(&image);
    return out;
  }
  out.ok = true;
  return out;
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "fb-" + std::to_string(::getpid()) + "-" + name;
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

// ---- pixel formats ----

TEST(FramebufferConvert, Rgba8888IsTheLittleEndianWordAarrggbbAndKeepsAlpha) {
  // 3x2 with a 16-byte stride: the 4 bytes after each row are not pixels. Memory bytes B, G, R, A.
  const std::vector<std::uint8_t> memory = {
      0x80, 0x40, 0x20, 0xFF, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0xFF, 0x00, 0xEE, 0xEE, 0xEE, 0xEE,  // row 0
      0xFF, 0x00, 0x00, 0x7F, 0x00, 0xFF, 0x00, 0x80, 0x11, 0x22, 0x33, 0x44, 0xEE, 0xEE, 0xEE, 0xEE,  // row 1
  };
  const FramebufferImage image = image_of(ColorFormat::kRgba8888, MemoryLayout::kLinear, 3, 2, 16);
  const auto rgba = convert(image, memory);
  ASSERT_EQ(rgba.size(), 3u * 2 * 4);
  EXPECT_EQ(pixel(rgba, 3, 0, 0), (Rgba{0x20, 0x40, 0x80, 0xFF}));  // the demo's clear colour 0xFF204080
  EXPECT_EQ(pixel(rgba, 3, 1, 0), (Rgba{0x03, 0x02, 0x01, 0x04}));
  EXPECT_EQ(pixel(rgba, 3, 2, 0), (Rgba{0xFF, 0x00, 0x00, 0x00}));  // red, alpha 0 as stored
  EXPECT_EQ(pixel(rgba, 3, 0, 1), (Rgba{0x00, 0x00, 0xFF, 0x7F}));
  EXPECT_EQ(pixel(rgba, 3, 1, 1), (Rgba{0x00, 0xFF, 0x00, 0x80}));
  EXPECT_EQ(pixel(rgba, 3, 2, 1), (Rgba{0x33, 0x22, 0x11, 0x44}));
}

TEST(FramebufferConvert, Bgr565HasRedOnTopAndWidensByRepeatingTheTopBits) {
  // Little-endian 16-bit pixels: red 15:11, green 10:5, blue 4:0. 0x8410: red 10000b -> 10000100b = 0x84, green
  // 100000b -> 10000010b = 0x82, blue 0x84.
  const std::vector<std::uint16_t> values = {0xF800, 0x07E0, 0x001F, 0x8410, 0x0000, 0xFFFF};
  std::vector<std::uint8_t> memory;
  for (std::uint16_t v : values) {
    memory.push_back(static_cast<std::uint8_t>(v));
    memory.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  for (ColorFormat format : {ColorFormat::kBgr565, ColorFormat::kBgr565Dithered}) {
    SCOPED_TRACE(vc4::color_format_name(format));
    const auto rgba = convert(image_of(format, MemoryLayout::kLinear, 3, 2), memory);
    EXPECT_EQ(pixel(rgba, 3, 0, 0), (Rgba{0xFF, 0x00, 0x00, 0xFF}));
    EXPECT_EQ(pixel(rgba, 3, 1, 0), (Rgba{0x00, 0xFF, 0x00, 0xFF}));
    EXPECT_EQ(pixel(rgba, 3, 2, 0), (Rgba{0x00, 0x00, 0xFF, 0xFF}));
    EXPECT_EQ(pixel(rgba, 3, 0, 1), (Rgba{0x84, 0x82, 0x84, 0xFF}));
    EXPECT_EQ(pixel(rgba, 3, 1, 1), (Rgba{0x00, 0x00, 0x00, 0xFF}));
    EXPECT_EQ(pixel(rgba, 3, 2, 1), (Rgba{0xFF, 0xFF, 0xFF, 0xFF}));
  }
}

TEST(FramebufferConvert, TheTileRenderersBgr565StoreReadsBackAsItsTopBits) {
  // The renderer keeps the top 5/6/5 bits of 0xAARRGGBB (hw/vc4/surface.h, shared with it): 0xFF336699 -> R 0x33>>3,
  // G 0x66>>2, B 0x99>>3, widened again to 0x31, 0x65, 0x9C.
  EXPECT_EQ(vc4::argb_to_bgr565(0xFF336699), (0x33 >> 3) << 11 | (0x66 >> 2) << 5 | (0x99 >> 3));
  EXPECT_EQ(vc4::bgr565_to_argb(vc4::argb_to_bgr565(0xFF336699)), 0xFF31659Cu);
}

TEST(FramebufferConvert, RasterRowsAreReadAtTheStrideAndItsGapsNever) {
  const FramebufferImage image = image_of(ColorFormat::kRgba8888, MemoryLayout::kLinear, 3, 4, 100);
  std::vector<std::pair<std::uint64_t, std::size_t>> reads;
  std::vector<std::uint8_t> rgba;
  EXPECT_EQ(platform::framebuffer_to_rgba8(
                image,
                [&reads](std::uint64_t offset, std::uint8_t*, std::size_t len) {
                  reads.emplace_back(offset, len);
                  return true;
                },
                rgba),
            "");
  EXPECT_EQ(reads, (std::vector<std::pair<std::uint64_t, std::size_t>>{{0, 12}, {100, 12}, {200, 12}, {300, 12}}));
  EXPECT_EQ(platform::framebuffer_span(image), 312u);
  EXPECT_EQ(platform::framebuffer_span(image_of(ColorFormat::kBgr565, MemoryLayout::kLinear, 7, 3)), 42u);
}

// ---- T-format ----

TEST(FramebufferConvert, TFormatRgba8888MicroTilesLieWhereTheDocumentedOrderPutsThem) {
  // 64x64 RGBA8888: micro-tiles of 4x4 pixels, 16x16 of them; 4 KiB tiles of 8x8 micro-tiles (32x32 pixels), 2x2 of
  // them. Micro-tile index = byte offset / 64: tile (0,0) 0-63, tile (1,0) 64-127; the odd tile row runs right to left:
  // tile (1,1) 128-191, tile (0,1) 192-255. Sub-tiles of 16 micro-tiles: even rows BL 0, TL +16, TR +32, BR +48 (B =
  // the lower y); odd rows TR 0, BR +16, BL +32, TL +48.
  const FramebufferImage image = image_of(ColorFormat::kRgba8888, MemoryLayout::kT, 64, 64);
  ASSERT_EQ(platform::framebuffer_span(image), 16384u);
  const auto rgba = convert(image, numbered_micro_tiles(image));
  struct Case {
    std::uint32_t x, y, micro_tile;
  };
  const Case cases[] = {
      {0, 0, 0},      // tile (0,0), sub-tile BL, first micro-tile
      {4, 0, 1},      // the next micro-tile to the right
      {0, 4, 4},      // the next micro-tile row: 4 micro-tiles on
      {12, 12, 15},   // the sub-tile's last
      {0, 16, 16},    // sub-tile TL
      {16, 16, 32},   // sub-tile TR
      {16, 0, 48},    // sub-tile BR
      {20, 3, 49},    // BR's second micro-tile
      {63, 0, 115},   // tile (1,0) = 64, BR + 48, micro-tile 3
      {32, 0, 64},    // tile (1,0)
      {32, 32, 160},  // tile (1,1) = 128 (the odd row's first), BL + 32
      {48, 48, 128},  // tile (1,1) TR + 0
      {60, 60, 143},  // tile (1,1) TR, micro-tile 15
      {0, 32, 224},   // tile (0,1) = 192, BL + 32
      {0, 63, 252},   // tile (0,1) TL + 48, micro-tile 12
  };
  for (const Case& c : cases) {
    EXPECT_EQ(micro_tile_shown(image, rgba, c.x, c.y), c.micro_tile) << "pixel (" << c.x << ", " << c.y << ")";
    // Every pixel of the micro-tile shows the same one.
    EXPECT_EQ(micro_tile_shown(image, rgba, c.x | 3, c.y | 3), c.micro_tile) << "pixel (" << c.x << ", " << c.y << ")";
  }
  // Each of the 256 micro-tiles is shown exactly once.
  std::vector<int> seen(256, 0);
  for (std::uint32_t y = 0; y < 64; y += 4)
    for (std::uint32_t x = 0; x < 64; x += 4) ++seen.at(micro_tile_shown(image, rgba, x, y));
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 256);
}

TEST(FramebufferConvert, TFormatPixelsInsideAMicroTileAreInRasterOrder) {
  // Micro-tile 49 (pixels 20..23 x 0..3, see above) holds pixel values 0..15 at bytes 49 * 64 + 4p.
  const FramebufferImage image = image_of(ColorFormat::kRgba8888, MemoryLayout::kT, 64, 64);
  std::vector<std::uint8_t> memory(16384, 0);
  for (unsigned p = 0; p < 16; ++p) memory[49 * 64 + 4 * p] = static_cast<std::uint8_t>(0xC0 + p);  // blue
  const auto rgba = convert(image, memory);
  for (unsigned p = 0; p < 16; ++p) {
    EXPECT_EQ(pixel(rgba, 64, 20 + p % 4, p / 4).b, 0xC0 + p) << p;
    EXPECT_EQ(platform::framebuffer_pixel_offset(image, 20 + p % 4, p / 4), 49u * 64 + 4 * p) << p;
  }
}

TEST(FramebufferConvert, TFormatBgr565MicroTilesAreEightPixelsWide) {
  // 128x64 BGR565: micro-tiles of 8x4 pixels (16 bytes a row), 16x16 of them; 4 KiB tiles of 64x32 pixels.
  const FramebufferImage image = image_of(ColorFormat::kBgr565, MemoryLayout::kT, 128, 64);
  ASSERT_EQ(platform::framebuffer_span(image), 16384u);
  const auto rgba = convert(image, numbered_micro_tiles(image));
  EXPECT_EQ(micro_tile_shown(image, rgba, 0, 0), 0u);
  EXPECT_EQ(micro_tile_shown(image, rgba, 8, 0), 1u);
  EXPECT_EQ(micro_tile_shown(image, rgba, 7, 3), 0u);
  EXPECT_EQ(micro_tile_shown(image, rgba, 32, 0), 48u);     // sub-tile BR
  EXPECT_EQ(micro_tile_shown(image, rgba, 64, 0), 64u);     // tile (1,0)
  EXPECT_EQ(micro_tile_shown(image, rgba, 0, 32), 224u);    // tile (0,1) = 192 on the odd row, BL + 32
  EXPECT_EQ(micro_tile_shown(image, rgba, 127, 63), 143u);  // tile (1,1) = 128, TR + 0, micro-tile 15
  // Pixel (9, 2): micro-tile 1, row 2, column 1: byte 64 + 2 * 16 + 1 * 2.
  EXPECT_EQ(platform::framebuffer_pixel_offset(image, 9, 2), 98u);
}

TEST(FramebufferConvert, TFormatPadsToWholeTilesAsTheKernelSizesIt) {
  // 40x40 RGBA8888 occupies 64x64 (vc4_check_tex_size: the width and height rounded up to 8 micro-tiles), 2 tiles
  // across. Pixel (36, 36): micro-tile (9, 9), tile row 1 (odd) so tile x 1 is stored first: tile 2 = 128, sub-tile
  // BL + 32, micro-tile 1 * 4 + 1 = 5.
  const FramebufferImage image = image_of(ColorFormat::kRgba8888, MemoryLayout::kT, 40, 40);
  EXPECT_EQ(platform::framebuffer_span(image), 64u * 64 * 4);
  const auto rgba = convert(image, numbered_micro_tiles(image));
  EXPECT_EQ(micro_tile_shown(image, rgba, 36, 36), 165u);
  EXPECT_EQ(micro_tile_shown(image, rgba, 39, 39), 165u);
}

// ---- LT ----

TEST(FramebufferConvert, LtMicroTilesAreInRasterOrder) {
  // 12x8 RGBA8888: 3x2 micro-tiles. Pixel (8, 4) is micro-tile (2, 1) = 5.
  const FramebufferImage rgba8888 = image_of(ColorFormat::kRgba8888, MemoryLayout::kLt, 12, 8);
  EXPECT_EQ(platform::framebuffer_span(rgba8888), 6u * 64);
  const auto a = convert(rgba8888, numbered_micro_tiles(rgba8888));
  EXPECT_EQ(micro_tile_shown(rgba8888, a, 0, 0), 0u);
  EXPECT_EQ(micro_tile_shown(rgba8888, a, 4, 0), 1u);
  EXPECT_EQ(micro_tile_shown(rgba8888, a, 11, 3), 2u);
  EXPECT_EQ(micro_tile_shown(rgba8888, a, 0, 4), 3u);
  EXPECT_EQ(micro_tile_shown(rgba8888, a, 8, 4), 5u);
  // 16x8 BGR565: 2x2 micro-tiles of 8x4.
  const FramebufferImage bgr565 = image_of(ColorFormat::kBgr565, MemoryLayout::kLt, 16, 8);
  const auto b = convert(bgr565, numbered_micro_tiles(bgr565));
  EXPECT_EQ(micro_tile_shown(bgr565, b, 8, 0), 1u);
  EXPECT_EQ(micro_tile_shown(bgr565, b, 0, 4), 2u);
  EXPECT_EQ(micro_tile_shown(bgr565, b, 15, 7), 3u);
}

TEST(FramebufferConvert, LtPadsToWholeMicroTiles) {
  // 6x5 RGBA8888 occupies 8x8: 2 micro-tiles across. Pixel (5, 4): micro-tile (1, 1) = 3, row 0, column 1.
  const FramebufferImage image = image_of(ColorFormat::kRgba8888, MemoryLayout::kLt, 6, 5);
  EXPECT_EQ(platform::framebuffer_span(image), 256u);
  EXPECT_EQ(platform::framebuffer_pixel_offset(image, 5, 4), 3u * 64 + 4);
}

// ---- names and checks ----

TEST(FramebufferFormat, ScriptNamesSelectFormatAndLayout) {
  FramebufferImage image;
  ASSERT_TRUE(platform::parse_framebuffer_format("bgr565-t", image));
  EXPECT_EQ(image.format, ColorFormat::kBgr565);
  EXPECT_EQ(image.layout, MemoryLayout::kT);
  ASSERT_TRUE(platform::parse_framebuffer_format("rgba8888-lt", image));
  EXPECT_EQ(image.format, ColorFormat::kRgba8888);
  EXPECT_EQ(image.layout, MemoryLayout::kLt);
  ASSERT_TRUE(platform::parse_framebuffer_format("rgba8888", image));
  EXPECT_EQ(image.layout, MemoryLayout::kLinear);
  for (const char* bad : {"", "-t", "RGBA8888", "rgba8888-x", "rgba8888-t-lt", "bgr565-", "rgb565", "t"}) {
    EXPECT_FALSE(platform::parse_framebuffer_format(bad, image)) << bad;
  }
}

TEST(FramebufferFormat, UnusableDescriptionsAreOneLineReasons) {
  using platform::check_framebuffer;
  EXPECT_EQ(check_framebuffer(image_of(ColorFormat::kRgba8888, MemoryLayout::kLinear, 4096, 4096)), "");
  EXPECT_EQ(check_framebuffer(image_of(ColorFormat::kRgba8888, MemoryLayout::kLinear, 0, 4)),
            "width 0 is not 1..4096 (vc4 surfaces are at most 4096 pixels wide)");
  EXPECT_EQ(check_framebuffer(image_of(ColorFormat::kBgr565, MemoryLayout::kT, 4, 4097)),
            "height 4097 is not 1..4096 (vc4 surfaces are at most 4096 pixels high)");
  EXPECT_EQ(check_framebuffer(image_of(ColorFormat::kRgba8888, MemoryLayout::kLinear, 10, 4, 39)),
            "stride 39 is shorter than a row (10 x 4 = 40 bytes)");
  EXPECT_EQ(check_framebuffer(image_of(ColorFormat::kRgba8888, MemoryLayout::kLt, 10, 4, 64)),
            "a stride applies to raster images only (the LT layout pads the width itself)");
  EXPECT_EQ(check_framebuffer(image_of(ColorFormat::kRgba8888, MemoryLayout::kLinear, 10, 4, (1ULL << 32) + 1)),
            "stride 4294967297 is above 4294967296 bytes (4 GiB)");
  std::vector<std::uint8_t> rgba;
  EXPECT_EQ(platform::framebuffer_to_rgba8(
                image_of(ColorFormat::kRgba8888, MemoryLayout::kT, 8, 8),
                [](std::uint64_t, std::uint8_t*, std::size_t) { return false; }, rgba),
            "cannot read 4096 bytes at offset 0 of the image");
  EXPECT_EQ(platform::describe_framebuffer(image_of(ColorFormat::kBgr565Dithered, MemoryLayout::kT, 8, 2)),
            "8x2 BGR565 dithered T-format");
}

// ---- PNG files ----

TEST(FramebufferPng, RoundTripThroughLibpngGivesTheExactPixels) {
  // Every channel value, alpha included, in a 64x5 image.
  const std::uint32_t w = 64, h = 5;
  std::vector<std::uint8_t> rgba(w * h * 4);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<std::uint8_t>(i * 7 + i / 256);
  const std::string path = temp_path("roundtrip.png");
  ASSERT_EQ(platform::write_rgba8_png(path, w, h, rgba), "");
  const Png png = read_png(path);
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_EQ(png.width, w);
  EXPECT_EQ(png.height, h);
  EXPECT_EQ(png.bit_depth, 8);
  EXPECT_EQ(png.color_type, PNG_COLOR_TYPE_RGBA);
  EXPECT_EQ(png.rgba, rgba);
}

TEST(FramebufferPng, ATFormatFrameBecomesAPngOfItsPixels) {
  const FramebufferImage image = image_of(ColorFormat::kRgba8888, MemoryLayout::kT, 64, 64);
  const std::vector<std::uint8_t> memory = numbered_micro_tiles(image);
  const std::string path = temp_path("t-format.png");
  ASSERT_EQ(platform::write_framebuffer_png(
                image,
                [&memory](std::uint64_t offset, std::uint8_t* data, std::size_t len) {
                  std::copy(memory.begin() + static_cast<std::ptrdiff_t>(offset),
                            memory.begin() + static_cast<std::ptrdiff_t>(offset + len), data);
                  return true;
                },
                path),
            "");
  const Png png = read_png(path);
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_EQ(png.rgba, convert(image, memory));
  EXPECT_EQ(micro_tile_shown(image, png.rgba, 0, 63), 252u);
}

TEST(FramebufferPng, AFileThatCannotBeWrittenIsAOneLineErrorAndNoFile) {
  const std::vector<std::uint8_t> rgba(4 * 4 * 4, 0x55);
  EXPECT_EQ(platform::write_rgba8_png("/nonexistent/dir/x.png", 4, 4, rgba),
            "cannot write PNG '/nonexistent/dir/x.png': No such file or directory");
  EXPECT_EQ(platform::write_rgba8_png(::testing::TempDir(), 4, 4, rgba),
            "cannot write PNG '" + ::testing::TempDir() + "': Is a directory");
  EXPECT_EQ(platform::write_rgba8_png(temp_path("short.png"), 4, 5, rgba),
            "cannot write PNG '" + temp_path("short.png") + "': 64 bytes are not 4x5 RGBA8 pixels");
  EXPECT_EQ(::access(temp_path("short.png").c_str(), F_OK), -1);
}

// ---- gpuvp --dump-fb ----

TEST(FramebufferDumpFb, TheDemosFrameHoldsItsTriangles) {
  // The demo's vc4 part renders four triangles into a 256x128 RGBA8888 frame cleared with CLEAR_COLORS 0xFF204080
  // (R 0x20, G 0x40, B 0x80, opaque): a red one, a nearer green one drawn first over part of it, a shaded one, a
  // textured one. The summary names the file and the frame.
  const std::string path = temp_path("demo.png");
  const auto r = test::run_gpuvp_split("--dump-fb " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  frame:          " + path + " (256x128 RGBA8888 raster at 0x"), std::string::npos) << r.out;
  const Png png = read_png(path);
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_EQ(png.width, 256u);
  EXPECT_EQ(png.height, 128u);
  EXPECT_EQ(png.color_type, PNG_COLOR_TYPE_RGBA);
  const Rgba clear{0x20, 0x40, 0x80, 0xFF}, red{0xFF, 0, 0, 0xFF}, green{0, 0xFF, 0, 0xFF};
  EXPECT_TRUE(pixel(png.rgba, 256, 40, 30) == red);     // red alone
  EXPECT_TRUE(pixel(png.rgba, 256, 110, 40) == green);  // green in front of red
  EXPECT_TRUE(pixel(png.rgba, 256, 190, 60) == green);  // green alone
  // The textured triangle's checkerboard: white and the second colour 0xFF3060C0 (RGBA 30 60 C0 FF in the PNG).
  EXPECT_TRUE(pixel(png.rgba, 256, 236, 20) == (Rgba{0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_TRUE(pixel(png.rgba, 256, 228, 20) == (Rgba{0x30, 0x60, 0xC0, 0xFF}));
  EXPECT_TRUE(pixel(png.rgba, 256, 250, 100) == clear);
  EXPECT_TRUE(pixel(png.rgba, 256, 0, 0) == clear);
  EXPECT_TRUE(pixel(png.rgba, 256, 255, 127) == clear);
  const Rgba shaded = pixel(png.rgba, 256, 175, 110);  // inside the shaded triangle: opaque, red, green and blue mixed
  EXPECT_EQ(shaded.a, 0xFF);
  EXPECT_GT(shaded.r, 0);
  EXPECT_GT(shaded.g, 0);
  EXPECT_GT(shaded.b, 0);
}

TEST(FramebufferDumpFb, ARunThatStoredNoFrameIsAOneLineErrorAndNoFile) {
  const std::string script = test::write_temp_file("no-frame.gpuvp", "clock_step 100\n");
  const std::string path = temp_path("none.png");
  const auto r = test::run_gpuvp_split("run --quiet --script " + script + " --dump-fb " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "OK 100\n");
  EXPECT_EQ(r.err,
            "gpuvp: error: --dump-fb: the vc4 tile renderer stored no frame in this run (no STORE_MS_TILE_BUFFER wrote "
            "memory)\n");
  EXPECT_EQ(::access(path.c_str(), F_OK), -1);
}

TEST(FramebufferDumpFb, AFileThatCannotBeWrittenFailsBeforeTheRun) {
  struct Case {
    std::string args, message;
  };
  const std::string dir = ::testing::TempDir();
  const Case cases[] = {
      {"--dump-fb /nonexistent/dir/f.png", "--dump-fb '/nonexistent/dir/f.png': no directory '/nonexistent/dir'"},
      {"--dump-fb " + dir, "--dump-fb '" + dir + "' is a directory"},
      {"--dump-fb f.png --set vc4.enabled=false", "--dump-fb needs the vc4 GPU (vc4.enabled is false)"},
      {"--dump-fb f.png --dump-demo d.gpuvp", "--dump-fb cannot be used with --dump-demo (nothing runs)"},
  };
  for (const Case& c : cases) {
    const auto r = test::run_gpuvp_split(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err, "gpuvp: error: " + c.message + "\n") << c.args;
    EXPECT_EQ(r.out, "") << c.args;  // nothing ran
  }
}

// ---- the script command ----

TEST(FramebufferScript, DumpPngWritesMemoryInEachFormat) {
  // At 0x100000 two RGBA8888 rows of 2 pixels, 12 bytes apart; at 0x101000 a BGR565 row; at 0x102000 a 64x64
  // T-format image whose micro-tile 252 (pixels 0..3 x 60..63) is white, the rest 0.
  const std::string dir = ::testing::TempDir();
  const std::string name = "fb-script-" + std::to_string(::getpid());
  const std::string script = test::write_temp_file(name + ".gpuvp",
                                                   "write 0x100000 8 0x804020ff01020304\n"
                                                   "write 0x10000c 8 0x0000ff7f00ff0080\n"
                                                   "dump_png 0x100000 rgba8888 2 2 12 " +
                                                       name +
                                                       "-raster.png\n"
                                                       "write 0x101000 6 0x00f8e0071f00\n"
                                                       "dump_png 0x101000 bgr565 3 1 " +
                                                       name +
                                                       "-565.png\n"
                                                       "memset 0x102000 0x4000 0\n"
                                                       "memset 0x105f00 64 0xff\n"
                                                       "dump_png 0x102000 rgba8888-t 64 64 " +
                                                       dir + name + "-t.png\n");
  const auto r = test::run_gpuvp_split("run --quiet --script " + script);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "OK\nOK\nOK\nOK\nOK\nOK\nOK\nOK\n");
  // Relative FILE: next to the script.
  const Png raster = read_png(dir + name + "-raster.png");
  ASSERT_TRUE(raster.ok) << raster.error;
  EXPECT_EQ(raster.rgba, (std::vector<std::uint8_t>{0x20, 0x40, 0x80, 0xFF, 0x03, 0x02, 0x01, 0x04,  //
                                                    0xFF, 0x00, 0x00, 0x7F, 0x00, 0xFF, 0x00, 0x80}));
  const Png bgr565 = read_png(dir + name + "-565.png");
  ASSERT_TRUE(bgr565.ok) << bgr565.error;
  EXPECT_EQ(bgr565.rgba,
            (std::vector<std::uint8_t>{0xFF, 0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0x00, 0xFF, 0xFF}));
  const Png t = read_png(dir + name + "-t.png");
  ASSERT_TRUE(t.ok) << t.error;
  std::size_t white = 0;
  for (std::uint32_t y = 0; y < 64; ++y) {
    for (std::uint32_t x = 0; x < 64; ++x) {
      const bool is_white = pixel(t.rgba, 64, x, y) == Rgba{0xFF, 0xFF, 0xFF, 0xFF};
      white += is_white;
      if (is_white) {
        EXPECT_TRUE(x < 4 && y >= 60) << x << "," << y;
      }
    }
  }
  EXPECT_EQ(white, 16u);
}

TEST(FramebufferScript, BadArgumentsAreAnErrAnswerAndAOneLineFailure) {
  struct Case {
    const char* line;
    const char* answer;
  };
  const Case cases[] = {
      {"dump_png 0x100000 rgb888 4 4 x.png",
       "ERR unknown format 'rgb888' (rgba8888, bgr565, rgba8888-t, bgr565-t, rgba8888-lt, bgr565-lt)"},
      {"dump_png 0x100000 rgba8888 0 4 x.png", "ERR bad width '0' (1..4096, the largest vc4 surface)"},
      {"dump_png 0x100000 bgr565 4 100000 x.png", "ERR bad height '100000' (1..4096, the largest vc4 surface)"},
      {"dump_png 0x100000 rgba8888 4 4 8 x.png", "ERR stride 8 is shorter than a row (4 x 4 = 16 bytes)"},
      {"dump_png 0x100000 rgba8888-t 4 4 64 x.png",
       "ERR a stride applies to raster images only (the T-format layout pads the width itself)"},
      {"dump_png 0x100000 rgba8888 4 4 0x200000000 x.png", "ERR stride 8589934592 is above 4294967296 bytes (4 GiB)"},
      {"dump_png 0xe1000000 rgba8888 4 4 x.png",
       "ERR the 4x4 RGBA8888 raster image at 0xe1000000 (64 bytes) is not inside DRAM"},
      {"dump_png 0xfffffffffffffff0 rgba8888-t 4096 4096 x.png",
       "ERR the 4096x4096 RGBA8888 T-format image at 0xfffffffffffffff0 (67108864 bytes) is not inside DRAM"},
      {"dump_png 0x100000 rgba8888 4 4 /nonexistent/dir/x.png",
       "ERR cannot write PNG '/nonexistent/dir/x.png': No such file or directory"},
      {"dump_png 0x100000 rgba8888 4", "ERR usage: dump_png ADDR FORMAT WIDTH HEIGHT [STRIDE] FILE"},
  };
  for (const Case& c : cases) {
    const std::string script = test::write_temp_file("fb-bad.gpuvp", std::string(c.line) + "\n");
    const auto r = test::run_gpuvp_split("run --quiet --script " + script);
    EXPECT_EQ(r.exit_code, 1) << c.line;
    EXPECT_EQ(r.out, std::string(c.answer) + "\n") << c.line;
    EXPECT_EQ(lines(r.err), 1u) << c.line << ": " << r.err;
    EXPECT_NE(r.err.find(std::string(c.answer).substr(4)), std::string::npos) << r.err;
  }
}
