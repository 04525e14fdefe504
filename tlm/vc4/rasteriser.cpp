#include "tlm/vc4/rasteriser.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gpuvp::vc4 {
namespace {

// Points' and lines' X and Y (1/16 pixel) stay within this, so that a line's integer edge functions cannot overflow
// for any clip rectangle; the hardware's are 16-bit plus the viewport offset.
constexpr std::int64_t kMaxPointLineCoordinate = std::int64_t{1} << 24;

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

// The top-left rule for a pixel centre exactly on an edge, from the edge function's gradient (pointing inside): the
// centre belongs to the primitive below a horizontal (top) edge and right of a left edge (y down).
bool top_left(std::int64_t inward_x, std::int64_t inward_y) { return inward_x > 0 || (inward_x == 0 && inward_y > 0); }

// A value linear in screen space: at(dx, dy) with dx, dy the pixel centre's offset in pixels from the primitive's
// origin (its first vertex).
struct Plane {
  double at_origin = 0, per_x = 0, per_y = 0;
  double at(double dx, double dy) const { return at_origin + per_x * dx + per_y * dy; }
};

// How a vertex's weight changes per pixel in x and y: a value linear in screen space over a primitive is
// f0 + sum over i >= 1 of (f_i - f0) * weight_i, weight_i being 0 at vertex 0 and 1 at vertex i.
struct WeightGradient {
  double per_x = 0, per_y = 0;
};

// What a fragment receives besides its coverage.
struct Interpolants {
  double x0 = 0, y0 = 0;  // the origin of the planes, in pixels
  Plane z, inv_w;
  struct Varying {
    Plane partial;  // A and B of the partial value (at_origin 0), or the screen-linear value minus C
    double c = 0;
    bool screen_linear = false;  // points' and lines' coordinates: the partial is the plane divided by W
  };
  std::vector<Varying> varyings;
};

// The planes of Z, 1/W and the varyings over a primitive of N vertices. Varying k: value = W * sum(l_i * v_i / w_i)
// with l the screen-space weights = W * (A (x - x0) + B (y - y0)) + v0, A and B the gradients of (v_i - v0) / w_i
// (zero at vertex 0); flat varyings keep v0.
template <std::size_t N>
Interpolants interpolants(const std::array<const ShadedVertex*, N>& v, const std::array<WeightGradient, N - 1>& weight,
                          std::uint32_t flat) {
  const auto plane = [&](double at_origin, const auto& difference_from_vertex_0) {
    Plane p{at_origin, 0, 0};
    for (std::size_t i = 1; i < N; ++i) {
      const double d = difference_from_vertex_0(i);
      p.per_x += d * weight[i - 1].per_x;
      p.per_y += d * weight[i - 1].per_y;
    }
    return p;
  };
  Interpolants out;
  out.x0 = v[0]->x / 16.0;
  out.y0 = v[0]->y / 16.0;
  out.z = plane(v[0]->z, [&](std::size_t i) { return double{v[i]->z} - v[0]->z; });
  out.inv_w = plane(v[0]->inv_w, [&](std::size_t i) { return double{v[i]->inv_w} - v[0]->inv_w; });
  const std::size_t count = v[0]->varyings.size();
  out.varyings.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    const auto value = [&](std::size_t i) { return k < v[i]->varyings.size() ? double{v[i]->varyings[k]} : 0.0; };
    out.varyings[k].c = value(0);
    if (k < 32 && ((flat >> k) & 1U) != 0) continue;
    out.varyings[k].partial = plane(0.0, [&](std::size_t i) { return (value(i) - value(0)) * v[i]->inv_w; });
  }
  return out;
}

