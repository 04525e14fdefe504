// vc4::rasterise_triangle: coverage by rule (exact pixel counts of axis-aligned rectangles split into two triangles,
// each pixel of a shared edge covered once, a guard band elsewhere), the clip rectangle, facing, degenerate
// triangles, the batch layout (four 2x2 quads, element bits), Z as 24 bits, and W and the varyings' partial values and
// C giving, through the shader's partial * W + C, the perspective-correct values the test computes from the vertices.
// vc4::rasterise_point and rasterise_line: exact pixel counts of axis-aligned points and lines, the top-left rule on
// their edges, oblique lines against a guard band, clipping (huge sizes too), constant varyings on points, varyings
// interpolated along lines, flat varyings, the implicit point and line coordinates, and hostile inputs that give
// nothing.
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
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

// ---- points and lines ----

// The value the fragment shader computes for varying k of element e: partial * W + C, in float as the QPU does.
float shaded(const FragmentBatch& b, std::size_t k, unsigned e) {
  return as_float(b.partial[k][e]) * as_float(b.w[e]) + as_float(b.c[k][e]);
}

std::set<std::pair<int, int>> pixels(const PrimitiveSetup& s) {
  std::set<std::pair<int, int>> out;
  for (const auto& [pixel, count] : coverage({s})) {
    EXPECT_EQ(count, 1) << pixel.first << "," << pixel.second;
    out.insert(pixel);
  }
  return out;
}

// The pixels [x0, x1) x [y0, y1).
std::set<std::pair<int, int>> block(int x0, int y0, int x1, int y1) {
  std::set<std::pair<int, int>> out;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) out.insert({x, y});
  }
  return out;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// OpenGL ES 2.0 3.3: the pixels whose centres lie in the square of side `size` centred on the point. A centre on the
// left or top side is in, on the right or bottom side out, so a size-n point covers n x n pixels wherever it is.
TEST(Rasteriser, PointsCoverThePixelsWhoseCentresLieInTheirSquare) {
  EXPECT_EQ(pixels(rasterise_point(at(8, 8), 4, kTile, 0)), block(6, 6, 10, 10));  // 16 pixels around a corner
  EXPECT_EQ(pixels(rasterise_point(at(8.5, 8.5), 1, kTile, 0)), block(8, 8, 9, 9));
  EXPECT_EQ(pixels(rasterise_point(at(8, 8), 1, kTile, 0)), block(7, 7, 8, 8));  // centres on the left and top sides
  EXPECT_EQ(pixels(rasterise_point(at(8.5, 8.5), 2, kTile, 0)), block(7, 7, 9, 9));
  EXPECT_EQ(pixels(rasterise_point(at(8.5, 8.5), 3, kTile, 0)), block(7, 7, 10, 10));
  EXPECT_EQ(pixels(rasterise_point(at(8.5, 8.5), 0.25F, kTile, 0)), block(8, 8, 9, 9));  // below 1 counts as 1
  for (int size = 1; size <= 9; ++size) {
    for (int sub = 0; sub < 16; sub += 3) {
      const double x = 20 + sub / 16.0, y = 30 - sub / 16.0;
      const auto covered = pixels(rasterise_point(at(x, y), static_cast<float>(size), kTile, 0));
      EXPECT_EQ(covered.size(), static_cast<std::size_t>(size * size)) << size << " at " << x << "," << y;
      for (const auto& [px, py] : covered) {
        EXPECT_LE(std::abs(px + 0.5 - x), size / 2.0) << px << "," << py;
        EXPECT_LE(std::abs(py + 0.5 - y), size / 2.0) << px << "," << py;
      }
    }
  }
  // A 2.5-pixel point at a pixel centre: centres within 1.25 of it, i.e. 3 x 3.
  EXPECT_EQ(pixels(rasterise_point(at(30.5, 30.5), 2.5F, kTile, 0)), block(29, 29, 32, 32));
}

