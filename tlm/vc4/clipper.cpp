#include "tlm/vc4/clipper.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gpuvp::vc4 {
namespace {

// A clip plane: a vertex is inside when distance() >= 0.
struct ClipPlane {
  double x = 0, y = 0, w = 0, constant = 0;
  double distance(const std::array<double, 4>& c) const { return x * c[0] + y * c[1] + w * c[3] - constant; }
};

// The eye plane first, then the guard band (clipper.h).
std::array<ClipPlane, 5> planes(const ClipperViewport& viewport) {
  const double sx = std::fabs(static_cast<double>(viewport.x_scale));
  const double sy = std::fabs(static_cast<double>(viewport.y_scale));
  return {{{0, 0, 1, Clipper::kEyePlaneW},
           {-sx, 0, Clipper::kGuardBand, 0},
           {sx, 0, Clipper::kGuardBand, 0},
           {0, -sy, Clipper::kGuardBand, 0},
           {0, sy, Clipper::kGuardBand, 0}}};
}

bool finite_scales(const ClipperViewport& viewport) {
  return std::isfinite(viewport.x_scale) && std::isfinite(viewport.y_scale);
}

// The point where the edge from `in` (inside) to `out` crosses the plane: always computed from the inside end, so
// that the two triangles sharing an edge find the same point.
ClipPolygonVertex crossing(const ClipPolygonVertex& in, double d_in, const ClipPolygonVertex& out, double d_out) {
  const double t = d_in / (d_in - d_out);
  ClipPolygonVertex v;
  for (unsigned i = 0; i < 4; ++i) v.clip[i] = in.clip[i] + t * (out.clip[i] - in.clip[i]);
  for (unsigned i = 0; i < 3; ++i) v.weights[i] = in.weights[i] + t * (out.weights[i] - in.weights[i]);
  return v;
}

}  // namespace

bool Clipper::needs_clipping(const std::array<float, 4>* clip, unsigned n, const ClipperViewport& viewport) {
  if (!finite_scales(viewport)) return true;
  const std::array<ClipPlane, 5> p = planes(viewport);
  for (unsigned i = 0; i < n; ++i) {
    const std::array<double, 4> c{clip[i][0], clip[i][1], clip[i][2], clip[i][3]};
    for (const double value : c) {
      if (!std::isfinite(value)) return true;
    }
    for (const ClipPlane& plane : p) {
      if (plane.distance(c) < 0) return true;
    }
  }
  return false;
}

std::vector<ClipPolygonVertex> Clipper::clip(const std::array<float, 4>* clip, unsigned n,
                                             const ClipperViewport& viewport) {
  std::vector<ClipPolygonVertex> poly;
  if ((n != 2 && n != 3) || !finite_scales(viewport)) return poly;
  for (unsigned i = 0; i < n; ++i) {
    ClipPolygonVertex v;
    for (unsigned k = 0; k < 4; ++k) {
      if (!std::isfinite(clip[i][k])) return {};
      v.clip[k] = clip[i][k];
    }
    v.weights[i] = 1;
    v.original = static_cast<int>(i);
    poly.push_back(v);
  }
  std::vector<ClipPolygonVertex> next;
  for (const ClipPlane& plane : planes(viewport)) {
    next.clear();
    const std::size_t m = poly.size();
    // A line is an open segment: only the edge 0 -> 1; a polygon wraps around.
    const std::size_t edges = n == 2 ? 1 : m;
    for (std::size_t e = 0; e < edges; ++e) {
      const ClipPolygonVertex& a = poly[e];
      const ClipPolygonVertex& b = poly[(e + 1) % m];
      const double da = plane.distance(a.clip), db = plane.distance(b.clip);
      if (n == 2) {
        if (da < 0 && db < 0) return {};
        next.push_back(da >= 0 ? a : crossing(b, db, a, da));
        next.push_back(db >= 0 ? b : crossing(a, da, b, db));
        continue;
      }
      // Sutherland-Hodgman: a's successor edge adds the crossing, then b when inside.
      if (da >= 0 && db >= 0) {
        next.push_back(b);
      } else if (da >= 0) {
        next.push_back(crossing(a, da, b, db));
      } else if (db >= 0) {
        next.push_back(crossing(b, db, a, da));
        next.push_back(b);
      }
    }
    poly.swap(next);
    if (poly.size() < n) return {};
  }
  return poly;
}

