#include "tlm/vc4/compressed_list.h"

namespace gpuvp::vc4::compressed {

namespace {

constexpr std::uint8_t kPoints = 0x10;
constexpr std::uint8_t kLines = 0x11;
constexpr std::uint8_t kTriangles = 0x12;

// Two's complement value of the low `bits` bits of v.
int sext(unsigned v, unsigned bits) {
  const unsigned m = (1u << bits) - 1;
  v &= m;
  return (v & (1u << (bits - 1))) ? static_cast<int>(v) - static_cast<int>(m + 1) : static_cast<int>(v);
}
std::uint16_t add(std::uint16_t base, int delta) { return static_cast<std::uint16_t>((base + delta) & 0xFFFF); }
bool fits(int v, int lo, int hi) { return v >= lo && v <= hi; }
std::uint16_t u16(const std::uint8_t* b) { return static_cast<std::uint16_t>(b[0] | b[1] << 8); }

}  // namespace

unsigned vertices_of(std::uint8_t list_format) {
  switch (list_format) {
    case kPoints:
      return 1;
    case kLines:
      return 2;
    case kTriangles:
      return 3;
    default:
      return 0;
  }
}

unsigned entry_length(std::uint8_t list_format, std::uint8_t b0) {
  const unsigned n = vertices_of(list_format);
  if (n == 0) return 0;
  if (b0 == kEscape) return 1;
  if (b0 == kRelativeBranch) return 3;
  if (b0 == kAbsolute) return 1 + 2 * n;
  switch (n) {
    case 3:
      if ((b0 & 0xF) == 0xF) return 4;
      return (b0 & 3) == 3 ? 2 : 1;
    case 2:
      if ((b0 & 3) == 2) return 3;
      return (b0 & 3) == 3 ? 2 : 1;
    default:
      return (b0 & 3) == 3 ? 2 : 1;
  }
}

bool decode(std::uint8_t list_format, const std::uint8_t* b, const Primitive& prev, Primitive& out,
            std::string& error) {
  const unsigned n = vertices_of(list_format);
  out = Primitive{};
  out.vertices = n;
  if (n == 0) {
    error = "no compressed encoding is documented for this PRIMITIVE_LIST_FORMAT";
    return false;
  }
  if (b[0] == kAbsolute) {
    for (unsigned i = 0; i < n; ++i) out.index[i] = u16(b + 1 + 2 * i);
    out.coding = 3;
    return true;
  }
  const std::array<std::uint16_t, 3>& p = prev.index;
  if (n == 3) {
    if ((b[0] & 0xF) == 0xF) {  // coding 2: one absolute, two relative to it
      const unsigned word = b[0] | b[1] << 8;
      const std::uint16_t i0 = u16(b + 2);
      out.index = {i0, add(i0, sext(word >> 4, 6)), add(i0, sext(word >> 10, 6))};
      out.coding = 2;
    } else if ((b[0] & 3) == 3) {  // coding 1: three 4-bit deltas to the previous triangle's indices
      out.index = {add(p[0], sext(b[0] >> 4, 4)), add(p[1], sext(b[1], 4)), add(p[2], sext(b[1] >> 4, 4))};
      out.coding = 1;
    } else {  // coding 0: an edge of the previous triangle and a new index relative to its third
      const std::uint16_t fresh = add(p[2], sext(b[0] >> 2, 6));
      switch (b[0] & 3) {
        case 0:
          out.index = {p[2], p[1], fresh};
          break;
        case 1:
          out.index = {p[0], p[2], fresh};
          break;
        default:
          out.index = {p[1], p[0], fresh};
          break;
      }
      out.coding = 0;
    }
    return true;
  }
  if (n == 2) {
    if ((b[0] & 3) == 2) {  // coding 2 (lines): one absolute, one relative to it
      const std::uint16_t i0 = u16(b + 1);
      out.index = {i0, add(i0, sext(b[0] >> 2, 6)), 0};
      out.coding = 2;
      return true;
    }
    error = std::string("the ") + ((b[0] & 3) == 3 ? "2-byte" : "1-byte") +
            " line coding is not modelled: no available source (vc4-gpu-tools, Broadcom's control list debugger) "
            "gives its meaning, only its length";
    return false;
  }
  if ((b[0] & 3) == 3) {  // coding 1 (points): assumed relative to the previous point (see the header)
    out.index = {add(p[0], sext(u16(b) >> 2, 14)), 0, 0};
    out.coding = 1;
    return true;
  }
  error =
      "the 1-byte point coding is not modelled: no available source (vc4-gpu-tools, Broadcom's control list "
      "debugger) gives its meaning, only its length";
  return false;
}

unsigned encode(std::uint8_t list_format, const Primitive& q, const Primitive* prev,
                std::array<std::uint8_t, kMaxEntryLength>& out) {
  const unsigned n = vertices_of(list_format);
  const std::array<std::uint16_t, 3>& i = q.index;
  if (n == 3 && prev) {
    const std::array<std::uint16_t, 3>& p = prev->index;
    // Coding 0: d = -32 would make the byte 0x80..0x82 (escape, absolute, branch), so 6-bit deltas stop at -31.
    const int d = static_cast<int>(i[2]) - static_cast<int>(p[2]);
    if (fits(d, -31, 31)) {
      const std::array<std::array<std::uint16_t, 2>, 3> edges = {{{p[2], p[1]}, {p[0], p[2]}, {p[1], p[0]}}};
      for (unsigned flag = 0; flag < 3; ++flag) {
        if (i[0] == edges[flag][0] && i[1] == edges[flag][1]) {
          out[0] = static_cast<std::uint8_t>((d & 0x3F) << 2 | flag);
          return 1;
        }
      }
    }
    // Coding 1: bits 3:2 of the first byte are written 0 (0b11 there would read as coding 2).
    const int d0 = static_cast<int>(i[0]) - p[0], d1 = static_cast<int>(i[1]) - p[1],
              d2 = static_cast<int>(i[2]) - p[2];
    if (fits(d0, -8, 7) && fits(d1, -8, 7) && fits(d2, -8, 7)) {
      out[0] = static_cast<std::uint8_t>(0x3 | (d0 & 0xF) << 4);
      out[1] = static_cast<std::uint8_t>((d1 & 0xF) | (d2 & 0xF) << 4);
      return 2;
    }
  }
  if (n == 3) {
    const int d1 = static_cast<int>(i[1]) - i[0], d2 = static_cast<int>(i[2]) - i[0];
    if (fits(d1, -32, 31) && fits(d2, -32, 31)) {
      const unsigned word = 0xF | (d1 & 0x3F) << 4 | (d2 & 0x3F) << 10;
      out = {static_cast<std::uint8_t>(word), static_cast<std::uint8_t>(word >> 8), static_cast<std::uint8_t>(i[0]),
             static_cast<std::uint8_t>(i[0] >> 8)};
      return 4;
    }
  }
  if (n == 2) {
    // Coding 2 (lines): d1 = -32 would make the first byte 0x82, the relative branch.
    const int d1 = static_cast<int>(i[1]) - i[0];
    if (fits(d1, -31, 31)) {
      out = {static_cast<std::uint8_t>((d1 & 0x3F) << 2 | 2), static_cast<std::uint8_t>(i[0]),
             static_cast<std::uint8_t>(i[0] >> 8)};
      return 3;
    }
  }
  out[0] = kAbsolute;
  for (unsigned k = 0; k < n; ++k) {
    out[1 + 2 * k] = static_cast<std::uint8_t>(i[k]);
    out[2 + 2 * k] = static_cast<std::uint8_t>(i[k] >> 8);
  }
  return 1 + 2 * n;
}

}  // namespace gpuvp::vc4::compressed
