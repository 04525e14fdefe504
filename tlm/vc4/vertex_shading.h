// The GL shader path's vertex pipeline: the GL shader record, and the VCD + QPU run that shades a batch of up to 16
// vertices with the coordinate shader (binning) or the vertex shader (rendering).
//
// Facts (../shared/docs/reference-vc4.md section 1, reference-vc4-qpu.md 5.4; Linux vc4_validate.c
// `validate_gl_shader_rec`, Mesa vc4_draw.c `vc4_emit_gl_shader_state`):
// - GL_SHADER_STATE's word: bits 31:4 the record address (16-byte aligned), bit 3 the extended record, bits 2:0 the
//   attribute count (0 = 8). The record: u16 flags (b0 FS single-threaded, b1 point size in the VS/CS output, b2
//   clipping), FS #uniforms u8 @2, #varyings u8 @3, code @4, uniforms @8; VS #uniforms u16 @12, attribute select u8
//   @14, total attribute size u8 @15, code @16, uniforms @20; CS the same at @24..@32; attribute i at 36 + 8i =
//   {u32 address, u8 bytes - 1, u8 stride, u8 VS VPM offset, u8 CS VPM offset}, the offsets in bytes (Mesa
//   vc4_program.c vattr_offsets: each attribute's size aligned to 4 after the one before). The extended record holds
//   all eight attribute slots and words at 100 + 4i whose bits 25:8 extend the stride (Linux vc4_validate.c).
// - The VCD fetches each selected attribute of each vertex into the shader's VPM input segment: row VPM offset / 4,
//   one row per 32-bit component, vertex k in column k (Mesa's shaders read their attributes in order from row 0
//   with horizontal 32-bit read setups). Shaders write their output from row 0 of their output segment: CS Xc, Yc, Zc,
//   Wc, Xs|Ys (16a/16b), Zs, 1/Wc [, point size]; VS Xs|Ys, Zs, 1/Wc [, point size], then the FS's varyings.
//
// Model choices (no public source gives them): an attribute's bytes fill whole rows, the last one zero-padded; lanes of
// a batch without a vertex read zeros; an input segment holds 64 rows (the QPUs' generic VPM addressing, Y[5:0]).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm/vc4/control_list_executor.h"
#include "tlm/vc4/qpu_scheduler.h"

namespace gpuvp::vc4 {

struct GlShaderRecord {
  struct Stage {
    unsigned attribute_select = 0;  // bit i: attribute i is fetched for this shader
    std::uint32_t code = 0, uniforms = 0;
  };
  struct Attribute {
    std::uint32_t address = 0;
    unsigned bytes = 0;  // per vertex, 1..256
    std::uint32_t stride = 0;
    unsigned vs_vpm_row = 0, cs_vpm_row = 0;  // the record's byte offsets / 4
  };
  std::uint32_t address = 0;
  std::uint16_t flags = 0;
  unsigned fs_varyings = 0;
  std::uint32_t fs_code = 0, fs_uniforms = 0;
  Stage vertex, coordinate;
  std::vector<Attribute> attributes;

  bool point_size() const { return (flags & 2U) != 0; }
  bool clipping() const { return (flags & 4U) != 0; }
};

// The record's length in bytes for a GL_SHADER_STATE word.
unsigned gl_shader_record_bytes(std::uint32_t state_word);
// Decodes the record `bytes` (gl_shader_record_bytes long) read for `state_word`; false with `error` when a selected
// attribute does not fit the VPM input segment.
bool decode_gl_shader_record(std::uint32_t state_word, const std::uint8_t* bytes, GlShaderRecord& out,
                             std::string& error);

// Shades batches of vertices for one front end (the binner or the renderer), one batch at a time.
class VertexPipeline {
 public:
  // A timed read through the front end's bus port; false with `message` when it fails.
  using Read = std::function<bool(std::uint32_t address, void* data, unsigned bytes, std::string& message)>;
  static constexpr unsigned kBatch = 16;
  static constexpr unsigned kSegmentRows = 64;

  // Fetches the attributes of `indices` (at most kBatch) for the stage `kind` (kVertex or kCoordinate), runs its
  // shader on the QPUs and waits for it on the caller's thread; then output(row, k) is what the shader wrote to row
  // `row` for vertex k. kError when an attribute read fails or the shader ends in an error, kHang when no QPU takes
  // the batch within the hang timeout.
  UnitResult shade(QpuScheduler& qpus, const GlShaderRecord& record, ShaderJob::Kind kind,
                   const std::vector<std::uint32_t>& indices, const Read& read, UnitContext& ctx);
  std::uint32_t output(unsigned row, unsigned k) const { return current_->output.at(row, k); }
  // Batches given up on (their thread was reset while they ran) are dropped once their shader ended.
  void drop_finished_orphans();

 private:
  struct Batch {
    qpu::Vpm input, output;
    ShaderJob::Status status;
  };
  std::unique_ptr<Batch> current_ = std::make_unique<Batch>();
  std::vector<std::unique_ptr<Batch>> orphans_;
};

}  // namespace gpuvp::vc4
