// TileRenderer: the V3D's tile buffer and its loads and stores, fed by the rendering CLE thread CT1. It takes
// TILE_RENDERING_MODE_CONFIG (frame buffer address, width, height, RGBA8888 or BGR565, multisample), CLEAR_COLORS,
// TILE_COORDINATES (which select the tile and fire pending loads), LOAD/STORE_TILE_BUFFER_GENERAL, the full-resolution
// loads and stores and STORE_MS_TILE_BUFFER(_AND_EOF), and writes real pixels to memory in the frame's format and
// stride. A store clears the tile buffer to the clear values unless its disable-clear bits say otherwise ("The tile
// buffer gets cleared when the previous tile is stored", vc4_render_cl.c). Primitives that reach it through the
// binned tile lists under NV shader state are rasterised and shaded by their fragment shader on the QPUs
// (docs/vc4-v3d.md). Facts: docs/vc4-v3d.md; Linux vc4_packet.h, vc4_render_cl.c; IGT lib/igt_vc4.c (the clear).
//
// Colour in the tile buffer is one 32-bit value per sample, 0xAARRGGBB (the value CLEAR_COLORS holds; Mesa renders
// PIPE_FORMAT_B8G8R8A8 as the hardware's RGBA8888, vc4_formats.c); BGR565 stores keep its top 5/6/5 bits of red,
// green and blue (dithering is not modelled). Z/S is one 32-bit value per sample: Z in bits 23:0, stencil in 31:24
// (the hardware's internal layout is undocumented). Only raster (linear) memory is modelled; T and LT tiling stop the
// thread with a "not modelled" error.
//
// Samples and decimation. The tile buffer is a 64x64 grid of samples (16 KiB of colour, vc4_packet.h
// VC4_TILE_BUFFER_SIZE): 64x64 pixels of one sample, or in 4x multisample mode 32x32 pixels of four samples, sample s
// of pixel (x, y) at grid (2x + (s & 1), 2y + (s >> 1)) -- the placement Broadcom's V3D driver gives its "all samples"
// stores (v3d_tlb_decimate.c v3d_tlb_sample_to_decimated_coords; vc4's own is undocumented, its kernel treats the
// full-resolution buffer as opaque). A full-resolution store/load moves that grid row by row (64 x 4 bytes per row).
// A store's decimation (TILE_RENDERING_MODE_CONFIG b5:4 for STORE_MS_TILE_BUFFER, STORE_TILE_BUFFER_GENERAL b7:6 for
// itself) picks what one stored pixel is:
//   sample mode / 1x: sample 0 of each pixel, at pixel resolution;
//   decimate 4x:      the average of a 2x2 block of grid samples -- the four samples of one pixel in multisample mode
//                     (the resolve: Broadcom's driver sets "1x or 4x decimation" equal to its multisample flag,
//                     glxx_hw_4.c, as Mesa does; v3d_tlb_decimate.c: 4x decimation "reduced number of samples to 1
//                     per pixel"), a 2x2 block of pixels otherwise (a half-resolution image);
//   decimate 16x:     the average of a 4x4 block of grid samples -- 2x2 pixels of four samples in multisample mode, 4x4
//                     pixels otherwise: a half- or quarter-resolution image.
// No available source states the 16x layout or the non-multisample meaning of 4x (Broadcom's later V3D driver leaves
// its 16x "not_impl"); the model reads "N x decimation" as N grid samples per stored pixel, the one reading that fits
// every documented case. The stored image is ceil(frame / block) pixels across and down with its own stride (stored
// width x bytes per pixel); a block is averaged whole, samples beyond the frame edge included. Channel averages round
// to nearest, (sum + N/2) / N, per 8-bit channel (rounding undocumented). Decimated Z/S stores are not modelled (an
// average of depths has no documented meaning): they stop the thread with an error.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "hw/vc4/surface.h"
#include "tlm/core/config.h"
#include "tlm/core/initiator.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timeline.h"
#include "tlm/core/timing.h"
#include "tlm/vc4/control_list_executor.h"
#include "tlm/vc4/qpu_scheduler.h"
#include "tlm/vc4/rasteriser.h"
#include "tlm/vc4/vertex_shading.h"

namespace gpuvp::vc4 {

struct TileRendererParams {
  std::uint32_t tile_cycles = 8;       // per TILE_COORDINATES (tile set-up)
  std::uint32_t bytes_per_cycle = 16;  // tile buffer load/store bandwidth
  std::uint32_t primitive_cycles = 4;  // per primitive entry that reaches the renderer

