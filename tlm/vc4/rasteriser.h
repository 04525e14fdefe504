// Rasteriser: the V3D front end's primitive setup and scan conversion, SystemC-free. It turns a triangle, line or point
// of shaded vertices (X and Y in 1/16 pixel, Zs, 1/Wc and the varyings, as the NV shaded vertex format and the vertex
// shader's output hold them: ../shared/docs/reference-vc4.md section 1, reference-vc4-qpu.md 5.4) into batches of 16
// fragments, four 2x2 quads each, with what a fragment shader receives (reference-vc4-qpu.md 5.2): the pixel
// coordinates, W, Z as a 24-bit integer and, per varying, the partial value A * (x - x0) + B * (y - y0) with its C, so
// that the shader's partial * W + C is the perspective-correct value. Element e of a batch is pixel (e & 1, (e >> 1) &
// 1) of quad e >> 2 (Mesa's fddx/fddy rotations).
//
// Choices where no public source gives the hardware's rule (reference-vc4-qpu.md 5.5: the fill rule, sub-pixel
// snapping and the multisample positions are unpublished; tests keep a 1-pixel guard band at edges):
// - a pixel is covered when its centre (x + 1/2, y + 1/2) is inside the primitive, with a top-left rule for centres
//   exactly on an edge (y grows downwards: row 0 is the first in memory), so that triangles sharing an edge cover each
//   pixel along it once; the same rule decides the edges of points' squares and lines' rectangles;
// - edge functions are exact in 64-bit integers on the 1/16-pixel grid (a line's sides compare an exact integer with
//   a double); W, Z and the varyings in double, stored as float;
// - Z is interpolated linearly in screen space (Zs is already divided by W) and given as round(Zs * 0xFFFFFF)
//   clamped to [0, 0xFFFFFF] (Mesa reads FragCoord.z as itof(rb15) / 0xFFFFFF), NaN as 0;
// - 4x multisample (`multisample`): the coverage is tested at four samples instead of the centre, at (6, 2),
//   (14, 6), (2, 10) and (10, 14) sixteenths of a pixel from its top-left corner (the common rotated-grid pattern: the
//   hardware's positions are unpublished), the same rules at each; a pixel with any sample covered is a fragment,
//   its W, Z and varyings still taken at the centre;
// - flat-shaded varyings take the first vertex's value (the provoking vertex is not documented);
// - quads are visited row by row of quads from the top-left of the primitive's bounds inside the clip rectangle; a
//   batch takes the next four quads with at least one covered pixel, the last batch of a primitive may hold fewer.
//
// Points and lines (for the tile renderer):
// - sizes: POINT_SIZE (packet 98) and LINE_WIDTH (99) are 5 bytes, opcode then an f32 at byte 1, little-endian
//   (Mesa src/broadcom/cle/v3d_packet_v21.xml: a 32-bit float field at bit 0 of the payload; Linux vc4_packet.h
//   VC4_PACKET_{POINT_SIZE,LINE_WIDTH}_SIZE 5). A point takes the per-vertex size when the shader record's flag b1
//   ("point size included in shaded vertex data") is set, else POINT_SIZE. Mesa clamps both sizes to at least 1
//   through its caps (vc4_screen.c min_point_size/min_line_width 1, max 512 and 32) and the point size to at least
//   0.125 itself ("HW-2726 PTB does not handle zero-size points", vc4_state.c, vc4_program.c): what the hardware does
//   below 1 is unpublished, so here a size in (0, 1) counts as 1, and zero, negative, NaN or infinite give nothing.
// - implicit varyings: for points and lines the hardware puts varyings of its own ahead of the vertices': Mesa's FS
//   compiler reads two (point_x, point_y) first when drawing points and one (line_x) when drawing lines
//   (vc4_program.c vc4_shader_ntq), never counts them in the shader record's number of varyings nor in the flat-shade
//   flags ("Skip non-VS-output inputs" in vc4_get_compiled_shader) and never dead-code-eliminates their reads
//   (vc4_opt_dead_code.c). `implicit_varyings` says how many lead `partial`/`c`; bit k of `flat` still names vertex
//   varying k. gl_PointCoord is (point_x, point_y) for a lower-left sprite origin and (point_x, 1 - point_y) for
//   upper-left (vc4_program.c emit_point_coord_input / ntq_setup_inputs), so point_x runs 0 to 1 left to right and
//   point_y 1 to 0 top to bottom across the square. Mesa vc4 reads and ignores line_x; V3D's line smoothing takes its
//   successor as "0.0 to 1.0 across the width of the line" (v3d_nir_lower_line_smooth.c): here 0 on the side the
//   normal (-dy, dx) of a -> b points away from (the top of a line drawn left to right). Both are linear in screen
//   space: their partial is the value minus C divided by the fragment's W (the hardware's plane is unpublished).
// - facing: points and lines have none (`clockwise` false); OpenGL culls only polygons and reports points and lines
//   front-facing, whether the hardware applies CONFIGURATION_BITS' facing enables to them is unpublished.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tlm/vc4/qpu/qpu_vector.h"