// The pixels whose centres may lie in [x_min, x_max] x [y_min, y_max] (pixels), inside `clip`; clamped in double
// before converting, so that huge extents cost nothing outside the clip rectangle. Empty for NaN.
PixelRect pixels_within(double x_min, double y_min, double x_max, double y_max, const PixelRect& clip) {
  const auto to_pixel = [](double v, int lo, int hi) {
    return static_cast<int>(std::clamp(v, static_cast<double>(lo), static_cast<double>(hi)));
  };
  if (std::isnan(x_min) || std::isnan(y_min) || std::isnan(x_max) || std::isnan(y_max)) return {};
  PixelRect r;
  r.x0 = to_pixel(std::floor(x_min), clip.x0, clip.x1);
  r.x1 = to_pixel(std::ceil(x_max) + 1, clip.x0, clip.x1);
  r.y0 = to_pixel(std::floor(y_min), clip.y0, clip.y1);
  r.y1 = to_pixel(std::ceil(y_max) + 1, clip.y0, clip.y1);
  return r;
}

double z_of(const Interpolants& in, double dx, double dy) {
  const double z = in.z.at(dx, dy);
  return z > 0 ? std::min(z, 1.0) : 0.0;  // NaN reads as 0
}

// Walks the quads of `area` row by row from its top-left and fills batches of four quads with at least one pixel
// `covered` (given the pixel centre in 1/16 pixel); each element of such a quad gets its values, covered or not
// (Mesa's derivatives read the neighbours).
// The 4x multisample positions in 1/16 pixel from the pixel's top-left corner (rasteriser.h).
constexpr std::array<std::array<int, 2>, 4> kSamplePositions = {{{6, 2}, {14, 6}, {2, 10}, {10, 14}}};

template <class Covered>
void fill_batches(const PixelRect& area, const Covered& covered, const Interpolants& in, PrimitiveSetup& out,
                  bool multisample) {
  if (area.x0 >= area.x1 || area.y0 >= area.y1) return;
  // At most a batch per four quads of the area; a tile's area has at most 256 (larger areas grow as they go).
  const auto quads_across = static_cast<std::size_t>((area.x1 - (area.x0 & ~1) + 1) / 2);
  const auto quads_down = static_cast<std::size_t>((area.y1 - (area.y0 & ~1) + 1) / 2);
  out.batches.reserve(out.batches.size() + std::min<std::size_t>((quads_across * quads_down + 3) / 4, 256));
  const std::size_t varyings = in.varyings.size();
  FragmentBatch batch;
  unsigned quads = 0;
  const auto flush = [&] {
    if (quads == 0) return;
    out.batches.push_back(std::move(batch));
    batch = FragmentBatch{};
    quads = 0;
  };
  for (int qy = area.y0 & ~1; qy < area.y1; qy += 2) {
    for (int qx = area.x0 & ~1; qx < area.x1; qx += 2) {
      std::uint16_t mask = 0;
      std::array<std::uint8_t, 4> samples{};
      for (unsigned p = 0; p < 4; ++p) {
        const int px = qx + static_cast<int>(p & 1U), py = qy + static_cast<int>(p >> 1);
        if (px < area.x0 || px >= area.x1 || py < area.y0 || py >= area.y1) continue;
        if (!multisample) {
          if (covered(16 * std::int64_t{px} + 8, 16 * std::int64_t{py} + 8)) {
            mask |= static_cast<std::uint16_t>(1U << p);
            samples[p] = 1;
          }
          continue;
        }
        for (unsigned k = 0; k < 4; ++k) {
          if (covered(16 * std::int64_t{px} + kSamplePositions[k][0], 16 * std::int64_t{py} + kSamplePositions[k][1])) {
            samples[p] = static_cast<std::uint8_t>(samples[p] | (1U << k));
          }
        }
        if (samples[p] != 0) mask |= static_cast<std::uint16_t>(1U << p);
      }
      if (mask == 0) continue;
      if (quads == 0) {
        batch.partial.assign(varyings, qpu::Vector{});
        batch.c.assign(varyings, qpu::Vector{});
      }
      for (unsigned p = 0; p < 4; ++p) {
        const unsigned e = 4 * quads + p;
        const int px = qx + static_cast<int>(p & 1U), py = qy + static_cast<int>(p >> 1);
        const double dx = px + 0.5 - in.x0, dy = py + 0.5 - in.y0;
        const double inv_w = in.inv_w.at(dx, dy);
        batch.x[e] = static_cast<std::uint32_t>(px);
        batch.y[e] = static_cast<std::uint32_t>(py);
        batch.w[e] = bits(static_cast<float>(1.0 / inv_w));
        batch.z[e] = static_cast<std::uint32_t>(std::llround(z_of(in, dx, dy) * 0xFFFFFF));
        if (((mask >> p) & 1U) != 0) batch.covered = static_cast<std::uint16_t>(batch.covered | (1U << e));
        batch.samples[e] = samples[p];
        for (std::size_t k = 0; k < varyings; ++k) {
          const Interpolants::Varying& v = in.varyings[k];
          const double partial = v.partial.at(dx, dy);
          batch.partial[k][e] = bits(static_cast<float>(v.screen_linear ? partial * inv_w : partial));
          batch.c[k][e] = bits(static_cast<float>(v.c));
        }
      }
      if (++quads == 4) flush();
    }
  }
  flush();
}