  void visit(core::ParamVisitor& v) {
    v.param("tile_cycles", tile_cycles, "V3D cycles to set up a tile (TILE_COORDINATES)", 0, 100000);
    v.param("bytes_per_cycle", bytes_per_cycle, "tile buffer load/store bytes per V3D cycle", 1, 4096);
    v.param("primitive_cycles", primitive_cycles, "V3D cycles per primitive entry reaching the renderer", 0, 100000);
  }
};

struct TileRendererServices {
  core::Initiator& memory;
  const core::ClockDomain& clock;
  std::function<bool(std::uint64_t address, std::uint64_t length)> in_dram;
  std::function<QpuScheduler*()> qpus;  // where fragment shaders run (null: primitives are not shaded)
};

// The colour buffer STORE_MS_TILE_BUFFER(_AND_EOF) last wrote: the frame of the TILE_RENDERING_MODE_CONFIG in effect,
// as stored (a decimated store writes fewer pixels than the frame has). What `gpuvp --dump-fb` writes as a PNG.
struct StoredFrame {
  std::uint32_t address = 0;
  unsigned width = 0;  // stored pixels
  unsigned height = 0;
  std::uint32_t stride = 0;  // bytes per row
  ColorFormat format = ColorFormat::kRgba8888;
  MemoryLayout layout = MemoryLayout::kLinear;
};

// TILE_RENDERING_MODE_CONFIG flags and the load/store field bits: TileBufferFields in hw/vc4/packets.h.
class TileRenderer : public sc_core::sc_module, public ControlListUnit, public TileBufferFields {
 public:
  static constexpr unsigned kGrid = 64;  // the tile buffer's side in samples
  // The primitives one tile may receive: the model keeps them for the rasteriser, and a render list that branches
  // back inside a compressed list would otherwise grow the list until the hang timeout. Past it the render thread
  // stops with an error naming the tile (README "vc4").
  static constexpr std::size_t kMaxTilePrimitives = 65536;

  TileRenderer(sc_core::sc_module_name name, const TileRendererParams& params, const TileRendererServices& services);
  ~TileRenderer() override;

  const char* unit_name() const override { return "tile renderer"; }
  UnitResult execute(const StatePacket& p, UnitContext& ctx) override;
  UnitResult compressed_primitive(std::uint32_t address, std::uint8_t list_format,
                                  const compressed::Primitive& primitive, UnitContext& ctx) override;
  void thread_reset() override;

  bool configured() const { return configured_; }
  unsigned tile_px() const { return tile_px_; }
  unsigned tiles_x() const { return (width_ + tile_px_ - 1) / tile_px_; }
  unsigned tiles_y() const { return (height_ + tile_px_ - 1) / tile_px_; }
  unsigned samples() const { return (flags_ & kConfigMs4x) ? 4 : 1; }
  // Sample s of pixel (x, y) of the current tile (s < samples()).
  std::uint32_t color_at(unsigned x, unsigned y, unsigned s = 0) const { return color_.at(grid_index(x, y, s)); }
  std::uint32_t zs_at(unsigned x, unsigned y, unsigned s = 0) const { return zs_.at(grid_index(x, y, s)); }
  // The primitives the current tile received (since its TILE_COORDINATES), decoded.
  const std::vector<compressed::Primitive>& tile_primitives() const { return tile_primitives_; }
  std::uint64_t tiles_stored() const { return stores_.value; }
  // The frame of the last STORE_MS_TILE_BUFFER that wrote memory; empty before any. Kept across thread resets: it
  // describes memory, not the renderer's state.
  const std::optional<StoredFrame>& last_frame() const { return last_frame_; }
  std::uint64_t primitives_not_shaded() const { return not_shaded_.value; }
  std::uint64_t fragments_shaded() const { return fragments_shaded_.value; }

 private:
  enum class Buffer : std::uint8_t { kColor, kZs };
  struct PendingLoad {
    Buffer buffer;
    bool full_res;
    unsigned pixel_format;  // general loads: 0 RGBA8888, 1/2 BGR565
    std::uint32_t address;
  };