std::vector<ClippedPart> Clipper::parts(const std::vector<ClipPolygonVertex>& polygon, unsigned n) {
  std::vector<ClippedPart> out;
  const auto flags_of = [&](const ClippedPart& p) {
    unsigned flags = 0;
    for (unsigned j = 0; j < n; ++j) {
      if (polygon[p.vertex[j]].original != static_cast<int>(j)) flags |= 1U << j;
    }
    return flags;
  };
  if (n == 2) {
    if (polygon.size() == 2) {
      ClippedPart p;
      p.vertex = {0, 1, 0};
      p.flags = flags_of(p);
      out.push_back(p);
    }
    return out;
  }
  if (polygon.size() < 3) return out;
  // The fan's apex: original vertex 0, else another original vertex, else the first.
  std::size_t apex = 0;
  for (std::size_t i = polygon.size(); i-- > 0;) {
    if (polygon[i].original == 0 || (polygon[i].original > 0 && polygon[apex].original < 0)) apex = i;
  }
  const std::size_t m = polygon.size();
  for (std::size_t i = 1; i + 1 < m; ++i) {
    const std::array<std::size_t, 3> fan = {apex, (apex + i) % m, (apex + i + 1) % m};
    ClippedPart best;
    unsigned best_kept = 0;
    for (unsigned r = 0; r < 3; ++r) {
      ClippedPart p;
      p.vertex = {fan[r], fan[(r + 1) % 3], fan[(r + 2) % 3]};
      p.flags = flags_of(p);
      const unsigned kept = 3 - static_cast<unsigned>(((p.flags & 1U) + ((p.flags >> 1) & 1U) + ((p.flags >> 2) & 1U)));
      if (r == 0 || kept > best_kept) {
        best = p;
        best_kept = kept;
      }
    }
    out.push_back(best);
  }
  return out;
}

bool Clipper::project(const ClipPolygonVertex& v, const ClipperViewport& viewport, ClippedVertexRecord& out) {
  const double w = v.clip[3];
  if (!(w > 0)) return false;
  const double xs = v.clip[0] / w * viewport.x_scale, ys = v.clip[1] / w * viewport.y_scale;
  const double zs = v.clip[2] / w * viewport.z_scale + viewport.z_offset;
  if (!std::isfinite(xs) || !std::isfinite(ys) || !std::isfinite(zs)) return false;
  // Inside the guard band up to rounding: clamped to the 16-bit range, truncated toward zero as ftoi.
  const auto s16 = [](double value) {
    return static_cast<std::int16_t>(std::trunc(std::clamp(value, -32768.0, 32767.0)));
  };
  out.xs = s16(xs);
  out.ys = s16(ys);
  out.zs = static_cast<float>(zs);
  out.inv_wc = static_cast<float>(1.0 / w);
  // Finite in double may still overflow a float.
  if (!std::isfinite(out.zs) || !std::isfinite(out.inv_wc)) return false;
  for (unsigned i = 0; i < 3; ++i) out.weights[i] = static_cast<float>(v.weights[i]);
  return true;
}

void Clipper::encode(const ClippedVertexRecord& r, std::uint8_t* out) {
  std::memset(out, 0, kRecordBytes);
  const auto put = [&](unsigned at, const void* value, unsigned len) { std::memcpy(out + at, value, len); };
  const auto u16 = [](std::int16_t v) { return static_cast<std::uint16_t>(v); };
  const std::uint16_t xs = u16(r.xs), ys = u16(r.ys);
  // Little-endian, as every V3D structure in memory.
  out[0] = static_cast<std::uint8_t>(xs);
  out[1] = static_cast<std::uint8_t>(xs >> 8);
  out[2] = static_cast<std::uint8_t>(ys);
  out[3] = static_cast<std::uint8_t>(ys >> 8);
  put(4, &r.zs, 4);
  put(8, &r.inv_wc, 4);
  for (unsigned i = 0; i < 3; ++i) put(12 + 4 * i, &r.weights[i], 4);
}

ClippedVertexRecord Clipper::decode(const std::uint8_t* in) {
  ClippedVertexRecord r;
  r.xs = static_cast<std::int16_t>(in[0] | in[1] << 8);
  r.ys = static_cast<std::int16_t>(in[2] | in[3] << 8);
  std::memcpy(&r.zs, in + 4, 4);
  std::memcpy(&r.inv_wc, in + 8, 4);
  for (unsigned i = 0; i < 3; ++i) std::memcpy(&r.weights[i], in + 12 + 4 * i, 4);
  return r;
}

}  // namespace gpuvp::vc4
