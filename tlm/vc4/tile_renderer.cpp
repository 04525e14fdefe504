#include "tlm/vc4/tile_renderer.h"

#include <algorithm>

#include "tlm/core/report.h"

namespace gpuvp::vc4 {

namespace {

std::string hex(std::uint64_t v) { return core::format_hex(v); }

}  // namespace

TileRenderer::TileRenderer(sc_core::sc_module_name name, const TileRendererParams& params,
                           const TileRendererServices& services)
    : sc_module(name),
      params_(params),
      services_(services),
      color_(64 * 64, 0),
      zs_(64 * 64, 0),
      stats_(this->name()),
      tiles_(stats_.counter("tiles", "events", "tiles selected by TILE_COORDINATES")),
      stores_(stats_.counter("stores", "events", "tile buffer stores that wrote memory")),
      loads_(stats_.counter("loads", "events", "tile buffer loads from memory")),
      bytes_stored_(stats_.counter("bytes_stored", "bytes", "bytes tile buffer stores wrote to memory")),
      not_shaded_(stats_.counter("primitives_not_shaded", "events",
                                 "primitives that reached the renderer (rasterisation not yet modelled)")) {}

UnitResult TileRenderer::execute(const StatePacket& p, UnitContext& ctx) {
  const std::uint8_t op = p.u8(0);
  switch (op) {
    case packet::kTileRenderingModeConfig:
      return configure(p);
    case packet::kClearColors:
      return clear_colors(p);
    case packet::kTileCoordinates:
      return tile_coordinates(p, ctx);
    case packet::kStoreTileBufferGeneral:
      return store_general(p, ctx);
    case packet::kLoadTileBufferGeneral:
      return load_general(p);
    case packet::kStoreFullResTileBuffer:
      return store_full_res(p, ctx);
    case packet::kLoadFullResTileBuffer:
      return load_full_res(p);
    case packet::kStoreMsTileBuffer:
    case packet::kStoreMsTileBufferAndEof:
      return store_ms(ctx);
    case packet::kCompressedPrimitive:
    case packet::kClippedCompressedPrimitive:
      return UnitResult::done();  // the CLE decodes the entries and hands each primitive to compressed_primitive()
    case packet::kTileBinningModeConfig:
    case packet::kStartTileBinning:
    case packet::kFlush:
    case packet::kFlushAllState:
    case packet::kGlIndexedPrimitive:
    case packet::kGlArrayPrimitive:
    case packet::kVgCoordinateArrayPrimitives:
    case packet::kClipperXyScaling:
    case packet::kClipperZScaleAndOffset:
      return UnitResult::ignored();  // binning-list packets
    default:
      // Render state (PRIMITIVE_LIST_FORMAT, shader states, CONFIGURATION_BITS, CLIP_WINDOW, ...): recorded by the
      // CLE for the rasteriser.
      return UnitResult::done();
  }
}

UnitResult TileRenderer::compressed_primitive(std::uint32_t address, std::uint8_t list_format,
                                              const compressed::Primitive& primitive, UnitContext& ctx) {
  if (tile_primitives_.size() >= kMaxTilePrimitives) {
    return UnitResult::error(
        "tile (" + std::to_string(tile_x_) + ", " + std::to_string(tile_y_) + ") receives more than " +
        std::to_string(kMaxTilePrimitives) +
        " primitives, the model's limit per tile (a render list looping inside a primitive list?)");
  }
  ++not_shaded_;
  tile_primitives_.push_back(primitive);
  ctx.time.advance(services_.clock.cycles(params_.primitive_cycles));
  if (warned_not_shaded_) return UnitResult::done();
  warned_not_shaded_ = true;
  core::report_guest_warning(name(), "primitive entry at " + hex(address) + " (PRIMITIVE_LIST_FORMAT " +
                                         hex(list_format) + ") reached tile (" + std::to_string(tile_x_) + ", " +
                                         std::to_string(tile_y_) +
                                         "): rasterisation and fragment shading (QPU) are not yet modelled; counted in "
                                         "primitives_not_shaded, not drawn (reported once)");
  return UnitResult::done();
}

UnitResult TileRenderer::need_config(const char* what) const {
  return UnitResult::error(std::string(what) + " before any TILE_RENDERING_MODE_CONFIG");
}

UnitResult TileRenderer::configure(const StatePacket& p) {
  const unsigned width = p.u16(5), height = p.u16(7);
  const std::uint16_t flags = p.u16(9);
  if (width == 0 || height == 0) {
    return UnitResult::error("TILE_RENDERING_MODE_CONFIG with a " + std::to_string(width) + "x" +
                             std::to_string(height) + " frame");
  }
  ColorFormat format = ColorFormat::kRgba8888;
  if (!config_color_format((flags >> kConfigFormatShift) & 3, format)) {
    return UnitResult::error("TILE_RENDERING_MODE_CONFIG colour format 3 is undefined");
  }
  if (flags & kConfig64BitColor) {
    return UnitResult::error("TILE_RENDERING_MODE_CONFIG 64-bit (HDR) colour is not modelled");
  }
  if (((flags >> kConfigDecimateShift) & 3) == 3) {
    return UnitResult::error("TILE_RENDERING_MODE_CONFIG decimate mode 3 is undefined (0 1x, 1 4x, 2 16x)");
  }
  if ((flags >> kConfigMemFormatShift) & 3) {
    return UnitResult::error("TILE_RENDERING_MODE_CONFIG memory format " +
                             std::to_string((flags >> kConfigMemFormatShift) & 3) +
                             " (T/LT tiling) is not modelled (only linear raster)");
  }
  configured_ = true;
  frame_address_ = p.u32(1);
  width_ = width;
  height_ = height;
  flags_ = flags;
  tile_px_ = (flags & kConfigMs4x) ? 32 : 64;
  return UnitResult::done();
}

UnitResult TileRenderer::clear_colors(const StatePacket& p) {
  // The new values take effect at the next clear, i.e. when the tile buffer is next stored (vc4_render_cl.c).
  clear_color_ = p.u32(1) | static_cast<std::uint64_t>(p.u32(5)) << 32;
  clear_zs_ = p.u32(9) & 0xFFFFFF;
  clear_stencil_ = p.u8(13);
  return UnitResult::done();
}

void TileRenderer::clear(bool color, bool zs) {
  if (color) std::fill(color_.begin(), color_.end(), static_cast<std::uint32_t>(clear_color_));
  if (zs) std::fill(zs_.begin(), zs_.end(), clear_zs_ | static_cast<std::uint32_t>(clear_stencil_) << 24);
}

UnitResult TileRenderer::tile_coordinates(const StatePacket& p, UnitContext& ctx) {
  const unsigned x = p.u8(1), y = p.u8(2);
  // Before any configuration the kernel's render list already selects tile (0, 0) to latch new clear colours with
  // a no-op store (vc4_render_cl.c): only that tile exists then.
  const unsigned tx = configured_ ? tiles_x() : 1, ty = configured_ ? tiles_y() : 1;
  if (x >= tx || y >= ty) {
    return UnitResult::error("TILE_COORDINATES (" + std::to_string(x) + ", " + std::to_string(y) + ") outside the " +
                             std::to_string(tx) + "x" + std::to_string(ty) + " tile grid" +
                             (configured_
                                  ? " of the " + std::to_string(width_) + "x" + std::to_string(height_) + " frame"
                                  : " (no TILE_RENDERING_MODE_CONFIG yet)"));
  }
  tile_x_ = x;
  tile_y_ = y;
  tile_primitives_.clear();
  ++tiles_;
  ctx.time.advance(services_.clock.cycles(params_.tile_cycles));
  // Loads fire on TILE_COORDINATES (vc4_render_cl.c: "only one load may be outstanding").
  std::vector<PendingLoad> loads;
  loads.swap(pending_loads_);
  for (const PendingLoad& l : loads) {
    UnitResult r = l.full_res ? load_full(l.buffer, l.address, ctx)
                              : load_raster(l.buffer, l.address,
                                            l.buffer == Buffer::kZs ? 4
                                            : l.pixel_format        ? 2
                                                                    : 4,
                                            ctx);
    if (r.kind != UnitResult::Kind::kDone) return r;
  }
  return UnitResult::done();
}

bool TileRenderer::transfer(bool write, std::uint32_t address, void* data, unsigned len, UnitContext& ctx,
                            std::string& message) {
  if (!services_.in_dram(address, len)) {
    message = std::string(write ? "store" : "load") + " of " + std::to_string(len) + " bytes at " + hex(address) +
              " is outside DRAM";
    return false;
  }
  const bool ok = timed_access(services_.memory, ctx, write, address, data, len);
  ctx.time.advance(services_.clock.cycles((len + params_.bytes_per_cycle - 1) / params_.bytes_per_cycle));
  if (!ok) {
    message = std::string("the bus refused the ") + (write ? "write" : "read") + " at " + hex(address);
    return false;
  }
  if (write) bytes_stored_ += len;
  return true;
}

std::size_t TileRenderer::grid_index(unsigned x, unsigned y, unsigned s) const {
  if (samples() == 1) return static_cast<std::size_t>(y) * kGrid + x;
  return static_cast<std::size_t>(2 * y + (s >> 1)) * kGrid + 2 * x + (s & 1);
}

void TileRenderer::stored_extent(unsigned block, unsigned& out_tile, unsigned& out_w, unsigned& out_h) const {
  // The stored image: pixels (sample 0) in sample mode, else one pixel per block x block grid samples (see the
  // header). Its size and stride follow the frame's extent in that unit.
  const bool ms = samples() == 4;
  out_tile = tile_px_;
  out_w = width_;
  out_h = height_;
  if (block != 0) {
    out_tile = kGrid / block;
    out_w = ((ms ? 2 * width_ : width_) + block - 1) / block;
    out_h = ((ms ? 2 * height_ : height_) + block - 1) / block;
  }
}

UnitResult TileRenderer::store_raster(Buffer buffer, std::uint32_t base, unsigned bpp, unsigned block,
                                      UnitContext& ctx) {
  unsigned out_tile = 0, out_w = 0, out_h = 0;
  stored_extent(block, out_tile, out_w, out_h);
  const unsigned x0 = tile_x_ * out_tile, y0 = tile_y_ * out_tile;
  const unsigned w = std::min(out_tile, out_w - std::min(out_w, x0));
  const unsigned h = std::min(out_tile, out_h - std::min(out_h, y0));
  const std::uint64_t stride = static_cast<std::uint64_t>(out_w) * bpp;
  const std::vector<std::uint32_t>& src = buffer == Buffer::kColor ? color_ : zs_;
  auto average = [&](unsigned gx, unsigned gy) {
    const unsigned n = block * block;
    std::uint32_t v = 0;
    for (unsigned c = 0; c < 4; ++c) {
      unsigned sum = 0;
      for (unsigned dy = 0; dy < block; ++dy) {
        for (unsigned dx = 0; dx < block; ++dx) sum += (src[(gy + dy) * kGrid + gx + dx] >> (8 * c)) & 0xFF;
      }
      v |= ((sum + n / 2) / n) << (8 * c);
    }
    return v;
  };
  row_.resize(static_cast<std::size_t>(w) * bpp);
  std::string message;
  for (unsigned y = 0; y < h; ++y) {
    for (unsigned x = 0; x < w; ++x) {
      const std::uint32_t v = block == 0 ? src[grid_index(x, y, 0)] : average(x * block, y * block);
      if (bpp == 2) {
        const std::uint16_t p = argb_to_bgr565(v);
        row_[2 * x] = static_cast<std::uint8_t>(p);
        row_[2 * x + 1] = static_cast<std::uint8_t>(p >> 8);
      } else {
        for (unsigned b = 0; b < 4; ++b) row_[4 * x + b] = static_cast<std::uint8_t>(v >> (8 * b));
      }
    }
    const std::uint64_t a = base + (y0 + y) * stride + static_cast<std::uint64_t>(x0) * bpp;
    if (a > 0xFFFFFFFFull ||
        !transfer(true, static_cast<std::uint32_t>(a), row_.data(), static_cast<unsigned>(row_.size()), ctx, message)) {
      return UnitResult::error("tile (" + std::to_string(tile_x_) + ", " + std::to_string(tile_y_) + ") " +
                               (message.empty() ? "store beyond the 32-bit bus" : message));
    }
  }
  ++stores_;
  return UnitResult::done();
}

UnitResult TileRenderer::load_raster(Buffer buffer, std::uint32_t base, unsigned bpp, UnitContext& ctx) {
  const unsigned x0 = tile_x_ * tile_px_, y0 = tile_y_ * tile_px_;
  const unsigned w = std::min(tile_px_, width_ - std::min(width_, x0));
  const unsigned h = std::min(tile_px_, height_ - std::min(height_, y0));
  const std::uint64_t stride = static_cast<std::uint64_t>(width_) * bpp;
  std::vector<std::uint32_t>& dst = buffer == Buffer::kColor ? color_ : zs_;
  row_.resize(static_cast<std::size_t>(w) * bpp);
  std::string message;
  for (unsigned y = 0; y < h; ++y) {
    const std::uint64_t a = base + (y0 + y) * stride + static_cast<std::uint64_t>(x0) * bpp;
    if (a > 0xFFFFFFFFull || !transfer(false, static_cast<std::uint32_t>(a), row_.data(),
                                       static_cast<unsigned>(row_.size()), ctx, message)) {
      return UnitResult::error("tile (" + std::to_string(tile_x_) + ", " + std::to_string(tile_y_) + ") " +
                               (message.empty() ? "load beyond the 32-bit bus" : message));
    }
    for (unsigned x = 0; x < w; ++x) {
      const std::uint32_t v = bpp == 2 ? bgr565_to_argb(static_cast<std::uint16_t>(row_[2 * x] | row_[2 * x + 1] << 8))
                                       : static_cast<std::uint32_t>(row_[4 * x]) |
                                             static_cast<std::uint32_t>(row_[4 * x + 1]) << 8 |
                                             static_cast<std::uint32_t>(row_[4 * x + 2]) << 16 |
                                             static_cast<std::uint32_t>(row_[4 * x + 3]) << 24;
      // A raster load fills every sample of the pixel (Broadcom's V3D driver: loads map all samples to the one
      // stored pixel, "replicating behaviour", v3d_tlb_decimate.c).
      for (unsigned smp = 0; smp < samples(); ++smp) dst[grid_index(x, y, smp)] = v;
    }
  }
  ++loads_;
  return UnitResult::done();
}

// Full-resolution buffers hold the whole tile buffer, 16 KiB per tile (vc4_packet.h VC4_TILE_BUFFER_SIZE), at the
// address the packet gives (the kernel adds the tile's offset, vc4_render_cl.c vc4_full_res_offset): the 64x64 sample
// grid row by row, 4 bytes per sample (the grid's layout: see the header).
UnitResult TileRenderer::store_full(Buffer buffer, std::uint32_t address, UnitContext& ctx) {
  const std::vector<std::uint32_t>& src = buffer == Buffer::kColor ? color_ : zs_;
  std::vector<std::uint8_t> bytes(src.size() * 4);
  for (std::size_t i = 0; i < src.size(); ++i) {
    for (unsigned b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<std::uint8_t>(src[i] >> (8 * b));
  }
  std::string message;
  if (!transfer(true, address, bytes.data(), static_cast<unsigned>(bytes.size()), ctx, message)) {
    return UnitResult::error("full-resolution " + message);
  }
  ++stores_;
  return UnitResult::done();
}

UnitResult TileRenderer::load_full(Buffer buffer, std::uint32_t address, UnitContext& ctx) {
  std::vector<std::uint32_t>& dst = buffer == Buffer::kColor ? color_ : zs_;
  std::vector<std::uint8_t> bytes(dst.size() * 4);
  std::string message;
  if (!transfer(false, address, bytes.data(), static_cast<unsigned>(bytes.size()), ctx, message)) {
    return UnitResult::error("full-resolution " + message);
  }
  for (std::size_t i = 0; i < dst.size(); ++i) {
    const std::size_t k = 4 * i;
    dst[i] = static_cast<std::uint32_t>(bytes[k]) | static_cast<std::uint32_t>(bytes[k + 1]) << 8 |
             static_cast<std::uint32_t>(bytes[k + 2]) << 16 | static_cast<std::uint32_t>(bytes[k + 3]) << 24;
  }
  ++loads_;
  return UnitResult::done();
}

UnitResult TileRenderer::store_general(const StatePacket& p, UnitContext& ctx) {
  const std::uint16_t bits = p.u16(1);
  const std::uint32_t word = p.u32(3);
  const unsigned buffer = bits & kGeneralBufferMask;
  const unsigned tiling = (bits >> kGeneralTilingShift) & 3;
  const unsigned mode = (bits >> kGeneralModeShift) & 3;
  const unsigned pixel_format = (bits >> kGeneralPixelFormatShift) & 3;
  const bool clear_color = !(bits & kGeneralDisableColorClear);
  const bool clear_zs = !(bits & kGeneralDisableZsClear);
  if (buffer != 0) {
    if (!configured_) return need_config("STORE_TILE_BUFFER_GENERAL");
    if (buffer > 5)
      return UnitResult::error("STORE_TILE_BUFFER_GENERAL buffer " + std::to_string(buffer) + " is undefined");
    if (buffer >= 3) {
      return UnitResult::error(std::string("STORE_TILE_BUFFER_GENERAL of the ") +
                               (buffer == 3   ? "Z-only"
                                : buffer == 4 ? "VG mask"
                                              : "full dump") +
                               " buffer is not modelled");
    }
    if (tiling != 0) {
      return UnitResult::error("STORE_TILE_BUFFER_GENERAL " + std::string(tiling == 1 ? "T" : "LT") +
                               "-tiled memory format is not modelled (only raster)");
    }
    if (mode == 3) {
      return UnitResult::error(
          "STORE_TILE_BUFFER_GENERAL mode 3 is undefined (0 sample, 1 decimate 4x, 2 decimate 16x)");
    }
    if (pixel_format == 3) return UnitResult::error("STORE_TILE_BUFFER_GENERAL pixel format 3 is undefined");
    const Buffer b = buffer == 1 ? Buffer::kColor : Buffer::kZs;
    if (b == Buffer::kZs && mode != 0) {
      return UnitResult::error(std::string("STORE_TILE_BUFFER_GENERAL of the Z/S buffer with decimation ") +
                               (mode == 1 ? "4x" : "16x") +
                               " is not modelled (no source gives a meaning to averaged depth and stencil)");
    }
    const unsigned bpp = b == Buffer::kZs ? 4 : pixel_format == 0 ? 4 : 2;
    UnitResult r = store_raster(b, word & ~15u, bpp, mode == 0 ? 0 : mode == 1 ? 2 : 4, ctx);
    if (r.kind != UnitResult::Kind::kDone) return r;
  }
  clear(clear_color, clear_zs);
  return UnitResult::done();
}

UnitResult TileRenderer::load_general(const StatePacket& p) {
  const std::uint16_t bits = p.u16(1);
  const std::uint32_t word = p.u32(3);
  const unsigned buffer = bits & kGeneralBufferMask;
  const unsigned tiling = (bits >> kGeneralTilingShift) & 3;
  const unsigned pixel_format = (bits >> kGeneralPixelFormatShift) & 3;
  if (buffer == 0) return UnitResult::done();
  if (!configured_) return need_config("LOAD_TILE_BUFFER_GENERAL");
  if (buffer != 1 && buffer != 2) {
    return UnitResult::error("LOAD_TILE_BUFFER_GENERAL of buffer " + std::to_string(buffer) + " is not modelled");
  }
  if (tiling != 0) {
    return UnitResult::error("LOAD_TILE_BUFFER_GENERAL " + std::string(tiling == 1 ? "T" : "LT") +
                             "-tiled memory format is not modelled (only raster)");
  }
  if (pixel_format == 3) return UnitResult::error("LOAD_TILE_BUFFER_GENERAL pixel format 3 is undefined");
  const Buffer b = buffer == 1 ? Buffer::kColor : Buffer::kZs;
  if ((b == Buffer::kColor && (word & 1)) || (b == Buffer::kZs && (word & 2))) return UnitResult::done();  // disabled
  queue_load({b, false, pixel_format, word & ~15u});
  return UnitResult::done();
}

UnitResult TileRenderer::store_full_res(const StatePacket& p, UnitContext& ctx) {
  const std::uint32_t word = p.u32(1);
  if (!configured_) return need_config("STORE_FULL_RES_TILE_BUFFER");
  const std::uint32_t address = word & ~15u;
  if (!(word & kFullResDisableColor)) {
    UnitResult r = store_full(Buffer::kColor, address, ctx);
    if (r.kind != UnitResult::Kind::kDone) return r;
  }
  if (!(word & kFullResDisableZs)) {
    // Both buffers in one store: Z/S follows the colour buffer (the kernel always disables one of them).
    std::uint32_t zs_address = 0;
    if (!zs_address_of(word, zs_address)) return zs_beyond_4gib("STORE_FULL_RES_TILE_BUFFER");
    UnitResult r = store_full(Buffer::kZs, zs_address, ctx);
    if (r.kind != UnitResult::Kind::kDone) return r;
  }
  if (!(word & kFullResDisableClear)) clear(true, true);
  return UnitResult::done();
}

UnitResult TileRenderer::load_full_res(const StatePacket& p) {
  const std::uint32_t word = p.u32(1);
  if (!configured_) return need_config("LOAD_FULL_RES_TILE_BUFFER");
  const std::uint32_t address = word & ~15u;
  if (!(word & kFullResDisableColor)) queue_load({Buffer::kColor, true, 0, address});
  if (!(word & kFullResDisableZs)) {
    std::uint32_t zs_address = 0;
    if (!zs_address_of(word, zs_address)) return zs_beyond_4gib("LOAD_FULL_RES_TILE_BUFFER");
    queue_load({Buffer::kZs, true, 0, zs_address});
  }
  return UnitResult::done();
}

void TileRenderer::queue_load(const PendingLoad& load) {
  // One outstanding load per buffer (vc4_render_cl.c): a later load of the same buffer replaces the earlier one, so
  // a list that loads in a loop cannot grow the queue.
  for (PendingLoad& l : pending_loads_) {
    if (l.buffer == load.buffer) {
      l = load;
      return;
    }
  }
  pending_loads_.push_back(load);
}

bool TileRenderer::zs_address_of(std::uint32_t word, std::uint32_t& zs_address) {
  // With both buffers, Z/S follows the 16 KiB colour buffer; in 64 bits, so an address near 4 GiB cannot wrap.
  const std::uint64_t address = word & ~15u;
  const std::uint64_t zs = (word & kFullResDisableColor) ? address : address + 16 * 1024;
  if (zs > 0xFFFFFFFFULL) return false;
  zs_address = static_cast<std::uint32_t>(zs);
  return true;
}

UnitResult TileRenderer::zs_beyond_4gib(const char* packet) {
  return UnitResult::error(std::string(packet) + ": the Z/S buffer after the colour buffer lies beyond 4 GiB");
}

void TileRenderer::thread_reset() {
  // Loads queued by a stopped or reset list must not fire in the next one.
  pending_loads_.clear();
}

UnitResult TileRenderer::store_ms(UnitContext& ctx) {
  // STORE_MS_TILE_BUFFER: the colour, resolved by the configuration's decimate mode (1x: sample 0, 4x, 16x; see the
  // header), to the frame buffer of TILE_RENDERING_MODE_CONFIG in its format (0 BGR565 dithered, 1 RGBA8888,
  // 2 BGR565), then the clear.
  if (!configured_) return need_config("STORE_MS_TILE_BUFFER");
  ColorFormat format = ColorFormat::kRgba8888;
  config_color_format((flags_ >> kConfigFormatShift) & 3, format);  // checked by configure()
  const unsigned decimate = (flags_ >> kConfigDecimateShift) & 3;
  const unsigned block = decimate == 0 ? 0 : decimate == 1 ? 2 : 4;
  UnitResult r = store_raster(Buffer::kColor, frame_address_, bytes_per_pixel(format), block, ctx);
  if (r.kind != UnitResult::Kind::kDone) return r;
  // What the frame buffer now holds, for a host that dumps it (--dump-fb).
  StoredFrame frame;
  unsigned out_tile = 0;
  stored_extent(block, out_tile, frame.width, frame.height);
  frame.address = frame_address_;
  frame.stride = frame.width * bytes_per_pixel(format);
  frame.format = format;
  frame.layout = static_cast<MemoryLayout>((flags_ >> kConfigMemFormatShift) & 3);  // linear: configure() checked
  last_frame_ = frame;
  clear(true, true);
  return UnitResult::done();
}

}  // namespace gpuvp::vc4
