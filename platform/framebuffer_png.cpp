#include "platform/framebuffer_png.h"

#include <png.h>

namespace gpuvp::platform {

namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t align) { return (v + align - 1) / align * align; }

unsigned bpp_of(const FramebufferImage& image) { return vc4::bytes_per_pixel(image.format); }

// A tiled image's padded width and height in pixels (vc4_check_tex_size).
std::uint64_t padded_width(const FramebufferImage& image) {
  return round_up(image.width, vc4::layout_width_align(image.layout, bpp_of(image)));
}
std::uint64_t padded_height(const FramebufferImage& image) {
  return round_up(image.height, vc4::layout_height_align(image.layout, bpp_of(image)));
}

std::uint64_t raster_stride(const FramebufferImage& image) {
  return image.stride != 0 ? image.stride : static_cast<std::uint64_t>(image.width) * bpp_of(image);
}

// One pixel's bytes as R, G, B, A.
void to_rgba(vc4::ColorFormat format, const std::uint8_t* in, std::uint8_t* out) {
  if (format == vc4::ColorFormat::kRgba8888) {
    out[0] = in[2];
    out[1] = in[1];
    out[2] = in[0];
    out[3] = in[3];
    return;
  }
  const std::uint32_t argb = vc4::bgr565_to_argb(static_cast<std::uint16_t>(in[0] | in[1] << 8));
  out[0] = static_cast<std::uint8_t>(argb >> 16);
  out[1] = static_cast<std::uint8_t>(argb >> 8);
  out[2] = static_cast<std::uint8_t>(argb);
  out[3] = static_cast<std::uint8_t>(argb >> 24);
}

}  // namespace

std::string check_framebuffer(const FramebufferImage& image) {
  const std::string max = std::to_string(vc4::kMaxSurfaceSide);
  if (image.width == 0 || image.width > vc4::kMaxSurfaceSide) {
    return "width " + std::to_string(image.width) + " is not 1.." + max + " (vc4 surfaces are at most " + max +
           " pixels wide)";
  }
  if (image.height == 0 || image.height > vc4::kMaxSurfaceSide) {
    return "height " + std::to_string(image.height) + " is not 1.." + max + " (vc4 surfaces are at most " + max +
           " pixels high)";
  }
  if (image.layout != vc4::MemoryLayout::kLinear) {
    if (image.stride != 0) {
      return std::string("a stride applies to raster images only (the ") + vc4::memory_layout_name(image.layout) +
             " layout pads the width itself)";
    }
    return {};
  }
  const std::uint64_t row = static_cast<std::uint64_t>(image.width) * bpp_of(image);
  if (image.stride != 0 && image.stride < row) {
    return "stride " + std::to_string(image.stride) + " is shorter than a row (" + std::to_string(image.width) + " x " +
           std::to_string(bpp_of(image)) + " = " + std::to_string(row) + " bytes)";
  }
  if (image.stride > kMaxFramebufferStride) {
    return "stride " + std::to_string(image.stride) + " is above " + std::to_string(kMaxFramebufferStride) +
           " bytes (4 GiB)";
  }
  return {};
}

std::uint64_t framebuffer_span(const FramebufferImage& image) {
  if (image.layout != vc4::MemoryLayout::kLinear) return padded_width(image) * padded_height(image) * bpp_of(image);
  return (image.height - 1ULL) * raster_stride(image) + static_cast<std::uint64_t>(image.width) * bpp_of(image);
}

std::uint64_t framebuffer_pixel_offset(const FramebufferImage& image, std::uint32_t x, std::uint32_t y) {
  const unsigned bpp = bpp_of(image);
  if (image.layout == vc4::MemoryLayout::kLinear) {
    return y * raster_stride(image) + static_cast<std::uint64_t>(x) * bpp;
  }
  // A micro-tile's pixels are in raster order, micro-tile width x bpp (16) bytes per row.
  const unsigned uw = vc4::micro_tile_width(bpp), uh = vc4::micro_tile_height(bpp);
  const auto across = static_cast<std::uint32_t>(padded_width(image) / uw);
  const std::uint64_t micro_tile = image.layout == vc4::MemoryLayout::kT
                                       ? vc4::t_micro_tile_offset(x / uw, y / uh, across)
                                       : vc4::lt_micro_tile_offset(x / uw, y / uh, across);
  return micro_tile + (y % uh) * uw * bpp + (x % uw) * bpp;
}

