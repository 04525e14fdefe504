// The project's own shaders for the vc4 driver model's scenes (host::Vc4Scene), as assembly source in the syntax of
// tlm/vc4/qpu/qpu_assembler.h: the drivers see no model, so callers assemble them (as the FFT program in
// qpu_programs.h). Written from the facts of ../shared/docs/reference-vc4-qpu.md (5.2 what a fragment shader receives,
// 5.4 the coordinate and vertex shaders' VPM layouts, 1.x the ISA).
#pragma once

#include <string>

namespace gpuvp::host {

// Fragment shader: three varyings interpolated (partial * W + C) as red, green and blue, packed into 0xAARRGGBB by
// the mul ALU's colour packs (a float 0..1 to a byte) with alpha 0xFF; Z passed through to the depth test.
std::string interpolated_color_fragment_shader_source();

// Fragment shader: the interpolated colour of the first three varyings (as above) modulated by (multiplied byte by
// byte with, v8muld) the texel TMU0 returns at (s, t) = varyings 3 and 4, with the texture's P0 and P1 as its two
// uniforms; a texture of one white texel at (0, 0) leaves untextured triangles their colour. Z passed through.
std::string textured_color_fragment_shader_source();

// Coordinate shader of a Vc4Scene's GL shader state: attribute 0 (clip-space X, Y, Z, W) from VPM rows 0-3; writes
// Xc, Yc, Zc, Wc, Xs|Ys (16-bit halves, 1/16 pixel: X/W and Y/W times the uniforms' half width and half height),
// Zs = Z/W and 1/W, as the binner reads them.
std::string scene_coordinate_shader_source();

// Vertex shader of a Vc4Scene's GL shader state: attribute 0 from rows 0-3 and the four varyings (attribute 1) from
// rows 4-7; writes Xs|Ys, Zs, 1/W and the four varyings, as the tile renderer reads them.
std::string scene_vertex_shader_source();

}  // namespace gpuvp::host