// A point's side or a line's width in pixels, 0 for nothing (rasteriser.h).
double usable_size(float size) {
  if (!std::isfinite(size) || !(size > 0)) return 0;
  return std::max(1.0, double{size});
}

bool usable_vertex(const ShadedVertex& v) {
  return std::isfinite(v.z) && std::isfinite(v.inv_w) && v.inv_w != 0 && std::llabs(v.x) <= kMaxPointLineCoordinate &&
         std::llabs(v.y) <= kMaxPointLineCoordinate;
}

bool empty(const PixelRect& r) { return r.x0 >= r.x1 || r.y0 >= r.y1; }

}  // namespace

TriangleSetup rasterise_triangle(const std::array<ShadedVertex, 3>& in, const PixelRect& clip, std::uint32_t flat,
                                 bool multisample) {
  TriangleSetup out;
  const std::int64_t area = edge(in[0].x, in[0].y, in[1].x, in[1].y, in[2].x, in[2].y);
  if (area == 0 || empty(clip)) return out;
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
    edges[i] = {a.x, a.y, b.x, b.y, top_left(std::int64_t{a.y} - b.y, std::int64_t{b.x} - a.x)};
  }
  const auto inside = [&](std::int64_t px, std::int64_t py) {
    for (const Edge& e : edges) {
      const std::int64_t d = edge(e.ax, e.ay, e.bx, e.by, px, py);
      if (d < 0 || (d == 0 && !e.top_left)) return false;
    }
    return true;
  };
  const std::int32_t min_x = std::min({in[0].x, in[1].x, in[2].x}), max_x = std::max({in[0].x, in[1].x, in[2].x});
  const std::int32_t min_y = std::min({in[0].y, in[1].y, in[2].y}), max_y = std::max({in[0].y, in[1].y, in[2].y});
  const PixelRect bounds = pixels_within(min_x / 16.0, min_y / 16.0, max_x / 16.0, max_y / 16.0, clip);
  if (empty(bounds)) return out;

  // Barycentric weights of vertices 1 and 2 as planes over the pixel centre, in pixels.
  const auto pixels_from_vertex_0 = [](std::int32_t c, std::int32_t c0) {
    return static_cast<double>(std::int64_t{c} - c0) / 16.0;
  };
  const double e1x = pixels_from_vertex_0(in[1].x, in[0].x), e1y = pixels_from_vertex_0(in[1].y, in[0].y);
  const double e2x = pixels_from_vertex_0(in[2].x, in[0].x), e2y = pixels_from_vertex_0(in[2].y, in[0].y);
  const double det = e1x * e2y - e2x * e1y;
  const std::array<WeightGradient, 2> weights = {WeightGradient{e2y / det, -e2x / det},
                                                 WeightGradient{-e1y / det, e1x / det}};
  fill_batches(bounds, inside, interpolants<3>({&in[0], &in[1], &in[2]}, weights, flat), out, multisample);
  return out;
}

