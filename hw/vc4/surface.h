// VideoCore IV colour buffers in memory: the pixel formats the tile buffer stores (TILE_RENDERING_MODE_CONFIG bits 3:2,
// STORE/LOAD_TILE_BUFFER_GENERAL bits 9:8, numbered differently), the memory layouts (both packets' 2-bit tiling
// field: linear raster, T-format, LT), the geometry of micro-tiles and T-format tiles, and the colour conversions.
// Facts: Linux drivers/gpu/drm/vc4/vc4_packet.h (VC4_RENDER_CONFIG_FORMAT_*, VC4_LOADSTORE_TILE_BUFFER_*,
// VC4_TILING_FORMAT_*), vc4_validate.c (utile sizes, the padding vc4_check_tex_size gives each layout, 4096-pixel
// surfaces); Mesa src/gallium/drivers/vc4/vc4_tiling.c (the T-format's tile and sub-tile order), vc4_formats.c
// (RGBA8888 is PIPE_FORMAT_B8G8R8A8: the 32-bit value 0xAARRGGBB little-endian; BGR565 is PIPE_FORMAT_B5G6R5: blue in
// bits 4:0, red in 15:11). docs/vc4-v3d.md.
#pragma once

#include <cstdint>

namespace gpuvp::vc4 {

enum class ColorFormat : std::uint8_t { kRgba8888, kBgr565Dithered, kBgr565 };

// TILE_RENDERING_MODE_CONFIG bits 3:2: 0 BGR565 dithered, 1 RGBA8888, 2 BGR565; 3 is undefined (false).
constexpr bool config_color_format(unsigned field, ColorFormat& format) {
  switch (field) {
    case 0:
      format = ColorFormat::kBgr565Dithered;
      return true;
    case 1:
      format = ColorFormat::kRgba8888;
      return true;
    case 2:
      format = ColorFormat::kBgr565;
      return true;
    default:
      return false;
  }
}

// STORE/LOAD_TILE_BUFFER_GENERAL bits 9:8: 0 RGBA8888, 1 BGR565 dithered, 2 BGR565; 3 is undefined (false).
constexpr bool general_color_format(unsigned field, ColorFormat& format) {
  switch (field) {
    case 0:
      format = ColorFormat::kRgba8888;
      return true;
    case 1:
      format = ColorFormat::kBgr565Dithered;
      return true;
    case 2:
      format = ColorFormat::kBgr565;
      return true;
    default:
      return false;
  }
}

// Dithering changes how the hardware rounds, not what a pixel in memory means.
constexpr unsigned bytes_per_pixel(ColorFormat format) { return format == ColorFormat::kRgba8888 ? 4 : 2; }

constexpr const char* color_format_name(ColorFormat format) {
  return format == ColorFormat::kRgba8888 ? "RGBA8888" : format == ColorFormat::kBgr565 ? "BGR565" : "BGR565 dithered";
}

// The tiling field's values (VC4_TILING_FORMAT_LINEAR, _T, _LT); 3 is undefined.
enum class MemoryLayout : std::uint8_t { kLinear = 0, kT = 1, kLt = 2 };

constexpr const char* memory_layout_name(MemoryLayout layout) {
  return layout == MemoryLayout::kLinear ? "raster" : layout == MemoryLayout::kT ? "T-format" : "LT";
}

// A micro-tile (utile) is 64 bytes of pixels in raster order, 16 bytes per row for 2- and 4-byte pixels: 8x4 pixels of
// BGR565, 4x4 of RGBA8888 (vc4_validate.c utile_width/utile_height).
constexpr unsigned kMicroTileBytes = 64;
constexpr unsigned micro_tile_width(unsigned bpp) { return bpp == 4 ? 4 : bpp == 8 ? 2 : 8; }
constexpr unsigned micro_tile_height(unsigned bpp) { return bpp == 1 ? 8 : 4; }

// T-format (vc4_tiling.c): 4 KiB tiles of 2x2 sub-tiles of 1 KiB, each 4x4 micro-tiles in raster order. Tile rows
// alternate direction: even rows run left to right, odd rows right to left. Within a tile the sub-tiles are stored
// bottom-left, top-left, top-right, bottom-right on even rows and top-right, bottom-right, bottom-left, top-left on
// odd rows, where "bottom" is the first row in memory (the lower y here).
constexpr unsigned kTTileMicroTiles = 8;  // micro-tiles per 4 KiB tile side
constexpr unsigned kSubTileBytes = 1024;
constexpr unsigned kTTileBytes = 4096;

// Byte offset of micro-tile (ux, uy) in a T-format image `across` micro-tiles wide (a multiple of 8).
constexpr std::uint64_t t_micro_tile_offset(std::uint32_t ux, std::uint32_t uy, std::uint32_t across) {
  const std::uint32_t tiles_across = across / kTTileMicroTiles;
  const std::uint32_t ty = uy / kTTileMicroTiles;
  const bool odd = (ty & 1) != 0;
  std::uint32_t tx = ux / kTTileMicroTiles;
  if (odd) tx = tiles_across - 1 - tx;
  // Sub-tile (sx, sy) of the tile, y up from the first row in memory.
  const unsigned sx = (ux / 4) & 1, sy = (uy / 4) & 1;
  // Memory position of each sub-tile, indexed by sy * 2 + sx: even rows BL TL TR BR, odd rows TR BR BL TL.
  constexpr unsigned kEven[4] = {0, 3, 1, 2};
  constexpr unsigned kOdd[4] = {2, 1, 3, 0};
  const unsigned sub = odd ? kOdd[sy * 2 + sx] : kEven[sy * 2 + sx];
  return (static_cast<std::uint64_t>(ty) * tiles_across + tx) * kTTileBytes + sub * kSubTileBytes +
         ((uy & 3) * 4 + (ux & 3)) * kMicroTileBytes;
}

// LT ("linear tile"): micro-tiles in raster order, `across` micro-tiles per row.
constexpr std::uint64_t lt_micro_tile_offset(std::uint32_t ux, std::uint32_t uy, std::uint32_t across) {
  return (static_cast<std::uint64_t>(uy) * across + ux) * kMicroTileBytes;
}

// The padding of a tiled layout (vc4_check_tex_size): T to whole 4 KiB tiles, LT to whole micro-tiles. Raster is not
// padded here: the kernel rounds its width up to a micro-tile only to bound the buffer's size, and the tile renderer
// stores width x bpp bytes a row.
constexpr std::uint32_t layout_width_align(MemoryLayout layout, unsigned bpp) {
  return layout == MemoryLayout::kT    ? micro_tile_width(bpp) * kTTileMicroTiles
         : layout == MemoryLayout::kLt ? micro_tile_width(bpp)
                                       : 1;
}
constexpr std::uint32_t layout_height_align(MemoryLayout layout, unsigned bpp) {
  return layout == MemoryLayout::kT    ? micro_tile_height(bpp) * kTTileMicroTiles
         : layout == MemoryLayout::kLt ? micro_tile_height(bpp)
                                       : 1;
}

// The largest surface side (vc4_validate.c: the shaded vertex format's 12.4 fixed point offsets keep render targets
// within 4096 pixels).
constexpr std::uint32_t kMaxSurfaceSide = 4096;

// 0xAARRGGBB -> BGR565 (the top 5/6/5 bits of red, green and blue) and back (each channel widened by repeating its top
// bits, so 0 and full scale map exactly; alpha 0xFF).
constexpr std::uint16_t argb_to_bgr565(std::uint32_t c) {
  return static_cast<std::uint16_t>(((c >> 19) & 0x1F) << 11 | ((c >> 10) & 0x3F) << 5 | ((c >> 3) & 0x1F));
}
constexpr std::uint32_t bgr565_to_argb(std::uint16_t p) {
  const std::uint32_t r = (p >> 11) & 0x1F, g = (p >> 5) & 0x3F, b = p & 0x1F;
  return 0xFF000000u | ((r << 3) | (r >> 2)) << 16 | ((g << 2) | (g >> 4)) << 8 | ((b << 3) | (b >> 2));
}

}  // namespace gpuvp::vc4
