// Clipper: the V3D binner's clipping of primitives into new vertices, SystemC-free. A primitive of the GL shader
// state with the record's clipping flag (or NV state with the flag and the clip header) that has a vertex behind the
// eye, or outside the guard band that the 16-bit
// screen coordinates can hold, is clipped in clip space into a convex polygon; each triangle of that polygon goes to
// the tile lists as a CLIPPED_COMPRESSED_PRIMITIVE whose record ("Single Clipped Primitive Data") holds, for every
// vertex that is not one of the original primitive's, its screen position, Zs, 1/Wc and three coefficients of the
// original vertices. The renderer shades the original vertices only and takes a clipped vertex's varyings as the
// coefficients' sum of theirs. Facts: docs/vc4-v3d.md "The clipper" (the Broadcom guide's Tables 38, 44 and 45; Mesa
// vc4_emit.c: the hardware does guard-band clipping in x and y; Fig. 11: XS/YS are signed 12.4 relative to the
// viewport centre).
//
// Modelling choices where no source gives the hardware's rule (docs/vc4-v3d.md lists them as unknown):
// - the planes: Wc >= kEyePlaneW (the exact eye plane is unpublished; W = 0 would make 1/Wc infinite) and the guard
//   band |Xc/Wc x X scale| <= kGuardBand and |Yc/Wc x Y scale| <= kGuardBand (CLIPPER_XY_SCALING, 1/16 pixel), the
//   largest that fits a signed 16-bit XS/YS. Z is not clipped here: Zs per pixel is the depth test's business;
// - Sutherland-Hodgman clipping in that order of planes; the polygon is split into a fan (P0, Pi, Pi+1) from an
//   original vertex when one is left (vertex 0 first), and each triangle's vertices take the cyclic rotation that
//   puts the most original vertices in their own slots (cyclic: the winding is kept), so the record holds new vertices
//   where it can and the originals keep the shader's values; an edge's crossing is always computed from its inside
//   end, so two triangles sharing the edge get the same new vertex;
// - the coefficients are clip-space (barycentric in Xc..Wc), so the varyings stay perspective-correct through the
//   rasteriser's 1/W; XS/YS are Xc/Wc x scale truncated toward zero (as a coordinate shader's ftoi), ZS is
//   Zc/Wc x Z scale + Z offset (CLIPPER_Z_SCALE_AND_OFFSET, scale in the first word as Mesa's v3d_packet_v21.xml);
// - the record: one 32-byte entry per flagged vertex of the emitted triangle, in slot order; flag bit j (bits 2:0 of
//   the word) says slot j comes from the record, otherwise slot j is the original vertex j.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace gpuvp::vc4 {

// The clipper's view of the viewport (CLIPPER_XY_SCALING, CLIPPER_Z_SCALE_AND_OFFSET).
struct ClipperViewport {
  float x_scale = 0;  // 1/16 pixel per unit of Xc/Wc (half the viewport's width x 16)
  float y_scale = 0;
  float z_scale = 1;
  float z_offset = 0;
};

// A vertex of a clipped polygon: its clip coordinates and its coefficients of the original vertices (sum 1).
struct ClipPolygonVertex {
  std::array<double, 4> clip{};     // Xc, Yc, Zc, Wc
  std::array<double, 3> weights{};  // of the original vertices 0..2
  int original = -1;                // which original vertex this is, -1 for a new one
};

// A triangle of a clipped polygon (or a line's segment) as it goes to the tiles: the polygon's vertex in each slot,
// and the slots whose vertex is not the original primitive's vertex of that slot (bit j: slot j comes from the
// record).
struct ClippedPart {
  std::array<std::size_t, 3> vertex{};
  unsigned flags = 0;
};

// One entry of a clipped primitive's record (Table 44: 32 bytes).
struct ClippedVertexRecord {
  std::int16_t xs = 0;  // 1/16 pixel relative to the viewport centre
  std::int16_t ys = 0;
  float zs = 0;
  float inv_wc = 0;
  std::array<float, 3> weights{};
};

class Clipper {
 public:
  static constexpr double kEyePlaneW = 1.0 / 65536;
  static constexpr double kGuardBand = 32767;  // 1/16 pixel
  static constexpr unsigned kRecordBytes = 32;
  // The largest polygon clipping a triangle against five planes gives.
  static constexpr unsigned kMaxPolygon = 8;

  // True when a primitive of `n` vertices (1 to 3) needs clipping: some vertex is behind the eye plane or outside
  // the guard band, or has a coordinate that is not finite.
  static bool needs_clipping(const std::array<float, 4>* clip, unsigned n, const ClipperViewport& viewport);

  // Clips a triangle (n = 3, a convex polygon of 3 to kMaxPolygon vertices or nothing) or a line (n = 2, a segment
  // or nothing). Nothing as well when a coordinate is not finite.
  static std::vector<ClipPolygonVertex> clip(const std::array<float, 4>* clip, unsigned n,
                                             const ClipperViewport& viewport);

  // The triangles of a clipped triangle's polygon, or the segment of a clipped line (n = 2), slot by slot.
  static std::vector<ClippedPart> parts(const std::vector<ClipPolygonVertex>& polygon, unsigned n);

  // The record entry of a polygon vertex; false when its screen position or Z is not finite.
  static bool project(const ClipPolygonVertex& v, const ClipperViewport& viewport, ClippedVertexRecord& out);

  static void encode(const ClippedVertexRecord& r, std::uint8_t* out);  // kRecordBytes bytes, the unused 8 zero
  static ClippedVertexRecord decode(const std::uint8_t* in);
};

}  // namespace gpuvp::vc4
