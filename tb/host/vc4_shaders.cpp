#include "tb/host/vc4_shaders.h"

namespace gpuvp::host {

std::string interpolated_color_fragment_shader_source() {
  return R"(
      load_imm r3, 0xff000000
      mov r0, vary
      fmul r0, r0, ra15
      fadd r0, r0, r5
      mov r1, vary
      fmul r1, r1, ra15
      fadd r1, r1, r5
      mov r2, vary
      fmul r2, r2, ra15
      fadd r2, r2, r5
      nop ; fmul r3.8c, r0, 1.0
      nop ; fmul r3.8b, r1, 1.0
      nop ; fmul r3.8a, r2, 1.0
      mov tlb_z, rb15
      mov tlb_color_all, r3
      sig_end nop
      nop
      sig_unlock_score nop
  )";
}

std::string textured_color_fragment_shader_source() {
  return R"(
      load_imm r3, 0xff000000
      mov r0, vary
      fmul r0, r0, ra15
      fadd r0, r0, r5
      mov r1, vary
      fmul r1, r1, ra15
      fadd r1, r1, r5
      mov r2, vary
      fmul r2, r2, ra15
      fadd r2, r2, r5
      nop ; fmul r3.8c, r0, 1.0
      nop ; fmul r3.8b, r1, 1.0
      nop ; fmul r3.8a, r2, 1.0
      mov r0, vary
      fmul r0, r0, ra15
      fadd r0, r0, r5
      mov r1, vary
      fmul r1, r1, ra15
      fadd r1, r1, r5
      mov tmu0_t, r1
      mov tmu0_s, r0
      load_tmu0 nop
      mov tlb_z, rb15
      nop ; v8muld tlb_color_all, r3, r4
      sig_end nop
      nop
      sig_unlock_score nop
  )";
}

namespace {

// Both vertex pipeline shaders start with a horizontal 32-bit read setup of their attribute rows (NUM in bits 23:20)
// and the write setup 0x00001a00 (row 0, stride 1), as Mesa's do (reference-vc4-qpu.md 5.4). The SFU's reciprocal
// lands in r4 for the third instruction after its write; register file writes are read two instructions later. The
// coordinate shader writes the clip coordinates first and reads only the position; the vertex shader reads the
// varyings too (into ra1-ra4) and writes them last.
std::string vertex_pipeline_source(bool coordinate) {
  std::string s = coordinate ? "load_imm vr_setup, 0x00401a00\n" : "load_imm vr_setup, 0x00801a00\n";
  s += R"(
      load_imm vw_setup, 0x00001a00
      mov r0, vpm_read
      mov r1, vpm_read
      mov r2, vpm_read
      mov r3, vpm_read
      mov sfu_recip, r3
  )";
  s += coordinate ? "mov vpm, r0\nmov vpm, r1\nmov vpm, r2\nmov vpm, r3\n"
                  : "mov ra1, vpm_read\nmov ra2, vpm_read\nmov ra3, vpm_read\nmov ra4, vpm_read\n";
  s += R"(
      fmul r0, r0, r4
      fmul r1, r1, r4
      fmul r2, r2, r4
      fmul r0, r0, uni
      fmul r1, r1, uni
      ftoi ra0.16a, r0
      ftoi ra0.16b, r1
      nop
      mov vpm, ra0
      mov vpm, r2
      mov vpm, r4
  )";
  if (!coordinate) s += "mov vpm, ra1\nmov vpm, ra2\nmov vpm, ra3\nmov vpm, ra4\n";
  return s + "sig_end nop\nnop\nnop\n";
}

}  // namespace

std::string scene_coordinate_shader_source() { return vertex_pipeline_source(true); }

std::string scene_vertex_shader_source() { return vertex_pipeline_source(false); }

}  // namespace gpuvp::host