  class BatchPort;
  // The fragment shader of the current shader state.
  struct FragmentShader {
    std::uint32_t code = 0, uniforms = 0;
    unsigned varyings = 0;
    bool threaded = false;  // the record's flag bit 0 ("FS single-threaded") clear: two threads per QPU
  };
  // Render state the tile lists carry (the binner copies it in: tile_binner.h is_tile_state_packet).
  void record_state(const StatePacket& p);
  // The shaded vertices of a primitive of the current tile (its `vertices` first entries of `out`) and the fragment
  // shader: from the NV shader record's shaded vertex data, or the GL shader record's vertex shader run on the QPUs.
  // With `clip_word` (a CLIPPED_COMPRESSED_PRIMITIVE's), the flagged vertices come from its record.
  UnitResult primitive_vertices(const compressed::Primitive& primitive, std::optional<std::uint32_t> clip_word,
                                std::array<ShadedVertex, 3>& out, FragmentShader& fs, UnitContext& ctx);
  // Replaces the flagged vertices of `out` by the clipped primitive record's (clipper.h): its positions, Zs and 1/Wc,
  // the varyings as its coefficients' sum of the original vertices' (flat ones: vertex 0's).
  UnitResult clipped_vertices(std::uint32_t clip_word, const compressed::Primitive& primitive,
                              std::array<ShadedVertex, 3>& out, UnitContext& ctx);
  UnitResult nv_vertices(const compressed::Primitive& primitive, std::array<ShadedVertex, 3>& out, FragmentShader& fs,
                         UnitContext& ctx);
  UnitResult gl_vertices(const compressed::Primitive& primitive, std::array<ShadedVertex, 3>& out, FragmentShader& fs,
                         UnitContext& ctx);
  // A triangle of the current tile: culled by facing, rasterised (rasteriser.h) inside the tile and the clip window,
  // and its batches queued on the QPUs.
  UnitResult shade_triangle(const compressed::Primitive& primitive, std::optional<std::uint32_t> clip_word,
                            UnitContext& ctx);
  // The pixels a primitive of the current tile may cover: the tile within the frame and the clip window.
  PixelRect pixel_clip() const;
  // A point or line of the current tile: rasterised (rasteriser.h) with its size, its batches queued on the QPUs.
  UnitResult shade_point_or_line(const compressed::Primitive& primitive, std::optional<std::uint32_t> clip_word,
                                 UnitContext& ctx);
  // Queues the batches of a rasterised primitive on the QPUs, in order behind the earlier batches on their quads.
  UnitResult queue_batches(const std::vector<FragmentBatch>& batches, const FragmentShader& fs, bool reverse,
                           UnitContext& ctx);
  // Waits until the queued fragment shaders have ended (before the tile buffer is stored or the tile changes); an
  // error of one of them stops the thread.
  UnitResult finish_fragments(UnitContext& ctx);
  // Drops the batches at the front that have ended (keeping the first error) and the ended orphans.
  void prune_batches();
  // Waits until batch `sequence` of the tile has ended; the caller's time moves to its end.
  UnitResult wait_for_batch(unsigned sequence, UnitContext& ctx);
  // Waits until at most `at_most` of this list's batches have not ended.
  UnitResult wait_for_batches(UnitContext& ctx, std::size_t at_most);
  // The front end's queue to the QPUs: its depth is not published; the model's bound keeps a guest's tile of many
  // large triangles from holding unbounded host memory.
  static constexpr std::size_t kMaxQueuedBatches = 64;
  UnitResult configure(const StatePacket& p);
  UnitResult clear_colors(const StatePacket& p);
  UnitResult tile_coordinates(const StatePacket& p, UnitContext& ctx);
  UnitResult ended_tile(const StatePacket& p, UnitResult store, UnitContext& ctx);
  UnitResult store_general(const StatePacket& p, UnitContext& ctx);
  UnitResult load_general(const StatePacket& p);
  UnitResult store_full_res(const StatePacket& p, UnitContext& ctx);
  UnitResult load_full_res(const StatePacket& p);
  UnitResult store_ms(UnitContext& ctx);
  // Raster transfer of one buffer of the current tile; bpp 2 (BGR565) or 4. `block` is the decimation's side in grid
  // samples: 0 sample mode, 2 decimate 4x, 4 decimate 16x.
  UnitResult store_raster(Buffer buffer, std::uint32_t base, unsigned bpp, unsigned block, UnitContext& ctx);
  // The stored image of a store with that decimation block: pixels per tile side, image width and height.
  void stored_extent(unsigned block, unsigned& out_tile, unsigned& out_w, unsigned& out_h) const;
  std::size_t grid_index(unsigned x, unsigned y, unsigned s) const;
  UnitResult load_raster(Buffer buffer, std::uint32_t base, unsigned bpp, UnitContext& ctx);
  UnitResult store_full(Buffer buffer, std::uint32_t address, UnitContext& ctx);
  UnitResult load_full(Buffer buffer, std::uint32_t address, UnitContext& ctx);
  void clear(bool color, bool zs);
  UnitResult need_config(const char* what) const;
  bool transfer(bool write, std::uint32_t address, void* data, unsigned len, UnitContext& ctx, std::string& message);
  void queue_load(const PendingLoad& load);
  static bool zs_address_of(std::uint32_t word, std::uint32_t& zs_address);
  static UnitResult zs_beyond_4gib(const char* packet);

