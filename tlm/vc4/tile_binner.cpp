#include "tlm/vc4/tile_binner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "tlm/core/report.h"
#include "tlm/vc4/v3d.h"

namespace gpuvp::vc4 {

namespace {

std::string hex(std::uint64_t v) { return core::format_hex(v); }

// Block sizes of the TILE_BINNING_MODE_CONFIG size fields (vc4_packet.h VC4_BIN_CONFIG_ALLOC_*_SIZE_32..256).
std::uint32_t block_bytes(std::uint8_t field) { return 32u << (field & 3); }

struct Point {
  double x;
  double y;
};

// Separating-axis test of a convex polygon (counter-clockwise or clockwise, n >= 3) against the closed box
// [x0, x1] x [y0, y1]: the polygon touches the box unless one of the box's axes or one of the polygon's edge normals
// separates them. Exact for triangles with integer (1/16 pixel) corners.
bool convex_touches_box(const Point* p, unsigned n, double x0, double y0, double x1, double y1) {
  double minx = p[0].x, maxx = p[0].x, miny = p[0].y, maxy = p[0].y;
  double area2 = 0;
  for (unsigned i = 0; i < n; ++i) {
    minx = std::min(minx, p[i].x);
    maxx = std::max(maxx, p[i].x);
    miny = std::min(miny, p[i].y);
    maxy = std::max(maxy, p[i].y);
    const Point& a = p[i];
    const Point& b = p[(i + 1) % n];
    area2 += a.x * b.y - b.x * a.y;
  }
  if (maxx < x0 || minx > x1 || maxy < y0 || miny > y1) return false;
  if (area2 == 0) return true;  // degenerate polygon inside the bounding box overlap
  const double orient = area2 > 0 ? 1.0 : -1.0;
  const Point corners[4] = {{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}};
  for (unsigned i = 0; i < n; ++i) {
    const Point& a = p[i];
    const Point& b = p[(i + 1) % n];
    bool all_outside = true;
    for (const Point& c : corners) {
      const double e = ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) * orient;
      if (e >= 0) {
        all_outside = false;
        break;
      }
    }
    if (all_outside) return false;
  }
  return true;
}

}  // namespace

bool is_tile_state_packet(std::uint8_t op) {
  return op == packet::kPrimitiveListFormat || (op >= packet::kGlShaderState && op <= packet::kVgInlineShaderRecord) ||
         (op >= packet::kConfigurationBits && op <= packet::kZMinMaxClippingPlanes);
}

TileBinner::TileBinner(sc_core::sc_module_name name, const TileBinnerParams& params, const TileBinnerServices& services)
    : sc_module(name),
      params_(params),
      services_(services),
      stats_(this->name()),
      primitives_(
          stats_.counter("primitives", "events", "primitives the binner set up from draw packets (culled included)")),
      culled_(
          stats_.counter("culled", "events", "primitives that touch no tile (zero area, back/front facing, outside)")),
      clipped_(stats_.counter("clipped", "events",
                              "primitives clipped into new vertices (behind the eye or outside the guard band)")),
      clip_records_(stats_.counter("clip_records", "events",
                                   "clipped primitive records written to binning memory (one per triangle or line)")),
      vertices_shaded_(
          stats_.counter("vertices_shaded", "events", "vertices the coordinate shader shaded (GL shader state)")),
      entries_(stats_.counter("entries", "events",
                              "compressed primitive entries written (one per tile a primitive touches)")),
      state_packets_(stats_.counter("state_packets", "events", "state packets copied into tile lists")),
      blocks_(stats_.counter("blocks", "events", "tile list blocks chained from the pool")),
      overspills_(stats_.counter("overspills", "events", "overspill blocks taken (SPILLUSE)")),
      out_of_memory_events_(stats_.counter("out_of_memory", "events", "OUTOMEM stalls until software supplied memory")),
      flushes_(stats_.counter("flushes", "events", "FLUSH and FLUSH_ALL_STATE packets executed")),
      bytes_written_(stats_.counter("bytes_written", "bytes", "bytes written to tile allocation memory")) {}

void TileBinner::thread_reset() {
  binning_ = false;
  out_of_memory_ = false;
}

