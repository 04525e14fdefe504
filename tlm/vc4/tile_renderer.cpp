#include "tlm/vc4/tile_renderer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "hw/vc4/qpu_isa.h"
#include "tlm/core/report.h"
#include "tlm/vc4/clipper.h"

namespace gpuvp::vc4 {

namespace {

std::string hex(std::uint64_t v) { return core::format_hex(v); }

// A shaded vertex's own point size: NaN when it draws nothing (not positive), so that it is not taken for "none" (0)
// and replaced by POINT_SIZE.
float usable_point_size(float size) { return size > 0 ? size : std::numeric_limits<float>::quiet_NaN(); }

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
                                 "primitives that reached the renderer before any shader state (not drawn)")),
      fragments_shaded_(stats_.counter("fragments_shaded", "events", "covered pixels sent to fragment shaders")),
      fragment_batches_(stats_.counter("fragment_batches", "events", "batches of four 2x2 quads queued on the QPUs")),
      culled_(stats_.counter("culled", "events", "triangles culled by facing or covering no pixel of the tile")),
      early_z_rejected_(stats_.counter("early_z_rejected", "events", "covered pixels early Z kept from the shaders")),
      vertices_shaded_(
          stats_.counter("vertices_shaded", "events", "vertices the vertex shader shaded (GL shader state)")),
      clipped_(
          stats_.counter("clipped", "events", "primitives drawn with new vertices from a clipped primitive record")) {
  last_batch_at_quad_.fill(-1);
}

TileRenderer::~TileRenderer() = default;

// A batch's view of the tile buffer for its fragment shader (qpu_core.h FragmentPort): varyings, coordinates, the
// depth test and the colour writes of its covered pixels, the scoreboard in primitive order.
class TileRenderer::BatchPort : public qpu::FragmentPort {
 public:
  // `depth_func` and `depth_update`: CONFIGURATION_BITS b14:12 and b15 when the triangle was set up (7 and false
  // without the packet: every test passes, nothing is updated).
  BatchPort(TileRenderer& renderer, FragmentBatch batch, unsigned sequence, unsigned varyings, bool reverse,
            unsigned x0, unsigned y0, unsigned depth_func, bool depth_update)
      : renderer_(renderer),
        batch_(std::move(batch)),
        sequence_(sequence),
        varyings_(varyings),
        reverse_(reverse),
        x0_(x0),
        y0_(y0),
        depth_func_(depth_func),
        depth_update_(depth_update) {}

  const FragmentBatch& batch() const { return batch_; }
  unsigned sequence() const { return sequence_; }
  ShaderJob::Status& status() { return status_; }
  // The thread was reset: the shader may still run, but the tile buffer is no longer its to change.
  void detach() { detached_ = true; }

  bool next_varying(qpu::Vector& partial, qpu::Vector& c, std::string& error) override {
    if (next_ >= varyings_ || next_ >= batch_.partial.size()) {
      error = "varying read " + std::to_string(next_ + 1) + " of a shader whose NV shader record gives " +
              std::to_string(varyings_) + " varyings";
      return false;
    }
    partial = batch_.partial[next_];
    c = batch_.c[next_];
    ++next_;
    return true;
  }
  qpu::Vector pixel_coordinate(bool y) const override { return y ? batch_.y : batch_.x; }
  // raddr 42: file B the reverse flag, file A the multisample mask (the samples covered; bit 0 for a covered pixel
  // without multisampling).
  qpu::Vector ms_or_reverse(bool reverse) const override {
    qpu::Vector v{};
    for (unsigned e = 0; e < 16; ++e) v[e] = reverse ? (reverse_ ? 1U : 0U) : samples_of(e);
    return v;
  }
  // Batches of earlier primitives on the same quads must have released the scoreboard first.
  void wait_for(unsigned sequence) {
    if (std::find(after_.begin(), after_.end(), sequence) == after_.end()) after_.push_back(sequence);
  }
  bool scoreboard_acquire() override {
    if (detached_) return true;
    return std::all_of(after_.begin(), after_.end(), [&](unsigned s) { return renderer_.released_[s]; });
  }
  void scoreboard_release() override {
    if (!detached_) renderer_.released_[sequence_] = true;
  }
  // Colour writes go to every covered sample whose tests passed (TLB_COLOR_ALL), or, in 4x multisample mode, the
  // n-th TLB_COLOR_MS write of the shader to sample n (Mesa writes the four in order: vc4_program.c); the Z write
  // tests each covered sample (the shader's one Z per pixel against each sample's Z).
  bool tlb_write(std::uint32_t address, const qpu::Vector& value, const std::array<bool, 16>& enabled,
                 std::string& error) override {
    if (address == qpu::kWriteTlbStencil) return stencil_setup(value, enabled, error);
    const bool per_sample = address == qpu::kWriteTlbColorMs;
    if (address != qpu::kWriteTlbZ && address != qpu::kWriteTlbColorAll && !per_sample) {
      error = "tile buffer write " + std::to_string(address) + " (alpha mask) is not modelled yet";
      return false;
    }
    if (per_sample && ms_writes_ >= renderer_.samples()) {
      error = "TLB_COLOR_MS write " + std::to_string(ms_writes_ + 1) + " of a fragment with " +
              std::to_string(renderer_.samples()) + (renderer_.samples() == 1 ? " sample" : " samples");
      return false;
    }
    const unsigned only = per_sample ? ms_writes_++ : 0;
    if (detached_) return true;
    for (unsigned e = 0; e < 16; ++e) {
      if (!enabled[e]) continue;
      std::uint8_t live = static_cast<std::uint8_t>(samples_of(e) & ~failed_[e]);
      if (per_sample) live &= static_cast<std::uint8_t>(1U << only);
      for (unsigned k = 0; k < 4; ++k) {
        if (((live >> k) & 1U) == 0) continue;
        const std::size_t at = renderer_.grid_index(batch_.x[e] - x0_, batch_.y[e] - y0_, k);
        if (address != qpu::kWriteTlbZ) {
          renderer_.color_[at] = value[e];
        } else if (!z_test(renderer_.zs_[at], value[e] & 0xFFFFFFU)) {
          failed_[e] = static_cast<std::uint8_t>(failed_[e] | (1U << k));
        }
      }
    }
    return true;
  }
  bool tlb_load(std::uint32_t signal, qpu::Vector& value, std::string& error) override {
    if (signal != qpu::kSigColorLoad && signal != qpu::kSigColorLoadEnd) {
      error = std::string(signal == qpu::kSigCoverageLoad ? "coverage" : "alpha mask") + " load (signal " +
              std::to_string(signal) + ") is not modelled yet";
      return false;
    }
    // In 4x multisample mode each load returns the next sample (0, 1, 2, 3, then 0 again), as the shader blends them
    // one by one for its TLB_COLOR_MS writes.
    const unsigned sample = colour_loads_++ % renderer_.samples();
    for (unsigned e = 0; e < 16; ++e) {
      const bool inside = batch_.x[e] >= x0_ && batch_.x[e] - x0_ < renderer_.tile_px_ && batch_.y[e] >= y0_ &&
                          batch_.y[e] - y0_ < renderer_.tile_px_;
      value[e] = inside && !detached_
                     ? renderer_.color_[renderer_.grid_index(batch_.x[e] - x0_, batch_.y[e] - y0_, sample)]
                     : 0;
    }
    return true;
  }

