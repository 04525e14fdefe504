#include "tb/host/vc4_driver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "tlm/vc4/control_list_executor.h"
#include "tlm/vc4/v3d.h"

namespace gpuvp::host {

namespace pk = vc4::packet;

namespace {

void put8(std::vector<std::uint8_t>& cl, std::uint32_t v) { cl.push_back(static_cast<std::uint8_t>(v)); }
void put16(std::vector<std::uint8_t>& cl, std::uint32_t v) {
  put8(cl, v);
  put8(cl, v >> 8);
}
void put32(std::vector<std::uint8_t>& cl, std::uint32_t v) {
  put16(cl, v);
  put16(cl, v >> 16);
}
std::uint32_t f32(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
std::uint32_t get32(const std::vector<std::uint8_t>& cl, std::size_t at) {
  return cl[at] | static_cast<std::uint32_t>(cl[at + 1]) << 8 | static_cast<std::uint32_t>(cl[at + 2]) << 16 |
         static_cast<std::uint32_t>(cl[at + 3]) << 24;
}
void set32(std::vector<std::uint8_t>& cl, std::size_t at, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) cl[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::int16_t fixed_12_4(float px) {
  const long v = std::lround(px * 16.0f);
  return static_cast<std::int16_t>(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

// Offset of the TILE_BINNING_MODE_CONFIG packet in a binning list, or -1.
long find_bin_config(const std::vector<std::uint8_t>& cl) {
  for (std::size_t at = 0; at < cl.size();) {
    const vc4::PacketInfo* info = vc4::packet_info(cl[at]);
    if (cl[at] == pk::kTileBinningModeConfig) return static_cast<long>(at);
    if (!info || info->length == 0 || cl[at] == pk::kHalt) return -1;
    at += info->length;
  }
  return -1;
}

}  // namespace

Vc4Driver::Vc4Driver(HostPort& port, Vc4Layout layout) : port_(port), layout_(layout), next_(layout.memory_base) {}

Vc4Driver::Buffer Vc4Driver::alloc(std::uint32_t size, std::uint32_t align) {
  const std::uint64_t start = (static_cast<std::uint64_t>(next_) + align - 1) / align * align;
  if (size == 0 || start + size > static_cast<std::uint64_t>(layout_.memory_base) + layout_.memory_size) {
    throw std::runtime_error("vc4 driver: out of memory allocating " + std::to_string(size) + " bytes");
  }
  next_ = static_cast<std::uint32_t>(start + size);
  return {static_cast<std::uint32_t>(start), size};
}

void Vc4Driver::upload(const Buffer& buffer, std::uint32_t offset, const std::vector<std::uint8_t>& bytes) {
  if (static_cast<std::uint64_t>(offset) + bytes.size() > buffer.size) {
    throw std::runtime_error("vc4 driver: upload beyond the buffer");
  }
  if (!bytes.empty()) port_.write_block(buffer.addr + offset, bytes.data(), bytes.size());
}

void Vc4Driver::enable_interrupts() {
  port_.write32(reg(vc4::kV3dIntctl), vc4::kV3dIntAll);
  port_.write32(reg(vc4::kV3dIntena), vc4::kV3dIntFldone | vc4::kV3dIntFrdone | vc4::kV3dIntOutomem);
}

std::vector<std::uint8_t> Vc4Driver::build_bin_cl(const Vc4Scene& scene) {
  const unsigned tiles_x = (scene.width + 63) / 64, tiles_y = (scene.height + 63) / 64;
  if (tiles_x == 0 || tiles_y == 0 || tiles_x > 255 || tiles_y > 255) {
    throw std::runtime_error("vc4 driver: scene size " + std::to_string(scene.width) + "x" +
                             std::to_string(scene.height) + " has no valid tile grid");
  }
  // Shaded vertex data: X, Y (12.4), Z, 1/W; stride 12.
  std::vector<std::uint8_t> vdata;
  for (const Vc4Vertex& v : scene.vertices) {
    put16(vdata, static_cast<std::uint16_t>(fixed_12_4(v.x)));
    put16(vdata, static_cast<std::uint16_t>(fixed_12_4(v.y)));
    put32(vdata, f32(v.z));
    put32(vdata, f32(v.inv_w));
  }
  const Buffer vbo = alloc(static_cast<std::uint32_t>(std::max<std::size_t>(vdata.size(), 16)), 16);
  upload(vbo, 0, vdata);
  std::vector<std::uint8_t> ibytes;
  for (std::uint16_t i : scene.indices) put16(ibytes, i);
  const Buffer ibo = alloc(static_cast<std::uint32_t>(std::max<std::size_t>(ibytes.size(), 16)), 16);
  upload(ibo, 0, ibytes);
  // NV shader record (16 bytes, 16-byte aligned): single-threaded FS, stride 12, no uniforms or varyings, FS code and
  // uniforms 0 (no QPU runs yet), shaded vertex data.
  std::vector<std::uint8_t> rec;
  put8(rec, 0x01);
  put8(rec, 12);
  put8(rec, 0);
  put8(rec, 0);
  put32(rec, 0);
  put32(rec, 0);
  put32(rec, vbo.addr);
  const Buffer rbo = alloc(16, 16);
  upload(rbo, 0, rec);

  std::uint16_t max_index = 0;
  for (std::uint16_t i : scene.indices) max_index = std::max(max_index, i);
  std::vector<std::uint8_t> cl;
  put8(cl, pk::kTileBinningModeConfig);  // addresses filled by bin_setup()
  put32(cl, 0);
  put32(cl, 0);
  put32(cl, 0);
  put8(cl, tiles_x);
  put8(cl, tiles_y);
  put8(cl, kKernelBinFlags);
  put8(cl, pk::kStartTileBinning);
  // vc4_draw.c: "the current compressed primitives format" must be reset at the start of every tile.
  put8(cl, pk::kPrimitiveListFormat);
  put8(cl, pk::kListFormat16BitTriangles);
  put8(cl, pk::kClipWindow);
  put16(cl, 0);
  put16(cl, 0);
  put16(cl, scene.width);
  put16(cl, scene.height);
  put8(cl, pk::kConfigurationBits);  // both faces enabled, no depth test
  put8(cl, 0x03);
  put8(cl, 0x00);
  put8(cl, 0x00);
  put8(cl, pk::kViewportOffset);
  put16(cl, 0);
  put16(cl, 0);
  put8(cl, pk::kClipperXyScaling);  // half width / height in 1/16 pixel, as vc4_emit.c emits them
  put32(cl, f32(scene.width * 8.0f));
  put32(cl, f32(-(scene.height * 8.0f)));
  put8(cl, pk::kNvShaderState);
  put32(cl, rbo.addr);
  put8(cl, pk::kGlIndexedPrimitive);
  put8(cl, 0x14);  // triangles, 16-bit indices
  put32(cl, static_cast<std::uint32_t>(scene.indices.size()));
  put32(cl, ibo.addr);
  put32(cl, max_index);
  // vc4_validate.c: the list must end INCREMENT_SEMAPHORE, FLUSH.
  put8(cl, pk::kIncrementSemaphore);
  put8(cl, pk::kFlush);
  return cl;
}

std::string Vc4Driver::validate_bin_cl(const std::vector<std::uint8_t>& cl, unsigned shader_rec_count) {
  // The opcodes a user binning list may contain (vc4_validate.c cmd_info[] entries with a handler or no restriction
  // for the bin list): HALT, NOP, FLUSH, FLUSH_ALL_STATE, START_TILE_BINNING, INCREMENT_SEMAPHORE, the GL primitives,
  // PRIMITIVE_LIST_FORMAT, GL_SHADER_STATE, the state packets 96..103, the clipper 105/106, the binning mode and
  // GEM_HANDLES.
  auto allowed = [](std::uint8_t op) {
    switch (op) {
      case 0: case 1: case 4: case 5: case 6: case 7: case 32: case 33: case 56: case 64: case 105: case 106:
      case 112: case 254:
        return true;
      default:
        return op >= 96 && op <= 103;
    }
  };
  auto at_text = [](std::size_t at) { return "at byte " + std::to_string(at) + ": "; };
  bool seen_config = false, seen_start = false, seen_flush = false, seen_increment = false;
  unsigned shader_states = 0;
  std::size_t at = 0;
  while (at < cl.size()) {
    const std::uint8_t op = cl[at];
    if (!allowed(op)) {
      const vc4::PacketInfo* info = vc4::packet_info(op);
      return at_text(at) + "opcode " + std::to_string(op) + " (" + (info ? info->name : "unknown") +
             ") is not allowed in a binning list";
    }
    // GEM_HANDLES is 9 bytes (two u32 handles): the kernel's pseudo packet.
    const unsigned len = op == 254 ? 9 : vc4::packet_info(op)->length;
    if (at + len > cl.size()) {
      return at_text(at) + std::string(op == 254 ? "GEM_HANDLES" : vc4::packet_info(op)->name) + " (" +
             std::to_string(len) + " bytes) runs past the end of the list";
    }
    switch (op) {
      case pk::kHalt:
        at = cl.size();  // the validator stops parsing at HALT
        continue;
      case pk::kFlush:
        if (at != cl.size() - 1) return at_text(at) + "FLUSH is not the last byte of the list";
        seen_flush = true;
        break;
      case pk::kIncrementSemaphore:
        if (at != cl.size() - 2) return at_text(at) + "INCREMENT_SEMAPHORE is not the second-to-last byte";
        seen_increment = true;
        break;
      case pk::kTileBinningModeConfig: {
        if (seen_config) return at_text(at) + "duplicate TILE_BINNING_MODE_CONFIG";
        seen_config = true;
        if (cl[at + 13] == 0 || cl[at + 14] == 0) return at_text(at) + "tile binning with a zero-sized tile grid";
        const std::uint8_t flags = cl[at + 15];
        if (flags & 0x80) return at_text(at) + "double-buffer in non-multisample mode is not supported";
        if (flags & 0x02) return at_text(at) + "64-bit colour is not supported";
        break;
      }
      case pk::kStartTileBinning:
        if (seen_start) return at_text(at) + "duplicate START_TILE_BINNING";
        if (!seen_config) return at_text(at) + "START_TILE_BINNING before TILE_BINNING_MODE_CONFIG";
        seen_start = true;
        break;
      case pk::kGlShaderState:
        if (shader_states == shader_rec_count) {
          return at_text(at) + "more GL_SHADER_STATE packets than the " + std::to_string(shader_rec_count) +
                 " shader records supplied";
        }
        // The user list gives only the attribute count; the kernel fills in the record address.
        if (get32(cl, at + 1) & ~0xFu) return at_text(at) + "GL_SHADER_STATE with bits above 3:0 set";
        ++shader_states;
        break;
      case pk::kGlIndexedPrimitive:
      case pk::kGlArrayPrimitive:
        if (shader_states == 0) return at_text(at) + "draw before any GL_SHADER_STATE";
        if (op == pk::kGlArrayPrimitive &&
            static_cast<std::uint64_t>(get32(cl, at + 2)) + get32(cl, at + 6) > 0xFFFFFFFFull) {
          return at_text(at) + "GL_ARRAY_PRIMITIVE first + count overflows 32 bits";
        }
        break;
      default:
        break;
    }
    at += len;
  }
  if (!seen_start) return "no START_TILE_BINNING in the list";
  if (!seen_increment || !seen_flush) return "the list does not end INCREMENT_SEMAPHORE, FLUSH";
  return {};
}

std::string Vc4Driver::validate_render_setup(const Vc4RenderSetup& s) {
  if (s.min_x_tile > s.max_x_tile || s.min_y_tile > s.max_y_tile) return "minimum tile beyond the maximum tile";
  // vc4_render_cl.c compares with '>' (not '>='): max == bin tiles passes; the model's renderer then reports the
  // out-of-grid tile.
  if (s.has_bin && (s.max_x_tile > s.bin_tiles_x || s.max_y_tile > s.bin_tiles_y)) {
    return "render tiles (" + std::to_string(s.max_x_tile) + ", " + std::to_string(s.max_y_tile) +
           ") beyond the binned " + std::to_string(s.bin_tiles_x) + "x" + std::to_string(s.bin_tiles_y) + " tiles";
  }
  if (s.color_address == 0) return "no colour write surface";
  if (s.color_address & 15) return "colour surface offset not 16-byte aligned";
  if (s.width == 0 || s.height == 0 || s.width > 4096 || s.height > 4096) return "surface larger than 4096 pixels";
  // Render-config bits the kernel accepts: memory format, colour format, MS 4x, decimate 4x.
  if (s.color_bits & ~(0x00C0 | 0x000C | 0x0001 | 0x0010)) return "render config bits outside the allowed set";
  const unsigned format = (s.color_bits >> 2) & 3;
  if (format == 3) return "colour format not 565, 565 dithered or 8888";
  return {};
}

Vc4Driver::BinSetup Vc4Driver::bin_setup(std::vector<std::uint8_t>& cl) {
  const long at = find_bin_config(cl);
  if (at < 0) throw std::runtime_error("vc4 driver: binning list without TILE_BINNING_MODE_CONFIG");
  BinSetup s;
  s.tiles_x = cl[static_cast<std::size_t>(at) + 13];
  s.tiles_y = cl[static_cast<std::size_t>(at) + 14];
  const Buffer slot = alloc(kBinSlotSize, kBinSlotSize);
  const std::uint32_t tsda_size = (48u * s.tiles_x * s.tiles_y + 4095) / 4096 * 4096;
  s.tsda = slot.addr;
  s.tile_alloc = slot.addr + tsda_size;
  s.tile_alloc_size = slot.size - tsda_size;
  set32(cl, static_cast<std::size_t>(at) + 1, s.tile_alloc);
  set32(cl, static_cast<std::size_t>(at) + 5, s.tile_alloc_size);
  set32(cl, static_cast<std::size_t>(at) + 9, s.tsda);
  cl[static_cast<std::size_t>(at) + 15] = kKernelBinFlags;
  return s;
}

std::vector<std::uint8_t> Vc4Driver::build_render_cl(const Vc4RenderSetup& s) {
  std::vector<std::uint8_t> cl;
  if (s.use_clear_color) {
    put8(cl, pk::kClearColors);
    put32(cl, s.clear_color[0]);
    put32(cl, s.clear_color[1]);
    put16(cl, s.clear_z);  // 24-bit Z
    put8(cl, s.clear_z >> 16);
    put8(cl, 0);  // VG mask
    put8(cl, s.clear_s);
    // "The tile buffer gets cleared when the previous tile is stored": a no-op store latches the new clear values.
    put8(cl, pk::kTileCoordinates);
    put8(cl, 0);
    put8(cl, 0);
    put8(cl, pk::kStoreTileBufferGeneral);
    put16(cl, 0);
    put32(cl, 0);
  }
  put8(cl, pk::kTileRenderingModeConfig);
  put32(cl, s.color_address);
  put16(cl, s.width);
  put16(cl, s.height);
  put16(cl, s.color_bits);
  for (unsigned y = s.min_y_tile; y <= s.max_y_tile; ++y) {
    for (unsigned x = s.min_x_tile; x <= s.max_x_tile; ++x) {
      const bool first = x == s.min_x_tile && y == s.min_y_tile;
      const bool last = x == s.max_x_tile && y == s.max_y_tile;
      put8(cl, pk::kTileCoordinates);
      put8(cl, x);
      put8(cl, y);
      if (s.has_bin) {
        if (first) put8(cl, pk::kWaitOnSemaphore);
        put8(cl, pk::kBranchToSubList);
        put32(cl, s.tile_alloc + (y * s.bin_tiles_x + x) * 32);
      }
      put8(cl, last ? pk::kStoreMsTileBufferAndEof : pk::kStoreMsTileBuffer);
    }
  }
  return cl;
}

void Vc4Driver::submit(const std::vector<std::uint8_t>& bin_cl, const std::vector<std::uint8_t>& render_cl) {
  // vc4_gem.c vc4_flush_caches: L2 cache clear, slice caches clear.
  port_.write32(reg(vc4::kV3dL2cactl), vc4::kV3dL2cClr);
  port_.write32(reg(vc4::kV3dSlcactl), 0x0F0F0F0F);
  if (!bin_cl.empty()) {
    const Buffer b = alloc(static_cast<std::uint32_t>(bin_cl.size()), 16);
    upload(b, 0, bin_cl);
    port_.comment("binning list: CT0CA, CT0EA (writing EA starts the thread)");
    port_.write32(reg(vc4::kV3dCtnCa(0)), b.addr);
    port_.write32(reg(vc4::kV3dCtnEa(0)), b.addr + b.size);
  }
  if (!render_cl.empty()) {
    const Buffer r = alloc(static_cast<std::uint32_t>(render_cl.size()), 16);
    upload(r, 0, render_cl);
    port_.comment("render list: CT1CA, CT1EA");
    port_.write32(reg(vc4::kV3dCtnCa(1)), r.addr);
    port_.write32(reg(vc4::kV3dCtnEa(1)), r.addr + r.size);
  }
}

void Vc4Driver::supply_overspill(std::uint32_t size) {
  const Buffer b = alloc(size, 4096);
  port_.write32(reg(vc4::kV3dBpoa), b.addr);
  port_.write32(reg(vc4::kV3dBpos), b.size);
  ++overflow_blocks_;
}

bool Vc4Driver::service_interrupts() {
  const std::uint32_t status = port_.read32(reg(vc4::kV3dIntctl));
  if (!(status & vc4::kV3dIntOutomem)) return false;
  // vc4_irq.c: mask OUTOMEM until the work item has supplied memory, then ack and unmask.
  port_.write32(reg(vc4::kV3dIntdis), vc4::kV3dIntOutomem);
  supply_overspill(kBinSlotSize);
  port_.write32(reg(vc4::kV3dIntctl), vc4::kV3dIntOutomem);
  port_.write32(reg(vc4::kV3dIntena), vc4::kV3dIntOutomem);
  return true;
}

bool Vc4Driver::wait_frame(std::uint64_t timeout_ns, bool service_oom) {
  const std::uint32_t done = vc4::kV3dIntFrdone;
  bool ok = false;
  if (!service_oom) {
    ok = port_.wait_for32(reg(vc4::kV3dIntctl), done, done, timeout_ns);
  } else {
    constexpr std::uint64_t kSliceNs = 2000;
    for (std::uint64_t waited = 0; waited < timeout_ns && !ok; waited += kSliceNs) {
      service_interrupts();
      ok = port_.wait_for32(reg(vc4::kV3dIntctl), done, done, kSliceNs);
    }
  }
  if (ok) port_.write32(reg(vc4::kV3dIntctl), vc4::kV3dIntFldone | vc4::kV3dIntFrdone);
  return ok;
}

}  // namespace gpuvp::host
