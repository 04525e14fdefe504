#include "tlm/vc4/rasteriser.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gpuvp::vc4 {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Twice the signed area of (a, b, p) on the 1/16 grid: > 0 when p is to the right of a -> b with y down, i.e. the
// triangle a, b, p runs clockwise on screen.
std::int64_t edge(std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by, std::int64_t px,
                  std::int64_t py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

}  // namespace

TriangleSetup rasterise_triangle(const std::array<ShadedVertex, 3>& in, const PixelRect& clip, std::uint32_t flat) {
  TriangleSetup out;
  const std::int64_t area = edge(in[0].x, in[0].y, in[1].x, in[1].y, in[2].x, in[2].y);
  if (area == 0 || clip.x0 >= clip.x1 || clip.y0 >= clip.y1) return out;
  out.clockwise = area > 0;
  // Edge functions of a clockwise ordering, positive inside.
  std::array<const ShadedVertex*, 3> v = {&in[0], &in[1], &in[2]};
  if (area < 0) std::swap(v[1], v[2]);
  struct Edge {
    std::int64_t ax, ay, bx, by;
    bool top_left;
  };
  std::array<Edge, 3> edges{};
  for (unsigned i = 0; i < 3; ++i) {
    const ShadedVertex& a = *v[i];
    const ShadedVertex& b = *v[(i + 1) % 3];
    // Clockwise with y down: a top edge runs exactly left to right, a left edge runs upwards (y decreasing).
    const bool top = a.y == b.y && b.x > a.x;
    const bool left = b.y < a.y;
    edges[i] = {a.x, a.y, b.x, b.y, top || left};
  }
  const auto inside = [&](std::int64_t px, std::int64_t py) {
    for (const Edge& e : edges) {
      const std::int64_t d = edge(e.ax, e.ay, e.bx, e.by, px, py);
      if (d < 0 || (d == 0 && !e.top_left)) return false;
    }
    return true;
  };
  // Bounding box in pixels, clipped.
  const std::int32_t min_x = std::min({in[0].x, in[1].x, in[2].x}), max_x = std::max({in[0].x, in[1].x, in[2].x});
  const std::int32_t min_y = std::min({in[0].y, in[1].y, in[2].y}), max_y = std::max({in[0].y, in[1].y, in[2].y});
  const int bx0 = std::max(clip.x0, static_cast<int>(std::floor(min_x / 16.0)));
  const int bx1 = std::min(clip.x1, static_cast<int>(std::ceil(max_x / 16.0)) + 1);
  const int by0 = std::max(clip.y0, static_cast<int>(std::floor(min_y / 16.0)));
  const int by1 = std::min(clip.y1, static_cast<int>(std::ceil(max_y / 16.0)) + 1);
  if (bx0 >= bx1 || by0 >= by1) return out;

  // Barycentric weights of vertices 1 and 2 as planes over the pixel centre (x + 1/2, y + 1/2), in pixels: an
  // attribute f linear in screen space is f0 + (f1 - f0) * l1 + (f2 - f0) * l2.
  const double x0 = in[0].x / 16.0, y0 = in[0].y / 16.0;
  const double e1x = in[1].x / 16.0 - x0, e1y = in[1].y / 16.0 - y0;
  const double e2x = in[2].x / 16.0 - x0, e2y = in[2].y / 16.0 - y0;
  const double det = e1x * e2y - e2x * e1y;
  // d l1 / dx, d l1 / dy, d l2 / dx, d l2 / dy
  const double l1x = e2y / det, l1y = -e2x / det, l2x = -e1y / det, l2y = e1x / det;
  const auto plane = [&](double f0, double f1, double f2, double& a, double& b) {
    a = (f1 - f0) * l1x + (f2 - f0) * l2x;
    b = (f1 - f0) * l1y + (f2 - f0) * l2y;
  };
  double za = 0, zb = 0, qa = 0, qb = 0;  // Zs and 1/W
  plane(in[0].z, in[1].z, in[2].z, za, zb);
  plane(in[0].inv_w, in[1].inv_w, in[2].inv_w, qa, qb);
  // Varying k: value = W * sum(l_i * v_i / w_i) = W * (A (x - x0) + B (y - y0)) + v0, with A, B the gradients of
  // (v_i - v0) / w_i (zero at vertex 0); flat varyings keep v0.
  const std::size_t varyings = in[0].varyings.size();
  std::vector<double> va(varyings), vb(varyings), vc(varyings);
  for (std::size_t k = 0; k < varyings; ++k) {
    const auto value = [&](unsigned i) { return i < 3 && k < in[i].varyings.size() ? in[i].varyings[k] : 0.0F; };
    vc[k] = value(0);
    if (k < 32 && ((flat >> k) & 1U) != 0) continue;
    plane(0.0, (value(1) - value(0)) * in[1].inv_w, (value(2) - value(0)) * in[2].inv_w, va[k], vb[k]);
  }

  FragmentBatch batch;
  unsigned quads = 0;
  const auto flush = [&] {
    if (quads == 0) return;
    out.batches.push_back(batch);
    batch = FragmentBatch{};
    quads = 0;
  };
  for (int qy = by0 & ~1; qy < by1; qy += 2) {
    for (int qx = bx0 & ~1; qx < bx1; qx += 2) {
      std::uint16_t mask = 0;
      for (unsigned p = 0; p < 4; ++p) {
        const int px = qx + static_cast<int>(p & 1U), py = qy + static_cast<int>(p >> 1);
        if (px < clip.x0 || px >= clip.x1 || py < clip.y0 || py >= clip.y1) continue;
        if (inside(16 * std::int64_t{px} + 8, 16 * std::int64_t{py} + 8)) mask |= static_cast<std::uint16_t>(1U << p);
      }
      if (mask == 0) continue;
      if (quads == 0) {
        batch.partial.assign(varyings, qpu::Vector{});
        batch.c.assign(varyings, qpu::Vector{});
      }
      for (unsigned p = 0; p < 4; ++p) {
        const unsigned e = 4 * quads + p;
        const int px = qx + static_cast<int>(p & 1U), py = qy + static_cast<int>(p >> 1);
        const double dx = px + 0.5 - x0, dy = py + 0.5 - y0;
        const double inv_w = in[0].inv_w + qa * dx + qb * dy;
        const double z = std::clamp(in[0].z + za * dx + zb * dy, 0.0, 1.0);
        batch.x[e] = static_cast<std::uint32_t>(px);
        batch.y[e] = static_cast<std::uint32_t>(py);
        batch.w[e] = bits(static_cast<float>(1.0 / inv_w));
        batch.z[e] = static_cast<std::uint32_t>(std::llround(z * 0xFFFFFF));
        if (((mask >> p) & 1U) != 0) batch.covered = static_cast<std::uint16_t>(batch.covered | (1U << e));
        for (std::size_t k = 0; k < varyings; ++k) {
          batch.partial[k][e] = bits(static_cast<float>(va[k] * dx + vb[k] * dy));
          batch.c[k][e] = bits(static_cast<float>(vc[k]));
        }
      }
      if (++quads == 4) flush();
    }
  }
  flush();
  return out;
}

}  // namespace gpuvp::vc4