// Z, W and the varyings are the vertex's over the whole point; the two point coordinates lead the varyings:
// point_x = 1/2 + (x - x_v) / size, point_y = 1/2 - (y - y_v) / size at the pixel centre.
TEST(Rasteriser, PointsCarryTheVertexValuesAfterThePointCoordinates) {
  const ShadedVertex v = at(16, 12, 0.25F, 0.25F, {3.5F, -7.0F});
  const PrimitiveSetup s = rasterise_point(v, 8, kTile, 0b10);
  EXPECT_FALSE(s.clockwise);
  EXPECT_EQ(s.implicit_varyings, 2u);
  unsigned checked = 0;
  for (const FragmentBatch& b : s.batches) {
    ASSERT_EQ(b.partial.size(), 4u);
    ASSERT_EQ(b.c.size(), 4u);
    for (unsigned e = 0; e < 16; ++e) {
      if (((b.covered >> e) & 1U) == 0) continue;
      const double x = b.x[e] + 0.5, y = b.y[e] + 0.5;
      EXPECT_EQ(as_float(b.w[e]), 4.0F);
      EXPECT_EQ(b.z[e], static_cast<std::uint32_t>(std::llround(0.25 * 0xFFFFFF)));
      EXPECT_NEAR(shaded(b, 0, e), 0.5 + (x - 16) / 8, 1e-5) << x << "," << y;
      EXPECT_NEAR(shaded(b, 1, e), 0.5 - (y - 12) / 8, 1e-5) << x << "," << y;
      EXPECT_EQ(shaded(b, 2, e), 3.5F);
      EXPECT_EQ(shaded(b, 3, e), -7.0F);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 64u);
  // The corner pixels' coordinates: 1/16 and 15/16 of the way across.
  const auto hits = coverage({s});
  EXPECT_EQ(hits.begin()->first, (std::pair<int, int>{12, 8}));
  EXPECT_EQ(hits.rbegin()->first, (std::pair<int, int>{19, 15}));
}

TEST(Rasteriser, PointsAreClippedAndHugeOnesCostOnlyTheClipRectangle) {
  // Side 10 around (4, 4): pixels -1..8 in each direction, clipped to x >= 2, y >= 3.
  EXPECT_EQ(pixels(rasterise_point(at(4, 4), 10, PixelRect{2, 3, 64, 64}, 0)), block(2, 3, 9, 9));
  EXPECT_TRUE(rasterise_point(at(4, 4), 10, PixelRect{20, 20, 64, 64}, 0).batches.empty());
  for (const float huge : {1e6F, 1e30F, std::numeric_limits<float>::max()}) {
    const PrimitiveSetup s = rasterise_point(at(-1000, 2000), huge, PixelRect{64, 0, 128, 32}, 0);
    EXPECT_EQ(pixels(s), block(64, 0, 128, 32)) << huge;
    EXPECT_EQ(s.batches.size(), 64u * 32u / 16u) << huge;
  }
}

TEST(Rasteriser, DegeneratePointsGiveNoFragments) {
  for (const float size : {0.0F, -0.0F, -1.0F, -kInf, kInf, kNaN, -kNaN}) {
    EXPECT_TRUE(rasterise_point(at(8, 8), size, kTile, 0).batches.empty()) << size;
  }
  for (const auto& [z, inv_w] : {std::pair{kNaN, 1.0F}, std::pair{kInf, 1.0F}, std::pair{0.5F, kNaN},
                                 std::pair{0.5F, kInf}, std::pair{0.5F, 0.0F}}) {
    EXPECT_TRUE(rasterise_point(at(8, 8, z, inv_w), 4, kTile, 0).batches.empty()) << z << " " << inv_w;
  }
  ShadedVertex far = at(8, 8);
  far.x = std::numeric_limits<std::int32_t>::min();
  EXPECT_TRUE(rasterise_point(far, 4, kTile, 0).batches.empty());
  far = at(8, 8);
  far.y = (1 << 24) + 1;
  EXPECT_TRUE(rasterise_point(far, kInf, kTile, 0).batches.empty());
  EXPECT_TRUE(rasterise_point(at(8, 8), 4, PixelRect{10, 10, 10, 20}, 0).batches.empty());
}

// Lines are rectangles of the line width centred on the segment, square at its ends; centres on the sides follow the
// top-left rule, so a line covers the same pixels either way and collinear segments of a strip share none.
TEST(Rasteriser, AxisAlignedLinesCoverExactPixelCounts) {
  const auto line = [](double ax, double ay, double bx, double by, float width) {
    const auto one_way = pixels(rasterise_line(at(ax, ay), at(bx, by), width, kTile, 0));
    EXPECT_EQ(one_way, pixels(rasterise_line(at(bx, by), at(ax, ay), width, kTile, 0)));
    return one_way;
  };
  EXPECT_EQ(line(2.5, 5.5, 10.5, 5.5, 1), block(2, 5, 10, 6));     // 8 pixels of row 5
  EXPECT_EQ(line(5.5, 2.5, 5.5, 10.5, 1), block(5, 2, 6, 10));     // 8 pixels of column 5
  EXPECT_EQ(line(2.5, 5.5, 10.5, 5.5, 2), block(2, 4, 10, 6));     // rows 4 and 5: centres 4.5 on the top side
  EXPECT_EQ(line(2, 5, 10, 5, 1), block(2, 4, 10, 5));             // along pixel edges: the row above
  EXPECT_EQ(line(2, 5, 10, 5, 3), block(2, 3, 10, 6));             // y 3.5 to 6.5: rows 3, 4, 5
  EXPECT_EQ(line(2.5, 5.5, 10.5, 5.5, 0.5F), block(2, 5, 10, 6));  // below 1 counts as 1
  EXPECT_EQ(line(3.25, 5.5, 3.75, 5.5, 1), block(3, 5, 4, 6));     // short: the one centre it passes
  EXPECT_TRUE(line(3.625, 5.5, 4.375, 5.5, 1).empty());            // no centre between x 3.625 and 4.375
  // Width n: n rows (or columns) wherever the line lies.
  for (int width = 1; width <= 6; ++width) {
    for (int sub = 0; sub < 16; sub += 5) {
      const double y = 20 + sub / 16.0;
      EXPECT_EQ(line(4, y, 14, y, static_cast<float>(width)).size(), 10u * width) << width << " at y " << y;
      EXPECT_EQ(line(y, 4, y, 14, static_cast<float>(width)).size(), 10u * width) << width << " at x " << y;
    }
  }
  // A strip of two collinear segments covers its 8 pixels once.
  const auto hits = coverage({rasterise_line(at(2.5, 5.5), at(6.5, 5.5), 1, kTile, 0),
                              rasterise_line(at(6.5, 5.5), at(10.5, 5.5), 1, kTile, 0)});
  EXPECT_EQ(hits.size(), 8u);
  for (const auto& [pixel, count] : hits) EXPECT_EQ(count, 1) << pixel.first << "," << pixel.second;
  // 45 degrees through pixel centres: the neighbours' centres are 0.71 away, outside a width of 1.
  std::set<std::pair<int, int>> diagonal;
  for (int k = 0; k < 10; ++k) diagonal.insert({k, k});
  EXPECT_EQ(line(0.5, 0.5, 10.5, 10.5, 1), diagonal);
}

// An oblique wide line: pixel centres well inside the rectangle covered, well outside not.
TEST(Rasteriser, ObliqueLinesCoverTheirRectangle) {
  const double ax = 3.3125, ay = 40.125, bx = 57.875, by = 12.625, width = 3.7;
  const auto hits = coverage({rasterise_line(at(ax, ay), at(bx, by), static_cast<float>(width), kTile, 0)});
  const double dx = bx - ax, dy = by - ay, length = std::hypot(dx, dy);
  unsigned inside = 0, checked = 0;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const double along = ((x + 0.5 - ax) * dx + (y + 0.5 - ay) * dy) / length;
      const double across = (dx * (y + 0.5 - ay) - dy * (x + 0.5 - ax)) / length;
      const double margin = std::min({along, length - along, width / 2 - std::abs(across)});
      if (std::abs(margin) < 1e-6) continue;
      ++checked;
      inside += margin > 0 ? 1 : 0;
      EXPECT_EQ(hits.count({x, y}), margin > 0 ? 1u : 0u) << x << "," << y;
    }
  }
  EXPECT_EQ(checked, 64u * 64u);
  EXPECT_GT(inside, 200u);
  EXPECT_EQ(hits.size(), inside);
}

