// TileBinner: the V3D's primitive tile binner (PTB), fed by the binning CLE thread CT0. It takes the binning mode
// (TILE_BINNING_MODE_CONFIG), the state packets and the primitive packets of the binning list, finds for every
// primitive exactly the tiles it touches (edges and clip window, not a bounding box) and appends to those tiles' lists
// in tile allocation memory: the render state that changed since the tile last received state (lazily, driven by a
// state counter), then compressed primitive entries. FLUSH caps every tile list with RETURN_FROM_SUB_LIST.
//
// Memory: the first block of tile i lies at tile_alloc + i * initial block size; further blocks (the subsequent block
// size) come from the pool after the initial blocks (BPCA/BPCS), then from the overspill block software supplies in
// BPOA/BPOS (SPILLUSE when the binner starts using it); when that is gone too the binner raises OUTOMEM, sets
// PCS.BMOOM and stalls until software writes a new BPOA/BPOS, as the Linux driver's interrupt handler does
// (vc4_irq.c). Facts: docs/vc4-v3d.md; Linux vc4_packet.h, vc4_validate.c, vc4_render_cl.c; Mesa
// vc4_draw.c, vc4_job.c; anholt/vc4-gpu-tools vc4_dump_parse_cl.c.
//
// Modelling choices where no public source says what the hardware writes (each also commented at its place):
// - a full block is chained with BRANCH (opcode 16) to the next block (vc4-gpu-tools follows BRANCH inside tile lists);
//   six bytes at the end of every block stay reserved for the escape and that BRANCH;
// - compressed entries use the shortest coding whose meaning a source gives (compressed_list.h: Broadcom's control
//   list debugger documents all four triangle codings and their base, the previous triangle): triangles in 1, 2, 4
//   or 7 bytes, lines absolute (5 bytes) or one absolute + one relative index (3 bytes), points absolute (3 bytes,
//   their 2-byte coding's base is not documented). Every run starts with an entry that does not depend on a previous
//   primitive (the hardware's reset point for it is undocumented);
// - the tile state data array is only zeroed (auto-init); its layout is undocumented and the model keeps tile state
//   internally;
// - clipped primitives (GL shader state with the clipping flag: clipper.h) go to the tiles as one
//   CLIPPED_COMPRESSED_PRIMITIVE run per triangle of the clipped polygon, its record in the pool.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "tlm/core/config.h"
#include "tlm/core/initiator.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timing.h"
#include "tlm/vc4/clipper.h"
#include "tlm/vc4/control_list_executor.h"
#include "tlm/vc4/vertex_shading.h"

namespace gpuvp::vc4 {

struct TileBinnerParams {
  std::uint32_t primitive_cycles = 8;   // set-up of one primitive (vertex fetch, edge equations, tile range)
  std::uint32_t vertex_cycles = 2;      // per vertex (and index) fetched
  std::uint32_t tile_entry_cycles = 4;  // per tile list entry written (compressed primitive or state packet)
  std::uint32_t clip_cycles = 16;       // clipping one primitive into new vertices (per triangle of its polygon)

  void visit(core::ParamVisitor& v) {
    v.param("primitive_cycles", primitive_cycles, "V3D cycles to set up one primitive in the binner", 0, 100000);
    v.param("vertex_cycles", vertex_cycles, "V3D cycles per vertex the binner fetches", 0, 100000);
    v.param("tile_entry_cycles", tile_entry_cycles, "V3D cycles per entry the binner appends to a tile list", 0,
            100000);
    v.param("clip_cycles", clip_cycles, "V3D cycles per triangle (or line) the clipper makes of a clipped primitive", 0,
            100000);
  }
};

// What the binner needs from the V3D.
struct TileBinnerServices {
  core::Initiator& memory;
  const core::ClockDomain& clock;
  std::function<bool(std::uint64_t address, std::uint64_t length)> in_dram;
  std::function<void(std::uint32_t bits)> raise_interrupt;  // INTCTL bits (SPILLUSE, OUTOMEM)
  core::Register& bpca;
  core::Register& bpcs;
  core::Register& bpoa;
  core::Register& bpos;
  std::function<void(std::uint32_t remaining)> primitives_remaining;  // CT0PC
  std::function<QpuScheduler*()> qpus;  // where coordinate shaders run (null: GL shader state is an error)
};

// One tile's list as the binner writes it (exposed for tests and the hang dump).
struct BinnedTile {
  std::uint32_t first = 0;        // first block (tile_alloc + index * initial block size)
  std::uint32_t write = 0;        // next byte to write
  std::uint32_t block_end = 0;    // end of the current block
  std::uint32_t blocks = 1;       // blocks used (1 = only the initial block)
  std::uint64_t state_epoch = 0;  // state counter value the tile last received
  std::uint8_t format = 0;        // PRIMITIVE_LIST_FORMAT the tile's list is in
  bool compressed_open = false;   // inside a COMPRESSED_PRIMITIVE run (an escape is due before any packet)
  std::uint32_t primitives = 0;   // compressed entries written
  compressed::Primitive last;     // the last primitive written (base of the relative codings while the run is open)
};

// TILE_BINNING_MODE_CONFIG flags and the TSDA's bytes per tile: BinningModeConfigFields in hw/vc4/packets.h.
class TileBinner : public sc_core::sc_module, public ControlListUnit, public BinningModeConfigFields {
 public:
  // Reserved at the end of every block: escape (1) + BRANCH (5).
  static constexpr std::uint32_t kLinkReserve = 6;