 private:
  bool covered(unsigned e) const { return ((batch_.covered >> e) & 1U) != 0; }
  std::uint8_t samples_of(unsigned e) const {
    if (!covered(e)) return 0;
    return renderer_.samples() == 1 ? 1 : static_cast<std::uint8_t>(batch_.samples[e] & 0xFU);
  }
  // One sample's Z write: the stencil test (when the shader set it up), then the depth test (never, <, =, <=, >, !=,
  // >=, always), the new Z against the sample's; false when it failed (the fragment writes that sample no colour
  // after it). The stencil value is the Z/S word's top byte.
  bool z_test(std::uint32_t& zs, std::uint32_t z) const {
    const bool depth_pass = compare(depth_func_, z, zs & 0xFFFFFFU);
    if (stencil_set_up_) {
      const StencilFace& face = stencil_[reverse_ ? 1 : 0];
      const std::uint32_t stencil = zs >> 24;
      const bool stencil_pass = compare(face.func, face.ref & face.value_mask, stencil & face.value_mask);
      const unsigned op = !stencil_pass ? face.fail_op : depth_pass ? face.zpass_op : face.zfail_op;
      const std::uint32_t updated =
          (stencil & ~face.write_mask) | (stencil_op(op, stencil, face.ref) & face.write_mask);
      zs = (zs & 0xFFFFFFU) | (updated & 0xFFU) << 24;
      if (!stencil_pass) return false;
    }
    if (!depth_pass) return false;
    if (depth_update_) zs = (zs & 0xFF000000U) | z;
    return true;
  }
  // a `func` b for the depth and stencil functions (0 never, 1 <, 2 =, 3 <=, 4 >, 5 !=, 6 >=, 7 always: Gallium's
  // PIPE_FUNC order, which Mesa writes unchanged into CONFIGURATION_BITS and the stencil setup).
  static bool compare(unsigned func, std::uint32_t a, std::uint32_t b) {
    return func == 7 || (func == 1 && a < b) || (func == 2 && a == b) || (func == 3 && a <= b) ||
           (func == 4 && a > b) || (func == 5 && a != b) || (func == 6 && a >= b);
  }
  // Stencil ops (Mesa vc4_state.c tlb_stencil_setup_bits op_map): 0 zero, 1 keep, 2 replace, 3 increment and 4
  // decrement saturating, 5 invert, 6 increment and 7 decrement wrapping.
  static std::uint32_t stencil_op(unsigned op, std::uint32_t s, std::uint32_t ref) {
    switch (op) {
      case 0:
        return 0;
      case 2:
        return ref;
      case 3:
        return s == 0xFF ? s : s + 1;
      case 4:
        return s == 0 ? s : s - 1;
      case 5:
        return ~s & 0xFFU;
      case 6:
        return (s + 1) & 0xFFU;
      case 7:
        return (s - 1) & 0xFFU;
      default:
        return s;
    }
  }
  // A TLB_STENCIL_SETUP write (waddr 43; the value is a uniform, the same in every element: element 0's is taken).
  // Mesa vc4_state.c: bits 31:30 select the face it configures (1 front, 2 back, 3 both) with 29:28 the write mask
  // code (0 0x01, 1 0x03, 2 0x0F, 3 0xFF), 27:25 the op on a depth fail, 24:22 on a pass, 21:19 on a stencil fail,
  // 18:16 the function, 15:8 the reference (vc4_uniforms.c ORs it in at upload; the position is UNVERIFIED in the
  // reference note) and 7:0 the value mask; a word with 31:30 = 0 sets both write masks explicitly (7:0 front, 15:8
  // back), which Mesa writes after the faces when a mask has no code.
  bool stencil_setup(const qpu::Vector& value, const std::array<bool, 16>& enabled, std::string&) {
    if (std::none_of(enabled.begin(), enabled.end(), [](bool b) { return b; })) return true;
    const std::uint32_t v = value[0];
    const unsigned faces = v >> 30;
    if (faces == 0) {
      stencil_[0].write_mask = v & 0xFFU;
      stencil_[1].write_mask = (v >> 8) & 0xFFU;
    }
    static constexpr std::uint32_t kWriteMasks[4] = {0x01, 0x03, 0x0F, 0xFF};
    for (unsigned f = 0; f < 2; ++f) {
      if (((faces >> f) & 1U) == 0) continue;
      stencil_[f] = {(v >> 16) & 7U,
                     (v >> 19) & 7U,
                     (v >> 22) & 7U,
                     (v >> 25) & 7U,
                     (v >> 8) & 0xFFU,
                     v & 0xFFU,
                     kWriteMasks[(v >> 28) & 3U]};
    }
    stencil_set_up_ = true;
    return true;
  }
  struct StencilFace {
    unsigned func = 7, fail_op = 1, zpass_op = 1, zfail_op = 1;
    std::uint32_t ref = 0, value_mask = 0xFF, write_mask = 0xFF;
  };
  std::array<StencilFace, 2> stencil_{};  // front, back
  bool stencil_set_up_ = false;