std::string describe_framebuffer(const FramebufferImage& image) {
  return std::to_string(image.width) + "x" + std::to_string(image.height) + " " + vc4::color_format_name(image.format) +
         " " + vc4::memory_layout_name(image.layout);
}

bool parse_framebuffer_format(const std::string& name, FramebufferImage& image) {
  std::string base = name;
  vc4::MemoryLayout layout = vc4::MemoryLayout::kLinear;
  auto strip = [&base](const std::string& suffix) {
    if (base.size() <= suffix.size() || base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return false;
    }
    base.erase(base.size() - suffix.size());
    return true;
  };
  if (strip("-t")) {
    layout = vc4::MemoryLayout::kT;
  } else if (strip("-lt")) {
    layout = vc4::MemoryLayout::kLt;
  }
  if (base == "rgba8888") {
    image.format = vc4::ColorFormat::kRgba8888;
  } else if (base == "bgr565") {
    image.format = vc4::ColorFormat::kBgr565;
  } else {
    return false;
  }
  image.layout = layout;
  return true;
}

std::string framebuffer_to_rgba8(const FramebufferImage& image, const FramebufferReader& read,
                                 std::vector<std::uint8_t>& rgba) {
  if (std::string why = check_framebuffer(image); !why.empty()) return why;
  const unsigned bpp = bpp_of(image);
  rgba.assign(static_cast<std::size_t>(image.width) * image.height * 4, 0);
  auto unreadable = [](std::uint64_t offset, std::uint64_t len) {
    return "cannot read " + std::to_string(len) + " bytes at offset " + std::to_string(offset) + " of the image";
  };
  if (image.layout == vc4::MemoryLayout::kLinear) {
    // Row by row: a long stride's gaps are never read.
    std::vector<std::uint8_t> row(static_cast<std::size_t>(image.width) * bpp);
    for (std::uint32_t y = 0; y < image.height; ++y) {
      const std::uint64_t at = framebuffer_pixel_offset(image, 0, y);
      if (!read(at, row.data(), row.size())) return unreadable(at, row.size());
      for (std::uint32_t x = 0; x < image.width; ++x) {
        to_rgba(image.format, &row[static_cast<std::size_t>(x) * bpp],
                &rgba[(static_cast<std::size_t>(y) * image.width + x) * 4]);
      }
    }
    return {};
  }
  // Tiled: the padded image at once (at most 4096 x 4096 x 4 bytes: 64 MiB).
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(framebuffer_span(image)));
  if (!read(0, bytes.data(), bytes.size())) return unreadable(0, bytes.size());
  for (std::uint32_t y = 0; y < image.height; ++y) {
    for (std::uint32_t x = 0; x < image.width; ++x) {
      to_rgba(image.format, &bytes[static_cast<std::size_t>(framebuffer_pixel_offset(image, x, y))],
              &rgba[(static_cast<std::size_t>(y) * image.width + x) * 4]);
    }
  }
  return {};
}

std::string write_rgba8_png(const std::string& path, std::uint32_t width, std::uint32_t height,
                            const std::vector<std::uint8_t>& rgba) {
  if (width == 0 || height == 0 || rgba.size() != static_cast<std::size_t>(width) * height * 4) {
    return "cannot write PNG '" + path + "': " + std::to_string(rgba.size()) + " bytes are not " +
           std::to_string(width) + "x" + std::to_string(height) + " RGBA8 pixels";
  }
  // libpng's simplified API (1.6): no setjmp, errors come back in the image's message, and a file it could not finish
  // is removed (png_image_write_to_file).
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = width;
  png.height = height;
  png.format = PNG_FORMAT_RGBA;
  if (png_image_write_to_file(&png, path.c_str(), 0, rgba.data(), 0, nullptr) == 0) {
    const std::string why = png.message;
    png_image_free(&png);
    return "cannot write PNG '" + path + "': " + why;
  }
  return {};
}

std::string write_framebuffer_png(const FramebufferImage& image, const FramebufferReader& read,
                                  const std::string& path) {
  std::vector<std::uint8_t> rgba;
  if (std::string why = framebuffer_to_rgba8(image, read, rgba); !why.empty()) return why;
  return write_rgba8_png(path, image.width, image.height, rgba);
}

}  // namespace gpuvp::platform