  TileRendererParams params_;
  TileRendererServices services_;

  bool configured_ = false;
  std::uint32_t frame_address_ = 0;
  unsigned width_ = 0;
  unsigned height_ = 0;
  std::uint16_t flags_ = 0;
  unsigned tile_px_ = 64;
  unsigned tile_x_ = 0;
  unsigned tile_y_ = 0;
  std::uint64_t clear_color_ = 0;
  std::uint32_t clear_zs_ = 0;
  std::uint8_t clear_stencil_ = 0;
  std::vector<std::uint32_t> color_;
  std::vector<std::uint32_t> zs_;
  std::vector<PendingLoad> pending_loads_;
  // The trace's span per tile ("tile X,Y", args frame, x, y): from its TILE_COORDINATES to the next one, the frame's
  // end (STORE_MS_TILE_BUFFER_AND_EOF) or a reset: what the tile cost the render thread.
  core::OpenSpan tile_span_;
  std::vector<std::uint8_t> row_;
  std::vector<compressed::Primitive> tile_primitives_;
  // The last CLIPPED_COMPRESSED_PRIMITIVE's word (record address | flags), for the first primitive of its run.
  std::optional<std::uint32_t> clip_word_;
  // The compressed list entry being drawn: its address and PRIMITIVE_LIST_FORMAT (the VCM's look-ahead reads on).
  std::uint32_t entry_address_ = 0;
  std::uint8_t entry_format_ = 0;
  // The vertices after `primitive` in its compressed run that the tile has not shaded, appended to `batch` until it
  // holds VertexPipeline::kBatch: the VCM fills a vertex shader batch from the primitives ahead (their order; the
  // hardware's policy is unpublished). The run's bytes come in one read of kLookAheadBytes; the look-ahead stops at
  // the run's end (escape), a branch, an entry it cannot decode or the read's end.
  static constexpr unsigned kLookAheadBytes = 64;
  void look_ahead(const compressed::Primitive& primitive, std::vector<std::uint32_t>& batch, UnitContext& ctx);
  bool warned_not_shaded_ = false;
  std::optional<StoredFrame> last_frame_;
  // Render state from the tile lists (reset with the thread).
  std::uint8_t shader_state_op_ = 0;  // the last shader state packet's opcode (0: none)
  std::uint32_t shader_record_ = 0;
  bool config_seen_ = false;
  std::uint32_t config_bits_ = 0;
  std::uint32_t flat_shade_flags_ = 0;
  bool clip_seen_ = false;
  unsigned clip_left_ = 0, clip_top_ = 0, clip_width_ = 0, clip_height_ = 0;
  std::int32_t viewport_x_ = 0, viewport_y_ = 0;
  float point_size_ = 1.0F, line_width_ = 1.0F;  // POINT_SIZE, LINE_WIDTH (1 before either)
  // GL shader state: the record (decoded at its first primitive) and the vertex shader's results for the current tile
  // (the VCM's cache; the model keeps at most kMaxShadedVertices and starts again when full).
  static constexpr std::size_t kMaxShadedVertices = 4096;
  bool gl_record_valid_ = false;
  GlShaderRecord gl_record_;
  VertexPipeline vertex_pipeline_;
  std::unordered_map<std::uint32_t, ShadedVertex> shaded_vertices_;
  // The fragment shader batches of the current tile, in primitive order, and which have released the scoreboard; the
  // last batch on each 2x2 quad of the tile (-1: none).
  std::deque<std::unique_ptr<BatchPort>> batches_;   // not yet ended or not yet pruned, oldest first
  std::vector<bool> released_;                       // per batch of the tile
  std::vector<core::Picoseconds> ended_ps_;          // per batch of the tile: when it ended (once pruned)
  std::string batch_error_;                          // the first error of a pruned batch
  std::vector<std::unique_ptr<BatchPort>> orphans_;  // batches of a reset list, until they end
  std::array<int, (kGrid / 2) * (kGrid / 2)> last_batch_at_quad_;

  core::StatsGroup stats_;
  core::Counter& tiles_;
  core::Counter& stores_;
  core::Counter& loads_;
  core::Counter& bytes_stored_;
  core::Counter& not_shaded_;
  core::Counter& fragments_shaded_;
  core::Counter& fragment_batches_;
  core::Counter& culled_;
  core::Counter& early_z_rejected_;
  core::Counter& vertices_shaded_;
  core::Counter& clipped_;
};

}  // namespace gpuvp::vc4