  TileBinner(sc_core::sc_module_name name, const TileBinnerParams& params, const TileBinnerServices& services);

  const char* unit_name() const override { return "PTB binner"; }
  UnitResult execute(const StatePacket& p, UnitContext& ctx) override;
  void thread_reset() override;

  // Software wrote BPOS (the Linux driver writes BPOA, then BPOS): a new overspill block.
  void overspill_written();
  // True while the binner stalls for memory (INTCTL.OUTOMEM stays set, PCS.BMOOM).
  bool out_of_memory() const { return out_of_memory_; }
  bool binning() const { return binning_; }

  unsigned tiles_x() const { return tiles_x_; }
  unsigned tiles_y() const { return tiles_y_; }
  unsigned tile_size() const { return tile_px_; }
  const std::vector<BinnedTile>& tiles() const { return tiles_; }
  std::uint64_t primitives_binned() const { return primitives_.value; }

 private:
  // A vertex in screen space, 1/16 pixel units (12.4 fixed point after the viewport offset), and its clip
  // coordinates when a coordinate shader gave them.
  struct Vertex {
    std::int32_t x = 0;
    std::int32_t y = 0;
    std::array<float, 4> clip{0, 0, 0, 1};
    float point_size = 0;  // the coordinate shader's point size in pixels (0: none; NaN: one that draws nothing)
  };
  enum class Kind : std::uint8_t { kPoint, kLine, kTriangle };

  UnitResult configure(const StatePacket& p);
  UnitResult start(UnitContext& ctx);
  UnitResult flush(bool all_state, UnitContext& ctx);
  UnitResult draw(const StatePacket& p, UnitContext& ctx);
  void record_state(const StatePacket& p);

  // Vertex and index reads, tile list writes; false with message set on a bad address or a bus error.
  bool transfer(bool write, std::uint32_t address, void* data, unsigned len, UnitContext& ctx, std::string& message);
  bool fetch_vertex(std::uint32_t index, Vertex& v, UnitContext& ctx, std::string& message);
  // GL shader state: the coordinate shader's position of vertex `index`, shading it with the next vertices of the
  // draw (`upcoming`, in draw order) as a batch when the draw has not shaded it yet.
  UnitResult gl_vertex(std::uint32_t index, const std::function<void(std::vector<std::uint32_t>&)>& upcoming, Vertex& v,
                       UnitContext& ctx);

  // A clipped primitive's record for one triangle (or line) of its polygon: the entries of the flagged vertices.
  struct ClipRecord {
    std::array<std::uint8_t, 3 * Clipper::kRecordBytes> bytes{};
    unsigned entries = 0;
    unsigned flags = 0;  // bit j: slot j comes from the record
  };

