#include "tlm/vc4/vertex_shading.h"

#include <algorithm>

#include "tlm/core/report.h"

namespace gpuvp::vc4 {

namespace {

std::uint32_t u32_at(const std::uint8_t* b, unsigned i) {
  return static_cast<std::uint32_t>(b[i]) | static_cast<std::uint32_t>(b[i + 1]) << 8 |
         static_cast<std::uint32_t>(b[i + 2]) << 16 | static_cast<std::uint32_t>(b[i + 3]) << 24;
}

unsigned attribute_count(std::uint32_t state_word) { return (state_word & 7U) == 0 ? 8 : state_word & 7U; }

}  // namespace

unsigned gl_shader_record_bytes(std::uint32_t state_word) {
  // Linux vc4_validate.c gl_shader_rec_size: 36 + 8 per attribute, or 100 + 4 per attribute when extended.
  return (state_word & 8U) != 0 ? 100 + 4 * attribute_count(state_word) : 36 + 8 * attribute_count(state_word);
}

bool decode_gl_shader_record(std::uint32_t state_word, const std::uint8_t* bytes, GlShaderRecord& out,
                             std::string& error) {
  out = GlShaderRecord{};
  out.address = state_word & ~15U;
  out.flags = static_cast<std::uint16_t>(bytes[0] | bytes[1] << 8);
  out.fs_varyings = bytes[3];
  out.fs_code = u32_at(bytes, 4);
  out.fs_uniforms = u32_at(bytes, 8);
  out.vertex = {bytes[14], u32_at(bytes, 16), u32_at(bytes, 20)};
  out.coordinate = {bytes[26], u32_at(bytes, 28), u32_at(bytes, 32)};
  const bool extended = (state_word & 8U) != 0;
  const unsigned count = attribute_count(state_word);
  for (unsigned i = 0; i < count; ++i) {
    const std::uint8_t* a = bytes + 36 + 8 * i;
    // VPM offsets are in bytes (Mesa vc4_program.c: vattr_offsets accumulate each attribute's size aligned to 4),
    // a 32-bit row each 4 bytes.
    if ((a[6] | a[7]) % 4 != 0) {
      error = "attribute " + std::to_string(i) + "'s VPM offsets (VS " + std::to_string(a[6]) + ", CS " +
              std::to_string(a[7]) + " bytes) are not whole 32-bit rows";
      return false;
    }
    GlShaderRecord::Attribute attribute{u32_at(a, 0), a[4] + 1U, a[5], a[6] / 4U, a[7] / 4U};
    // The extended record's stride: its word's bits 25:8 above the record's byte (Linux vc4_validate.c
    // validate_gl_shader_rec: stride = u8 | (extended & ~0xff)).
    if (extended) attribute.stride = (a[5] | (u32_at(bytes, 100 + 4 * i) & ~0xFFU)) & 0x3FFFFFFU;
    out.attributes.push_back(attribute);
  }
  // A selected attribute must exist and fit the segment the shader reads it from.
  for (const bool coordinate : {false, true}) {
    const unsigned select = coordinate ? out.coordinate.attribute_select : out.vertex.attribute_select;
    for (unsigned i = 0; i < 8; ++i) {
      if (((select >> i) & 1U) == 0) continue;
      const char* stage = coordinate ? "coordinate" : "vertex";
      if (i >= count) {
        error = std::string(stage) + " shader attribute select " + core::format_hex(select) + " names attribute " +
                std::to_string(i) + ", and the record has " + std::to_string(count);
        return false;
      }
      const GlShaderRecord::Attribute& a = out.attributes[i];
      const unsigned row = coordinate ? a.cs_vpm_row : a.vs_vpm_row, rows = (a.bytes + 3) / 4;
      if (row + rows > VertexPipeline::kSegmentRows) {
        error = std::string(stage) + " shader attribute " + std::to_string(i) + " (" + std::to_string(a.bytes) +
                " bytes at VPM byte offset " + std::to_string(4 * row) + ") overruns the " +
                std::to_string(VertexPipeline::kSegmentRows) + "-row VPM segment";
        return false;
      }
    }
  }
  return true;
}

UnitResult VertexPipeline::shade(QpuScheduler& qpus, const GlShaderRecord& record, ShaderJob::Kind kind,
                                 const std::vector<std::uint32_t>& indices, const Read& read, UnitContext& ctx) {
  drop_finished_orphans();
  Batch& batch = *current_;
  batch.input.words.fill(0);
  batch.output.words.fill(0);
  batch.status = {};
  const bool coordinate = kind == ShaderJob::Kind::kCoordinate;
  const GlShaderRecord::Stage& stage = coordinate ? record.coordinate : record.vertex;
  const char* name = coordinate ? "coordinate shader" : "vertex shader";
  // The VCD: each selected attribute of each vertex, a row per 32-bit word, vertex k in column k.
  std::array<std::uint8_t, 256 + 3> bytes{};
  for (unsigned i = 0; i < record.attributes.size(); ++i) {
    if (((stage.attribute_select >> i) & 1U) == 0) continue;
    const GlShaderRecord::Attribute& a = record.attributes[i];
    const unsigned row = coordinate ? a.cs_vpm_row : a.vs_vpm_row;
    for (unsigned k = 0; k < indices.size() && k < kBatch; ++k) {
      const std::uint64_t at = std::uint64_t{a.address} + std::uint64_t{indices[k]} * a.stride;
      std::string message;
      bytes.fill(0);
      if (at + a.bytes > 0x100000000ULL || !read(static_cast<std::uint32_t>(at), bytes.data(), a.bytes, message)) {
        return UnitResult::error(std::string(name) + " attribute " + std::to_string(i) + " of vertex " +
                                 std::to_string(indices[k]) + " at " + core::format_hex(at) + ": " +
                                 (message.empty() ? "beyond the 32-bit bus" : message));
      }
      for (unsigned w = 0; w < (a.bytes + 3) / 4; ++w) batch.input.at(row + w, k) = u32_at(bytes.data(), 4 * w);
    }
  }
  ShaderJob job;
  job.kind = kind;
  job.pc = stage.code;
  job.uniforms = stage.uniforms;
  job.input = &batch.input;
  job.output = &batch.output;
  job.status = &batch.status;
  qpus.shade(job, ctx.time.now());
  ctx.time.sync();
  // The scheduler stops a shader running longer than the hang timeout; a batch no QPU takes while no other shader ends
  // for the hang timeout is a hang here (batches ahead of it ending is progress).
  core::Picoseconds deadline = core::now_ps() + ctx.hang_timeout_ps;
  std::uint64_t ended = qpus.shader_jobs_ended();
  while (!batch.status.done) {
    if (qpus.shader_jobs_ended() != ended) {
      ended = qpus.shader_jobs_ended();
      deadline = core::now_ps() + ctx.hang_timeout_ps;
    }
    const bool aborted = !ctx.running();
    if (aborted || core::now_ps() >= deadline) {
      // A batch not started is taken back; one running may still use its segments and status: they outlive it.
      qpus.cancel(&batch.status);
      if (!batch.status.done) {
        orphans_.push_back(std::move(current_));
        current_ = std::make_unique<Batch>();
      }
      if (aborted) return UnitResult::aborted();
      return UnitResult::hang(std::string(name) + " batch of " + std::to_string(indices.size()) +
                              " vertices did not end (QPUs reserved against " + name + "s?)");
    }
    sc_core::wait(core::to_sc_time(deadline - core::now_ps()), qpus.shader_ended() | ctx.kick);
  }
  // The scheduler may have run the shader ahead of the kernel's time: the batch is done when it ended.
  if (batch.status.end_ps > ctx.time.now()) ctx.time.advance(batch.status.end_ps - ctx.time.now());
  if (!batch.status.error.empty()) return UnitResult::error(std::string(name) + ": " + batch.status.error);
  return UnitResult::done();
}

void VertexPipeline::drop_finished_orphans() {
  orphans_.erase(std::remove_if(orphans_.begin(), orphans_.end(), [](const auto& b) { return b->status.done; }),
                 orphans_.end());
}

}  // namespace gpuvp::vc4
