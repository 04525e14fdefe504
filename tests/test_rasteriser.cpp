// vc4::rasterise_triangle: coverage by rule (exact pixel counts of axis-aligned rectangles split into two triangles,
// each pixel of a shared edge covered once, a guard band elsewhere), the clip rectangle, facing, degenerate
// triangles, the batch layout (four 2x2 quads, element bits), Z as 24 bits, and W and the varyings' partial values and
// C giving, through the shader's partial * W + C, the perspective-correct values the test computes from the vertices.
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include <gtest/gtest.h>

#include "tlm/vc4/rasteriser.h"

namespace gpuvp::vc4 {
namespace {

float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

ShadedVertex at(double x, double y, float z = 0.5F, float inv_w = 1.0F, std::vector<float> varyings = {}) {
  ShadedVertex v;
  v.x = static_cast<std::int32_t>(std::lround(x * 16));
  v.y = static_cast<std::int32_t>(std::lround(y * 16));
  v.z = z;
  v.inv_w = inv_w;
  v.varyings = std::move(varyings);
  return v;
}

// How many times each pixel is covered by the triangles.
std::map<std::pair<int, int>, int> coverage(const std::vector<TriangleSetup>& setups) {
  std::map<std::pair<int, int>, int> hits;
  for (const TriangleSetup& s : setups) {
    for (const FragmentBatch& b : s.batches) {
      for (unsigned e = 0; e < 16; ++e) {
        if (((b.covered >> e) & 1U) != 0) ++hits[{static_cast<int>(b.x[e]), static_cast<int>(b.y[e])}];
      }
    }
  }
  return hits;
}

constexpr PixelRect kTile{0, 0, 64, 64};

// A rectangle from (8, 4) to (24, 12) as two triangles sharing a diagonal: exactly 16 x 8 pixels, each once,
// whichever way the triangles run. Moved by half a pixel, every edge passes through pixel centres (the diagonal
// through 8 of them): the top-left rule keeps the left column and top row, drops the right and bottom ones, and gives
// each centre on the diagonal to one triangle.
TEST(Rasteriser, TwoTrianglesOfARectangleCoverEachOfItsPixelsOnce) {
  for (const auto& [reversed, o] :
       {std::pair{false, 0.0}, std::pair{true, 0.0}, std::pair{false, 0.5}, std::pair{true, 0.5}}) {
    std::array<ShadedVertex, 3> a = {at(8 + o, 4 + o), at(24 + o, 4 + o), at(8 + o, 12 + o)};
    std::array<ShadedVertex, 3> b = {at(24 + o, 4 + o), at(24 + o, 12 + o), at(8 + o, 12 + o)};
    if (reversed) {
      std::swap(a[1], a[2]);
      std::swap(b[1], b[2]);
    }
    const auto hits = coverage({rasterise_triangle(a, kTile, 0), rasterise_triangle(b, kTile, 0)});
    EXPECT_EQ(hits.size(), 16u * 8u);
    for (const auto& [pixel, count] : hits) {
      EXPECT_EQ(count, 1) << pixel.first << "," << pixel.second;
      EXPECT_GE(pixel.first, 8);
      EXPECT_LT(pixel.first, 24);
      EXPECT_GE(pixel.second, 4);
      EXPECT_LT(pixel.second, 12);
    }
  }
}

// A triangle of sub-pixel vertices: interior pixels (centres well inside) covered, pixels well outside not; within a
// pixel of an edge the fill rule decides (not checked).
TEST(Rasteriser, InteriorPixelsAreCoveredAndOutsidePixelsAreNot) {
  const std::array<ShadedVertex, 3> t = {at(2.3, 1.7), at(40.6, 9.1), at(12.2, 50.8)};
  const auto hits = coverage({rasterise_triangle(t, kTile, 0)});
  const auto side = [](double ax, double ay, double bx, double by, double px, double py) {
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  };
  unsigned checked = 0;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      // Distance of the pixel centre from each edge, in pixels (positive inside: the triangle runs clockwise).
      double nearest = 1e9;
      const double pts[3][2] = {{2.3, 1.7}, {40.6, 9.1}, {12.2, 50.8}};
      for (unsigned i = 0; i < 3; ++i) {
        const double* a = pts[i];
        const double* b = pts[(i + 1) % 3];
        const double d = side(a[0], a[1], b[0], b[1], x + 0.5, y + 0.5) / std::hypot(b[0] - a[0], b[1] - a[1]);
        nearest = std::min(nearest, d);
      }
      if (std::abs(nearest) < 1.0) continue;  // the guard band
      ++checked;
      EXPECT_EQ(hits.count({x, y}), nearest > 0 ? 1u : 0u) << x << "," << y;
    }
  }
  EXPECT_GT(checked, 3000u);
}

TEST(Rasteriser, TheClipRectangleBoundsTheFragmentsAndFacingFollowsTheWinding) {
  const std::array<ShadedVertex, 3> big = {at(-100, -100), at(300, -100), at(-100, 300)};
  const TriangleSetup s = rasterise_triangle(big, PixelRect{64, 0, 128, 32}, 0);
  const auto hits = coverage({s});
  EXPECT_EQ(hits.size(), 64u * 32u);  // the whole rectangle is inside the triangle
  EXPECT_EQ(hits.begin()->first, (std::pair<int, int>{64, 0}));
  EXPECT_EQ(hits.rbegin()->first, (std::pair<int, int>{127, 31}));
  EXPECT_TRUE(s.clockwise);  // right along the top, then down-left: clockwise with y down
  const std::array<ShadedVertex, 3> other = {big[0], big[2], big[1]};
  EXPECT_FALSE(rasterise_triangle(other, kTile, 0).clockwise);
  EXPECT_EQ(s.batches.size(), 64u * 32u / 16u);  // full batches of four quads
}

