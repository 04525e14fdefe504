// Rasteriser: the V3D front end's triangle setup and scan conversion, SystemC-free. It turns a triangle of shaded
// vertices (X and Y in 1/16 pixel, Zs, 1/Wc and the varyings, as the NV shaded vertex format and the vertex shader's
// output hold them: ../shared/docs/reference-vc4.md section 1, reference-vc4-qpu.md 5.4) into batches of 16 fragments,
// four 2x2 quads each, with what a fragment shader receives (reference-vc4-qpu.md 5.2): the pixel coordinates, W, Z as
// a 24-bit integer and, per varying, the partial value A * (x - x0) + B * (y - y0) with its C, so that the shader's
// partial * W + C is the perspective-correct value. Element e of a batch is pixel (e & 1, (e >> 1) & 1) of quad e >> 2
// (Mesa's fddx/fddy rotations).
//
// Choices where no public source gives the hardware's rule (reference-vc4-qpu.md 5.5: the fill rule, sub-pixel
// snapping and the multisample positions are unpublished; tests keep a 1-pixel guard band at edges):
// - a pixel is covered when its centre (x + 1/2, y + 1/2) is inside the triangle, with a top-left rule for centres
//   exactly on an edge (y grows downwards: row 0 is the first in memory), so that triangles sharing an edge cover each
//   pixel along it once;
// - edge functions are exact in 64-bit integers on the 1/16-pixel grid; W, Z and the varyings in float;
// - Z is interpolated linearly in screen space (Zs is already divided by W) and given as round(Zs * 0xFFFFFF)
//   clamped to [0, 0xFFFFFF] (Mesa reads FragCoord.z as itof(rb15) / 0xFFFFFF);
// - flat-shaded varyings take the first vertex's value (the provoking vertex is not documented);
// - quads are visited row by row of quads from the top-left of the clip rectangle; a batch takes the next four quads
//   with at least one covered pixel, the last batch of a triangle may hold fewer.
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
};

// The pixels a triangle may cover: the tile clipped by the clip window, [x0, x1) x [y0, y1) in pixels.
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct FragmentBatch {
  qpu::Vector x{}, y{};       // pixel coordinates (raddr 41)
  qpu::Vector w{};            // float bits (ra15)
  qpu::Vector z{};            // 24-bit integers (rb15)
  std::uint16_t covered = 0;  // bit e: element e is a covered pixel
  // Per varying: the partial values (raddr 35) and C (r5), as float bits.
  std::vector<qpu::Vector> partial, c;
};

struct TriangleSetup {
  bool clockwise =
      false;  // its vertices run clockwise on screen (y down): CONFIGURATION_BITS b2 says which way faces forward
  std::vector<FragmentBatch> batches;
};

// Rasterises the triangle inside `clip`; `flat` has bit k set for a flat-shaded varying k. A triangle of zero area
// gives no batches. Coordinates within +-2^30 (1/16 pixel) are safe (64-bit edge functions); the tile renderer passes
// the 16-bit shaded positions plus the viewport offset.
TriangleSetup rasterise_triangle(const std::array<ShadedVertex, 3>& in, const PixelRect& clip, std::uint32_t flat);

}  // namespace gpuvp::vc4