void TileBinner::overspill_written() {
  // vc4_irq.c (vc4_overflow_mem_work) writes BPOA, then BPOS; vc4_gem.c writes 0 to both to disable the overspill
  // block before a job.
  overspill_valid_ = services_.bpos.value() != 0;
  if (overspill_valid_) {
    // The cause of OUTOMEM is gone as soon as memory is supplied: the handler's acknowledgement that follows
    // (vc4_irq.c writes INTCTL after BPOA/BPOS) then clears the interrupt.
    out_of_memory_ = false;
    overspill_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

void TileBinner::update_pool_registers() {
  services_.bpca.set(pool_next_);
  services_.bpcs.set(pool_left_);
}

bool TileBinner::transfer(bool write, std::uint32_t address, void* data, unsigned len, UnitContext& ctx,
                          std::string& message) {
  if (!services_.in_dram(address, len)) {
    message = std::string(write ? "tile list write at " : "") + hex(address) + " (" + std::to_string(len) +
              " bytes) is outside DRAM";
    return false;
  }
  if (!timed_access(services_.memory, ctx, write, address, data, len)) {
    message = std::string("the bus refused the ") + (write ? "write" : "read") + " at " + hex(address);
    return false;
  }
  if (write) bytes_written_ += len;
  return true;
}

UnitResult TileBinner::execute(const StatePacket& p, UnitContext& ctx) {
  const std::uint8_t op = p.u8(0);
  switch (op) {
    case packet::kTileBinningModeConfig:
      return configure(p);
    case packet::kStartTileBinning:
      return start(ctx);
    case packet::kFlush:
    case packet::kFlushAllState:
      return flush(op == packet::kFlushAllState, ctx);
    case packet::kGlIndexedPrimitive:
    case packet::kGlArrayPrimitive:
    case packet::kVgCoordinateArrayPrimitives:
      return draw(p, ctx);
    case packet::kClipperXyScaling:
    case packet::kClipperZScaleAndOffset: {
      // The clipper's viewport (clipper.h): two f32, X then Y scale; Z scale then Z offset.
      const auto f32 = [&](unsigned at) {
        const std::uint32_t bits = p.u32(at);
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
      };
      if (op == packet::kClipperXyScaling) {
        clipper_viewport_.x_scale = f32(1);
        clipper_viewport_.y_scale = f32(5);
        clipper_xy_seen_ = true;
      } else {
        clipper_viewport_.z_scale = f32(1);
        clipper_viewport_.z_offset = f32(5);
        clipper_z_seen_ = true;
      }
      return UnitResult::done();
    }
    default:
      break;
  }
  if (is_tile_state_packet(op)) {
    record_state(p);
    return UnitResult::done();
  }
  return UnitResult::ignored();  // rendering-list packets
}

UnitResult TileBinner::configure(const StatePacket& p) {
  const unsigned w = p.u8(13), h = p.u8(14);
  const std::uint8_t flags = p.u8(15);
  if (w == 0 || h == 0) {
    return UnitResult::error("TILE_BINNING_MODE_CONFIG with a " + std::to_string(w) + "x" + std::to_string(h) +
                             " tile grid (width and height in tiles must be at least 1)");
  }
  if (p.u32(9) & 15) {
    return UnitResult::error("TILE_BINNING_MODE_CONFIG tile state data array address " + hex(p.u32(9)) +
                             " is not 16-byte aligned");
  }
  // Both change the tile size the hardware bins for, and neither is modelled: refuse rather than bin a wrong grid.
  if (flags & kConfig64BitColor) {
    return UnitResult::error("TILE_BINNING_MODE_CONFIG with 64-bit colour (HDR) tiles is not modelled");
  }
  if (flags & kConfigDbNonMs) {
    return UnitResult::error("TILE_BINNING_MODE_CONFIG with double-buffer non-multisample tiles is not modelled");
  }
  tile_alloc_ = p.u32(1);
  tile_alloc_size_ = p.u32(5);
  tsda_ = p.u32(9);
  tiles_x_ = w;
  tiles_y_ = h;
  // 32x32 tiles in 4x multisample mode, 64x64 otherwise (Mesa vc4_job.c vc4_get_job).
  tile_px_ = (flags & kConfigMs4x) ? 32 : 64;
  initial_block_ = block_bytes(static_cast<std::uint8_t>(flags >> kConfigInitialBlockShift));
  block_size_ = block_bytes(static_cast<std::uint8_t>(flags >> kConfigBlockShift));
  configured_ = true;
  binning_ = false;
  // The tile state data array is only zeroed when the configuration asks for it, at START_TILE_BINNING.
  state_[packet::kTileBinningModeConfig].bytes = p.bytes;
  return UnitResult::done();
}

UnitResult TileBinner::start(UnitContext& ctx) {
  if (!configured_) return UnitResult::error("START_TILE_BINNING before any TILE_BINNING_MODE_CONFIG");
  const std::uint64_t ntiles = static_cast<std::uint64_t>(tiles_x_) * tiles_y_;
  const std::uint64_t initial = ntiles * initial_block_;
  if (!services_.in_dram(tile_alloc_, initial)) {
    return UnitResult::error("tile allocation memory " + hex(tile_alloc_) + " with " + std::to_string(ntiles) +
                             " initial blocks of " + std::to_string(initial_block_) + " bytes is outside DRAM");
  }
  if (!services_.in_dram(tsda_, ntiles * kTsdaBytesPerTile)) {
    return UnitResult::error("tile state data array " + hex(tsda_) + " (" + std::to_string(ntiles) +
                             " x 48 bytes) is "
                             "outside DRAM");
  }
  std::string message;
  const std::uint8_t flags = state_[packet::kTileBinningModeConfig].bytes[15];
  if (flags & kConfigAutoInitTsda) {
    std::array<std::uint8_t, 256> zeros{};
    for (std::uint64_t off = 0; off < ntiles * kTsdaBytesPerTile; off += zeros.size()) {
      const auto len = static_cast<unsigned>(std::min<std::uint64_t>(zeros.size(), ntiles * kTsdaBytesPerTile - off));
      if (!transfer(true, static_cast<std::uint32_t>(tsda_ + off), zeros.data(), len, ctx, message)) {
        return UnitResult::error("tile state data array initialisation failed: " + message);
      }
    }
  }
  tiles_.assign(ntiles, BinnedTile{});
  for (std::uint64_t i = 0; i < ntiles; ++i) {
    BinnedTile& t = tiles_[i];
    t.first = static_cast<std::uint32_t>(tile_alloc_ + i * initial_block_);
    t.write = t.first;
    t.block_end = t.first + initial_block_;
  }
  // The pool is what follows the initial blocks in tile allocation memory. When the initial blocks alone exceed the
  // configured size the pool is empty (PeterLemon/RaspberryPi V3D/ControlList/Multi_Sample/kernel.asm configures one).
  pool_next_ = static_cast<std::uint32_t>(tile_alloc_ + initial);
  pool_left_ = tile_alloc_size_ > initial ? static_cast<std::uint32_t>(tile_alloc_size_ - initial) : 0;
  update_pool_registers();
  out_of_memory_ = false;
  // START_TILE_BINNING "advances state counter so that initial state items actually go into tile lists"
  // (PeterLemon CONTROL_LIST.INC) and resets the state change counters (Mesa vc4_draw.c vc4_start_draw).
  ++epoch_;
  for (TrackedState& s : state_) {
    if (s.seen) s.epoch = epoch_;
  }
  drew_since_state_ = false;
  binning_ = true;
  return UnitResult::done();
}

void TileBinner::record_state(const StatePacket& p) {
  const std::uint8_t op = p.u8(0);
  if (drew_since_state_) {
    ++epoch_;
    drew_since_state_ = false;
  }
  TrackedState& s = state_[op];
  s.seen = true;
  s.epoch = epoch_;
  s.length = p.length;
  s.bytes = p.bytes;
  if (op == packet::kGlShaderState || op == packet::kNvShaderState || op == packet::kVgShaderState) {
    shader_state_op_ = op;
    // One shader state is current: a tile list must not receive an older one of another kind after it.
    for (const std::uint8_t other : {packet::kGlShaderState, packet::kNvShaderState, packet::kVgShaderState}) {
      if (other != op) state_[other].seen = false;
    }
  }
}

bool TileBinner::fetch_vertex(std::uint32_t index, Vertex& v, UnitContext& ctx, std::string& message) {
  // With the clip header (NV flag bit 3) read as well when clipping: Xc, Yc, Zc, Wc (f32) ahead of Xs/Ys.
  std::uint8_t b[20];
  const unsigned header = nv_clip_header_read_ ? 16 : 0;
  std::uint64_t address;
  if (vertex_source_vg_) {
    address = static_cast<std::uint64_t>(vertex_base_) + static_cast<std::uint64_t>(index) * 4;
  } else {
    address = static_cast<std::uint64_t>(vertex_base_) + static_cast<std::uint64_t>(index) * vertex_stride_ +
              vertex_offset_ - header;
  }
  if (address > 0xFFFFFFFFull || !transfer(false, static_cast<std::uint32_t>(address), b, header + 4, ctx, message)) {
    message = "vertex " + std::to_string(index) + " at " + hex(address) + ": " +
              (message.empty() ? "outside the 32-bit bus" : message);
    return false;
  }
  cycles(ctx, params_.vertex_cycles);
  for (unsigned c = 0; c < 4 && header != 0; ++c) std::memcpy(&v.clip[c], b + 4 * c, 4);
  // Shaded vertex: X and Y as signed 12.4 fixed point (PeterLemon NV demos), moved by VIEWPORT_OFFSET (12.4, Mesa
  // v3d_packet_v21.xml): Mesa's shaders apply only the viewport scale and leave the translation to this packet.
  v.x = static_cast<std::int16_t>(b[header] | b[header + 1] << 8) + viewport_x_;
  v.y = static_cast<std::int16_t>(b[header + 2] | b[header + 3] << 8) + viewport_y_;
  return true;
}

UnitResult TileBinner::gl_vertex(std::uint32_t index, const std::function<void(std::vector<std::uint32_t>&)>& upcoming,
                                 Vertex& v, UnitContext& ctx) {
  auto it = shaded_.find(index);
  if (it == shaded_.end()) {
    QpuScheduler* qpus = services_.qpus ? services_.qpus() : nullptr;
    if (qpus == nullptr) return UnitResult::error("GL_SHADER_STATE and no QPUs to run the coordinate shader");
    std::vector<std::uint32_t> batch;
    upcoming(batch);
    if (batch.empty() || batch.front() != index) batch.insert(batch.begin(), index);
    if (batch.size() > VertexPipeline::kBatch) batch.resize(VertexPipeline::kBatch);
    if (shaded_.size() + batch.size() > kMaxShadedVertices) shaded_.clear();
    const VertexPipeline::Read read = [&](std::uint32_t address, void* data, unsigned len, std::string& why) {
      return transfer(false, address, data, len, ctx, why);
    };
    if (UnitResult r = vertex_pipeline_.shade(*qpus, gl_record_, ShaderJob::Kind::kCoordinate, batch, read, ctx);
        r.kind != UnitResult::Kind::kDone) {
      return r;
    }
    vertices_shaded_ += batch.size();
    // CS output rows: Xc, Yc, Zc, Wc, Xs|Ys (16a/16b), Zs, 1/Wc (reference-vc4-qpu.md 5.4); the binner needs the
    // positions and the clip coordinates.
    for (unsigned k = 0; k < batch.size(); ++k) {
      Vertex s;
      for (unsigned c = 0; c < 4; ++c) {
        const std::uint32_t bits = vertex_pipeline_.output(c, k);
        std::memcpy(&s.clip[c], &bits, 4);
      }
      const std::uint32_t xy = vertex_pipeline_.output(4, k);
      s.x = static_cast<std::int16_t>(xy & 0xFFFFU) + viewport_x_;
      s.y = static_cast<std::int16_t>(xy >> 16) + viewport_y_;
      if (gl_record_.point_size()) {
        // Row 7: the point size (after Zs and 1/Wc); a size that is not positive draws nothing (NaN then).
        const std::uint32_t bits = vertex_pipeline_.output(7, k);
        std::memcpy(&s.point_size, &bits, 4);
        if (!(s.point_size > 0)) s.point_size = std::numeric_limits<float>::quiet_NaN();
      }
      shaded_[batch[k]] = s;
    }
    it = shaded_.find(index);
  }
  cycles(ctx, params_.vertex_cycles);
  v = it->second;
  return UnitResult::done();
}

UnitResult TileBinner::draw(const StatePacket& p, UnitContext& ctx) {
  const std::uint8_t op = p.u8(0);
  const char* pname = packet_info(op)->name;
  if (!binning_) return UnitResult::error(std::string(pname) + " outside tile binning (no START_TILE_BINNING)");
  std::string message;

  // Vertex source: the current shader state. A GL shader state needs the coordinate shader on the QPUs.
  nv_clip_header_read_ = false;
  if (op == packet::kVgCoordinateArrayPrimitives) {
    vertex_source_vg_ = true;
    vertex_base_ = p.u32(6);
    vertex_stride_ = 4;
    vertex_offset_ = 0;
  } else {
    vertex_source_vg_ = false;
    if (shader_state_op_ == 0) return UnitResult::error(std::string(pname) + " before any shader state");
    if (shader_state_op_ == packet::kVgShaderState) {
      return UnitResult::error(std::string(pname) + " with VG_SHADER_STATE: a VG shader record has no vertex data");
    }
  }
  const bool gl = op != packet::kVgCoordinateArrayPrimitives && shader_state_op_ == packet::kGlShaderState;
  if (gl) {
    // GL shader state: the coordinate shader gives the positions (vertex_shading.h).
    const TrackedState& st = state_[packet::kGlShaderState];
    const std::uint32_t word = st.bytes[1] | static_cast<std::uint32_t>(st.bytes[2]) << 8 |
                               static_cast<std::uint32_t>(st.bytes[3]) << 16 |
                               static_cast<std::uint32_t>(st.bytes[4]) << 24;
    std::vector<std::uint8_t> rec(gl_shader_record_bytes(word));
    if (!transfer(false, word & ~15U, rec.data(), static_cast<unsigned>(rec.size()), ctx, message)) {
      return UnitResult::error("bad GL shader record address: " + message);
    }
    if (!decode_gl_shader_record(word, rec.data(), gl_record_, message)) {
      return UnitResult::error("GL shader record at " + hex(word & ~15U) + ": " + message);
    }
    shaded_.clear();
  } else if (op != packet::kVgCoordinateArrayPrimitives) {
    const std::uint32_t record = state_[packet::kNvShaderState].bytes[1] |
                                 static_cast<std::uint32_t>(state_[packet::kNvShaderState].bytes[2]) << 8 |
                                 static_cast<std::uint32_t>(state_[packet::kNvShaderState].bytes[3]) << 16 |
                                 static_cast<std::uint32_t>(state_[packet::kNvShaderState].bytes[4]) << 24;
    std::uint8_t rec[16];
    if ((record & 15) != 0) {
      return UnitResult::error("NV shader record address " + hex(record) + " is not 16-byte aligned");
    }
    if (!transfer(false, record, rec, sizeof rec, ctx, message)) {
      return UnitResult::error("bad NV shader record address: " + message);
    }
    // NV shader record (vc4_packet.h VC4_SHADER_FLAG_*; PeterLemon): flags, shaded vertex stride, FS uniforms, FS
    // varyings, FS code, FS uniforms address, shaded vertex data address. Flag bit 3: a clip header (Xc Yc Zc Wc,
    // 16 bytes) precedes Xs/Ys.
    vertex_stride_ = rec[1];
    vertex_offset_ = (rec[0] & 8) ? 16 : 0;
    // Clipping (flag bit 2) needs the clip coordinates: only a record with the clip header has them.
    nv_clip_header_read_ = (rec[0] & 12) == 12;
    vertex_base_ = rec[12] | static_cast<std::uint32_t>(rec[13]) << 8 | static_cast<std::uint32_t>(rec[14]) << 16 |
                   static_cast<std::uint32_t>(rec[15]) << 24;
  }
  const TrackedState& vp = state_[packet::kViewportOffset];
  viewport_x_ = vp.seen ? static_cast<std::int16_t>(vp.bytes[1] | vp.bytes[2] << 8) : 0;
  viewport_y_ = vp.seen ? static_cast<std::int16_t>(vp.bytes[3] | vp.bytes[4] << 8) : 0;

  // A zero-sized clip window hangs the binner (Mesa vc4_draw.c; docs/vc4-v3d.md): the thread stops advancing.
  const TrackedState& clip = state_[packet::kClipWindow];
  if (clip.seen && ((clip.bytes[5] | clip.bytes[6] << 8) == 0 || (clip.bytes[7] | clip.bytes[8] << 8) == 0)) {
    ctx.time.sync();
    sc_core::wait(core::to_sc_time(ctx.hang_timeout_ps), ctx.kick);
    if (!ctx.running()) return UnitResult::aborted();
    return UnitResult::hang(std::string(pname) + " with a zero-sized CLIP_WINDOW: the binner hangs, as on hardware");
  }

  // Primitive mode, count, and the index source.
  const unsigned mode = p.u8(1) & 0xF;
  const std::uint32_t count = p.u32(2);
  bool indexed = op == packet::kGlIndexedPrimitive;
  unsigned index_bytes = 0;
  std::uint32_t index_address = 0, max_index = 0, first = 0;
  if (op == packet::kVgCoordinateArrayPrimitives) {
    // VG types (PeterLemon CONTROL_LIST.INC, Microsoft Vc4Hw.h): 1 RHT, 3 RHT strip, 4 triangles, 5 strip, 6 fan.
    if (mode != 4 && mode != 5 && mode != 6) {
      return UnitResult::error("VG_COORDINATE_ARRAY_PRIMITIVES type " + std::to_string(mode) +
                               (mode == 1 || mode == 3 ? " (RHT) is not modelled" : " is undefined"));
    }
  } else if (mode > 6) {
    return UnitResult::error(std::string(pname) + " primitive mode " + std::to_string(mode) + " is undefined");
  }
  if (indexed) {
    const unsigned type = p.u8(1) >> 4;
    if (type > 1) return UnitResult::error("GL_INDEXED_PRIMITIVE index type " + std::to_string(type) + " is undefined");
    index_bytes = type == 0 ? 1 : 2;
    index_address = p.u32(6);
    max_index = p.u32(10);
    if (!services_.in_dram(index_address, static_cast<std::uint64_t>(count) * index_bytes)) {
      return UnitResult::error("GL_INDEXED_PRIMITIVE index buffer " + hex(index_address) + " (" +
                               std::to_string(count) + " indices) is outside DRAM");
    }
  } else if (op == packet::kGlArrayPrimitive) {
    first = p.u32(6);
    // GFXH-515 / SW-5891 (Mesa vc4_draw.c): the hardware keeps array draws' vertex indices in 16 bits, so a draw with
    // first + count beyond 65536 wraps around to vertex 0.
    if (static_cast<std::uint64_t>(first) + count > 65536 && !warned_.test(0)) {
      warned_.set(0);
      core::report_guest_warning(name(), "GL_ARRAY_PRIMITIVE with first " + std::to_string(first) + " and count " +
                                             std::to_string(count) +
                                             " exceeds 16-bit vertex indices: indices wrap at "
                                             "65536 (hardware erratum GFXH-515; reported once)");
    }
  }

  // Index stream: index i of the draw.
  std::vector<std::uint8_t> chunk;
  std::uint64_t chunk_start = 0;
  auto index_at = [&](std::uint32_t i, std::uint32_t& out) -> bool {
    if (!indexed) {
      out = op == packet::kGlArrayPrimitive ? ((first + i) & 0xFFFF) : i;
      return true;
    }
    constexpr std::uint32_t kChunk = 256;
    if (chunk.empty() || i < chunk_start || i >= chunk_start + chunk.size() / index_bytes) {
      chunk_start = i - i % kChunk;
      const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(kChunk, count - chunk_start));
      chunk.resize(static_cast<std::size_t>(n) * index_bytes);
      if (!transfer(false, static_cast<std::uint32_t>(index_address + chunk_start * index_bytes), chunk.data(),
                    static_cast<unsigned>(chunk.size()), ctx, message)) {
        return false;
      }
    }
    const std::size_t k = static_cast<std::size_t>(i - chunk_start) * index_bytes;
    out = index_bytes == 1 ? chunk[k] : static_cast<std::uint32_t>(chunk[k] | chunk[k + 1] << 8);
    if (out > max_index) {
      message = "index " + std::to_string(out) + " (element " + std::to_string(i) + ") exceeds the maximum index " +
                std::to_string(max_index);
      return false;
    }
    return true;
  };

  // Assembly (GL modes: 0 points, 1 lines, 2 line loop, 3 line strip, 4 triangles, 5 strip, 6 fan).
  Kind kind = Kind::kTriangle;
  unsigned verts = 3;
  std::uint64_t prims = 0;
  switch (mode) {
    case 0:
      kind = Kind::kPoint;
      verts = 1;
      prims = count;
      break;
    case 1:
      kind = Kind::kLine;
      verts = 2;
      prims = count / 2;
      break;
    case 2:
      kind = Kind::kLine;
      verts = 2;
      // Mesa vc4_draw.c: 2-vertex line loops don't draw on this hardware.
      prims = count > 2 ? count : 0;
      break;
    case 3:
      kind = Kind::kLine;
      verts = 2;
      prims = count >= 2 ? count - 1 : 0;
      break;
    case 4:
      prims = count / 3;
      break;
    default:
      prims = count >= 3 ? count - 2 : 0;
      break;  // strip, fan
  }
  for (std::uint64_t k = 0; k < prims; ++k) {
    services_.primitives_remaining(static_cast<std::uint32_t>(prims - k));
    std::uint32_t el[3] = {0, 0, 0};
    const auto kk = static_cast<std::uint32_t>(k);
    switch (mode) {
      case 0:
        el[0] = kk;
        break;
      case 1:
        el[0] = 2 * kk;
        el[1] = 2 * kk + 1;
        break;
      case 2:
        el[0] = kk;
        el[1] = kk + 1 == count ? 0 : kk + 1;
        break;
      case 3:
        el[0] = kk;
        el[1] = kk + 1;
        break;
      case 4:
        el[0] = 3 * kk;
        el[1] = 3 * kk + 1;
        el[2] = 3 * kk + 2;
        break;
      case 5:
        // Odd triangles of a strip swap their first two vertices to keep the winding.
        el[0] = (kk & 1) ? kk + 1 : kk;
        el[1] = (kk & 1) ? kk : kk + 1;
        el[2] = kk + 2;
        break;
      case 6:
        el[0] = 0;
        el[1] = kk + 1;
        el[2] = kk + 2;
        break;
      default:
        break;
    }
    std::uint32_t idx[3] = {0, 0, 0};
    Vertex v[3];
    cycles(ctx, params_.primitive_cycles);
    for (unsigned j = 0; j < verts; ++j) {
      if (!index_at(el[j], idx[j])) return UnitResult::error(std::string(pname) + ": " + message);
      if (!gl) {
        if (!fetch_vertex(idx[j], v[j], ctx, message)) return UnitResult::error(std::string(pname) + ": " + message);
        continue;
      }
      // A batch for the coordinate shader: the next vertices of the draw it has not shaded, from this one on (the
      // VCD gathers up to 16; the model looks at most 4 batches' worth of elements ahead).
      const std::uint32_t from = el[j];
      const auto upcoming = [&](std::vector<std::uint32_t>& batch) {
        std::uint32_t index = 0;
        for (std::uint64_t e = from;
             e < count && e < std::uint64_t{from} + 4 * VertexPipeline::kBatch && batch.size() < VertexPipeline::kBatch;
             ++e) {
          if (!index_at(static_cast<std::uint32_t>(e), index)) break;  // reported when its primitive comes
          if (shaded_.count(index) == 0 && std::find(batch.begin(), batch.end(), index) == batch.end()) {
            batch.push_back(index);
          }
        }
        message.clear();
      };
      if (UnitResult r = gl_vertex(idx[j], upcoming, v[j], ctx); r.kind != UnitResult::Kind::kDone) {
        if (r.kind == UnitResult::Kind::kError) r.message = std::string(pname) + ": " + r.message;
        return r;
      }
    }
    ++primitives_;
    bool binned = false;
    if ((gl && gl_record_.clipping()) || nv_clip_header_read_) {
      // The clipper (reference-vc4.md: the shader record's clipping flag; NV records need the clip header for the
      // clip coordinates): a primitive wholly outside one side of the view volume is dropped; one behind the eye plane
      // or beyond the guard band is clipped into new vertices (clipper.h); the others keep the shader's screen
      // coordinates.
      bool outside = false;
      for (unsigned plane = 0; plane < 5 && !outside; ++plane) {
        bool all = true;
        for (unsigned j = 0; j < verts; ++j) {
          const std::array<float, 4>& c = v[j].clip;
          const bool out = plane == 4 ? !(c[3] > 0) : ((plane & 1U) != 0 ? c[plane / 2] > c[3] : c[plane / 2] < -c[3]);
          all = all && out;
        }
        outside = all;
      }
      if (outside) {
        ++culled_;
        continue;
      }
      const std::array<std::array<float, 4>, 3> clip{v[0].clip, v[1].clip, v[2].clip};
      if (Clipper::needs_clipping(clip.data(), verts, clipper_viewport_)) {
        UnitResult r = bin_clipped(kind, idx, v, ctx, binned);
        if (r.kind != UnitResult::Kind::kDone) {
          if (r.kind == UnitResult::Kind::kError) r.message = std::string(pname) + ": " + r.message;
          return r;
        }
        if (!binned) ++culled_;
        ctx.time.sync_if_needed();
        if (!ctx.running()) return UnitResult::aborted();
        continue;
      }
    }
    UnitResult r = bin(kind, idx, v, ctx, binned);
    if (r.kind != UnitResult::Kind::kDone) return r;
    if (!binned) ++culled_;
    ctx.time.sync_if_needed();
    // A draw's count comes from the list (up to 2^32 primitives): software must be able to stop or reset it.
    if (!ctx.running()) return UnitResult::aborted();
  }
  services_.primitives_remaining(0);
  drew_since_state_ = true;
  return UnitResult::done();
}

bool TileBinner::touches(Kind kind, const Vertex* v, std::int64_t x0, std::int64_t y0, std::int64_t x1,
                         std::int64_t y1) const {
  Point poly[4];
  unsigned n = 0;
  if (kind == Kind::kTriangle) {
    for (unsigned i = 0; i < 3; ++i) poly[n++] = {static_cast<double>(v[i].x), static_cast<double>(v[i].y)};
  } else if (kind == Kind::kLine) {
    // A line covers a rectangle of LINE_WIDTH pixels around the segment.
    const double hw = line_half_width_;
    const double dx = v[1].x - v[0].x, dy = v[1].y - v[0].y;
    const double len = std::sqrt(dx * dx + dy * dy);
    const double nx = len > 0 ? -dy / len * hw : 0, ny = len > 0 ? dx / len * hw : hw;
    const double ex = len > 0 ? dx / len * hw : hw, ey = len > 0 ? dy / len * hw : 0;
    poly[n++] = {v[0].x + nx - ex, v[0].y + ny - ey};
    poly[n++] = {v[1].x + nx + ex, v[1].y + ny + ey};
    poly[n++] = {v[1].x - nx + ex, v[1].y - ny + ey};
    poly[n++] = {v[0].x - nx - ex, v[0].y - ny - ey};
  } else {
    // A point covers a POINT_SIZE square around its centre.
    const double h = point_half_size_;
    poly[n++] = {v[0].x - h, v[0].y - h};
    poly[n++] = {v[0].x + h, v[0].y - h};
    poly[n++] = {v[0].x + h, v[0].y + h};
    poly[n++] = {v[0].x - h, v[0].y + h};
  }
  return convex_touches_box(poly, n, static_cast<double>(x0), static_cast<double>(y0), static_cast<double>(x1),
                            static_cast<double>(y1));
}

UnitResult TileBinner::bin_clipped(Kind kind, const std::uint32_t* idx, const Vertex* v, UnitContext& ctx,
                                   bool& binned) {
  ++clipped_;
  // A point that needs clipping is behind the eye or beyond the guard band: nothing of it is visible.
  if (kind == Kind::kPoint) return UnitResult::done();
  if (!clipper_xy_seen_ || !clipper_z_seen_) {
    return UnitResult::error(std::string("a primitive to clip into new vertices and no ") +
                             (clipper_xy_seen_ ? "CLIPPER_Z_SCALE_AND_OFFSET" : "CLIPPER_XY_SCALING") +
                             " in the binning list: the clipper cannot place them");
  }
  const unsigned n = kind == Kind::kTriangle ? 3 : 2;
  const std::array<std::array<float, 4>, 3> clip{v[0].clip, v[1].clip, v[2].clip};
  const std::vector<ClipPolygonVertex> polygon = Clipper::clip(clip.data(), n, clipper_viewport_);
  if (polygon.empty()) return UnitResult::done();
  // The polygon's triangles (or the line's segment), slot by slot (clipper.h).
  for (const ClippedPart& part : Clipper::parts(polygon, n)) {
    cycles(ctx, params_.clip_cycles);
    ClipRecord record;
    record.flags = part.flags;
    Vertex placed[3];
    bool visible = true;
    for (unsigned j = 0; j < n; ++j) {
      if (((part.flags >> j) & 1U) == 0) {
        placed[j] = v[j];
        continue;
      }
      ClippedVertexRecord entry;
      if (!Clipper::project(polygon[part.vertex[j]], clipper_viewport_, entry)) {
        visible = false;  // a Z scale or offset that makes Zs not finite: nothing to draw
        break;
      }
      Clipper::encode(entry, record.bytes.data() + Clipper::kRecordBytes * record.entries++);
      placed[j].x = entry.xs + viewport_x_;
      placed[j].y = entry.ys + viewport_y_;
    }
    if (!visible) continue;
    bool part_binned = false;
    if (UnitResult r = bin(kind, idx, placed, ctx, part_binned, &record); r.kind != UnitResult::Kind::kDone) return r;
    binned = binned || part_binned;
  }
  return UnitResult::done();
}

UnitResult TileBinner::bin(Kind kind, const std::uint32_t* idx, const Vertex* v, UnitContext& ctx, bool& binned,
                           const ClipRecord* clipped) {
  binned = false;
  const TrackedState& cfg = state_[packet::kConfigurationBits];
  if (kind == Kind::kTriangle) {
    const std::int64_t area2 = static_cast<std::int64_t>(v[1].x - v[0].x) * (v[2].y - v[0].y) -
                               static_cast<std::int64_t>(v[2].x - v[0].x) * (v[1].y - v[0].y);
    if (area2 == 0) {
      return UnitResult::done();
    }
    if (cfg.seen) {
      // CONFIGURATION_BITS: bit 0 forward-facing enable, bit 1 reverse-facing enable, bit 2 clockwise primitives are
      // forward facing (vc4_packet.h VC4_CONFIG_BITS_*). With Y growing downwards a positive signed area is
      // clockwise on screen (the orientation convention is the model's: no source states it).
      const bool cw = area2 > 0;
      const bool forward = (cfg.bytes[1] & 4) ? cw : !cw;
      if ((forward && !(cfg.bytes[1] & 1)) || (!forward && !(cfg.bytes[1] & 2))) {
        return UnitResult::done();
      }
    }
  }
  const TrackedState& lw = state_[packet::kLineWidth];
  const TrackedState& ps = state_[packet::kPointSize];
  auto f32_of = [](const TrackedState& s, float dflt) {
    if (!s.seen) return dflt;
    const std::uint32_t bits = s.bytes[1] | static_cast<std::uint32_t>(s.bytes[2]) << 8 |
                               static_cast<std::uint32_t>(s.bytes[3]) << 16 |
                               static_cast<std::uint32_t>(s.bytes[4]) << 24;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    // As the renderer draws them (rasteriser.h): any finite positive size, clipped to the tiles.
    return std::isfinite(f) && f > 0 ? f : dflt;
  };
  line_half_width_ = f32_of(lw, 1.0f) * 8.0;  // pixels -> 1/16 pixel, halved
  point_half_size_ = f32_of(ps, 1.0f) * 8.0;

  // Region to consider: the clip window (pixels) within the tile grid, in 1/16 pixel, inclusive.
  const std::int64_t sub_tile = static_cast<std::int64_t>(tile_px_) * 16;
  std::int64_t cx0 = 0, cy0 = 0, cx1 = tiles_x_ * sub_tile - 1, cy1 = tiles_y_ * sub_tile - 1;
  const TrackedState& clip = state_[packet::kClipWindow];
  if (clip.seen) {
    const std::int64_t left = clip.bytes[1] | clip.bytes[2] << 8, bottom = clip.bytes[3] | clip.bytes[4] << 8;
    const std::int64_t width = clip.bytes[5] | clip.bytes[6] << 8, height = clip.bytes[7] | clip.bytes[8] << 8;
    cx0 = std::max(cx0, left * 16);
    cy0 = std::max(cy0, bottom * 16);
    cx1 = std::min(cx1, (left + width) * 16 - 1);
    cy1 = std::min(cy1, (bottom + height) * 16 - 1);
  }
  // Bounding box of the primitive, widened for lines and points.
  double minx = v[0].x, maxx = v[0].x, miny = v[0].y, maxy = v[0].y;
  const unsigned nv = kind == Kind::kTriangle ? 3 : kind == Kind::kLine ? 2 : 1;
  for (unsigned i = 1; i < nv; ++i) {
    minx = std::min<double>(minx, v[i].x);
    maxx = std::max<double>(maxx, v[i].x);
    miny = std::min<double>(miny, v[i].y);
    maxy = std::max<double>(maxy, v[i].y);
  }
  // A GL point's own size (the coordinate shader's, when the record says it writes one) or POINT_SIZE.
  const double point_half = kind == Kind::kPoint && v[0].point_size != 0
                                ? (std::isfinite(v[0].point_size) && v[0].point_size > 0 ? v[0].point_size * 8.0 : -1.0)
                                : point_half_size_;
  if (point_half < 0) {  // a size that draws nothing (rasteriser.h)
    return UnitResult::done();
  }
  point_half_size_ = point_half;  // for touches()
  const double grow = kind == Kind::kLine ? line_half_width_ : kind == Kind::kPoint ? point_half : 0;
  // Clamped in double before the conversion: a guest's size may be any finite float.
  const auto bound = [](double value, std::int64_t lo, std::int64_t hi) {
    return static_cast<std::int64_t>(std::clamp(value, static_cast<double>(lo) - 1, static_cast<double>(hi) + 1));
  };
  const std::int64_t rx0 = std::max<std::int64_t>(cx0, bound(std::floor(minx - grow), cx0, cx1));
  const std::int64_t ry0 = std::max<std::int64_t>(cy0, bound(std::floor(miny - grow), cy0, cy1));
  const std::int64_t rx1 = std::min<std::int64_t>(cx1, bound(std::ceil(maxx + grow), cx0, cx1));
  const std::int64_t ry1 = std::min<std::int64_t>(cy1, bound(std::ceil(maxy + grow), cy0, cy1));
  if (rx0 > rx1 || ry0 > ry1) {
    return UnitResult::done();
  }

  // The entry: the shortest documented coding (compressed_list.h); relative codings only inside an open run.
  compressed::Primitive prim;
  prim.vertices = nv;
  for (unsigned i = 0; i < nv; ++i) prim.index[i] = static_cast<std::uint16_t>(idx[i]);
  const std::uint8_t format = kind == Kind::kTriangle ? packet::kListFormat16BitTriangles
                              : kind == Kind::kLine   ? packet::kListFormat16BitLines
                                                      : packet::kListFormat16BitPoints;
  bool any = false;
  // A clipped primitive's CLIPPED_COMPRESSED_PRIMITIVE packet: the record's address (8-byte aligned) with the flags
  // in bits 2:0, once the record is in memory.
  std::uint8_t clip_header[5] = {packet::kClippedCompressedPrimitive, 0, 0, 0, 0};
  for (std::int64_t ty = ry0 / sub_tile; ty <= ry1 / sub_tile; ++ty) {
    for (std::int64_t tx = rx0 / sub_tile; tx <= rx1 / sub_tile; ++tx) {
      const std::int64_t bx0 = std::max(cx0, tx * sub_tile), by0 = std::max(cy0, ty * sub_tile);
      const std::int64_t bx1 = std::min(cx1, (tx + 1) * sub_tile - 1), by1 = std::min(cy1, (ty + 1) * sub_tile - 1);
      if (!touches(kind, v, bx0, by0, bx1, by1)) continue;
      if (clipped != nullptr && !any) {
        // One record for every tile the part touches (the hardware's sharing is unpublished: clipper.h).
        std::uint32_t address = 0;
        const unsigned bytes = clipped->entries * Clipper::kRecordBytes;
        if (bytes != 0) {
          UnitResult r = allocate(bytes, address, ctx);
          if (r.kind != UnitResult::Kind::kDone) return r;
          if ((address & 7U) != 0) {
            // The packet's word keeps the flags in bits 2:0 (docs/vc4-v3d.md): software gave a pool or overspill
            // address the record cannot take.
            return UnitResult::error("clipped primitive record at " + hex(address) +
                                     " is not 8-byte aligned (tile allocation or overspill memory is not)");
          }
          std::string message;
          std::array<std::uint8_t, 3 * Clipper::kRecordBytes> record = clipped->bytes;
          if (!transfer(true, address, record.data(), bytes, ctx, message)) {
            return UnitResult::error("clipped primitive record: " + message);
          }
          ++clip_records_;
        }
        const std::uint32_t word = address | clipped->flags;
        for (unsigned i = 0; i < 4; ++i) clip_header[1 + i] = static_cast<std::uint8_t>(word >> (8 * i));
      }
      any = true;
      BinnedTile& t = tiles_[static_cast<std::size_t>(ty * tiles_x_ + tx)];
      UnitResult r = write_state(t, false, ctx);
      if (r.kind != UnitResult::Kind::kDone) return r;
      if (t.format != format) {
        const std::uint8_t plf[2] = {packet::kPrimitiveListFormat, format};
        r = append(t, plf, 2, false, ctx);
        if (r.kind != UnitResult::Kind::kDone) return r;
        t.format = format;
      }
      std::array<std::uint8_t, compressed::kMaxEntryLength> entry;
      // A clipped part opens a run of its own, where no previous primitive exists.
      unsigned entry_len =
          compressed::encode(format, prim, t.compressed_open && clipped == nullptr ? &t.last : nullptr, entry);
      if (t.write + entry_len + kLinkReserve > t.block_end) {
        // The block is full: append() chains a new one and re-opens the run, where no previous primitive exists.
        entry_len = compressed::encode(format, prim, nullptr, entry);
      }
      r = clipped != nullptr ? append(t, entry.data(), entry_len, true, ctx, clip_header, sizeof clip_header)
                             : append(t, entry.data(), entry_len, true, ctx);
      if (r.kind != UnitResult::Kind::kDone) return r;
      t.last = prim;
      ++t.primitives;
      ++entries_;
    }
  }
  binned = any;
  return UnitResult::done();
}

UnitResult TileBinner::write_state(BinnedTile& t, bool all, UnitContext& ctx) {
  if (!all && t.state_epoch == epoch_) return UnitResult::done();
  for (unsigned op = 0; op < state_.size(); ++op) {
    const TrackedState& s = state_[op];
    if (!s.seen || !is_tile_state_packet(static_cast<std::uint8_t>(op))) continue;
    if (!all && s.epoch <= t.state_epoch) continue;
    UnitResult r = append(t, s.bytes.data(), s.length, false, ctx);
    if (r.kind != UnitResult::Kind::kDone) return r;
    if (op == packet::kPrimitiveListFormat) t.format = s.bytes[1];
    ++state_packets_;
  }
  t.state_epoch = epoch_;
  return UnitResult::done();
}

UnitResult TileBinner::append(BinnedTile& t, const std::uint8_t* bytes, unsigned len, bool compressed_entry,
                              UnitContext& ctx, const std::uint8_t* run_header, unsigned header_len) {
  std::string message;
  // The escape that ends an open run, and the packet that starts a new one.
  auto framing = [&] {
    const bool escape = t.compressed_open && (!compressed_entry || run_header != nullptr);
    const bool opens = compressed_entry && (run_header != nullptr || !t.compressed_open);
    return (escape ? 1U : 0U) + (opens ? (run_header != nullptr ? header_len : 1U) : 0U);
  };
  if (t.write + framing() + len + kLinkReserve > t.block_end) {
    // Chain a new block: close a compressed run, then BRANCH to the block (vc4-gpu-tools vc4_dump_parse_cl.c
    // follows BRANCH in tile lists; which form the PTB itself writes is not documented, docs/vc4-v3d.md).
    std::uint32_t block = 0;
    UnitResult r = allocate(block_size_, block, ctx);
    if (r.kind != UnitResult::Kind::kDone) return r;
    std::uint8_t link[6];
    unsigned n = 0;
    if (t.compressed_open) link[n++] = 0x80;
    link[n++] = packet::kBranch;
    for (unsigned i = 0; i < 4; ++i) link[n++] = static_cast<std::uint8_t>(block >> (8 * i));
    if (!transfer(true, t.write, link, n, ctx, message)) return UnitResult::error(message);
    t.write = block;
    t.block_end = block + block_size_;
    t.compressed_open = false;
    ++t.blocks;
    ++blocks_;
  }
  std::uint8_t buf[packet::kMaxFixedLength + 8];
  unsigned n = 0;
  if (t.compressed_open && (!compressed_entry || run_header != nullptr)) buf[n++] = 0x80;  // escape back to packets
  if (compressed_entry && run_header != nullptr) {
    std::memcpy(buf + n, run_header, header_len);
    n += header_len;
  } else if (compressed_entry && !t.compressed_open) {
    buf[n++] = packet::kCompressedPrimitive;
  }
  std::memcpy(buf + n, bytes, len);
  n += len;
  if (!transfer(true, t.write, buf, n, ctx, message)) return UnitResult::error(message);
  t.write += n;
  t.compressed_open = compressed_entry;
  cycles(ctx, params_.tile_entry_cycles);
  return UnitResult::done();
}

UnitResult TileBinner::allocate(std::uint32_t bytes, std::uint32_t& address, UnitContext& ctx) {
  for (;;) {
    if (pool_left_ >= bytes) {
      address = pool_next_;
      if (!services_.in_dram(address, bytes)) {
        return UnitResult::error("binning memory block " + hex(address) + " (" + std::to_string(bytes) +
                                 " bytes, BPCA) is outside DRAM");
      }
      pool_next_ += bytes;
      pool_left_ -= bytes;
      update_pool_registers();
      return UnitResult::done();
    }
    if (overspill_valid_) {
      // The pool is used up: continue in the overspill block and tell software (INTCTL.SPILLUSE: "binner started
      // using the valid overspill buffer", PeterLemon V3D.INC).
      pool_next_ = static_cast<std::uint32_t>(services_.bpoa.value());
      pool_left_ = static_cast<std::uint32_t>(services_.bpos.value());
      overspill_valid_ = false;
      out_of_memory_ = false;
      ++overspills_;
      ctx.time.sync();  // software sees the interrupt and the pool registers at the binner's local time
      update_pool_registers();
      services_.raise_interrupt(kV3dIntSpilluse);
      continue;
    }
    // Out of memory: OUTOMEM and PCS.BMOOM until software writes a new overspill block (vc4_irq.c: OUTOMEM "will
    // stay high until the underlying cause is cleared").
    if (!out_of_memory_) {
      out_of_memory_ = true;
      ++out_of_memory_events_;
    }
    ctx.time.sync();
    services_.raise_interrupt(kV3dIntOutomem);
    const core::Picoseconds since = core::now_ps();
    while (!overspill_valid_) {
      const core::Picoseconds waited = core::now_ps() - since;
      if (waited >= ctx.hang_timeout_ps) {
        return UnitResult::hang(
            "binner out of memory: no overspill block (BPOA/BPOS) supplied; OUTOMEM and PCS.BMOOM "
            "set, BPCA=" +
            hex(pool_next_) + " BPCS=" + std::to_string(pool_left_));
      }
      sc_core::wait(core::to_sc_time(ctx.hang_timeout_ps - waited), overspill_event_ | ctx.kick);
      if (!ctx.running()) return UnitResult::aborted();
    }
  }
}

UnitResult TileBinner::flush(bool all_state, UnitContext& ctx) {
  ++flushes_;
  if (!binning_) return UnitResult::done();  // nothing binned since the last flush: no lists to cap
  std::string message;
  for (BinnedTile& t : tiles_) {
    if (all_state) {
      UnitResult r = write_state(t, true, ctx);
      if (r.kind != UnitResult::Kind::kDone) return r;
    }
    // "Add Return-From-Sub-List to tile lists & then flush tile lists to memory" (PeterLemon CONTROL_LIST.INC); the
    // two bytes always fit in the block's reserve.
    std::uint8_t cap[2];
    unsigned n = 0;
    if (t.compressed_open) cap[n++] = 0x80;
    cap[n++] = packet::kReturnFromSubList;
    if (!transfer(true, t.write, cap, n, ctx, message)) return UnitResult::error(message);
    t.write += n;
    t.compressed_open = false;
    cycles(ctx, params_.tile_entry_cycles);
  }
  binning_ = false;
  return UnitResult::done();
}

}  // namespace gpuvp::vc4