namespace gpuvp::vc4 {

struct ShadedVertex {
  std::int32_t x = 0;  // 1/16 pixel (s12.4)
  std::int32_t y = 0;
  float z = 0;      // Zs, 0..1
  float inv_w = 1;  // 1/Wc
  std::vector<float> varyings;
  float point_size = 0;  // the shader's per-vertex point size, when its record includes one (0: none)
};

// The pixels a primitive may cover: the tile clipped by the clip window, [x0, x1) x [y0, y1) in pixels.
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct FragmentBatch {
  qpu::Vector x{}, y{};       // pixel coordinates (raddr 41)
  qpu::Vector w{};            // float bits (ra15)
  qpu::Vector z{};            // 24-bit integers (rb15)
  std::uint16_t covered = 0;  // bit e: element e is a covered pixel
  // Per element, the samples covered (bit k sample k): 4x multisample's four, else bit 0 for a covered pixel.
  std::array<std::uint8_t, 16> samples{};
  // Per varying, the implicit ones first: the partial values (raddr 35) and C (r5), as float bits.
  std::vector<qpu::Vector> partial, c;
};

struct PrimitiveSetup {
  bool clockwise = false;  // a triangle's vertices run clockwise on screen (y down): CONFIGURATION_BITS b2 says which
                           // way faces forward
  unsigned implicit_varyings = 0;  // hardware-generated varyings ahead of the vertices': 2 for points, 1 for lines
  std::vector<FragmentBatch> batches;
};
using TriangleSetup = PrimitiveSetup;

// Rasterises the triangle inside `clip`; `flat` has bit k set for a flat-shaded varying k. A triangle of zero area
// gives no batches. Coordinates within +-2^30 (1/16 pixel) are safe (64-bit edge functions); the tile renderer passes
// the 16-bit shaded positions plus the viewport offset.
TriangleSetup rasterise_triangle(const std::array<ShadedVertex, 3>& in, const PixelRect& clip, std::uint32_t flat,
                                 bool multisample = false);

// Rasterises a point: the pixels whose centres lie in the square of side `size` pixels centred on the vertex (OpenGL
// ES 2.0 section 3.3), with the vertex's Z, W and varyings over the whole square (`flat` changes nothing), after the
// two point coordinates. Nothing for the sizes above, a non-finite Z or 1/W, 1/W zero, or X or Y beyond +-2^24.
PrimitiveSetup rasterise_point(const ShadedVertex& v, float size, const PixelRect& clip, std::uint32_t flat,
                               bool multisample = false);

// Rasterises a line as the rectangle of `width` pixels centred on the segment a -> b, its ends square through a and
// b (the Vulkan "strict lines" rule, which Mesa's v3dv reports for V3D 4.x, vc4's successor; OpenGL ES's
// non-antialiased wide lines are parallelograms instead and its diamond-exit rule for width 1 differs on diagonals:
// neither is published for vc4). Z, W and the varyings are interpolated along the line, perspective-correctly for
// the varyings; flat varyings take a's value. A line has the line coordinate ahead of the vertices' varyings. Nothing
// for a zero-length line, the widths above, non-finite Z or 1/W, 1/W zero or of different signs at the two ends (W
// would pass through infinity), or X or Y beyond +-2^24.
PrimitiveSetup rasterise_line(const ShadedVertex& a, const ShadedVertex& b, float width, const PixelRect& clip,
                              std::uint32_t flat, bool multisample = false);

}  // namespace gpuvp::vc4
