// The GL shader path's pieces without SystemC: the GL shader record's decoding and checks (vertex_shading.h), and a
// QPU running a vertex pipeline shader (Qpu::start_vertex): its VPM reads come from the input segment, its writes go
// to the output segment, the shared VPM is untouched, and VPM DMA is refused.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/qpu_test_environment.h"
#include "tlm/vc4/qpu/qpu_assembler.h"
#include "tlm/vc4/qpu/qpu_core.h"
#include "tlm/vc4/vertex_shading.h"

namespace gpuvp::vc4 {
namespace {

void put32(std::vector<std::uint8_t>& b, unsigned at, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) b.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}

// A normal record with two attributes: flags, the FS, VS and CS, attribute 0 (16 bytes, stride 32, VS and CS VPM
// offsets 0) and 1 (12 bytes, stride 32, VS offset 16 bytes: row 4, CS offset 36 bytes: row 9).
std::vector<std::uint8_t> two_attribute_record() {
  std::vector<std::uint8_t> r(gl_shader_record_bytes(2), 0);
  r[0] = 0x05;  // single-threaded FS, clipping
  r[3] = 3;     // FS varyings
  put32(r, 4, 0x1000);
  put32(r, 8, 0x1100);
  r[14] = 0x03;
  put32(r, 16, 0x2000);
  put32(r, 20, 0x2100);
  r[26] = 0x01;
  put32(r, 28, 0x3000);
  put32(r, 32, 0x3100);
  const unsigned bytes[2] = {16, 12}, vs_offsets[2] = {0, 16}, cs_offsets[2] = {0, 36};
  for (unsigned a = 0; a < 2; ++a) {
    put32(r, 36 + 8 * a, 0x8000 + 16 * a);
    r[40 + 8 * a] = static_cast<std::uint8_t>(bytes[a] - 1);
    r[41 + 8 * a] = 32;
    r[42 + 8 * a] = static_cast<std::uint8_t>(vs_offsets[a]);
    r[43 + 8 * a] = static_cast<std::uint8_t>(cs_offsets[a]);
  }
  return r;
}

TEST(GlShaderRecord, LengthsFollowTheAttributeCountAndTheExtendedFlag) {
  // Linux vc4_validate.c gl_shader_rec_size: 36 + 8 n, extended 100 + 4 n; a count of 0 means 8.
  EXPECT_EQ(gl_shader_record_bytes(0x1000 | 1), 44u);
  EXPECT_EQ(gl_shader_record_bytes(0x1000 | 0), 100u);
  EXPECT_EQ(gl_shader_record_bytes(0x1000 | 8 | 2), 108u);
  EXPECT_EQ(gl_shader_record_bytes(0x1000 | 8 | 0), 132u);
}

TEST(GlShaderRecord, DecodesTheStagesAndTheAttributes) {
  const std::vector<std::uint8_t> bytes = two_attribute_record();
  GlShaderRecord r;
  std::string error;
  ASSERT_TRUE(decode_gl_shader_record(0x4560 | 2, bytes.data(), r, error)) << error;
  EXPECT_EQ(r.address, 0x4560u);
  EXPECT_TRUE(r.clipping());
  EXPECT_FALSE(r.point_size());
  EXPECT_EQ(r.fs_varyings, 3u);
  EXPECT_EQ(r.fs_code, 0x1000u);
  EXPECT_EQ(r.fs_uniforms, 0x1100u);
  EXPECT_EQ(r.vertex.attribute_select, 3u);
  EXPECT_EQ(r.vertex.code, 0x2000u);
  EXPECT_EQ(r.vertex.uniforms, 0x2100u);
  EXPECT_EQ(r.coordinate.attribute_select, 1u);
  EXPECT_EQ(r.coordinate.code, 0x3000u);
  EXPECT_EQ(r.coordinate.uniforms, 0x3100u);
  ASSERT_EQ(r.attributes.size(), 2u);
  EXPECT_EQ(r.attributes[1].address, 0x8010u);
  EXPECT_EQ(r.attributes[1].bytes, 12u);
  EXPECT_EQ(r.attributes[1].stride, 32u);
  EXPECT_EQ(r.attributes[1].vs_vpm_row, 4u);
  EXPECT_EQ(r.attributes[1].cs_vpm_row, 9u);
}

// Linux vc4_validate.c: stride = the record's byte | (the extended word & ~0xff), 26 bits.
TEST(GlShaderRecord, ExtendedRecordsExtendTheStrideAboveItsByte) {
  std::vector<std::uint8_t> bytes = two_attribute_record();
  bytes.resize(gl_shader_record_bytes(8 | 2), 0);
  put32(bytes, 100, 0xFC012345);  // bits 31:26 and 7:0 are not the stride's
  put32(bytes, 104, 0x40);
  GlShaderRecord r;
  std::string error;
  ASSERT_TRUE(decode_gl_shader_record(0x4560 | 8 | 2, bytes.data(), r, error)) << error;
  EXPECT_EQ(r.attributes[0].stride, 0x012320u);
  EXPECT_EQ(r.attributes[1].stride, 32u);
}

TEST(GlShaderRecord, SelectedAttributesMustExistAndFitTheSegment) {
  std::vector<std::uint8_t> bytes = two_attribute_record();
  GlShaderRecord r;
  std::string error;
  bytes[26] = 0x04;  // the CS selects attribute 2 of 2
  EXPECT_FALSE(decode_gl_shader_record(0x4560 | 2, bytes.data(), r, error));
  EXPECT_EQ(error, "coordinate shader attribute select 0x4 names attribute 2, and the record has 2");
  bytes = two_attribute_record();
  bytes[42 + 8] = 248;  // attribute 1's three rows from VS row 62
  EXPECT_FALSE(decode_gl_shader_record(0x4560 | 2, bytes.data(), r, error));
  EXPECT_EQ(error, "vertex shader attribute 1 (12 bytes at VPM byte offset 248) overruns the 64-row VPM segment");
  bytes[42 + 8] = 244;  // rows 61-63 fit
  EXPECT_TRUE(decode_gl_shader_record(0x4560 | 2, bytes.data(), r, error)) << error;
  bytes[43 + 8] = 37;  // not a whole row
  EXPECT_FALSE(decode_gl_shader_record(0x4560 | 2, bytes.data(), r, error));
  EXPECT_EQ(error, "attribute 1's VPM offsets (VS 244, CS 37 bytes) are not whole 32-bit rows");
}

struct VertexShader {
  explicit VertexShader(const std::string& source) : qpu(2, env) {
    qpu::AssembledProgram program;
    std::string error;
    EXPECT_TRUE(qpu::assemble(source, program, error)) << error;
    env.code = program.code;
    qpu.start_vertex(qpu::kCode, qpu::kUniforms, input, output);
  }
  qpu::Qpu::Step run() {
    for (unsigned issued = 0; issued < 1000; ++issued) {
      const qpu::Qpu::Step s = qpu.step(4ULL * issued);
      if (s != qpu::Qpu::Step::kIssued) return s;
    }
    return qpu::Qpu::Step::kIssued;
  }
  qpu::TestEnvironment env;
  qpu::Vpm input, output;
  qpu::Qpu qpu;
};

TEST(VertexPipelineShader, ReadsItsInputSegmentAndWritesItsOutputSegment) {
  VertexShader s(R"(
      load_imm vr_setup, 0x00201a03
      load_imm vw_setup, 0x00001a01
      mov r0, vpm_read
      mov r1, vpm_read
      fadd vpm, r0, r1
      mov vpm, elem
      sig_end nop
      nop
      nop
  )");
  for (unsigned k = 0; k < 16; ++k) {
    float a = 1.5F * static_cast<float>(k), b = 100.0F;
    std::memcpy(&s.input.at(3, k), &a, 4);
    std::memcpy(&s.input.at(4, k), &b, 4);
  }
  ASSERT_EQ(s.run(), qpu::Qpu::Step::kEnded) << s.qpu.error();
  EXPECT_TRUE(s.qpu.shading());
  for (unsigned k = 0; k < 16; ++k) {
    float sum;
    std::memcpy(&sum, &s.output.at(1, k), 4);
    EXPECT_EQ(sum, 1.5F * static_cast<float>(k) + 100.0F) << k;
    EXPECT_EQ(s.output.at(2, k), k);
    EXPECT_EQ(s.output.at(0, k), 0u);  // the write setup's row 1 onwards only
  }
  for (const std::uint32_t w : s.env.vpm().words) EXPECT_EQ(w, 0u);  // the shared VPM is not the shader's
}

TEST(VertexPipelineShader, VpmDmaAndFragmentInputsAreErrors) {
  VertexShader dma("load_imm vr_setup, 0x80000000\nload_imm vr_addr, 0x10000\nsig_end nop\nnop\nnop\n");
  EXPECT_EQ(dma.run(), qpu::Qpu::Step::kError);
  EXPECT_NE(dma.qpu.error().find("VPM DMA (vr_addr) in a vertex or coordinate shader"), std::string::npos)
      << dma.qpu.error();
  VertexShader varying("mov r0, vary\nsig_end nop\nnop\nnop\n");
  EXPECT_EQ(varying.run(), qpu::Qpu::Step::kError);
  EXPECT_NE(varying.qpu.error().find("is a fragment shader input, and a vertex pipeline shader has no fragments"),
            std::string::npos)
      << varying.qpu.error();
}

}  // namespace
}  // namespace gpuvp::vc4
