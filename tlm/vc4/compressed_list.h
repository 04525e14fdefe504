// The compressed primitive list encodings (COMPRESSED_PRIMITIVE / CLIPPED_COMPRESSED_PRIMITIVE entries, 16-bit
// indices), shared by the binner, which writes them, and the render thread, which decodes them.
//
// Facts. Entry lengths and the triangle codings: anholt/vc4-gpu-tools vc4_dump_parse_cl.c dump_compressed_triangle
// ("Table 39: Compressed Triangles List Indices" of the Broadcom VideoCore IV 3D Architecture Reference Guide;
// docs/vc4-v3d.md) and Broadcom's own control list debugger in the released VideoCore IV userland driver
// (simonjhall/challenge, brcm_usrlib/dag/vmcsx/middleware/khronos, "Control list debugger", Broadcom Europe 2010:
// structs vcm_prim_coding0..3 and handle_compressed_prim), which also gives the base of every relative triangle index:
//   coding 3  0x81, then three absolute u16 indices                                     7 bytes
//   coding 2  low nibble 0xF; u32 {b3:0 0xF, b9:4 d1, b15:10 d2, b31:16 i0}: (i0, i0 + d1, i0 + d2)     4 bytes
//   coding 1  low bits 0b11 (not 0xF); u16 {b3:0, b7:4 d0, b11:8 d1, b15:12 d2}: (p0 + d0, p1 + d1, p2 + d2) 2 bytes
//   coding 0  one byte {b1:0 flag, b7:2 d}: flag 0 (p2, p1, p2 + d), 1 (p0, p2, p2 + d), 2 (p1, p0, p2 + d)  1 byte
// where p0..p2 are the indices of the previous triangle of the list and d0..d2 / d are two's complement (4 or 6 bits).
// 0x80 is the escape back to packets and 0x82 + int16 a relative branch (32-byte units from the 32-byte aligned
// address of the 0x82), both in every format.
// Lines (same source): 0x81 + two u16 (5 bytes); low bits 0b10: {b1:0, b7:2 d1, then u16 i0}: (i0, i0 + d1) (3 bytes,
// "vcm_prim_coding2_line"); low bits 0b11: 2 bytes; else 1 byte. Points: 0x81 + one u16 (3 bytes); low bits 0b11:
// u16 {b1:0, b15:2 d0} (2 bytes, "vcm_prim_coding1_point"); else 1 byte.
//
// Not in any source found (each choice is also commented where it is made):
// - what the 2-byte and 1-byte line codings and the 1-byte point coding mean: the debugger only skips them. Decoding
//   them is an error naming the missing source; the binner never writes them;
// - the 2-byte point coding's base: decoded as the previous point's index + d0 (by analogy with the triangles'
//   coding 1, whose first delta field has the same name and is relative to the previous primitive); the binner
//   writes points absolute only;
// - where the previous primitive resets: the decoder starts every COMPRESSED_PRIMITIVE / CLIPPED_COMPRESSED_PRIMITIVE
//   packet at (0, 0, 0) and keeps it across 0x82 branches; the binner opens every run with an absolute entry, so its
//   lists never depend on it;
// - which coding the PTB picks when several fit: the binner writes the shortest (coding 0 flag 0, 1, 2, then coding 1,
//   2, 3); indices are 16-bit and deltas are not taken modulo 2^16 (a delta that only fits by wrapping is not used).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace gpuvp::vc4::compressed {

constexpr std::uint8_t kEscape = 0x80;
constexpr std::uint8_t kAbsolute = 0x81;
constexpr std::uint8_t kRelativeBranch = 0x82;
constexpr unsigned kMaxEntryLength = 7;

// One decoded primitive.
struct Primitive {
  unsigned vertices = 0;                 // 1 point, 2 line, 3 triangle
  std::array<std::uint16_t, 3> index{};  // vertex indices (unused ones 0)
  std::uint8_t coding = 3;               // Broadcom's coding number (3 absolute ... 0 one byte)
};

// Vertices per primitive of a 16-bit-index PRIMITIVE_LIST_FORMAT (0x10 points, 0x11 lines, 0x12 triangles), 0 for
// formats without a documented compressed encoding.
unsigned vertices_of(std::uint8_t list_format);

// Total length of the entry starting with byte b0 (escape and branch included), 0 when the format has no encoding.
unsigned entry_length(std::uint8_t list_format, std::uint8_t b0);

// Decodes one primitive entry (not an escape or branch) of `entry_length` bytes against the previous primitive `prev`;
// false with `error` set for the codings no source explains.
bool decode(std::uint8_t list_format, const std::uint8_t* bytes, const Primitive& prev, Primitive& out,
            std::string& error);

// Encodes primitive q as the shortest entry whose meaning is documented; `prev` is null at the start of a run (only the
// absolute coding is possible then). Returns the length written to `out`.
unsigned encode(std::uint8_t list_format, const Primitive& q, const Primitive* prev,
                std::array<std::uint8_t, kMaxEntryLength>& out);

}  // namespace gpuvp::vc4::compressed
