// The TMU's texture lookups: texture_sampler.h says what and from which sources; docs/vc4-qpu.md "Texture lookups"
// lists the choices made where no source gives the hardware's behaviour.
#include "tlm/vc4/qpu/texture_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "tlm/core/format_hex.h"

namespace gpuvp::vc4::qpu {
namespace {

std::string hex(std::uint32_t v) { return core::format_hex(v, 8); }

// Guide table 18 (vc4_packet.h spells 17 YUV422R).
constexpr const char* kTypeNames[] = {"RGBA8888", "RGBX8888", "RGBA4444", "RGBA5551", "RGB565",  "LUMINANCE",
                                      "ALPHA",    "LUMALPHA", "ETC1",     "S16F",     "S8",      "S16",
                                      "BW1",      "A4",       "A1",       "RGBA64",   "RGBA32R", "YUYV422R"};
constexpr unsigned kTypeCount = sizeof kTypeNames / sizeof kTypeNames[0];

const char* wrap_name(TextureWrap wrap) {
  switch (wrap) {
    case TextureWrap::kRepeat:
      return "repeat";
    case TextureWrap::kClamp:
      return "clamp";
    case TextureWrap::kMirror:
      return "mirror";
    case TextureWrap::kBorder:
      return "border";
  }
  return "?";
}

std::uint32_t next_power_of_two(std::uint32_t value) {
  std::uint32_t p = 1;
  while (p < value) p <<= 1;
  return p;
}

// A guest float as a finite double: NaN reads as 0, a denormal as 0 (the QPU flushes them), anything beyond +-2^31
// (infinities included) as +-2^31: far outside any texture, so it wraps or clamps like any large coordinate, and
// texel coordinates stay within 64-bit integers. The model's choice: no source gives the TMU's handling.
constexpr double kHuge = 2147483648.0;
double guest_float(std::uint32_t bits) {
  float value = 0;
  std::memcpy(&value, &bits, sizeof value);
  switch (std::fpclassify(value)) {
    case FP_NAN:
    case FP_SUBNORMAL:
      return 0.0;
    case FP_INFINITE:
      return value > 0 ? kHuge : -kHuge;
    default:
      return std::clamp<double>(value, -kHuge, kHuge);
  }
}

// An integer texel coordinate wrapped into [0, size) by `mode` (the GL rules the guide's modes name: repeat, clamp
// to edge, mirrored repeat, clamp to border); false: outside the texture in border mode (the border colour).
bool wrap_coordinate(std::int64_t i, std::uint32_t size, TextureWrap mode, std::uint32_t& out) {
  const auto n = static_cast<std::int64_t>(size);
  switch (mode) {
    case TextureWrap::kRepeat:
      out = static_cast<std::uint32_t>(((i % n) + n) % n);
      return true;
    case TextureWrap::kClamp:
      out = static_cast<std::uint32_t>(std::clamp<std::int64_t>(i, 0, n - 1));
      return true;
    case TextureWrap::kMirror: {
      const std::int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
      out = static_cast<std::uint32_t>(m < n ? m : 2 * n - 1 - m);
      return true;
    }
    case TextureWrap::kBorder:
      if (i < 0 || i >= n) return false;
      out = static_cast<std::uint32_t>(i);
      return true;
  }
  return false;
}

// Cube map face selection (the guide defers to the OpenGL 2.0 specification, section 3.8.6, table 3.21): the major
// axis picks the face, numbered +X, -X, +Y, -Y, +Z, -Z (Mesa's cube layers, each a whole miptree one stride further:
// vc4_resource.c), and (sc, tc) the face coordinates. The shader has already divided by |ma| (guide "Cube Map Mode":
// the TMU takes rx0, ry0, rz0), so s = (sc + 1) / 2 without a division here. Ties go to x, then y (model's choice).
void select_face(double x, double y, double z, unsigned& face, double& s, double& t) {
  const double ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  double sc = 0, tc = 0;
  if (ax >= ay && ax >= az) {
    face = x >= 0 ? 0 : 1;
    sc = x >= 0 ? -z : z;
    tc = -y;
  } else if (ay >= az) {
    face = y >= 0 ? 2 : 3;
    sc = x;
    tc = y >= 0 ? z : -z;
  } else {
    face = z >= 0 ? 4 : 5;
    sc = z >= 0 ? x : -x;
    tc = -y;
  }
  s = (sc + 1) / 2;
  t = (tc + 1) / 2;
}

using Channels = std::array<double, 4>;  // r4's bytes 0-3, weighted

class Sampler {
 public:
  Sampler(const TextureParams& params, DmaMemory& memory, std::uint32_t border, std::vector<std::uint32_t>& lines,
          std::string& error)
      : params_(params), memory_(memory), border_(border), lines_(lines), error_(error) {
    for (unsigned level = 0; level <= params.last_level; ++level) levels_[level] = texture_level(params, level);
  }