  TileRenderer& renderer_;
  FragmentBatch batch_;
  unsigned sequence_;
  unsigned varyings_;
  bool reverse_;
  unsigned x0_, y0_;  // the tile's first pixel
  unsigned depth_func_;
  bool depth_update_;
  unsigned next_ = 0;
  std::vector<unsigned> after_;            // the batches it waits for
  std::array<std::uint8_t, 16> failed_{};  // per element, the samples whose tests failed
  unsigned ms_writes_ = 0;                 // TLB_COLOR_MS writes so far
  unsigned colour_loads_ = 0;
  bool detached_ = false;
  ShaderJob::Status status_;
};

UnitResult TileRenderer::execute(const StatePacket& p, UnitContext& ctx) {
  const std::uint8_t op = p.u8(0);
  // A clipped primitive record applies to the first primitive of its own run only.
  clip_word_.reset();
  if (op == packet::kClippedCompressedPrimitive) clip_word_ = p.u32(1);
  // The tile buffer is complete only when the fragment shaders queued for it have ended.
  if (op == packet::kTileRenderingModeConfig || op == packet::kTileCoordinates ||
      op == packet::kStoreTileBufferGeneral || op == packet::kStoreFullResTileBuffer ||
      op == packet::kStoreMsTileBuffer || op == packet::kStoreMsTileBufferAndEof) {
    if (UnitResult r = finish_fragments(ctx); r.kind != UnitResult::Kind::kDone) return r;
  }
  switch (op) {
    case packet::kTileRenderingModeConfig:
      return configure(p);
    case packet::kClearColors:
      return clear_colors(p);
    case packet::kTileCoordinates:
      return tile_coordinates(p, ctx);
    case packet::kStoreTileBufferGeneral:
      return ended_tile(p, store_general(p, ctx), ctx);
    case packet::kLoadTileBufferGeneral:
      return load_general(p);
    case packet::kStoreFullResTileBuffer:
      return ended_tile(p, store_full_res(p, ctx), ctx);
    case packet::kLoadFullResTileBuffer:
      return load_full_res(p);
    case packet::kStoreMsTileBuffer:
    case packet::kStoreMsTileBufferAndEof:
      return ended_tile(p, store_ms(ctx), ctx);
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
      // Render state (PRIMITIVE_LIST_FORMAT, shader states, CONFIGURATION_BITS, CLIP_WINDOW, ...).
      record_state(p);
      return UnitResult::done();
  }
}

void TileRenderer::record_state(const StatePacket& p) {
  switch (p.u8(0)) {
    case packet::kGlShaderState:
    case packet::kNvShaderState:
    case packet::kVgShaderState:
      shader_state_op_ = p.u8(0);
      shader_record_ = p.u32(1);
      gl_record_valid_ = false;  // read again at the next primitive: software may have rewritten it
      break;
    case packet::kConfigurationBits:
      config_seen_ = true;
      config_bits_ = p.u8(1) | static_cast<std::uint32_t>(p.u8(2)) << 8 | static_cast<std::uint32_t>(p.u8(3)) << 16;
      break;
    case packet::kFlatShadeFlags:
      flat_shade_flags_ = p.u32(1);
      break;
    case packet::kClipWindow:
      // u16 left, bottom, width, height (vc4_packet.h), the rows counted from the first in memory as the binner
      // takes them.
      clip_seen_ = true;
      clip_left_ = p.u16(1);
      clip_top_ = p.u16(3);
      clip_width_ = p.u16(5);
      clip_height_ = p.u16(7);
      break;
    case packet::kPointSize:
    case packet::kLineWidth: {
      // f32 at byte 1 (rasteriser.h): non-finite or non-positive sizes draw nothing.
      const std::uint32_t bits = p.u32(1);
      float size;
      std::memcpy(&size, &bits, sizeof size);
      (p.u8(0) == packet::kPointSize ? point_size_ : line_width_) = size;
      break;
    }
    case packet::kViewportOffset:
      viewport_x_ = static_cast<std::int16_t>(p.u16(1));
      viewport_y_ = static_cast<std::int16_t>(p.u16(3));
      shaded_vertices_.clear();  // their positions include the offset
      break;
    default:
      break;
  }
}