// Z linear along the line, W = 1 / (1/W interpolated), each varying the perspective-correct blend of the two ends
// ((1 - t) v_a / w_a + t v_b / w_b) / ((1 - t) / w_a + t / w_b) with t the pixel centre's projection on the segment;
// flat varyings a's value; the line coordinate 1/2 + (distance along the normal (-dy, dx)) / width.
TEST(Rasteriser, LinesInterpolateAlongTheSegment) {
  struct Case {
    double ax, ay, bx, by;
    float width;
  };
  for (const Case& l :
       {Case{4.5, 20.5, 60.5, 20.5, 1}, Case{3.25, 7.75, 50.5, 41.0, 2.5F}, Case{40.0, 60.0, 42.0, 2.0, 4}}) {
    const double qa = 1.0, qb = 0.25, za = 0.75, zb = 0.125;
    const std::vector<float> va = {2.0F, 5.0F, -1.0F}, vb = {10.0F, -3.0F, 100.0F};
    const PrimitiveSetup s = rasterise_line(at(l.ax, l.ay, static_cast<float>(za), static_cast<float>(qa), va),
                                            at(l.bx, l.by, static_cast<float>(zb), static_cast<float>(qb), vb), l.width,
                                            kTile, 0b10);  // varying 1 flat
    EXPECT_EQ(s.implicit_varyings, 1u);
    const double dx = l.bx - l.ax, dy = l.by - l.ay, length2 = dx * dx + dy * dy;
    unsigned checked = 0;
    for (const FragmentBatch& b : s.batches) {
      ASSERT_EQ(b.partial.size(), 4u);
      for (unsigned e = 0; e < 16; ++e) {
        if (((b.covered >> e) & 1U) == 0) continue;
        const double x = b.x[e] + 0.5, y = b.y[e] + 0.5;
        const double t = ((x - l.ax) * dx + (y - l.ay) * dy) / length2;
        const double q = (1 - t) * qa + t * qb;
        EXPECT_GE(t, 0.0);
        EXPECT_LE(t, 1.0);
        EXPECT_NEAR(as_float(b.w[e]), 1 / q, 1e-5 / q) << x << "," << y;
        EXPECT_NEAR(b.z[e], (1 - t) * za * 0xFFFFFF + t * zb * 0xFFFFFF, 1.0) << x << "," << y;
        const double distance = (dx * (y - l.ay) - dy * (x - l.ax)) / std::sqrt(length2);
        EXPECT_NEAR(shaded(b, 0, e), 0.5 + distance / l.width, 1e-5) << x << "," << y;
        EXPECT_NEAR(shaded(b, 1, e), ((1 - t) * va[0] * qa + t * vb[0] * qb) / q, 1e-5) << x << "," << y;
        EXPECT_EQ(shaded(b, 2, e), va[1]) << x << "," << y;
        EXPECT_NEAR(shaded(b, 3, e), ((1 - t) * va[2] * qa + t * vb[2] * qb) / q, 1e-4) << x << "," << y;
        ++checked;
      }
    }
    EXPECT_GT(checked, 50u) << l.ax << "," << l.ay;
  }
  // Known points of the first line: t = 1/2 at pixel 32 (centre 32.5), where 1/W = 5/8 and v = (1 + 1.25) / 0.625.
  const PrimitiveSetup s =
      rasterise_line(at(4.5, 20.5, 0.5F, 1.0F, {2.0F}), at(60.5, 20.5, 0.5F, 0.25F, {10.0F}), 1, kTile, 0);
  bool found = false;
  for (const FragmentBatch& b : s.batches) {
    for (unsigned e = 0; e < 16; ++e) {
      if (((b.covered >> e) & 1U) == 0 || b.x[e] != 32 || b.y[e] != 20) continue;
      found = true;
      EXPECT_NEAR(as_float(b.w[e]), 1.6, 1e-6);
      EXPECT_NEAR(shaded(b, 1, e), 3.6, 1e-5);
    }
  }
  EXPECT_TRUE(found);
}