  // Adds `weight` x the level's nearest or bilinear sample at (u, v) (normalised: [0, 1] spans the level) to `sum`.
  bool sample_level(unsigned element, unsigned level, unsigned face, double u, double v, bool linear, double weight,
                    Channels& sum) {
    const TextureLevel& l = levels_[level];
    double x = u * l.width, y = v * l.height;  // |u|, |v| <= 2^31: within int64 after the scale
    if (!linear) {
      return add_texel(element, level, face, static_cast<std::int64_t>(std::floor(x)),
                       static_cast<std::int64_t>(std::floor(y)), weight, sum);
    }
    // Bilinear (guide table 19 "sample 2x2 pixels and blend"): the four texels around (x - 1/2, y - 1/2), weighted
    // by the fractions, as GL's linear filter.
    x -= 0.5;
    y -= 0.5;
    const double fx = std::floor(x), fy = std::floor(y);
    const double ax = x - fx, ay = y - fy;
    const auto x0 = static_cast<std::int64_t>(fx), y0 = static_cast<std::int64_t>(fy);
    return add_texel(element, level, face, x0, y0, weight * (1 - ax) * (1 - ay), sum) &&
           add_texel(element, level, face, x0 + 1, y0, weight * ax * (1 - ay), sum) &&
           add_texel(element, level, face, x0, y0 + 1, weight * (1 - ax) * ay, sum) &&
           add_texel(element, level, face, x0 + 1, y0 + 1, weight * ax * ay, sum);
  }

 private:
  bool add_texel(unsigned element, unsigned level, unsigned face, std::int64_t x, std::int64_t y, double weight,
                 Channels& sum) {
    const TextureLevel& l = levels_[level];
    std::uint32_t wx = 0, wy = 0;
    std::uint32_t value = border_;  // outside the texture in border mode: the border colour, already in r4's layout
    if (wrap_coordinate(x, l.width, params_.wrap_s, wx) && wrap_coordinate(y, l.height, params_.wrap_t, wy)) {
      if (!read_texel(element, level, face, wx, wy, value)) return false;
    }
    for (unsigned c = 0; c < 4; ++c) sum[c] += weight * static_cast<double>((value >> (8 * c)) & 0xFFU);
    return true;
  }

  bool read_texel(unsigned element, unsigned level, unsigned face, std::uint32_t x, std::uint32_t y,
                  std::uint32_t& value) {
    const unsigned bytes = texture_type_bytes(params_.type);
    const std::uint32_t address = texel_address(params_, levels_[level], face, x, y);
    std::array<std::uint8_t, 4> data{};
    if (address > std::numeric_limits<std::uint32_t>::max() - (bytes - 1) ||
        !memory_.read_memory(address, data.data(), bytes)) {
      error_ = "texture lookup: element " + std::to_string(element) + " reads texel (" + std::to_string(x) + ", " +
               std::to_string(y) + ") of level " + std::to_string(level) +
               (params_.cube ? " of cube face " + std::to_string(face) : std::string()) + " at " + hex(address) +
               ", where there is no memory";
      return false;
    }
    note_line(address);
    note_line(address + bytes - 1);
    std::uint32_t raw = 0;
    for (unsigned i = 0; i < bytes; ++i) raw |= static_cast<std::uint32_t>(data[i]) << (8 * i);  // little-endian
    value = texel_to_r4(params_.type, raw);
    return true;
  }

  void note_line(std::uint32_t address) {
    const std::uint32_t line = address & ~std::uint32_t{63};
    if (std::find(lines_.begin(), lines_.end(), line) == lines_.end()) lines_.push_back(line);
  }