UnitResult TileRenderer::primitive_vertices(const compressed::Primitive& primitive,
                                            std::optional<std::uint32_t> clip_word, std::array<ShadedVertex, 3>& out,
                                            FragmentShader& fs, UnitContext& ctx) {
  UnitResult r = shader_state_op_ == packet::kGlShaderState ? gl_vertices(primitive, out, fs, ctx)
                                                            : nv_vertices(primitive, out, fs, ctx);
  if (r.kind != UnitResult::Kind::kDone || !clip_word) return r;
  return clipped_vertices(*clip_word, primitive, out, ctx);
}

UnitResult TileRenderer::clipped_vertices(std::uint32_t clip_word, const compressed::Primitive& primitive,
                                          std::array<ShadedVertex, 3>& out, UnitContext& ctx) {
  const unsigned flags = clip_word & 7U;
  const std::uint32_t record = clip_word & ~7U;
  if (flags == 0) return UnitResult::done();
  if ((flags >> primitive.vertices) != 0) {
    return UnitResult::error("CLIPPED_COMPRESSED_PRIMITIVE flags " + std::to_string(flags) + " name a vertex the " +
                             std::to_string(primitive.vertices) + "-vertex primitive does not have");
  }
  const unsigned entries = static_cast<unsigned>((flags & 1U) + ((flags >> 1) & 1U) + ((flags >> 2) & 1U));
  std::array<std::uint8_t, 3 * Clipper::kRecordBytes> bytes{};
  std::string message;
  if (!transfer(false, record, bytes.data(), entries * Clipper::kRecordBytes, ctx, message)) {
    return UnitResult::error("clipped primitive record: " + message);
  }
  ++clipped_;
  const std::array<ShadedVertex, 3> original = out;
  unsigned entry = 0;
  for (unsigned j = 0; j < primitive.vertices; ++j) {
    if (((flags >> j) & 1U) == 0) continue;
    const ClippedVertexRecord r = Clipper::decode(bytes.data() + Clipper::kRecordBytes * entry++);
    ShadedVertex& v = out[j];
    v.x = r.xs + viewport_x_;
    v.y = r.ys + viewport_y_;
    v.z = r.zs;
    v.inv_w = r.inv_wc;
    for (std::size_t k = 0; k < v.varyings.size(); ++k) {
      if (k < 32 && ((flat_shade_flags_ >> k) & 1U) != 0) {
        v.varyings[k] = original[0].varyings[k];  // flat: the provoking (first) vertex's (rasteriser.h)
        continue;
      }
      float sum = 0;
      for (unsigned i = 0; i < primitive.vertices; ++i) sum += r.weights[i] * original[i].varyings[k];
      v.varyings[k] = sum;
    }
  }
  return UnitResult::done();
}

UnitResult TileRenderer::nv_vertices(const compressed::Primitive& primitive, std::array<ShadedVertex, 3>& out,
                                     FragmentShader& fs, UnitContext& ctx) {
  // NV shader record (vc4_packet.h VC4_SHADER_FLAG_*; the binner reads the same): flags, shaded vertex stride, FS
  // uniforms count, FS varyings, FS code, FS uniforms, shaded vertex data. Flag bit 3: a 16-byte clip header
  // precedes Xs/Ys.
  std::string message;
  std::uint8_t rec[16];
  if ((shader_record_ & 15U) != 0) {
    return UnitResult::error("NV shader record address " + hex(shader_record_) + " is not 16-byte aligned");
  }
  if (!transfer(false, shader_record_, rec, sizeof rec, ctx, message)) {
    return UnitResult::error("NV shader record: " + message);
  }
  const auto u32_at = [&](unsigned i) {
    return static_cast<std::uint32_t>(rec[i]) | static_cast<std::uint32_t>(rec[i + 1]) << 8 |
           static_cast<std::uint32_t>(rec[i + 2]) << 16 | static_cast<std::uint32_t>(rec[i + 3]) << 24;
  };
  const unsigned stride = rec[1];
  fs = {u32_at(4), u32_at(8), rec[3], (rec[0] & 1U) == 0};
  const std::uint32_t vertex_data = u32_at(12);
  const unsigned header = (rec[0] & 8U) != 0 ? 16 : 0;
  // Shaded vertex: s16 X and Y in 1/16 pixel, f32 Zs, f32 1/Wc, [f32 point size: flag bit 1], then f32 varyings (the
  // vertex shader's output order, reference-vc4-qpu.md 5.4).
  const unsigned first_varying = (rec[0] & 2U) != 0 ? 16 : 12;
  std::vector<std::uint8_t> bytes(first_varying + 4U * fs.varyings);
  for (unsigned i = 0; i < primitive.vertices; ++i) {
    const std::uint64_t at = std::uint64_t{vertex_data} + std::uint64_t{primitive.index[i]} * stride + header;
    if (at > 0xFFFFFFFFULL || !transfer(false, static_cast<std::uint32_t>(at), bytes.data(),
                                        static_cast<unsigned>(bytes.size()), ctx, message)) {
      return UnitResult::error("shaded vertex " + std::to_string(primitive.index[i]) + " at " + hex(at) + ": " +
                               (message.empty() ? "beyond the 32-bit bus" : message));
    }
    const auto f32 = [&](unsigned o) {
      float f;
      std::memcpy(&f, &bytes[o], 4);
      return f;
    };
    ShadedVertex& v = out[i];
    v.x = static_cast<std::int16_t>(bytes[0] | bytes[1] << 8) + viewport_x_;
    v.y = static_cast<std::int16_t>(bytes[2] | bytes[3] << 8) + viewport_y_;
    v.z = f32(4);
    v.inv_w = f32(8);
    v.point_size = first_varying == 16 ? usable_point_size(f32(12)) : 0.0F;
    v.varyings.resize(fs.varyings);
    for (unsigned k = 0; k < fs.varyings; ++k) v.varyings[k] = f32(first_varying + 4 * k);
  }
  return UnitResult::done();
}

