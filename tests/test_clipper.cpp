// vc4::Clipper: which primitives need clipping (behind the eye plane, beyond the guard band, not finite), the clipped
// polygon (original vertices kept, new ones on the planes with coefficients that weigh the originals into them, the
// winding kept, nothing for a primitive wholly outside), bit-identical new vertices on an edge two triangles share,
// lines, the projection of a vertex to its record entry, and the record's 32-byte layout.
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/vc4/clipper.h"

namespace gpuvp::vc4 {
namespace {

using Clip = std::array<float, 4>;

// The viewport of a 256x128 frame: half width and half height in 1/16 pixel; Zs = Z/W.
ClipperViewport viewport() { return {2048, 1024, 1, 0}; }

double plane_distance_eye(const ClipPolygonVertex& v) { return v.clip[3] - Clipper::kEyePlaneW; }

// The coefficients weigh the original vertices into the polygon vertex, and sum to 1.
void expect_weighs_originals(const ClipPolygonVertex& v, const std::vector<Clip>& originals) {
  double sum = 0;
  std::array<double, 4> p{};
  for (std::size_t i = 0; i < originals.size(); ++i) {
    EXPECT_GE(v.weights[i], 0.0);
    sum += v.weights[i];
    for (unsigned k = 0; k < 4; ++k) p[k] += v.weights[i] * originals[i][k];
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  for (unsigned k = 0; k < 4; ++k) EXPECT_NEAR(p[k], v.clip[k], 1e-9) << k;
}

// Twice the signed area of the projected polygon (x right, y down).
double projected_area(const std::vector<std::array<double, 2>>& p) {
  double a = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto& u = p[i];
    const auto& v = p[(i + 1) % p.size()];
    a += u[0] * v[1] - v[0] * u[1];
  }
  return a;
}

TEST(Clipper, OnlyPrimitivesBehindTheEyeBeyondTheGuardBandOrNotFiniteNeedClipping) {
  const ClipperViewport vp = viewport();
  const std::array<Clip, 3> inside{{{-0.5F, -0.5F, 0.5F, 1}, {0.5F, -0.5F, 0.5F, 2}, {0, 0.5F, 0.5F, 1}}};
  EXPECT_FALSE(Clipper::needs_clipping(inside.data(), 3, vp));
  // Outside the view volume but inside the guard band (x/w = 10: 20480 of 32767): no new vertices needed.
  std::array<Clip, 3> wide = inside;
  wide[0] = {10, 0, 0, 1};
  EXPECT_FALSE(Clipper::needs_clipping(wide.data(), 3, vp));
  // x/w = 16 x 2048 = 32768 sixteenths: one beyond the largest signed 16-bit value.
  wide[0] = {16, 0, 0, 1};
  EXPECT_TRUE(Clipper::needs_clipping(wide.data(), 3, vp));
  wide[0] = {0, -32, 0, 1};  // y: 32 x 1024
  EXPECT_TRUE(Clipper::needs_clipping(wide.data(), 3, vp));
  std::array<Clip, 3> behind = inside;
  behind[2][3] = -1;
  EXPECT_TRUE(Clipper::needs_clipping(behind.data(), 3, vp));
  behind[2] = {0, 0, 0, 0};  // on the eye
  EXPECT_TRUE(Clipper::needs_clipping(behind.data(), 3, vp));
  std::array<Clip, 3> nan = inside;
  nan[1][2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(Clipper::needs_clipping(nan.data(), 3, vp));
  EXPECT_TRUE(Clipper::clip(nan.data(), 3, vp).empty());
  // Only the first n vertices count.
  EXPECT_FALSE(Clipper::needs_clipping(behind.data(), 2, vp));
}

TEST(Clipper, ATriangleWithAVertexBehindTheEyeBecomesAQuadrilateralInFront) {
  const std::vector<Clip> v = {{-0.5F, 0.5F, 0.5F, 1}, {0.5F, 0.5F, 0.5F, 1}, {0, -3, -1, -2}};
  const std::vector<ClipPolygonVertex> poly = Clipper::clip(v.data(), 3, viewport());
  // The eye plane cuts edges 1-2 and 2-0 near W = 0, far off screen; the guard band then cuts those thin wedges.
  ASSERT_GE(poly.size(), 4u);
  ASSERT_LE(poly.size(), Clipper::kMaxPolygon);
  unsigned originals = 0;
  for (const ClipPolygonVertex& p : poly) {
    expect_weighs_originals(p, v);
    EXPECT_GE(plane_distance_eye(p), -1e-12);
    EXPECT_LE(std::fabs(p.clip[0]) * 2048, Clipper::kGuardBand * p.clip[3] * (1 + 1e-9));
    EXPECT_LE(std::fabs(p.clip[1]) * 1024, Clipper::kGuardBand * p.clip[3] * (1 + 1e-9));
    EXPECT_NE(p.original, 2);
    if (p.original >= 0) {
      ++originals;
      EXPECT_EQ(p.weights[static_cast<std::size_t>(p.original)], 1.0);
      for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(p.clip[k], v[static_cast<std::size_t>(p.original)][k]);
    }
  }
  EXPECT_EQ(originals, 2u);
}

TEST(Clipper, ATriangleWhollyBehindTheEyeOrOutsideOneGuardPlaneLeavesNothing) {
  const std::vector<Clip> behind = {{0, 0, 0, -1}, {1, 0, 0, -1}, {0, 1, 0, -2}};
  EXPECT_TRUE(Clipper::clip(behind.data(), 3, viewport()).empty());
  const std::vector<Clip> right = {{20, 0, 0, 1}, {30, 0, 0, 1}, {25, 1, 0, 1}};
  EXPECT_TRUE(Clipper::clip(right.data(), 3, viewport()).empty());
}

TEST(Clipper, GuardBandClippingKeepsTheWindingAndTheVisiblePart) {
  // In front of the eye, one vertex 40 half-widths to the right; clockwise on screen (y down).
  const std::vector<Clip> v = {{-0.5F, -0.5F, 0, 1}, {40, 0, 0, 1}, {-0.5F, 0.5F, 0, 1}};
  const std::vector<ClipPolygonVertex> poly = Clipper::clip(v.data(), 3, viewport());
  ASSERT_EQ(poly.size(), 4u);  // the guard plane x = 32767 / 2048 w cuts off the far vertex
  std::vector<std::array<double, 2>> screen;
  for (const ClipPolygonVertex& p : poly) {
    expect_weighs_originals(p, v);
    EXPECT_NE(p.original, 1);
    screen.push_back({p.clip[0] / p.clip[3], p.clip[1] / p.clip[3]});
  }
  const std::vector<std::array<double, 2>> original = {{-0.5, -0.5}, {40, 0}, {-0.5, 0.5}};
  EXPECT_GT(projected_area(original), 0);
  EXPECT_GT(projected_area(screen), 0);
  // Each triangle of the fan (P0, Pi, Pi+1) keeps it too.
  for (std::size_t i = 1; i + 1 < screen.size(); ++i)
    EXPECT_GT(projected_area({screen[0], screen[i], screen[i + 1]}), 0);
}

TEST(Clipper, TwoTrianglesSharingAnEdgeGetTheSameNewVertexOnIt) {
  // Edge a-b crosses the eye plane; the triangles (a, b, c) and (b, a, d) run it in opposite directions.
  const Clip a{0.25F, 0.5F, 0.1F, 1}, b{0.1F, -2, 0.3F, -1}, c{-0.5F, 0.5F, 0, 1}, d{0.75F, 0.25F, 0.2F, 2};
  const std::vector<Clip> first = {a, b, c}, second = {b, a, d};
  const std::vector<ClipPolygonVertex> p = Clipper::clip(first.data(), 3, viewport());
  const std::vector<ClipPolygonVertex> q = Clipper::clip(second.data(), 3, viewport());
  // The new vertices on a-b: weights only on the two shared vertices.
  const auto on_ab = [](const std::vector<ClipPolygonVertex>& poly, unsigned third) {
    std::vector<std::array<double, 4>> found;
    for (const ClipPolygonVertex& v : poly) {
      if (v.original < 0 && v.weights[third] == 0) found.push_back(v.clip);
    }
    return found;
  };
  const auto from_first = on_ab(p, 2), from_second = on_ab(q, 2);
  ASSERT_FALSE(from_first.empty());
  ASSERT_EQ(from_first.size(), from_second.size());
  for (const auto& x : from_first) {
    bool same = false;
    for (const auto& y : from_second) same = same || std::memcmp(x.data(), y.data(), sizeof x) == 0;
    EXPECT_TRUE(same) << x[0] << " " << x[1] << " " << x[3];
  }
}

TEST(Clipper, ALineKeepsItsFrontEndAndEndsOnThePlanes) {
  const std::vector<Clip> v = {{-0.5F, 0, 0.5F, 1}, {-8, 0, 0.5F, -1}};
  const std::vector<ClipPolygonVertex> seg = Clipper::clip(v.data(), 2, viewport());
  ASSERT_EQ(seg.size(), 2u);
  EXPECT_EQ(seg[0].original, 0);
  EXPECT_EQ(seg[1].original, -1);
  expect_weighs_originals(seg[1], v);
  // The far end projects to x/w = +8 from behind the eye, so the part in front runs away from it to -x: the guard
  // band's left plane ends it.
  EXPECT_NEAR(seg[1].clip[0] / seg[1].clip[3] * 2048, -Clipper::kGuardBand, 1e-6);
  const std::vector<Clip> behind = {{0, 0, 0, -1}, {1, 0, 0, -1}};
  EXPECT_TRUE(Clipper::clip(behind.data(), 2, viewport()).empty());
}

// The polygon's triangles keep the original vertices in their own slots where they can: with vertex 2 behind the eye
// the fan starts at vertex 0, which stays in slot 0 of every triangle, and vertex 1 stays in slot 1 of the one that
// has it; only new vertices are flagged for the record. A segment keeps its front end in its slot.
TEST(Clipper, PartsKeepTheOriginalVerticesInTheirOwnSlots) {
  const std::vector<Clip> v = {{-0.5F, 0.5F, 0.5F, 1}, {0.5F, 0.5F, 0.5F, 1}, {0, -3, -1, -2}};
  const std::vector<ClipPolygonVertex> poly = Clipper::clip(v.data(), 3, viewport());
  const std::vector<ClippedPart> parts = Clipper::parts(poly, 3);
  ASSERT_EQ(parts.size(), poly.size() - 2);
  unsigned with_vertex_1 = 0, flagged = 0;
  std::vector<std::array<double, 2>> screen_area;
  for (const ClippedPart& p : parts) {
    EXPECT_EQ(p.flags & 1U, 0u);
    EXPECT_EQ(poly[p.vertex[0]].original, 0);
    if ((p.flags & 2U) == 0) {
      ++with_vertex_1;
      EXPECT_EQ(poly[p.vertex[1]].original, 1);
    }
    for (unsigned j = 0; j < 3; ++j) {
      const bool is_original_j = poly[p.vertex[j]].original == static_cast<int>(j);
      EXPECT_EQ(((p.flags >> j) & 1U) == 0, is_original_j) << j;
      flagged += ((p.flags >> j) & 1U);
    }
    // Winding: every part turns the way the visible front edge (vertex 0 to vertex 1) does.
    std::vector<std::array<double, 2>> tri;
    for (unsigned j = 0; j < 3; ++j) {
      const ClipPolygonVertex& q = poly[p.vertex[j]];
      tri.push_back({q.clip[0] / q.clip[3], q.clip[1] / q.clip[3]});
    }
    EXPECT_LT(projected_area(tri), 0);
  }
  EXPECT_EQ(with_vertex_1, 1u);
  // The record holds the new vertices only: the polygon's new ones, each once per triangle it belongs to.
  EXPECT_EQ(flagged, 3 * parts.size() - parts.size() - 1);
  const std::vector<Clip> line = {{-0.5F, 0, 0.5F, 1}, {-8, 0, 0.5F, -1}};
  const std::vector<ClippedPart> segment = Clipper::parts(Clipper::clip(line.data(), 2, viewport()), 2);
  ASSERT_EQ(segment.size(), 1u);
  EXPECT_EQ(segment[0].flags, 2u);
}

TEST(Clipper, ProjectionGivesTheRecordEntry) {
  ClipPolygonVertex v;
  v.clip = {0.75, -0.5, 0.5, 2};
  v.weights = {0.25, 0.25, 0.5};
  ClippedVertexRecord r;
  ASSERT_TRUE(Clipper::project(v, {2048, 1024, 0.5F, 0.25F}, r));
  EXPECT_EQ(r.xs, 768);   // 0.375 x 2048
  EXPECT_EQ(r.ys, -256);  // -0.25 x 1024
  EXPECT_EQ(r.zs, 0.375F);
  EXPECT_EQ(r.inv_wc, 0.5F);
  EXPECT_EQ(r.weights[2], 0.5F);
  // Truncated toward zero, as ftoi.
  v.clip = {-0.0003, 0, 0, 1};
  ASSERT_TRUE(Clipper::project(v, viewport(), r));
  EXPECT_EQ(r.xs, 0);
  // Behind the eye, or a Z that is not finite: no entry.
  v.clip = {0, 0, 0, 0};
  EXPECT_FALSE(Clipper::project(v, viewport(), r));
  v.clip = {0, 0, 1, 1};
  EXPECT_FALSE(Clipper::project(v, {2048, 1024, std::numeric_limits<float>::infinity(), 0}, r));
}

TEST(Clipper, TheRecordEntryIs32BytesLittleEndian) {
  ClippedVertexRecord r;
  r.xs = -2;
  r.ys = 0x1234;
  r.zs = 0.5F;
  r.inv_wc = 2.0F;
  r.weights = {0.25F, 0.75F, 0};
  std::array<std::uint8_t, 32> bytes;
  bytes.fill(0xAA);
  Clipper::encode(r, bytes.data());
  const std::array<std::uint8_t, 32> want = {0xFE, 0xFF, 0x34, 0x12, 0, 0, 0, 0x3F, 0, 0, 0, 0x40, 0, 0, 0x80, 0x3E,
                                             0,    0,    0x40, 0x3F, 0, 0, 0, 0,    0, 0, 0, 0,    0, 0, 0,    0};
  EXPECT_EQ(bytes, want);
  const ClippedVertexRecord back = Clipper::decode(bytes.data());
  EXPECT_EQ(back.xs, -2);
  EXPECT_EQ(back.ys, 0x1234);
  EXPECT_EQ(back.zs, 0.5F);
  EXPECT_EQ(back.inv_wc, 2.0F);
  EXPECT_EQ(back.weights, r.weights);
}

}  // namespace
}  // namespace gpuvp::vc4