TEST(Rasteriser, LinesAreClippedAndHugeWidthsCostOnlyTheClipRectangle) {
  // Row 5 from x 2 to 9, clipped to x >= 4 and x < 7.
  EXPECT_EQ(pixels(rasterise_line(at(2.5, 5.5), at(10.5, 5.5), 1, PixelRect{4, 0, 7, 64}, 0)), block(4, 5, 7, 6));
  EXPECT_TRUE(rasterise_line(at(2.5, 5.5), at(10.5, 5.5), 1, PixelRect{0, 6, 64, 64}, 0).batches.empty());
  for (const float huge : {1e6F, 1e30F, std::numeric_limits<float>::max()}) {
    // As wide as everything: x 10 to 19, every row of the clip rectangle.
    EXPECT_EQ(pixels(rasterise_line(at(10, 10), at(20, 10), huge, PixelRect{0, 0, 64, 32}, 0)), block(10, 0, 20, 32))
        << huge;
  }
  // A line a million pixels long on each side of the tile: the tile's row.
  EXPECT_EQ(pixels(rasterise_line(at(-1e6, 5.5), at(1e6, 5.5), 1, kTile, 0)), block(0, 5, 64, 6));
}

TEST(Rasteriser, DegenerateLinesGiveNoFragments) {
  EXPECT_TRUE(rasterise_line(at(8, 8), at(8, 8), 4, kTile, 0).batches.empty());  // zero length
  for (const float width : {0.0F, -0.0F, -1.0F, -kInf, kInf, kNaN}) {
    EXPECT_TRUE(rasterise_line(at(2, 8), at(30, 9), width, kTile, 0).batches.empty()) << width;
  }
  for (const auto& [z, inv_w] : {std::pair{kNaN, 1.0F}, std::pair{-kInf, 1.0F}, std::pair{0.5F, kNaN},
                                 std::pair{0.5F, kInf}, std::pair{0.5F, 0.0F}, std::pair{0.5F, -1.0F}}) {
    EXPECT_TRUE(rasterise_line(at(2, 8), at(30, 9, z, inv_w), 2, kTile, 0).batches.empty()) << z << " " << inv_w;
  }
  // Both ends behind the eye: 1/W of one sign, drawn.
  EXPECT_FALSE(rasterise_line(at(2, 8, 0.5F, -1.0F), at(30, 9, 0.5F, -2.0F), 2, kTile, 0).batches.empty());
  ShadedVertex far = at(8, 8);
  far.x = std::numeric_limits<std::int32_t>::max();
  EXPECT_TRUE(rasterise_line(at(8, 8), far, 1, kTile, 0).batches.empty());
  EXPECT_TRUE(rasterise_line(at(0, 0), at(30, 30), 1, PixelRect{40, 40, 64, 64}, 0).batches.empty());
  EXPECT_TRUE(rasterise_line(at(0, 0), at(30, 30), 1, PixelRect{10, 10, 20, 10}, 0).batches.empty());
}

}  // namespace
}  // namespace gpuvp::vc4