UnitResult TileRenderer::gl_vertices(const compressed::Primitive& primitive, std::array<ShadedVertex, 3>& out,
                                     FragmentShader& fs, UnitContext& ctx) {
  QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
  if (qpus == nullptr) return UnitResult::error("a GL primitive to shade, and no QPUs to run its vertex shader");
  std::string message;
  if (!gl_record_valid_) {
    std::vector<std::uint8_t> bytes(gl_shader_record_bytes(shader_record_));
    if (!transfer(false, shader_record_ & ~15U, bytes.data(), static_cast<unsigned>(bytes.size()), ctx, message)) {
      return UnitResult::error("GL shader record: " + message);
    }
    if (!decode_gl_shader_record(shader_record_, bytes.data(), gl_record_, message)) {
      return UnitResult::error("GL shader record at " + hex(shader_record_ & ~15U) + ": " + message);
    }
    gl_record_valid_ = true;
    shaded_vertices_.clear();
  }
  fs = {gl_record_.fs_code, gl_record_.fs_uniforms, gl_record_.fs_varyings, (gl_record_.flags & 1U) == 0};
  // The vertices the VCM has not shaded for this tile go to the vertex shader as one batch, filled up to 16 with
  // those of the primitives ahead in the run.
  std::vector<std::uint32_t> missing;
  for (unsigned i = 0; i < primitive.vertices; ++i) {
    const std::uint32_t index = primitive.index[i];
    if (shaded_vertices_.count(index) == 0 && std::find(missing.begin(), missing.end(), index) == missing.end()) {
      missing.push_back(index);
    }
  }
  if (!missing.empty()) look_ahead(primitive, missing, ctx);
  if (!missing.empty()) {
    if (shaded_vertices_.size() + missing.size() > kMaxShadedVertices) shaded_vertices_.clear();
    const VertexPipeline::Read read = [&](std::uint32_t address, void* data, unsigned len, std::string& why) {
      return transfer(false, address, data, len, ctx, why);
    };
    if (UnitResult r = vertex_pipeline_.shade(*qpus, gl_record_, ShaderJob::Kind::kVertex, missing, read, ctx);
        r.kind != UnitResult::Kind::kDone) {
      return r;
    }
    vertices_shaded_ += missing.size();
    // VS output rows: Xs|Ys (16a/16b), Zs, 1/Wc, [point size], then the varyings (reference-vc4-qpu.md 5.4).
    const unsigned first_varying = gl_record_.point_size() ? 4 : 3;
    const auto f32 = [](std::uint32_t bits) {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    };
    for (unsigned k = 0; k < missing.size(); ++k) {
      ShadedVertex v;
      const std::uint32_t xy = vertex_pipeline_.output(0, k);
      v.x = static_cast<std::int16_t>(xy & 0xFFFFU) + viewport_x_;
      v.y = static_cast<std::int16_t>(xy >> 16) + viewport_y_;
      v.z = f32(vertex_pipeline_.output(1, k));
      v.inv_w = f32(vertex_pipeline_.output(2, k));
      if (gl_record_.point_size()) v.point_size = usable_point_size(f32(vertex_pipeline_.output(3, k)));
      v.varyings.resize(fs.varyings);
      for (unsigned j = 0; j < fs.varyings; ++j) v.varyings[j] = f32(vertex_pipeline_.output(first_varying + j, k));
      shaded_vertices_[missing[k]] = std::move(v);
    }
  }
  for (unsigned i = 0; i < primitive.vertices; ++i) out[i] = shaded_vertices_.at(primitive.index[i]);
  return UnitResult::done();
}

void TileRenderer::look_ahead(const compressed::Primitive& primitive, std::vector<std::uint32_t>& batch,
                              UnitContext& ctx) {
  if (batch.size() >= VertexPipeline::kBatch) return;
  std::array<std::uint8_t, kLookAheadBytes> bytes{};
  std::uint32_t length = kLookAheadBytes;
  while (length > 0 && !services_.in_dram(entry_address_, length)) length /= 2;  // near the end of DRAM
  std::string message;
  if (length == 0 || !transfer(false, entry_address_, bytes.data(), length, ctx, message)) return;
  std::uint32_t at = compressed::entry_length(entry_format_, bytes[0]);  // past the entry being drawn
  compressed::Primitive previous = primitive;
  while (at < length && batch.size() < VertexPipeline::kBatch) {
    const std::uint8_t b0 = bytes[at];
    if (b0 == compressed::kEscape || b0 == compressed::kRelativeBranch) return;
    const unsigned len = compressed::entry_length(entry_format_, b0);
    compressed::Primitive next;
    std::string why;
    if (len == 0 || at + len > length || !compressed::decode(entry_format_, &bytes[at], previous, next, why)) return;
    for (unsigned i = 0; i < next.vertices && batch.size() < VertexPipeline::kBatch; ++i) {
      const std::uint32_t index = next.index[i];
      if (shaded_vertices_.count(index) == 0 && std::find(batch.begin(), batch.end(), index) == batch.end()) {
        batch.push_back(index);
      }
    }
    previous = next;
    at += len;
  }
}