  const TextureParams& params_;
  DmaMemory& memory_;
  std::uint32_t border_;
  std::vector<std::uint32_t>& lines_;
  std::string& error_;
  std::array<TextureLevel, 16> levels_{};
};

}  // namespace

const char* texture_type_name(unsigned type) { return type < kTypeCount ? kTypeNames[type] : "undefined"; }

bool texture_type_modelled(unsigned type) {
  return type <= static_cast<unsigned>(TextureType::kLumAlpha) || type == static_cast<unsigned>(TextureType::kRgba32r);
}

// Bytes per texel: guide table 18's Bpp; vc4_validate.c reloc_tex's cpp.
unsigned texture_type_bytes(TextureType type) {
  switch (type) {
    case TextureType::kRgba4444:
    case TextureType::kRgba5551:
    case TextureType::kRgb565:
    case TextureType::kLumAlpha:
      return 2;
    case TextureType::kLuminance:
    case TextureType::kAlpha:
      return 1;
    default:
      return 4;
  }
}

bool decode_texture_params(const std::array<std::uint32_t, 4>& p, unsigned count, TextureParams& params,
                           std::string& error) {
  // One uniform per TMU write of the lookup, t, r and b in any order and s last (guide p.40; K-vsh
  // check_tmu_write): at least P0 and P1, at most P0-P3.
  if (count < 2 || count > 4) {
    error = "a texture lookup takes 2 to 4 config parameters (one per TMU write), not " + std::to_string(count);
    return false;
  }
  TextureParams out;
  const std::uint32_t p0 = p[0], p1 = p[1];
  // P0 and P1: guide tables 15 and 16, vc4_packet.h VC4_TEX_P0_* / VC4_TEX_P1_*.
  const unsigned type = ((p0 >> 4) & 0xFU) | (p1 >> 31) << 4;
  if (type >= kTypeCount) {
    error = "texture type " + std::to_string(type) + " (P0 TYPE " + std::to_string((p0 >> 4) & 0xFU) + ", P1 TYPE4 " +
            std::to_string(p1 >> 31) + ") is undefined (the guide's table 18 ends at 17)";
    return false;
  }
  if (!texture_type_modelled(type)) {
    error = "texture type " + std::to_string(type) + " (" + texture_type_name(type) + ") is not modelled";
    return false;
  }
  out.type = static_cast<TextureType>(type);
  out.base = p0 & 0xFFFFF000U;
  out.cache_swizzle = (p0 >> 10) & 3U;
  out.cube = ((p0 >> 9) & 1U) != 0;
  out.flip_y = ((p0 >> 8) & 1U) != 0;
  out.last_level = p0 & 0xFU;
  const std::uint32_t height = (p1 >> 20) & 0x7FFU, width = (p1 >> 8) & 0x7FFU;
  out.height = height == 0 ? 2048 : height;  // "0 = 2048" (guide table 16)
  out.width = width == 0 ? 2048 : width;
  out.etc_flip = ((p1 >> 19) & 1U) != 0;
  out.mag_nearest = ((p1 >> 7) & 1U) != 0;
  const unsigned min_filter = (p1 >> 4) & 7U;
  if (min_filter > static_cast<unsigned>(MinFilter::kLinMipLin)) {
    error = "P1 MINFILT " + std::to_string(min_filter) + " is undefined (0-5: the guide's table 19)";
    return false;
  }
  out.min_filter = static_cast<MinFilter>(min_filter);
  out.wrap_t = static_cast<TextureWrap>((p1 >> 2) & 3U);
  out.wrap_s = static_cast<TextureWrap>(p1 & 3U);
  // P2 and P3 (guide table 17): PTYPE 0 unused, 1 cube map stride with BSLOD, 2 and 3 child images.
  bool stride_set = false;
  for (unsigned i = 2; i < count; ++i) {
    const std::string name = "P" + std::to_string(i);
    switch (p[i] >> 30) {
      case 0:
        break;
      case 1:
        if (stride_set) {
          error = "P2 and P3 both give a cube map stride (PTYPE 1): which one counts is undefined";
          return false;
        }
        stride_set = true;
        out.cube_stride = p[i] & 0x3FFFF000U;  // CMST, in 4 KiB units at bit 12 (vc4_validate.c keeps the mask)
        out.lod_from_b = (p[i] & 1U) != 0;
        break;
      default:
        error = name + " PTYPE " + std::to_string(p[i] >> 30) + " (child image " +
                ((p[i] >> 30) == 2 ? "dimensions" : "offsets") + ", " + hex(p[i]) + ") is not modelled";
        return false;
    }
  }
  // "If cube mapping is enabled, then CLAMP TO BORDER mode should not be used" (guide p.41): r is the direction's z,
  // so no border colour exists.
  if (out.cube && (out.wrap_s == TextureWrap::kBorder || out.wrap_t == TextureWrap::kBorder)) {
    error = std::string("cube map mode with the border wrap mode (s ") + wrap_name(out.wrap_s) + ", t " +
            wrap_name(out.wrap_t) + ") is undefined";
    return false;
  }
  params = out;
  return true;
}

TextureLevel texture_level(const TextureParams& params, unsigned level) {
  const unsigned bytes = texture_type_bytes(params.type);
  const unsigned utile_w = micro_tile_width(bytes), utile_h = micro_tile_height(bytes);
  TextureLevel l;
  std::uint64_t below = 0;  // the bytes of levels 1..level, all below the base
  for (unsigned i = 0; i <= level; ++i) {
    // Levels past 0 are sized from the power-of-two container (guide p.39-40; vc4_setup_slices uses
    // u_minify(pot, i); vc4_validate.c's width >> i is the same for power-of-two sizes).
    l.width = i == 0 ? params.width : std::max<std::uint32_t>(1, next_power_of_two(params.width) >> i);
    l.height = i == 0 ? params.height : std::max<std::uint32_t>(1, next_power_of_two(params.height) >> i);
    // RGBA32R is raster; other types are LT when a side is at most 4 micro-tiles, else T (vc4_validate.c size_is_lt,
    // which Mesa's vc4_tiling.c says the texture unit applies per level). The guide's wording ("less than one
    // T-format tile") is looser; the drivers' rule works on hardware.
    if (params.type == TextureType::kRgba32r) {
      l.layout = MemoryLayout::kLinear;
    } else if (l.width <= 4 * utile_w || l.height <= 4 * utile_h) {
      l.layout = MemoryLayout::kLt;
    } else {
      l.layout = MemoryLayout::kT;
    }
    // Padding: T to whole 4 KiB tiles, LT to micro-tiles, raster rows to a micro-tile's width (vc4_validate.c
    // vc4_check_tex_size and reloc_tex; vc4_setup_slices).
    const std::uint32_t align_w = l.layout == MemoryLayout::kT ? utile_w * kTTileMicroTiles : utile_w;
    const std::uint32_t align_h = l.layout == MemoryLayout::kT    ? utile_h * kTTileMicroTiles
                                  : l.layout == MemoryLayout::kLt ? utile_h
                                                                  : 1;
    l.padded_width = (l.width + align_w - 1) / align_w * align_w;
    l.padded_height = (l.height + align_h - 1) / align_h * align_h;
    l.bytes = l.padded_width * l.padded_height * bytes;
    if (i > 0) below += l.bytes;
  }
  // "The mipmaps are stored in reverse order before this in memory" (guide p.40): level i ends where level i - 1
  // starts (vc4_setup_slices lays them out back to back; reloc_tex subtracts each level's size in turn).
  l.address = params.base - static_cast<std::uint32_t>(below);
  return l;
}

std::uint32_t texel_address(const TextureParams& params, const TextureLevel& level, unsigned face, std::uint32_t x,
                            std::uint32_t y) {
  const unsigned bytes = texture_type_bytes(params.type);
  const unsigned utile_w = micro_tile_width(bytes), utile_h = micro_tile_height(bytes);
  std::uint64_t offset = 0;
  switch (level.layout) {
    case MemoryLayout::kLinear:
      offset = (static_cast<std::uint64_t>(y) * level.padded_width + x) * bytes;
      break;
    case MemoryLayout::kT:
      offset = t_micro_tile_offset(x / utile_w, y / utile_h, level.padded_width / utile_w);
      break;
    case MemoryLayout::kLt:
      offset = lt_micro_tile_offset(x / utile_w, y / utile_h, level.padded_width / utile_w);
      break;
  }
  // Within a micro-tile, texels are in raster order (guide section 11).
  if (level.layout != MemoryLayout::kLinear) offset += ((y % utile_h) * utile_w + x % utile_w) * bytes;
  // Each cube face is a whole miptree one stride after the previous (guide p.40; vc4_resource.c cube_map_stride).
  offset += static_cast<std::uint64_t>(face) * params.cube_stride;
  return level.address + static_cast<std::uint32_t>(offset);
}

std::uint32_t texel_to_r4(TextureType type, std::uint32_t raw) {
  // Widening by repeating the top bits, so 0 and full scale stay exact (model's choice).
  const auto widen5 = [](std::uint32_t v) { return (v << 3) | (v >> 2); };
  const auto widen6 = [](std::uint32_t v) { return (v << 2) | (v >> 4); };
  const auto pack = [](std::uint32_t r, std::uint32_t g, std::uint32_t b, std::uint32_t a) {
    return r | g << 8 | b << 16 | a << 24;
  };
  switch (type) {
    case TextureType::kRgba8888:
    case TextureType::kRgba32r:
      // The word as memory holds it: Mesa samples R8G8B8A8 with swizzle XYZW and B8G8R8A8 with ZYXW.
      return raw;
    case TextureType::kRgbx8888:
      return raw | 0xFF000000U;  // "alpha set to 1.0" (guide table 18)
    case TextureType::kRgba4444:
      // Red in bits 15:12 ... alpha in 3:0 (Mesa samples B4G4R4A4, A in 15:12, with swizzle YZWX).
      return pack(((raw >> 12) & 0xFU) * 17, ((raw >> 8) & 0xFU) * 17, ((raw >> 4) & 0xFU) * 17, (raw & 0xFU) * 17);
    case TextureType::kRgba5551:
      // Red in bits 15:11, green 10:6, blue 5:1, alpha bit 0 (Mesa samples A1B5G5R5 with swizzle XYZW: "5551 in the
      // hardware is the other way around from gallium").
      return pack(widen5((raw >> 11) & 0x1FU), widen5((raw >> 6) & 0x1FU), widen5((raw >> 1) & 0x1FU),
                  (raw & 1U) != 0 ? 0xFFU : 0U);
    case TextureType::kRgb565:
      // Red in bits 15:11, blue in 4:0 (Mesa samples B5G6R5 with swizzle XYZ1); "alpha channel set to 1.0".
      return pack(widen5((raw >> 11) & 0x1FU), widen6((raw >> 5) & 0x3FU), widen5(raw & 0x1FU), 0xFFU);
    case TextureType::kLuminance: {
      // "alpha channel set to 1.0" (guide table 18); luminance in red, green and blue (model's choice: Mesa never
      // uses this type).
      const std::uint32_t l = raw & 0xFFU;
      return pack(l, l, l, 0xFFU);
    }
    case TextureType::kAlpha:
      // Alpha in byte 3, "RGA channels set to 0" (guide table 18; Mesa samples A8 with swizzle 000W).
      return (raw & 0xFFU) << 24;
    case TextureType::kLumAlpha: {
      // The first byte in memory is luminance (byte 0 of r4), the second alpha (byte 3): Mesa samples L8A8 with
      // swizzle XXXW and R8G8 with X W 0 1. Green and blue repeat luminance (model's choice).
      const std::uint32_t l = raw & 0xFFU;
      return pack(l, l, l, (raw >> 8) & 0xFFU);
    }
    default:
      return 0;  // not modelled: decode_texture_params refuses these types
  }
}

bool sample_texture(const TextureParams& params, const Vector& s, const Vector& t, const Vector* r, const Vector* b,
                    DmaMemory& memory, Vector& result, std::vector<std::uint32_t>& lines, std::string& error) {
  lines.clear();
  // Parameters that decode_texture_params would not give (a caller's own): refused rather than trusted.
  if (!texture_type_modelled(static_cast<unsigned>(params.type)) || params.last_level > 15 || params.width == 0 ||
      params.width > 2048 || params.height == 0 || params.height > 2048) {
    error = std::string("texture lookup with type ") + texture_type_name(static_cast<unsigned>(params.type)) + ", " +
            std::to_string(params.last_level + 1) + " levels, " + std::to_string(params.width) + "x" +
            std::to_string(params.height) + ": not what decode_texture_params gives";
    return false;
  }
  // The border colour: the r write's element 0 ("if 'r' is not written, the border color will be 0", guide p.41),
  // in r4's layout (Mesa's write_texture_border_color packs it per type so).
  const std::uint32_t border = !params.cube && r != nullptr ? (*r)[0] : 0;
  Sampler sampler(params, memory, border, lines, error);

  // Normalised coordinates per element: s, t, or a cube face's from the direction (s, t, r).
  std::array<double, 16> u{}, v{};
  std::array<unsigned, 16> face{};
  for (unsigned i = 0; i < 16; ++i) {
    if (params.cube) {
      // "Params that are not written will be treated as zero" (guide p.40).
      select_face(guest_float(s[i]), guest_float(t[i]), r != nullptr ? guest_float((*r)[i]) : 0.0, face[i], u[i], v[i]);
    } else {
      u[i] = guest_float(s[i]);
      v[i] = guest_float(t[i]);
    }
    if (params.flip_y) v[i] = 1 - v[i];  // FLIPY (guide table 15): t runs from the last row in memory
  }

  // The level of detail per 2x2 quad, elements 4q + {0, 1, 2, 3} = (x, y) in {0, 1}^2 (reference-vc4-qpu.md 5.2):
  // GL's lambda = log2(rho), rho the longer of the texel-space steps along x (element 1 - element 0) and along y
  // (element 2 - element 0), scaled by level 0's size. The TMU's formula is not published (model's choice).
  std::array<double, 4> quad_lod{};
  for (unsigned q = 0; q < 4; ++q) {
    const unsigned e0 = 4 * q, e1 = e0 + 1, e2 = e0 + 2;
    const double w = params.width, h = params.height;
    const double along_x = std::hypot((u[e1] - u[e0]) * w, (v[e1] - v[e0]) * h);
    const double along_y = std::hypot((u[e2] - u[e0]) * w, (v[e2] - v[e0]) * h);
    const double rho = std::max(along_x, along_y);
    quad_lod[q] = rho > 0 ? std::log2(rho) : -std::numeric_limits<double>::infinity();
  }

  const MinFilter min = params.min_filter;
  // GL's switch-over point between magnification and minification: 0.5 when a linear magnification meets a
  // nearest-texel mipmapped minification, else 0 (OpenGL 2.0 section 3.8.8; model's choice).
  const double switch_over =
      !params.mag_nearest && (min == MinFilter::kNearMipNear || min == MinFilter::kNearMipLin) ? 0.5 : 0.0;
  const auto last = static_cast<double>(params.last_level);
  for (unsigned i = 0; i < 16; ++i) {
    // b: a bias added to the quad's LOD, or with BSLOD the LOD itself ("disable automatic LOD, use bias only",
    // guide table 17; Mesa's txl). Not written: 0.
    const double bias = b != nullptr ? guest_float((*b)[i]) : 0.0;
    const double lod = params.lod_from_b ? bias : quad_lod[i / 4] + bias;
    Channels sum{};
    bool ok = true;
    if (lod <= switch_over) {
      ok = sampler.sample_level(i, 0, face[i], u[i], v[i], !params.mag_nearest, 1.0, sum);
    } else if (min == MinFilter::kLinear || min == MinFilter::kNearest) {
      ok = sampler.sample_level(i, 0, face[i], u[i], v[i], min == MinFilter::kLinear, 1.0, sum);
    } else if (min == MinFilter::kNearMipNear || min == MinFilter::kLinMipNear) {
      // The nearest level: GL's ceil(lambda + 1/2) - 1, level 0 up to 1/2.
      const double d = lod <= 0.5 ? 0.0 : std::min(last, std::ceil(lod + 0.5) - 1);
      ok = sampler.sample_level(i, static_cast<unsigned>(d), face[i], u[i], v[i], min == MinFilter::kLinMipNear, 1.0,
                                sum);
    } else {
      // The two nearest levels blended by the LOD's fraction (GL's mipmap-linear).
      const bool linear = min == MinFilter::kLinMipLin;
      if (lod >= last) {
        ok = sampler.sample_level(i, params.last_level, face[i], u[i], v[i], linear, 1.0, sum);
      } else {
        const double d = std::floor(lod);
        const double f = lod - d;
        const auto level = static_cast<unsigned>(d);
        ok = sampler.sample_level(i, level, face[i], u[i], v[i], linear, 1 - f, sum) &&
             sampler.sample_level(i, level + 1, face[i], u[i], v[i], linear, f, sum);
      }
    }
    if (!ok) return false;
    // One rounding to nearest per channel at the end (model's choice: the TMU's blend precision is not published).
    std::uint32_t word = 0;
    for (unsigned c = 0; c < 4; ++c) {
      const double rounded = std::clamp(std::floor(sum[c] + 0.5), 0.0, 255.0);
      word |= static_cast<std::uint32_t>(rounded) << (8 * c);
    }
    result[i] = word;
  }
  return true;
}

}  // namespace gpuvp::vc4::qpu