TEST(Rasteriser, DegenerateTrianglesAndEmptyClipsGiveNoFragments) {
  EXPECT_TRUE(rasterise_triangle({at(1, 1), at(10, 10), at(20, 20)}, kTile, 0).batches.empty());
  EXPECT_TRUE(rasterise_triangle({at(5, 5), at(5, 5), at(30, 2)}, kTile, 0).batches.empty());
  EXPECT_TRUE(rasterise_triangle({at(0, 0), at(30, 0), at(0, 30)}, PixelRect{40, 40, 64, 64}, 0).batches.empty());
  EXPECT_TRUE(rasterise_triangle({at(0, 0), at(30, 0), at(0, 30)}, PixelRect{10, 10, 10, 20}, 0).batches.empty());
}

// A 4x2-pixel rectangle is two quads side by side: one batch, elements 0-7 covered, element bits = quad pixels.
TEST(Rasteriser, ABatchIsFourQuadsWithElementBitsForXAndY) {
  const std::array<ShadedVertex, 3> a = {at(4, 2), at(8, 2), at(4, 4)};
  const std::array<ShadedVertex, 3> b = {at(8, 2), at(8, 4), at(4, 4)};
  const TriangleSetup sa = rasterise_triangle(a, kTile, 0);
  const TriangleSetup sb = rasterise_triangle(b, kTile, 0);
  ASSERT_EQ(sa.batches.size(), 1u);
  ASSERT_EQ(sb.batches.size(), 1u);
  EXPECT_EQ(sa.batches[0].covered | sb.batches[0].covered, 0x00FF);
  EXPECT_EQ(sa.batches[0].covered & sb.batches[0].covered, 0);
  for (unsigned e = 0; e < 8; ++e) {
    EXPECT_EQ(sa.batches[0].x[e], 4 + 2 * (e >> 2) + (e & 1U)) << e;
    EXPECT_EQ(sa.batches[0].y[e], 2 + ((e >> 1) & 1U)) << e;
  }
}

// Z is linear in screen space, as 24 bits; with every 1/W equal, W is that and the varyings are affine: partial * W + C
// is the plane through the vertices' values.
TEST(Rasteriser, ZAndAffineVaryingsAtPixelCentres) {
  const std::array<ShadedVertex, 3> t = {at(0, 0, 0.0F, 0.5F, {1.0F, 10.0F}), at(32, 0, 1.0F, 0.5F, {3.0F, 10.0F}),
                                         at(0, 32, 0.5F, 0.5F, {5.0F, 10.0F})};
  const TriangleSetup s = rasterise_triangle(t, kTile, 0b10);  // varying 1 flat
  unsigned checked = 0;
  for (const FragmentBatch& b : s.batches) {
    ASSERT_EQ(b.partial.size(), 2u);
    for (unsigned e = 0; e < 16; ++e) {
      if (((b.covered >> e) & 1U) == 0) continue;
      const double x = b.x[e] + 0.5, y = b.y[e] + 0.5;
      EXPECT_EQ(as_float(b.w[e]), 2.0F);
      EXPECT_EQ(b.z[e], static_cast<std::uint32_t>(std::llround((x / 32 + y / 64) * 0xFFFFFF))) << x << "," << y;
      const float w = as_float(b.w[e]);
      const double v0 = as_float(b.partial[0][e]) * w + as_float(b.c[0][e]);
      EXPECT_NEAR(v0, 1.0 + 2.0 * x / 32 + 4.0 * y / 32, 1e-5) << x << "," << y;
      EXPECT_EQ(as_float(b.partial[1][e]) * w + as_float(b.c[1][e]), 10.0F);
      ++checked;
    }
  }
  EXPECT_GT(checked, 400u);
}

// Perspective: vertices at different depths (1/W 1, 1/4, 1/2); the value the shader computes is the perspective-
// correct one, (sum l_i v_i / w_i) / (sum l_i / w_i) with l the screen-space barycentrics the test computes.
TEST(Rasteriser, VaryingsArePerspectiveCorrect) {
  const double px[3] = {2, 60, 10}, py[3] = {3, 20, 58}, q[3] = {1.0, 0.25, 0.5}, val[3] = {-4.0, 8.0, 100.0};
  std::array<ShadedVertex, 3> t;
  for (unsigned i = 0; i < 3; ++i) {
    t[i] = at(px[i], py[i], 0.5F, static_cast<float>(q[i]), {static_cast<float>(val[i])});
  }
  const TriangleSetup s = rasterise_triangle(t, kTile, 0);
  const double det = (px[1] - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (py[1] - py[0]);
  unsigned checked = 0;
  for (const FragmentBatch& b : s.batches) {
    for (unsigned e = 0; e < 16; ++e) {
      if (((b.covered >> e) & 1U) == 0) continue;
      const double x = b.x[e] + 0.5, y = b.y[e] + 0.5;
      const double l1 = ((x - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (y - py[0])) / det;
      const double l2 = ((px[1] - px[0]) * (y - py[0]) - (x - px[0]) * (py[1] - py[0])) / det;
      const double l[3] = {1 - l1 - l2, l1, l2};
      double num = 0, den = 0;
      for (unsigned i = 0; i < 3; ++i) {
        num += l[i] * val[i] * q[i];
        den += l[i] * q[i];
      }
      const float w = as_float(b.w[e]);
      EXPECT_NEAR(w, 1.0 / den, 1e-4 / den) << x << "," << y;
      EXPECT_NEAR(as_float(b.partial[0][e]) * w + as_float(b.c[0][e]), num / den, 1e-3) << x << "," << y;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);
}

}  // namespace
}  // namespace gpuvp::vc4