UnitResult TileRenderer::shade_triangle(const compressed::Primitive& primitive, std::optional<std::uint32_t> clip_word,
                                        UnitContext& ctx) {
  QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
  if (qpus == nullptr) return UnitResult::error("a triangle to shade, and no QPUs to shade it");
  std::array<ShadedVertex, 3> v;
  FragmentShader fs;
  if (UnitResult r = primitive_vertices(primitive, clip_word, v, fs, ctx); r.kind != UnitResult::Kind::kDone) return r;
  const TriangleSetup setup = rasterise_triangle(v, pixel_clip(), flat_shade_flags_, samples() == 4);
  // Facing as the binner culls (CONFIGURATION_BITS b0 forward, b1 reverse enabled, b2 clockwise is forward).
  const bool forward = (config_bits_ & 4U) != 0 ? setup.clockwise : !setup.clockwise;
  if (setup.batches.empty() ||
      (config_seen_ && ((forward && (config_bits_ & 1U) == 0) || (!forward && (config_bits_ & 2U) == 0)))) {
    ++culled_;
    return UnitResult::done();
  }
  return queue_batches(setup.batches, fs, !forward, ctx);
}

UnitResult TileRenderer::shade_point_or_line(const compressed::Primitive& primitive,
                                             std::optional<std::uint32_t> clip_word, UnitContext& ctx) {
  std::array<ShadedVertex, 3> v;
  FragmentShader fs;
  if (UnitResult r = primitive_vertices(primitive, clip_word, v, fs, ctx); r.kind != UnitResult::Kind::kDone) return r;
  // A point's size: the shader's when its record includes one, else POINT_SIZE (rasteriser.h).
  const PrimitiveSetup setup =
      primitive.vertices == 1
          ? rasterise_point(v[0], v[0].point_size != 0 ? v[0].point_size : point_size_, pixel_clip(), flat_shade_flags_,
                            samples() == 4)
          : rasterise_line(v[0], v[1], line_width_, pixel_clip(), flat_shade_flags_, samples() == 4);
  if (setup.batches.empty()) {
    ++culled_;
    return UnitResult::done();
  }
  // The fragment shader reads the point or line coordinates ahead of the vertices' varyings; points and lines face
  // forward.
  fs.varyings += setup.implicit_varyings;
  return queue_batches(setup.batches, fs, false, ctx);
}

PixelRect TileRenderer::pixel_clip() const {
  // The pixels a primitive may cover: the tile within the frame and the clip window.
  const int tx0 = static_cast<int>(tile_x_ * tile_px_), ty0 = static_cast<int>(tile_y_ * tile_px_);
  PixelRect clip{tx0, ty0, std::min(tx0 + static_cast<int>(tile_px_), static_cast<int>(width_)),
                 std::min(ty0 + static_cast<int>(tile_px_), static_cast<int>(height_))};
  if (clip_seen_) {
    clip.x0 = std::max(clip.x0, static_cast<int>(clip_left_));
    clip.y0 = std::max(clip.y0, static_cast<int>(clip_top_));
    clip.x1 = std::min(clip.x1, static_cast<int>(clip_left_ + clip_width_));
    clip.y1 = std::min(clip.y1, static_cast<int>(clip_top_ + clip_height_));
  }
  return clip;
}