  // Bins one primitive of vertex indices idx[0..n) with positions v; `binned` says whether any tile received it. With
  // `clipped`, the primitive is one triangle (or line) of a clipped primitive's polygon: each tile receives it as a
  // CLIPPED_COMPRESSED_PRIMITIVE run whose record is written to the pool at the first tile.
  UnitResult bin(Kind kind, const std::uint32_t* idx, const Vertex* v, UnitContext& ctx, bool& binned,
                 const ClipRecord* clipped = nullptr);
  // Clips a GL primitive (clipper.h) and bins the triangles of its polygon.
  UnitResult bin_clipped(Kind kind, const std::uint32_t* idx, const Vertex* v, UnitContext& ctx, bool& binned);
  bool touches(Kind kind, const Vertex* v, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1) const;
  // Appends bytes to a tile's list; a compressed entry opens a COMPRESSED_PRIMITIVE run, any other packet closes it.
  // `run_header` (a CLIPPED_COMPRESSED_PRIMITIVE packet) starts a new run for the compressed entry.
  UnitResult append(BinnedTile& t, const std::uint8_t* bytes, unsigned len, bool compressed_entry, UnitContext& ctx,
                    const std::uint8_t* run_header = nullptr, unsigned header_len = 0);
  UnitResult write_state(BinnedTile& t, bool all, UnitContext& ctx);
  // `bytes` of binning memory (a tile list block or a clip record): from the pool, then the overspill block, else
  // OUTOMEM and a stall.
  UnitResult allocate(std::uint32_t bytes, std::uint32_t& address, UnitContext& ctx);
  void update_pool_registers();
  void cycles(UnitContext& ctx, std::uint64_t n) const { ctx.time.advance(services_.clock.cycles(n)); }

  TileBinnerParams params_;
  TileBinnerServices services_;

  // GL shader state: the draw's record and its coordinate shader results (the VCM's cache; the model keeps at most
  // kMaxShadedVertices per draw and starts again when full).
  static constexpr std::size_t kMaxShadedVertices = 4096;
  GlShaderRecord gl_record_;
  VertexPipeline vertex_pipeline_;
  std::unordered_map<std::uint32_t, Vertex> shaded_;
  // CLIPPER_XY_SCALING and CLIPPER_Z_SCALE_AND_OFFSET as last seen.
  ClipperViewport clipper_viewport_;
  bool clipper_xy_seen_ = false;
  bool clipper_z_seen_ = false;

  // Binning mode.
  bool configured_ = false;
  bool binning_ = false;
  std::uint32_t tile_alloc_ = 0;
  std::uint32_t tile_alloc_size_ = 0;
  std::uint32_t tsda_ = 0;
  unsigned tiles_x_ = 0;
  unsigned tiles_y_ = 0;
  unsigned tile_px_ = 64;
  std::uint32_t initial_block_ = 32;
  std::uint32_t block_size_ = 32;
  std::vector<BinnedTile> tiles_;

  // Pool and overspill.
  std::uint32_t pool_next_ = 0;
  std::uint32_t pool_left_ = 0;
  bool overspill_valid_ = false;
  bool out_of_memory_ = false;
  sc_core::sc_event overspill_event_;

  // Render state copied into tile lists lazily: the state counter advances at the first state update after a draw
  // or at START_TILE_BINNING (Mesa vc4_draw.c); a tile receives every packet stamped after its last update.
  struct TrackedState {
    bool seen = false;
    std::uint64_t epoch = 0;
    std::uint8_t length = 0;
    std::array<std::uint8_t, packet::kMaxFixedLength> bytes{};
  };
  std::array<TrackedState, 256> state_{};
  std::uint64_t epoch_ = 0;
  bool drew_since_state_ = true;
  std::uint8_t shader_state_op_ = 0;  // last GL/NV/VG_SHADER_STATE opcode, 0 = none
  std::bitset<4> warned_{};

  // The draw being binned: vertex source and the state it uses.
  bool vertex_source_vg_ = false;  // VG coordinate array (4 bytes per vertex) instead of NV shaded vertices
  std::uint32_t vertex_base_ = 0;
  std::uint32_t vertex_stride_ = 0;
  std::uint32_t vertex_offset_ = 0;
  bool nv_clip_header_read_ = false;  // NV record with clipping and the clip header: vertices bring Xc..Wc
  std::int32_t viewport_x_ = 0;       // 1/16 pixel
  std::int32_t viewport_y_ = 0;
  double line_half_width_ = 8;  // 1/16 pixel
  double point_half_size_ = 8;

  core::StatsGroup stats_;
  core::Counter& primitives_;
  core::Counter& culled_;
  core::Counter& clipped_;
  core::Counter& clip_records_;
  core::Counter& vertices_shaded_;
  core::Counter& entries_;
  core::Counter& state_packets_;
  core::Counter& blocks_;
  core::Counter& overspills_;
  core::Counter& out_of_memory_events_;
  core::Counter& flushes_;
  core::Counter& bytes_written_;
};

// The render state packets the binner copies into tile lists (cl="R" or both in Mesa's v3d_packet_v21.xml):
// PRIMITIVE_LIST_FORMAT, the shader states, CONFIGURATION_BITS up to Z_MIN_MAX_CLIPPING_PLANES.
bool is_tile_state_packet(std::uint8_t opcode);

}  // namespace gpuvp::vc4