PrimitiveSetup rasterise_point(const ShadedVertex& v, float size, const PixelRect& clip, std::uint32_t flat,
                               bool multisample) {
  PrimitiveSetup out;
  out.implicit_varyings = 2;
  const double side = usable_size(size);
  if (side == 0 || !usable_vertex(v) || empty(clip)) return out;
  // The square [x - side/2, x + side/2) x [y - side/2, y + side/2) in 1/16 pixel: 8 * side is exact.
  const double half = 8 * side;
  const auto inside = [&](std::int64_t px, std::int64_t py) {
    const auto dx = static_cast<double>(px - v.x), dy = static_cast<double>(py - v.y);
    return -half <= dx && dx < half && -half <= dy && dy < half;
  };
  const PixelRect bounds =
      pixels_within((v.x - half) / 16, (v.y - half) / 16, (v.x + half) / 16, (v.y + half) / 16, clip);
  Interpolants in = interpolants<1>({&v}, {}, flat);
  // point_x = 1/2 + (x - x_v) / side and point_y = 1/2 - (y - y_v) / side at the pixel centre (rasteriser.h).
  in.varyings.insert(in.varyings.begin(), {Interpolants::Varying{Plane{0, 1 / side, 0}, 0.5, true},
                                           Interpolants::Varying{Plane{0, 0, -1 / side}, 0.5, true}});
  fill_batches(bounds, inside, in, out, multisample);
  return out;
}

PrimitiveSetup rasterise_line(const ShadedVertex& a, const ShadedVertex& b, float width, const PixelRect& clip,
                              std::uint32_t flat, bool multisample) {
  PrimitiveSetup out;
  out.implicit_varyings = 1;
  const double line_width = usable_size(width);
  const std::int64_t dx = std::int64_t{b.x} - a.x, dy = std::int64_t{b.y} - a.y;
  const std::int64_t length2 = dx * dx + dy * dy;  // 1/256 pixel^2
  if (line_width == 0 || length2 == 0 || !usable_vertex(a) || !usable_vertex(b) || (a.inv_w > 0) != (b.inv_w > 0) ||
      empty(clip)) {
    return out;
  }
  // With p the pixel centre, along = (p - a) . d runs from 0 at a to |d|^2 at b, and across = d x (p - a) is |d|
  // times the distance from the segment's line (1/16 pixel), positive on the side the normal (-dy, dx) points to.
  // Each of the four sides keeps the top-left rule through its inward gradient.
  const double length = std::sqrt(static_cast<double>(length2));
  const double half = 8 * line_width * length;  // |across| at the sides: exact for axis-aligned lines
  const auto inside = [&](std::int64_t px, std::int64_t py) {
    const std::int64_t along = (px - a.x) * dx + (py - a.y) * dy;
    const auto across = static_cast<double>(dx * (py - a.y) - dy * (px - a.x));
    const bool after_a = along > 0 || (along == 0 && top_left(dx, dy));
    const bool before_b = along < length2 || (along == length2 && top_left(-dx, -dy));
    const bool inside_negative_side = across > -half || (across == -half && top_left(-dy, dx));
    const bool inside_positive_side = across < half || (across == half && top_left(dy, -dx));
    return after_a && before_b && inside_negative_side && inside_positive_side;
  };
  const double reach = 8 * line_width;  // half the width, 1/16 pixel: bounds the rectangle's corners
  const PixelRect bounds = pixels_within((std::min(a.x, b.x) - reach) / 16, (std::min(a.y, b.y) - reach) / 16,
                                         (std::max(a.x, b.x) + reach) / 16, (std::max(a.y, b.y) + reach) / 16, clip);
  // t = along / |d|^2, in pixels: d t / d x = 16 dx / |d|^2.
  const WeightGradient t{16.0 * static_cast<double>(dx) / static_cast<double>(length2),
                         16.0 * static_cast<double>(dy) / static_cast<double>(length2)};
  Interpolants in = interpolants<2>({&a, &b}, {t}, flat);
  // line_x = 1/2 + (distance along the normal (-dy, dx) / |d|) / width, in pixels (rasteriser.h).
  const double per_pixel = 1 / (length * line_width);
  in.varyings.insert(in.varyings.begin(), Interpolants::Varying{Plane{0, -static_cast<double>(dy) * per_pixel,
                                                                      static_cast<double>(dx) * per_pixel},
                                                                0.5, true});
  fill_batches(bounds, inside, in, out, multisample);
  return out;
}

}  // namespace gpuvp::vc4