UnitResult TileRenderer::queue_batches(const std::vector<FragmentBatch>& batches, const FragmentShader& fs,
                                       bool reverse, UnitContext& ctx) {
  QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
  if (qpus == nullptr) return UnitResult::error("a primitive to shade, and no QPUs to shade it");
  const unsigned tx0 = tile_x_ * tile_px_, ty0 = tile_y_ * tile_px_;
  // The front end walks a quad a cycle (1 Gpixel/s at 250 MHz: reference-vc4-qpu.md 5.5).
  ctx.time.advance(services_.clock.cycles(4 * batches.size()));
  const unsigned depth_func = config_seen_ ? (config_bits_ >> 12) & 7U : 7U;
  const bool depth_update = config_seen_ && ((config_bits_ >> 15) & 1U) != 0;
  // Early Z (CONFIGURATION_BITS b16, unless TILE_RENDERING_MODE_CONFIG b11 disables it; b10 its direction: LT/LE or
  // GT/GE): fragments whose Z fails against the tile buffer's never reach a shader. The model tests against the Z the
  // tile buffer holds when the batch is queued (earlier batches may not have run yet), and rejects only what fails
  // both the strict and the non-strict test: a conservative early test that never drops a fragment the late test
  // would pass. Drivers enable it only when no stencil op depends on depth-failing fragments (Broadcom's gfx_ez.h
  // weighs the stencil ops; Mesa only for LESS/LEQUAL: reference-vc4-qpu.md 5.5).
  const bool early_z = config_seen_ && ((config_bits_ >> 16) & 1U) != 0 && (flags_ & kConfigEarlyZDisable) == 0;
  const bool early_greater = (flags_ & kConfigEarlyZGreater) != 0;
  for (FragmentBatch b : batches) {
    if (early_z) {
      // The early test reads the Z the earlier batches on these quads leave: the front end waits for them (and so
      // never drops a fragment the late test would pass, whatever the quantum).
      for (unsigned q = 0; q < 4; ++q) {
        if (((b.covered >> (4 * q)) & 0xFU) == 0) continue;
        const int last = last_batch_at_quad_[((b.y[4 * q] - ty0) / 2) * (kGrid / 2) + (b.x[4 * q] - tx0) / 2];
        if (last < 0) continue;
        if (UnitResult r = wait_for_batch(static_cast<unsigned>(last), ctx); r.kind != UnitResult::Kind::kDone) {
          return r;
        }
      }
      for (unsigned e = 0; e < 16; ++e) {
        if (((b.covered >> e) & 1U) == 0) continue;
        // Rejected when it fails at every sample it covers.
        const std::uint32_t z = b.z[e] & 0xFFFFFFU;
        bool fails = true;
        for (unsigned k = 0; k < samples(); ++k) {
          if (samples() == 4 && ((b.samples[e] >> k) & 1U) == 0) continue;
          const std::uint32_t old = zs_[grid_index(b.x[e] - tx0, b.y[e] - ty0, k)] & 0xFFFFFFU;
          fails = fails && (early_greater ? z < old : z > old);
        }
        if (fails) {
          b.covered = static_cast<std::uint16_t>(b.covered & ~(1U << e));
          ++early_z_rejected_;
        }
      }
      if (b.covered == 0) continue;
    }
    // The front end stalls while kMaxQueuedBatches of its batches wait for or run on the QPUs.
    if (UnitResult r = wait_for_batches(ctx, kMaxQueuedBatches - 1); r.kind != UnitResult::Kind::kDone) return r;
    const auto sequence = static_cast<unsigned>(released_.size());
    batches_.push_back(
        std::make_unique<BatchPort>(*this, b, sequence, fs.varyings, reverse, tx0, ty0, depth_func, depth_update));
    released_.push_back(false);
    ended_ps_.push_back(0);
    BatchPort& port = *batches_.back();
    // The scoreboard orders the tile buffer accesses of fragments on the same pixels (per quad here): this batch
    // waits for the last earlier batch on each of its quads.
    for (unsigned q = 0; q < 4; ++q) {
      if (((b.covered >> (4 * q)) & 0xFU) == 0) continue;
      const unsigned qx = (b.x[4 * q] - tx0) / 2, qy = (b.y[4 * q] - ty0) / 2;
      int& last = last_batch_at_quad_[qy * (kGrid / 2) + qx];
      if (last >= 0) port.wait_for(static_cast<unsigned>(last));
      last = static_cast<int>(sequence);
    }
    ShaderJob job;
    job.pc = fs.code;
    job.uniforms = fs.uniforms;
    job.port = &port;
    job.w = b.w;
    job.z = b.z;
    job.status = &port.status();
    job.threaded = fs.threaded;
    qpus->shade(job, ctx.time.now());
    ++fragment_batches_;
    fragments_shaded_ += static_cast<std::uint64_t>(__builtin_popcount(b.covered));
  }
  return UnitResult::done();
}

void TileRenderer::prune_batches() {
  while (!batches_.empty() && batches_.front()->status().done) {
    if (batch_error_.empty()) batch_error_ = batches_.front()->status().error;
    ended_ps_.at(batches_.front()->sequence()) = batches_.front()->status().end_ps;
    batches_.pop_front();
  }
  orphans_.erase(std::remove_if(orphans_.begin(), orphans_.end(), [](const auto& b) { return b->status().done; }),
                 orphans_.end());
}

UnitResult TileRenderer::wait_for_batches(UnitContext& ctx, std::size_t at_most) {
  prune_batches();
  if (batches_.size() <= at_most) return UnitResult::done();
  QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
  if (qpus == nullptr) return UnitResult::error("fragment shader batches queued, and no QPUs");
  ctx.time.sync();
  // A hang is no batch ending for the hang timeout.
  core::Picoseconds deadline = core::now_ps() + ctx.hang_timeout_ps;
  std::size_t left = batches_.size();
  for (;;) {
    prune_batches();  // batches may have ended while this thread waited
    if (batches_.size() <= at_most) return UnitResult::done();
    if (batches_.size() < left) {
      left = batches_.size();
      deadline = core::now_ps() + ctx.hang_timeout_ps;
    }
    if (!ctx.running()) return UnitResult::aborted();
    if (core::now_ps() >= deadline) {
      return UnitResult::hang(std::to_string(batches_.size()) + " fragment shader batches of tile (" +
                              std::to_string(tile_x_) + ", " + std::to_string(tile_y_) +
                              ") did not end (QPUs reserved against fragment shaders?)");
    }
    sc_core::wait(core::to_sc_time(deadline - core::now_ps()), qpus->shader_ended() | ctx.kick);
  }
}

