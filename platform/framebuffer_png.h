// Frame buffers as pictures: a region of guest memory holding a vc4 colour buffer (RGBA8888 or BGR565, dithered or
// not, in raster, T-format or LT layout; hw/vc4/surface.h) converted to RGBA8 pixels and written as a PNG with libpng.
// What `gpuvp --dump-fb FILE` and the script command `dump_png` write. Free of SystemC: memory comes through a
// callback, so tests convert plain byte arrays.
//
// Pixel (x, y) with y = 0 the first row in memory becomes PNG row y. RGBA8888 is the 32-bit value 0xAARRGGBB stored
// little-endian (bytes B, G, R, A: Mesa vc4_formats.c renders PIPE_FORMAT_B8G8R8A8 to it), alpha kept as stored;
// BGR565 widens its 5/6/5 bits by repeating their top bits and is opaque.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hw/vc4/surface.h"

namespace gpuvp::platform {

struct FramebufferImage {
  vc4::ColorFormat format = vc4::ColorFormat::kRgba8888;
  vc4::MemoryLayout layout = vc4::MemoryLayout::kLinear;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  // Raster: bytes from one row to the next, 0 = width x bytes per pixel. Tiled layouts derive it from the padded
  // width (vc4_validate.c vc4_check_tex_size) and take no other.
  std::uint64_t stride = 0;
};

// The largest raster stride accepted: rows of the vc4's 32-bit bus address space.
constexpr std::uint64_t kMaxFramebufferStride = 1ULL << 32;

// Reads len bytes at offset (from the image's first byte) into data; false when they cannot be read.
using FramebufferReader = std::function<bool(std::uint64_t offset, std::uint8_t* data, std::size_t len)>;

// Empty, or one line naming what makes the description unusable: a side of 0 or above 4096 (vc4 surfaces,
// vc4_validate.c), a raster stride shorter than a row or above kMaxFramebufferStride, a stride given to a tiled layout.
std::string check_framebuffer(const FramebufferImage& image);
// Bytes from the image's first byte to the end of its last (a tiled image: the whole padded image). The image must
// pass check_framebuffer.
std::uint64_t framebuffer_span(const FramebufferImage& image);
// Byte offset of pixel (x, y).
std::uint64_t framebuffer_pixel_offset(const FramebufferImage& image, std::uint32_t x, std::uint32_t y);
// "256x128 RGBA8888 raster"
std::string describe_framebuffer(const FramebufferImage& image);

// The format names of the script command: rgba8888, bgr565, and each with -t (T-format) or -lt (LT). False for any
// other name.
bool parse_framebuffer_format(const std::string& name, FramebufferImage& image);
constexpr const char* kFramebufferFormatNames = "rgba8888, bgr565, rgba8888-t, bgr565-t, rgba8888-lt, bgr565-lt";

// Converts the image to RGBA8, 4 bytes per pixel row by row. Empty, or a one-line error (a check_framebuffer reason,
// memory the reader could not read).
std::string framebuffer_to_rgba8(const FramebufferImage& image, const FramebufferReader& read,
                                 std::vector<std::uint8_t>& rgba);
// Writes width x height RGBA8 pixels as a PNG (8 bits per channel, colour type RGBA). Empty, or a one-line error
// naming the file; a file that could not be written completely is removed.
std::string write_rgba8_png(const std::string& path, std::uint32_t width, std::uint32_t height,
                            const std::vector<std::uint8_t>& rgba);
// Both: the image from memory into the PNG file.
std::string write_framebuffer_png(const FramebufferImage& image, const FramebufferReader& read,
                                  const std::string& path);

}  // namespace gpuvp::platform
