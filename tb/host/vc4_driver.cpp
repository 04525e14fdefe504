#include "tb/host/vc4_driver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "hw/vc4/packets.h"
#include "hw/vc4/qpu_isa.h"
#include "hw/vc4/surface.h"
#include "hw/vc4/v3d_regs.h"
#include "tlm/core/report.h"

namespace gpuvp::host {

namespace pk = vc4::packet;
using pk::put_f32;
using pk::put_u16;
using pk::put_u32;
using pk::put_u8;

namespace {

using TileBuffer = vc4::TileBufferFields;
// The TILE_RENDERING_MODE_CONFIG bits the kernel accepts (vc4_render_cl.c): memory format, colour format, MS 4x and
// decimate 4x (16x decimation is not accepted).
constexpr std::uint32_t kRenderConfigAllowed = 3u << TileBuffer::kConfigMemFormatShift |
                                               3u << TileBuffer::kConfigFormatShift | TileBuffer::kConfigMs4x |
                                               1u << TileBuffer::kConfigDecimateShift;
// The LOAD/STORE_TILE_BUFFER_GENERAL bits a general surface may set: tiling, buffer and pixel format.
constexpr std::uint32_t kGeneralSurfaceAllowed =
    3u << TileBuffer::kGeneralTilingShift | TileBuffer::kGeneralBufferMask | 3u << TileBuffer::kGeneralPixelFormatShift;
// A render config's memory format (VC4_TILING_FORMAT_*) and colour format (VC4_RENDER_CONFIG_FORMAT_*).
unsigned render_tiling(std::uint32_t bits) { return (bits >> TileBuffer::kConfigMemFormatShift) & 3; }
unsigned render_format(std::uint32_t bits) { return (bits >> TileBuffer::kConfigFormatShift) & 3; }

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
    const vc4::PacketLayout* info = vc4::packet_layout(cl[at]);
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

std::vector<std::uint64_t> flat_color_fragment_shader(std::uint32_t color) {
  vc4::qpu::LoadImmediateInstruction write;
  write.waddr_add = vc4::qpu::kWriteTlbColorAll;
  write.value = color;
  vc4::qpu::AluInstruction end, nop, unlock;
  end.sig = vc4::qpu::kSigProgramEnd;
  unlock.sig = vc4::qpu::kSigScoreboardUnlock;
  return {write.encode(), end.encode(), nop.encode(), unlock.encode()};
}

Vc4Driver::Texture Vc4Driver::upload_texture(unsigned width, unsigned height, const std::vector<std::uint32_t>& texels,
                                             bool bilinear, unsigned wrap) {
  if (width == 0 || height == 0 || width > 2048 || height > 2048 || texels.size() != std::size_t{width} * height ||
      wrap > 2) {
    throw std::runtime_error("vc4 driver: a texture of " + std::to_string(width) + "x" + std::to_string(height) +
                             " with " + std::to_string(texels.size()) + " texels and wrap " + std::to_string(wrap) +
                             " is not one the driver model lays out");
  }
  const unsigned utile = vc4::micro_tile_width(4);  // 4x4 texels of 4 bytes
  const bool lt = width <= 4 * utile || height <= 4 * utile;
  const vc4::MemoryLayout layout = lt ? vc4::MemoryLayout::kLt : vc4::MemoryLayout::kT;
  const auto padded = [](unsigned v, unsigned a) { return (v + a - 1) / a * a; };
  const unsigned across = padded(width, vc4::layout_width_align(layout, 4)) / utile;
  const unsigned rows = padded(height, vc4::layout_height_align(layout, 4)) / utile;
  std::vector<std::uint8_t> bytes(std::size_t{across} * rows * vc4::kMicroTileBytes, 0);
  for (unsigned y = 0; y < height; ++y) {
    for (unsigned x = 0; x < width; ++x) {
      const std::uint64_t tile = lt ? vc4::lt_micro_tile_offset(x / utile, y / utile, across)
                                    : vc4::t_micro_tile_offset(x / utile, y / utile, across);
      const std::uint64_t at = tile + 4 * ((y % utile) * utile + x % utile);
      const std::uint32_t t = texels[std::size_t{y} * width + x];
      for (unsigned i = 0; i < 4; ++i) bytes[at + i] = static_cast<std::uint8_t>(t >> (8 * i));
    }
  }
  Texture t;
  t.buffer = alloc(static_cast<std::uint32_t>(bytes.size()), 4096);
  upload(t.buffer, 0, bytes);
  // P0: base 31:12, type RGBA8888 (0) in 7:4, one level. P1: height 30:20, width 18:8, magnification 7 (1 nearest),
  // minification 6:4 (1 nearest, 0 linear, from level 0), wrap t 3:2 and s 1:0.
  t.p0 = t.buffer.addr & ~0xFFFU;
  t.p1 = (height & 0x7FFU) << 20 | (width & 0x7FFU) << 8 | (bilinear ? 0U : 0x80U | 0x10U) | wrap << 2 | wrap;
  return t;
}

std::vector<std::uint8_t> Vc4Driver::build_bin_cl(const Vc4Scene& scene) {
  const unsigned tiles_x = (scene.width + 63) / 64, tiles_y = (scene.height + 63) / 64;
  if (tiles_x == 0 || tiles_y == 0 || tiles_x > 255 || tiles_y > 255) {
    throw std::runtime_error("vc4 driver: scene size " + std::to_string(scene.width) + "x" +
                             std::to_string(scene.height) + " has no valid tile grid");
  }
  if (scene.varyings > 8) throw std::runtime_error("vc4 driver: a scene has at most 8 varyings");
  if (scene.mode > 6)
    throw std::runtime_error("vc4 driver: primitive mode " + std::to_string(scene.mode) + " is not GL's");
  const bool gl = !scene.coordinate_shader.empty() && !scene.vertex_shader.empty();
  if (gl && (scene.width > 4095 || scene.height > 4095)) {
    // VIEWPORT_OFFSET holds the frame's centre as signed 12.4 pixels.
    throw std::runtime_error("vc4 driver: a GL scene is at most 4095 pixels wide and high");
  }
  // GL, and NV with the clip header: positions relative to the frame's centre (VIEWPORT_OFFSET), which the clipper's
  // new vertices are too.
  const bool nv_clipped = !gl && scene.nv_clip_header;
  const bool centred = gl || nv_clipped;
  std::vector<std::uint8_t> vdata;
  for (const Vc4Vertex& v : scene.vertices) {
    // Clip-space position (the attributes of Vc4Scene::coordinate_shader, or the NV clip header).
    const float w = 1.0f / v.inv_w;
    const float x = v.x / (static_cast<float>(scene.width) / 2) - 1,
                y = v.y / (static_cast<float>(scene.height) / 2) - 1;
    if (gl || nv_clipped) {
      for (const float f : {x * w, y * w, v.z * w, w}) put_f32(vdata, f);
    }
    if (gl) {
      for (unsigned k = 0; k < 4; ++k) put_f32(vdata, v.varyings[k]);  // the four varyings
      continue;
    }
    // Shaded vertex data: X, Y (12.4), Z, 1/W, the varyings; stride 12 + 4 per varying (16 more with the header).
    const float origin_x = centred ? static_cast<float>(scene.width) / 2 : 0.0F,
                origin_y = centred ? static_cast<float>(scene.height) / 2 : 0.0F;
    put_u16(vdata, static_cast<std::uint16_t>(fixed_12_4(v.x - origin_x)));
    put_u16(vdata, static_cast<std::uint16_t>(fixed_12_4(v.y - origin_y)));
    put_f32(vdata, v.z);
    put_f32(vdata, v.inv_w);
    for (unsigned k = 0; k < scene.varyings; ++k) put_f32(vdata, v.varyings[k]);
  }
  const Buffer vbo = alloc(static_cast<std::uint32_t>(std::max<std::size_t>(vdata.size(), 16)), 16);
  upload(vbo, 0, vdata);
  std::vector<std::uint8_t> ibytes;
  for (std::uint16_t i : scene.indices) put_u16(ibytes, i);
  const Buffer ibo = alloc(static_cast<std::uint32_t>(std::max<std::size_t>(ibytes.size(), 16)), 16);
  upload(ibo, 0, ibytes);
  const auto upload_code = [&](const std::vector<std::uint64_t>& program) {
    std::vector<std::uint8_t> code;
    for (const std::uint64_t inst : program) {
      put_u32(code, static_cast<std::uint32_t>(inst));
      put_u32(code, static_cast<std::uint32_t>(inst >> 32));
    }
    const Buffer b = alloc(static_cast<std::uint32_t>(code.size()), 8);
    upload(b, 0, code);
    return b.addr;
  };
  const std::uint32_t fs =
      upload_code(scene.fragment_shader.empty() ? flat_color_fragment_shader(scene.color) : scene.fragment_shader);
  std::uint32_t fs_uniforms = 0;
  if (!scene.fragment_uniforms.empty()) {
    std::vector<std::uint8_t> words;
    for (const std::uint32_t u : scene.fragment_uniforms) put_u32(words, u);
    const Buffer b = alloc(static_cast<std::uint32_t>(words.size()), 16);
    upload(b, 0, words);
    fs_uniforms = b.addr;
  }
  std::vector<std::uint8_t> rec;
  std::uint32_t record_word = 0;
  // The viewport scale and, for GL, VIEWPORT_OFFSET: half the frame in 1/16 pixel (0 for NV: vertices in place).
  const auto half_width = static_cast<std::int16_t>(centred ? scene.width * 8 : 0),
             half_height = static_cast<std::int16_t>(centred ? scene.height * 8 : 0);
  if (gl) {
    std::vector<std::uint8_t> uniforms;
    put_f32(uniforms, half_width);
    put_f32(uniforms, half_height);
    const Buffer ubo = alloc(8, 16);
    upload(ubo, 0, uniforms);
    // GL shader record (vc4_validate.c gl_shader_rec_size: 36 + 8 per attribute): clipping and (unless threaded) a
    // single-threaded FS; the FS without uniforms, the VS and CS with the viewport scale; two attribute records.
    put_u16(rec, scene.threaded_fragment_shader ? 0x0004 : 0x0005);
    put_u8(rec, 0);
    put_u8(rec, static_cast<std::uint8_t>(scene.varyings));
    put_u32(rec, fs);
    put_u32(rec, fs_uniforms);
    put_u16(rec, 0);
    put_u8(rec, 0x03);  // VS attributes 0 and 1
    put_u8(rec, 32);    // VS total attribute size (bytes)
    put_u32(rec, upload_code(scene.vertex_shader));
    put_u32(rec, ubo.addr);
    put_u16(rec, 0);
    put_u8(rec, 0x01);  // CS attribute 0
    put_u8(rec, 16);
    put_u32(rec, upload_code(scene.coordinate_shader));
    put_u32(rec, ubo.addr);
    for (unsigned a = 0; a < 2; ++a) {
      put_u32(rec, vbo.addr + 16 * a);
      put_u8(rec, 15);                                 // bytes - 1
      put_u8(rec, 32);                                 // stride
      put_u8(rec, static_cast<std::uint8_t>(16 * a));  // VPM offsets in bytes
      put_u8(rec, 0);
    }
    const Buffer rbo = alloc(static_cast<std::uint32_t>(rec.size()), 16);
    upload(rbo, 0, rec);
    record_word = rbo.addr | 2U;  // two attributes
  } else {
    // NV shader record (16 bytes, 16-byte aligned): single-threaded FS, the vertex stride, no uniforms, the
    // varyings, the fragment shader, shaded vertex data.
    // VC4_SHADER_FLAG_FS_SINGLE_THREAD (bit 0); clipping (bit 2) with the clip header (bit 3).
    put_u8(rec, static_cast<std::uint8_t>((scene.threaded_fragment_shader ? 0x00 : 0x01) | (nv_clipped ? 0x0C : 0x00)));
    put_u8(rec, static_cast<std::uint8_t>((nv_clipped ? 28 : 12) + 4 * scene.varyings));
    put_u8(rec, 0);
    put_u8(rec, static_cast<std::uint8_t>(scene.varyings));
    put_u32(rec, fs);
    put_u32(rec, fs_uniforms);
    put_u32(rec, vbo.addr);
    const Buffer rbo = alloc(16, 16);
    upload(rbo, 0, rec);
    record_word = rbo.addr;
  }

  std::uint16_t max_index = 0;
  for (std::uint16_t i : scene.indices) max_index = std::max(max_index, i);
  std::vector<std::uint8_t> cl;
  pk::tile_binning_mode_config(cl, 0, 0, 0, static_cast<std::uint8_t>(tiles_x), static_cast<std::uint8_t>(tiles_y),
                               kKernelBinFlags);  // addresses filled by bin_setup()
  pk::start_tile_binning(cl);
  // vc4_draw.c: "the current compressed primitives format" must be reset at the start of every tile.
  pk::primitive_list_format(cl, pk::kListFormat16BitTriangles);
  pk::clip_window(cl, 0, 0, static_cast<std::uint16_t>(scene.width), static_cast<std::uint16_t>(scene.height));
  // Both faces enabled; the depth function in bits 14:12 and the Z update in bit 15 (vc4_packet.h).
  pk::configuration_bits(cl, 0x03,
                         static_cast<std::uint8_t>((scene.depth_func & 7U) << 4 | (scene.depth_write ? 0x80U : 0U)),
                         static_cast<std::uint8_t>(scene.early_z ? 0x03U : 0x00U));
  // GL: the shaders scale clip coordinates to 1/16 pixel around the frame's centre; NV vertices are in place.
  pk::viewport_offset(cl, half_width, half_height);
  // The clipper's viewport: the scales the shaders apply (half width / height in 1/16 pixel: vc4_emit.c emits the
  // same values as its shaders' viewport uniforms) and Zs = Z/W, as the coordinate shader computes it.
  pk::clipper_xy_scaling(cl, static_cast<float>(half_width), static_cast<float>(half_height));
  pk::clipper_z_scale_and_offset(cl, 1.0F, 0.0F);
  if (gl) {
    pk::gl_shader_state(cl, record_word);
  } else {
    pk::nv_shader_state(cl, record_word);
  }
  if (scene.mode < 4) {
    pk::point_size(cl, scene.point_size);
    pk::line_width(cl, scene.line_width);
  }
  pk::gl_indexed_primitive(cl, static_cast<std::uint8_t>(0x10 | (scene.mode & 0xFU)),
                           static_cast<std::uint32_t>(scene.indices.size()), ibo.addr,
                           max_index);  // 16-bit indices
  // vc4_validate.c: the list must end INCREMENT_SEMAPHORE, FLUSH.
  pk::increment_semaphore(cl);
  pk::flush(cl);
  return cl;
}

namespace {

// What the binning-list walk learns for the later checks (struct vc4_exec_info's fields of the same names).
struct BinWalk {
  const Vc4Submit* job = nullptr;  // null: the list alone, without BO references (validate_bin_cl)
  std::uint32_t bo_index[2] = {0, 0};
  struct ShaderState {
    std::uint32_t addr = 0;  // the GL_SHADER_STATE word: b2:0 attribute count (0 = 8), b3 extended
    std::uint32_t max_index = 0;
  };
  std::vector<ShaderState> shader_states;
  unsigned bin_tiles_x = 0;
  unsigned bin_tiles_y = 0;
};

std::string at_text(std::size_t at) { return "at byte " + std::to_string(at) + ": "; }

// vc4_use_bo: a BO of the job by position, refused when out of range ('>=') or a shader BO.
std::string use_bo(const Vc4Submit& job, std::uint32_t hindex, const char* what) {
  if (hindex >= job.bos.size()) {
    return std::string(what) + " BO index " + std::to_string(hindex) + " is not below the BO count " +
           std::to_string(job.bos.size());
  }
  if (job.bos[hindex].shader) return std::string(what) + " BO " + std::to_string(hindex) + " is a shader BO";
  return {};
}

std::string walk_bin_cl(const std::vector<std::uint8_t>& cl, unsigned shader_rec_count, BinWalk& w) {
  // The opcodes a user binning list may contain (vc4_validate.c cmd_info[] entries with a handler or no restriction
  // for the bin list): HALT, NOP, FLUSH, FLUSH_ALL_STATE, START_TILE_BINNING, INCREMENT_SEMAPHORE, the GL primitives,
  // PRIMITIVE_LIST_FORMAT, GL_SHADER_STATE, the state packets 96..103, the clipper 105/106, the binning mode and
  // GEM_HANDLES.
  auto allowed = [](std::uint8_t op) {
    switch (op) {
      case pk::kHalt:
      case pk::kNop:
      case pk::kFlush:
      case pk::kFlushAllState:
      case pk::kStartTileBinning:
      case pk::kIncrementSemaphore:
      case pk::kGlIndexedPrimitive:
      case pk::kGlArrayPrimitive:
      case pk::kPrimitiveListFormat:
      case pk::kGlShaderState:
      case pk::kClipperXyScaling:
      case pk::kClipperZScaleAndOffset:
      case pk::kTileBinningModeConfig:
      case pk::kGemHandles:
        return true;
      default:
        return op >= pk::kConfigurationBits && op <= pk::kViewportOffset;
    }
  };
  bool seen_config = false, seen_start = false, seen_flush = false, seen_increment = false;
  std::size_t at = 0;
  while (at < cl.size()) {
    const std::uint8_t op = cl[at];
    if (!allowed(op)) {
      const vc4::PacketLayout* info = vc4::packet_layout(op);
      return at_text(at) + "opcode " + std::to_string(op) + " (" + (info ? info->name : "unknown") +
             ") is not allowed in a binning list";
    }
    // GEM_HANDLES (two u32 handles) is the kernel's pseudo packet.
    const bool gem_handles = op == pk::kGemHandles;
    const unsigned len = gem_handles ? pk::kGemHandlesLength : vc4::packet_layout(op)->length;
    if (at + len > cl.size()) {
      return at_text(at) + std::string(gem_handles ? "GEM_HANDLES" : vc4::packet_layout(op)->name) + " (" +
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
        w.bin_tiles_x = cl[at + 13];
        w.bin_tiles_y = cl[at + 14];
        if (cl[at + 13] == 0 || cl[at + 14] == 0) return at_text(at) + "tile binning with a zero-sized tile grid";
        const std::uint8_t flags = cl[at + 15];
        if (flags & vc4::BinningModeConfigFields::kConfigDbNonMs) {
          return at_text(at) + "double-buffer in non-multisample mode is not supported";
        }
        if (flags & vc4::BinningModeConfigFields::kConfig64BitColor) {
          return at_text(at) + "64-bit colour is not supported";
        }
        break;
      }
      case pk::kStartTileBinning:
        if (seen_start) return at_text(at) + "duplicate START_TILE_BINNING";
        if (!seen_config) return at_text(at) + "START_TILE_BINNING before TILE_BINNING_MODE_CONFIG";
        seen_start = true;
        break;
      case pk::kGlShaderState: {
        if (w.shader_states.size() >= shader_rec_count) {
          return at_text(at) + "more GL_SHADER_STATE packets than the " + std::to_string(shader_rec_count) +
                 " shader records supplied";
        }
        // The user list gives only the attribute count; the kernel fills in the record address.
        const std::uint32_t word = get32(cl, at + 1);
        if (word & ~0xFu) return at_text(at) + "GL_SHADER_STATE with bits above 3:0 set";
        w.shader_states.push_back({word, 0});
        break;
      }
      case pk::kGlIndexedPrimitive: {
        if (w.shader_states.empty()) return at_text(at) + "draw before any GL_SHADER_STATE";
        const std::uint32_t count = get32(cl, at + 2), offset = get32(cl, at + 6), max_index = get32(cl, at + 10);
        const std::uint32_t index_size = (cl[at + 1] >> 4) ? 2 : 1;
        w.shader_states.back().max_index = std::max(w.shader_states.back().max_index, max_index);
        if (w.job) {
          // The index buffer is the BO the last GEM_HANDLES named first (vc4_use_handle(exec, 0)).
          const std::string bad = use_bo(*w.job, w.bo_index[0], "index buffer");
          if (!bad.empty()) return at_text(at) + "GL_INDEXED_PRIMITIVE: " + bad;
          const std::uint32_t size = w.job->bos[w.bo_index[0]].size;
          // vc4_validate.c: offset > size, or fewer whole indices after the offset than the count.
          if (offset > size || (size - offset) / index_size < count) {
            return at_text(at) + "GL_INDEXED_PRIMITIVE reads " + std::to_string(count) + " indices of " +
                   std::to_string(index_size) + " bytes at offset " + std::to_string(offset) + " of a " +
                   std::to_string(size) + "-byte index buffer";
          }
        }
        break;
      }
      case pk::kGlArrayPrimitive: {
        if (w.shader_states.empty()) return at_text(at) + "draw before any GL_SHADER_STATE";
        const std::uint32_t count = get32(cl, at + 2), first = get32(cl, at + 6);
        if (static_cast<std::uint64_t>(count) + first > 0xFFFFFFFFull) {
          return at_text(at) + "GL_ARRAY_PRIMITIVE first + count overflows 32 bits";
        }
        // vc4_validate.c: max_index = count + first - 1 (a count of 0 wraps to 0xFFFFFFFF when first is 0, as there).
        const std::uint32_t max_index = count + first - 1;
        w.shader_states.back().max_index = std::max(w.shader_states.back().max_index, max_index);
        break;
      }
      case pk::kGemHandles:
        w.bo_index[0] = get32(cl, at + 1);
        w.bo_index[1] = get32(cl, at + 5);
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

// vc4_validate.c validate_gl_shader_rec for every shader state, consuming job.shader_rec in order.
std::string check_shader_records(const Vc4Submit& job, const BinWalk& w) {
  static constexpr unsigned kShaderOffsets[3] = {4, 16, 28};  // FS, VS, CS code addresses in the record
  static const char* const kShaderName[3] = {"FS", "VS", "CS"};
  std::size_t pos = 0;
  std::uint32_t left = static_cast<std::uint32_t>(job.shader_rec.size());
  for (std::size_t n = 0; n < w.shader_states.size(); ++n) {
    const BinWalk::ShaderState& st = w.shader_states[n];
    const std::string rec = "shader record " + std::to_string(n) + ": ";
    const unsigned attrs = (st.addr & 7) ? (st.addr & 7) : 8;
    const bool extended = st.addr & 8;
    const std::uint32_t packet_size = extended ? 100 + 4 * attrs : 36 + 8 * attrs;
    const std::uint32_t relocs = 3 + attrs;
    if (relocs * 4 > left) {
      return rec + std::to_string(relocs) + " BO handles overrun the " + std::to_string(left) +
             " shader record bytes left";
    }
    std::vector<std::uint32_t> handle(relocs);
    for (std::uint32_t i = 0; i < relocs; ++i) handle[i] = get32(job.shader_rec, pos + 4 * i);
    pos += relocs * 4;
    left -= relocs * 4;
    if (packet_size > left) {
      return rec + "the " + std::to_string(packet_size) + "-byte record overruns the " + std::to_string(left) +
             " shader record bytes left";
    }
    const std::size_t r = pos;  // the record
    pos += packet_size;
    left -= packet_size;
    for (unsigned i = 0; i < 3; ++i) {
      // vc4_validate.c compares with '>' here (not '>=' as vc4_use_bo does): a handle equal to the BO count passes
      // and the kernel then reads one entry past its BO array. The model cannot read it: it reports the slip.
      if (handle[i] > job.bos.size()) {
        return rec + kShaderName[i] + " handle " + std::to_string(handle[i]) + " is above the BO count " +
               std::to_string(job.bos.size());
      }
      if (handle[i] == job.bos.size()) {
        return rec + kShaderName[i] + " handle " + std::to_string(handle[i]) +
               " equals the BO count: it passes the kernel's '>' check and names no BO";
      }
    }
    for (unsigned i = 3; i < relocs; ++i) {
      const std::string bad = use_bo(job, handle[i], ("attribute " + std::to_string(i - 3)).c_str());
      if (!bad.empty()) return rec + bad;
    }
    // (The kernel reads validated_shader->is_threaded of the FS/VS/CS BOs before its own check that they are
    // validated shaders; the model reports a non-shader BO first instead of following that pointer.)
    for (unsigned i = 0; i < 3; ++i) {
      if (!job.bos[handle[i]].shader) {
        return rec + kShaderName[i] + " BO " + std::to_string(handle[i]) + " is not a validated shader";
      }
    }
    const bool fs_single_threaded = job.shader_rec[r] & 0x01;  // VC4_SHADER_FLAG_FS_SINGLE_THREAD
    if (fs_single_threaded == job.bos[handle[0]].threaded) {
      return rec + "the FS threading flag (" + (fs_single_threaded ? "single" : "multi") +
             "-threaded) does not match the FS BO";
    }
    if (job.bos[handle[1]].threaded || job.bos[handle[2]].threaded) return rec + "VS and CS cannot be threaded";
    for (unsigned i = 0; i < 3; ++i) {
      if (get32(job.shader_rec, r + kShaderOffsets[i]) != 0) {
        return rec + kShaderName[i] + " code offset " + std::to_string(get32(job.shader_rec, r + kShaderOffsets[i])) +
               " is not 0 (shaders start at offset 0 of their BO)";
      }
      // vc4_validate.c compares each shader's uniform stream with the whole uniforms size (not what is left).
      if (job.bos[handle[i]].uniforms_src_size > job.uniforms_size) {
        return rec + kShaderName[i] + " reads " + std::to_string(job.bos[handle[i]].uniforms_src_size) +
               " uniform bytes of the " + std::to_string(job.uniforms_size) + " supplied";
      }
    }
    for (unsigned i = 0; i < attrs; ++i) {
      const Vc4Bo& vbo = job.bos[handle[3 + i]];
      const std::size_t o = r + 36 + 8 * i;
      const std::uint32_t offset = get32(job.shader_rec, o), attr_size = job.shader_rec[o + 4] + 1u;
      std::uint32_t stride = job.shader_rec[o + 5];
      if (extended) stride |= get32(job.shader_rec, r + 100 + 4 * i) & ~0xFFu;
      const std::string attr = rec + "attribute " + std::to_string(i) + ": ";
      if (vbo.size < offset || vbo.size - offset < attr_size) {
        return attr + std::to_string(attr_size) + " bytes at offset " + std::to_string(offset) + " overrun the " +
               std::to_string(vbo.size) + "-byte BO";
      }
      if (stride != 0) {
        const std::uint32_t max_index = (vbo.size - offset - attr_size) / stride;
        if (st.max_index > max_index) {
          return attr + "primitives use index " + std::to_string(st.max_index) + ", the BO holds up to index " +
                 std::to_string(max_index);
        }
      }
    }
  }
  return {};
}

// vc4_validate.c vc4_check_tex_size: a width x height surface of `cpp` bytes per pixel in `tiling` at `offset`.
std::string check_surface_size(const Vc4Bo& bo, std::uint32_t offset, unsigned tiling, unsigned width, unsigned height,
                               unsigned cpp) {
  if (width > 4096 || height > 4096) {
    return "surface " + std::to_string(width) + "x" + std::to_string(height) + " is larger than 4096";
  }
  const unsigned utile_w = cpp == 4 ? 4 : cpp == 8 ? 2 : 8, utile_h = cpp == 1 ? 8 : 4;
  auto up = [](std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; };
  std::uint32_t aw = up(width, utile_w), ah = height;
  if (tiling == 1) {
    aw = up(width, utile_w * 8);
    ah = up(height, utile_h * 8);
  } else if (tiling == 2) {
    ah = up(height, utile_h);
  }
  const std::uint32_t size = aw * cpp * ah;
  if (static_cast<std::uint32_t>(size + offset) < size || size + offset > bo.size) {
    return "surface of " + std::to_string(size) + " bytes at offset " + std::to_string(offset) + " overruns the " +
           std::to_string(bo.size) + "-byte BO";
  }
  return {};
}

// vc4_render_cl.c vc4_full_res_bounds_check: 16 KiB per 32x32 tile, tile (x, y) at DIV_ROUND_UP(width, 32) * y + x.
// The kernel compares the whole tiles after the offset with that index ('<'), so the last tile itself may lie beyond
// the BO: the check accepts one tile fewer than the render writes (the model keeps the kernel's arithmetic).
std::string check_full_res(const Vc4Submit& job, const Vc4Bo& bo, std::uint32_t offset) {
  if (offset > bo.size)
    return "offset " + std::to_string(offset) + " is beyond the " + std::to_string(bo.size) + "-byte BO";
  const std::uint32_t stride = (job.width + 31u) / 32u;
  if ((bo.size - offset) / (16u * 1024u) < stride * job.max_y_tile + job.max_x_tile) {
    return "full-resolution tile (" + std::to_string(job.max_x_tile) + ", " + std::to_string(job.max_y_tile) +
           ") is beyond the " + std::to_string(bo.size) + "-byte BO at offset " + std::to_string(offset);
  }
  return {};
}

// vc4_rcl_surface_setup (colour/ZS reads, ZS write) and vc4_rcl_msaa_surface_setup / the render config surface.
std::string check_general_surface(const Vc4Submit& job, const Vc4SubmitSurface& s, const char* name, bool is_zs_write) {
  const std::string n = std::string(name) + ": ";
  if (s.flags & ~Vc4SubmitSurface::kReadIsFullRes) return n + "unknown surface flags";
  if (s.hindex == Vc4SubmitSurface::kNone) return {};
  std::string bad = use_bo(job, s.hindex, "surface");
  if (!bad.empty()) return n + bad;
  const Vc4Bo& bo = job.bos[s.hindex];
  if (s.flags & Vc4SubmitSurface::kReadIsFullRes) {
    if (is_zs_write) return n + "a general Z/S write may not be full resolution";
    if (s.bits != 0) return n + "load/store bits set on a full-resolution surface";
    bad = check_full_res(job, bo, s.offset);
    return bad.empty() ? bad : n + bad;
  }
  if (s.bits & ~kGeneralSurfaceAllowed) return n + "bits outside tiling, buffer and format";
  const unsigned tiling = (s.bits >> TileBuffer::kGeneralTilingShift) & 3;
  const unsigned buffer = s.bits & TileBuffer::kGeneralBufferMask;
  const unsigned format = (s.bits >> TileBuffer::kGeneralPixelFormatShift) & 3;
  if (tiling > 2) return n + "tiling beyond LT";
  unsigned cpp = 4;
  if (buffer == 2) {
    if (format != 0) return n + "a Z/S buffer with a colour format";
  } else if (buffer == 1) {
    if (format == 3) return n + "colour format not RGBA8888, BGR565 dithered or BGR565";
    cpp = format == 0 ? 4 : 2;
  } else {
    return n + "buffer " + std::to_string(buffer) + " is neither colour nor Z/S";
  }
  if (s.offset & 15) return n + "offset not 16-byte aligned";
  bad = check_surface_size(bo, s.offset, tiling, job.width, job.height, cpp);
  return bad.empty() ? bad : n + bad;
}

std::string check_msaa_surface(const Vc4Submit& job, const Vc4SubmitSurface& s, const char* name) {
  const std::string n = std::string(name) + ": ";
  if (s.flags != 0 || s.bits != 0) return n + "MSAA surface with flags or bits";
  if (s.hindex == Vc4SubmitSurface::kNone) return {};
  std::string bad = use_bo(job, s.hindex, "surface");
  if (!bad.empty()) return n + bad;
  if (s.offset & 15) return n + "offset not 16-byte aligned";
  bad = check_full_res(job, job.bos[s.hindex], s.offset);
  return bad.empty() ? bad : n + bad;
}

std::string check_render_config_surface(const Vc4Submit& job, const Vc4SubmitSurface& s) {
  const std::string n = "colour write: ";
  if (s.flags != 0) return n + "flags on the render config surface";
  if (s.bits & ~kRenderConfigAllowed) return n + "render config bits outside the allowed set";
  if (s.hindex == Vc4SubmitSurface::kNone) return {};
  std::string bad = use_bo(job, s.hindex, "surface");
  if (!bad.empty()) return n + bad;
  const unsigned tiling = render_tiling(s.bits), format = render_format(s.bits);
  if (tiling > 2) return n + "tiling beyond LT";
  if (format == 3) return n + "colour format not 565, 565 dithered or 8888";
  bad = check_surface_size(job.bos[s.hindex], s.offset, tiling, job.width, job.height, format == 1 ? 4 : 2);
  return bad.empty() ? bad : n + bad;
}

}  // namespace

std::string Vc4Driver::validate_bin_cl(const std::vector<std::uint8_t>& cl, unsigned shader_rec_count) {
  BinWalk w;
  return walk_bin_cl(cl, shader_rec_count, w);
}

std::string Vc4Driver::check_exec_sizes(std::uint32_t bin_cl_size, std::uint32_t shader_rec_size,
                                        std::uint32_t uniforms_size, std::uint32_t shader_rec_count) {
  // vc4_gem.c vc4_get_bcl, in the kernel's 32-bit arithmetic; struct vc4_shader_state is 8 bytes (addr, max_index).
  const std::uint32_t shader_rec_offset = (bin_cl_size + 15u) & ~15u;
  const std::uint32_t uniforms_offset = shader_rec_offset + shader_rec_size;
  const std::uint32_t exec_size = uniforms_offset + uniforms_size;
  const std::uint32_t bin_size = exec_size + 8u * shader_rec_count;
  if (shader_rec_offset < bin_cl_size) return "overflow in exec arguments: binning list size rounded to 16 bytes";
  if (uniforms_offset < shader_rec_offset) return "overflow in exec arguments: shader record size";
  if (exec_size < uniforms_offset) return "overflow in exec arguments: uniforms size";
  if (shader_rec_count >= 0xFFFFFFFFu / 8u) return "overflow in exec arguments: shader record count";
  if (bin_size < exec_size) return "overflow in exec arguments: shader state array";
  return {};
}

std::string Vc4Driver::validate_submit(const Vc4Submit& job) const {
  const std::uint32_t known = Vc4Submit::kUseClearColor | Vc4Submit::kFixedRclOrder | Vc4Submit::kRclOrderIncreasingX |
                              Vc4Submit::kRclOrderIncreasingY;
  if (job.flags & ~known) return "unknown submit flags " + core::format_hex(job.flags);
  if (job.pad2 != 0) return "pad2 is not 0";
  if (job.bos.empty()) return "rendering requires BOs to validate (bo_handle_count is 0)";
  BinWalk w;
  w.job = &job;
  const bool has_bin = !job.bin_cl.empty();
  if (has_bin) {
    std::string bad =
        check_exec_sizes(static_cast<std::uint32_t>(job.bin_cl.size()),
                         static_cast<std::uint32_t>(job.shader_rec.size()), job.uniforms_size, job.shader_rec_count);
    if (bad.empty()) bad = walk_bin_cl(job.bin_cl, job.shader_rec_count, w);
    if (!bad.empty()) return "binning list: " + bad;
    bad = check_shader_records(job, w);
    if (!bad.empty()) return bad;
  }
  // vc4_render_cl.c vc4_get_rcl.
  if (job.min_x_tile > job.max_x_tile || job.min_y_tile > job.max_y_tile) return "minimum tile beyond the maximum tile";
  if (has_bin && (job.max_x_tile > w.bin_tiles_x || job.max_y_tile > w.bin_tiles_y)) {
    return "render tiles (" + std::to_string(job.max_x_tile) + ", " + std::to_string(job.max_y_tile) +
           ") beyond the binned " + std::to_string(w.bin_tiles_x) + "x" + std::to_string(w.bin_tiles_y) + " tiles";
  }
  std::string bad = check_render_config_surface(job, job.color_write);
  if (bad.empty()) bad = check_general_surface(job, job.color_read, "colour read", false);
  if (bad.empty()) bad = check_general_surface(job, job.zs_read, "Z/S read", false);
  if (bad.empty()) bad = check_general_surface(job, job.zs_write, "Z/S write", true);
  if (bad.empty()) bad = check_msaa_surface(job, job.msaa_color_write, "MSAA colour write");
  if (bad.empty()) bad = check_msaa_surface(job, job.msaa_zs_write, "MSAA Z/S write");
  if (!bad.empty()) return bad;
  const auto none = [](const Vc4SubmitSurface& s) { return s.hindex == Vc4SubmitSurface::kNone; };
  if (none(job.color_write) && none(job.zs_write) && none(job.msaa_color_write) && none(job.msaa_zs_write)) {
    return "no colour or Z/S write surface";
  }
  if (job.perfmonid != 0 && std::find(perfmons_.begin(), perfmons_.end(), job.perfmonid) == perfmons_.end()) {
    return "unknown perfmon id " + std::to_string(job.perfmonid);
  }
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
  if (s.color_bits & ~kRenderConfigAllowed) return "render config bits outside the allowed set";
  const unsigned format = render_format(s.color_bits);
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
  const std::uint32_t tsda_size =
      (vc4::BinningModeConfigFields::kTsdaBytesPerTile * s.tiles_x * s.tiles_y + 4095) / 4096 * 4096;
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
    pk::clear_colors(cl, s.clear_color[0], s.clear_color[1], s.clear_z, 0, s.clear_s);
    // "The tile buffer gets cleared when the previous tile is stored": a no-op store latches the new clear values.
    pk::tile_coordinates(cl, 0, 0);
    pk::store_tile_buffer_general(cl, 0, 0);
  }
  pk::tile_rendering_mode_config(cl, s.color_address, static_cast<std::uint16_t>(s.width),
                                 static_cast<std::uint16_t>(s.height), s.color_bits);
  for (unsigned y = s.min_y_tile; y <= s.max_y_tile; ++y) {
    for (unsigned x = s.min_x_tile; x <= s.max_x_tile; ++x) {
      const bool first = x == s.min_x_tile && y == s.min_y_tile;
      const bool last = x == s.max_x_tile && y == s.max_y_tile;
      pk::tile_coordinates(cl, static_cast<std::uint8_t>(x), static_cast<std::uint8_t>(y));
      if (s.has_bin) {
        if (first) pk::wait_on_semaphore(cl);
        pk::branch_to_sub_list(cl, s.tile_alloc + (y * s.bin_tiles_x + x) * 32);
      }
      pk::store_ms_tile_buffer(cl, last);
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

std::uint32_t Vc4Driver::upload_qpu_code(const std::vector<std::uint64_t>& code) {
  const Buffer b = alloc(static_cast<std::uint32_t>(code.size() * 8));
  std::vector<std::uint8_t> bytes(code.size() * 8);
  std::memcpy(bytes.data(), code.data(), bytes.size());
  upload(b, 0, bytes);
  return b.addr;
}

std::uint32_t Vc4Driver::upload_uniforms(const std::vector<std::uint32_t>& uniforms) {
  const Buffer b = alloc(static_cast<std::uint32_t>(std::max<std::size_t>(uniforms.size(), 1) * 4), 16);
  std::vector<std::uint8_t> bytes(uniforms.size() * 4);
  std::memcpy(bytes.data(), uniforms.data(), bytes.size());
  upload(b, 0, bytes);
  return b.addr;
}

bool Vc4Driver::run_qpu_programs(std::uint32_t code, const std::vector<std::uint32_t>& uniforms,
                                 std::uint64_t timeout_ns) {
  port_.write32(reg(vc4::kV3dDbcfg), 0);  // "Disallow IRQ"
  port_.write32(reg(vc4::kV3dDbqite), 0);
  port_.write32(reg(vc4::kV3dDbqitc), ~0u);
  port_.write32(reg(vc4::kV3dL2cactl), vc4::kV3dL2cClr);
  port_.write32(reg(vc4::kV3dSlcactl), ~0u);
  port_.write32(reg(vc4::kV3dSrqcs), vc4::kV3dSrqcsError | vc4::kV3dSrqcsClearMade | vc4::kV3dSrqcsClearCompleted);
  for (std::uint32_t u : uniforms) {
    port_.write32(reg(vc4::kV3dSrqua), u);
    port_.write32(reg(vc4::kV3dSrqpc), code);
  }
  const auto n = static_cast<std::uint32_t>(uniforms.size() & 0xFF);
  return port_.wait_for32(reg(vc4::kV3dSrqcs), n << vc4::kV3dSrqcsCompletedShift, 0xFFu << vc4::kV3dSrqcsCompletedShift,
                          timeout_ns);
}

}  // namespace gpuvp::host