UnitResult TileRenderer::wait_for_batch(unsigned sequence, UnitContext& ctx) {
  const auto running = [&]() -> BatchPort* {
    prune_batches();
    for (auto& b : batches_) {
      if (b->sequence() == sequence) return b->status().done ? nullptr : b.get();
    }
    return nullptr;
  };
  if (running() != nullptr) {
    QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
    if (qpus == nullptr) return UnitResult::error("fragment shader batches queued, and no QPUs");
    ctx.time.sync();
    core::Picoseconds deadline = core::now_ps() + ctx.hang_timeout_ps;
    std::uint64_t ended = qpus->shader_jobs_ended();
    while (running() != nullptr) {
      if (!ctx.running()) return UnitResult::aborted();
      if (qpus->shader_jobs_ended() != ended) {
        ended = qpus->shader_jobs_ended();
        deadline = core::now_ps() + ctx.hang_timeout_ps;
      }
      if (core::now_ps() >= deadline) {
        return UnitResult::hang("fragment shader batch " + std::to_string(sequence) + " of tile (" +
                                std::to_string(tile_x_) + ", " + std::to_string(tile_y_) + ") did not end");
      }
      sc_core::wait(core::to_sc_time(deadline - core::now_ps()), qpus->shader_ended() | ctx.kick);
    }
  }
  // The batch ended at its shader's time (the scheduler's, which may be ahead of the kernel's).
  core::Picoseconds end = ended_ps_.at(sequence);
  for (auto& b : batches_) {
    if (b->sequence() == sequence) end = b->status().end_ps;
  }
  if (end > ctx.time.now()) ctx.time.advance(end - ctx.time.now());
  return UnitResult::done();
}

UnitResult TileRenderer::finish_fragments(UnitContext& ctx) {
  if (released_.empty()) return UnitResult::done();
  if (UnitResult r = wait_for_batches(ctx, 0); r.kind != UnitResult::Kind::kDone) return r;
  // The scheduler may have run the shaders ahead of the kernel's time: the tile is done when the last one ended.
  QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
  if (qpus != nullptr && qpus->fragments_end_ps() > ctx.time.now()) {
    ctx.time.advance(qpus->fragments_end_ps() - ctx.time.now());
  }
  const std::string error = batch_error_;
  batch_error_.clear();
  released_.clear();
  ended_ps_.clear();
  std::fill(last_batch_at_quad_.begin(), last_batch_at_quad_.end(), -1);
  if (!error.empty()) return UnitResult::error("fragment shader: " + error);
  return UnitResult::done();
}

UnitResult TileRenderer::compressed_primitive(std::uint32_t address, std::uint8_t list_format,
                                              const compressed::Primitive& primitive, UnitContext& ctx) {
  if (tile_primitives_.size() >= kMaxTilePrimitives) {
    return UnitResult::error(
        "tile (" + std::to_string(tile_x_) + ", " + std::to_string(tile_y_) + ") receives more than " +
        std::to_string(kMaxTilePrimitives) +
        " primitives, the model's limit per tile (a render list looping inside a primitive list?)");
  }
  tile_primitives_.push_back(primitive);
  entry_address_ = address;
  entry_format_ = list_format;
  ctx.time.advance(services_.clock.cycles(params_.primitive_cycles));
  const std::optional<std::uint32_t> clip_word = std::exchange(clip_word_, std::nullopt);
  if (shader_state_op_ == packet::kNvShaderState || shader_state_op_ == packet::kGlShaderState) {
    return primitive.vertices == 3 ? shade_triangle(primitive, clip_word, ctx)
                                   : shade_point_or_line(primitive, clip_word, ctx);
  }
  if (shader_state_op_ != 0) {
    return UnitResult::error(std::string("primitive entry at ") + hex(address) +
                             " with VG_SHADER_STATE: VG shading is not modelled");
  }
  ++not_shaded_;
  if (warned_not_shaded_) return UnitResult::done();
  warned_not_shaded_ = true;
  core::report_guest_warning(name(), "primitive entry at " + hex(address) + " (PRIMITIVE_LIST_FORMAT " +
                                         hex(list_format) + ") reached tile (" + std::to_string(tile_x_) + ", " +
                                         std::to_string(tile_y_) +
                                         ") before any shader state in the render thread: counted in "
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

UnitResult TileRenderer::ended_tile(const StatePacket& p, UnitResult store, UnitContext& ctx) {
  // The frame's last store ends its last tile's span (another tile's TILE_COORDINATES ends the others).
  if (ends_frame(p)) tile_span_.end(ctx.time.now());
  return store;
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
  if (core::timeline().enabled()) {
    tile_span_.begin(ctx.track, "tile " + std::to_string(x) + "," + std::to_string(y), ctx.time.now(),
                     "{\"frame\":" + std::to_string(ctx.frame) + ",\"x\":" + std::to_string(x) +
                         ",\"y\":" + std::to_string(y) + "}");
  }
  tile_primitives_.clear();
  shaded_vertices_.clear();  // the VCM shades each tile's vertices afresh
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
  tile_span_.end(core::to_ps(sc_core::sc_time_stamp()));
  // Loads queued by a stopped or reset list must not fire in the next one.
  pending_loads_.clear();
  clip_word_.reset();
  // Neither does its render state.
  shader_state_op_ = 0;
  config_seen_ = clip_seen_ = false;
  config_bits_ = flat_shade_flags_ = 0;
  viewport_x_ = viewport_y_ = 0;
  gl_record_valid_ = false;
  shaded_vertices_.clear();
  point_size_ = line_width_ = 1.0F;
  // Its shaders still running leave the tile buffer alone, and the next list neither waits for them nor inherits
  // their errors.
  QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
  for (auto& b : batches_) {
    if (qpus != nullptr) qpus->cancel(&b->status());  // not started: never runs
    b->detach();
    orphans_.push_back(std::move(b));
  }
  batches_.clear();
  released_.clear();
  ended_ps_.clear();
  batch_error_.clear();
  std::fill(last_batch_at_quad_.begin(), last_batch_at_quad_.end(), -1);
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
