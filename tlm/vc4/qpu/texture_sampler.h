// The VideoCore IV TMU's texture lookups (the general-memory "direct" lookups are the QPU core's own), SystemC-free:
// the decode of the config parameters P0-P3 a lookup's TMU writes take from the uniform stream, the level layout of
// a texture in memory (mip levels before level 0, T-format, LT and raster) and the lookup of 16 elements: wrap
// modes, nearest and bilinear filtering, the level of detail of each 2x2 quad with its bias, the mipmap filters and
// cube maps, each element's result as r4 receives it.
//
// Facts: the Broadcom guide (VideoCoreIV-AG100-R, section 4 "Texture and Memory Lookup Unit": tables 15-24, and
// section 11 "Texture Memory Formats"; a copy ships in doe300/VC4C doc/); Linux drivers/gpu/drm/vc4/vc4_packet.h
// (VC4_TEX_P*) and vc4_validate.c (reloc_tex: types, size_is_lt, levels before the base); Mesa's vc4 driver:
// vc4_formats.c (what each type returns in r4), vc4_program.c (ntq_emit_tex: the writes and their uniforms),
// vc4_uniforms.c (P2, the border colour), vc4_state.c (P0, P1), vc4_resource.c (vc4_setup_slices: level layout),
// vc4_tiling.c (T-format order, through hw/vc4/surface.h). Choices where no source gives the hardware's behaviour:
// docs/vc4-qpu.md "Texture lookups".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/vc4/surface.h"
#include "tlm/vc4/qpu/qpu_vector.h"
#include "tlm/vc4/qpu/vpm.h"

namespace gpuvp::vc4::qpu {

// Texture data types (P0 bits 7:4 with P1 bit 31 as bit 4; guide table 18, vc4_packet.h vc4_texture_data_type).
enum class TextureType : std::uint8_t {
  kRgba8888 = 0,
  kRgbx8888 = 1,
  kRgba4444 = 2,
  kRgba5551 = 3,
  kRgb565 = 4,
  kLuminance = 5,
  kAlpha = 6,
  kLumAlpha = 7,
  kEtc1 = 8,
  kS16f = 9,
  kS8 = 10,
  kS16 = 11,
  kBw1 = 12,
  kA4 = 13,
  kA1 = 14,
  kRgba64 = 15,
  kRgba32r = 16,
  kYuyv422r = 17,
};
// The guide's name of a type number ("undefined" past 17).
const char* texture_type_name(unsigned type);
// Whether the sampler models the type: 0-7 and 16 (the others are decode errors).
bool texture_type_modelled(unsigned type);
// Bytes per texel of a modelled type.
unsigned texture_type_bytes(TextureType type);

// Wrap modes (P1 bits 1:0 for s, 3:2 for t; guide table 16).
enum class TextureWrap : std::uint8_t { kRepeat = 0, kClamp = 1, kMirror = 2, kBorder = 3 };
// Minification filters (P1 bits 6:4; guide table 19). The magnification filter is P1 bit 7: 0 linear, 1 nearest.
enum class MinFilter : std::uint8_t {
  kLinear = 0,       // bilinear from level 0 only
  kNearest = 1,      // nearest from level 0 only
  kNearMipNear = 2,  // nearest from the nearest level
  kNearMipLin = 3,   // nearest from the two nearest levels, blended
  kLinMipNear = 4,   // bilinear from the nearest level
  kLinMipLin = 5,    // trilinear
};

// A lookup's configuration, decoded from P0-P3.
struct TextureParams {
  std::uint32_t base = 0;      // P0 31:12: level 0 (of face 0), 4 KiB aligned; the mip levels lie below it
  unsigned cache_swizzle = 0;  // P0 11:10 CSWIZ ("cache swizzle"): kept, changes no result
  bool cube = false;           // P0 9 CMMODE: s, t, r are a direction vector
  bool flip_y = false;         // P0 8 FLIPY
  TextureType type = TextureType::kRgba8888;
  unsigned last_level = 0;                    // P0 3:0 MIPLVLS: the number of levels minus 1
  std::uint32_t width = 2048;                 // P1 18:8 (0 = 2048)
  std::uint32_t height = 2048;                // P1 30:20 (0 = 2048)
  bool etc_flip = false;                      // P1 19 ETCFLIP: kept (ETC1 only, not modelled)
  bool mag_nearest = false;                   // P1 7 MAGFILT: 0 linear, 1 nearest
  MinFilter min_filter = MinFilter::kLinear;  // P1 6:4
  TextureWrap wrap_s = TextureWrap::kRepeat;  // P1 1:0
  TextureWrap wrap_t = TextureWrap::kRepeat;  // P1 3:2
  std::uint32_t cube_stride = 0;  // P2/P3 with PTYPE 1: bytes from one face's level 0 to the next face's (CMST)
  bool lod_from_b = false;        // P2/P3 with PTYPE 1: BSLOD, "disable automatic LOD, use bias only"
};

// Decodes the config parameters of one texture lookup: `p[i]` is the uniform the lookup's i-th TMU write took (the
// core collects them: P0 with the first of its t, r, b writes, the s write that submits it last), `count` how many
// it took (2 to 4; parameters not taken are not used). False: `error` names the field and value that is undefined
// or not modelled (a type other than 0-7 and 16, MINFILT 6-7, child images, a cube stride given twice, cube map mode
// with the border wrap mode).
bool decode_texture_params(const std::array<std::uint32_t, 4>& p, unsigned count, TextureParams& params,
                           std::string& error);

// One mip level of a texture in memory.
struct TextureLevel {
  std::uint32_t address = 0;                          // its first byte (of face 0); bus addresses wrap at 4 GiB
  std::uint32_t width = 0, height = 0;                // texels
  std::uint32_t padded_width = 0, padded_height = 0;  // what memory holds: the layout's padding
  MemoryLayout layout = MemoryLayout::kLinear;        // raster (RGBA32R), T-format or LT
  std::uint32_t bytes = 0;                            // padded_width x padded_height x bytes per texel
};
// Level `level` (0..last_level) of a decoded texture: level 0 is params.width x params.height at params.base; level
// i > 0 is (next power of two of the size) >> i, at least 1, stored directly below level i - 1 (guide: "mipmaps are
// stored in reverse order before this in memory", "padded to a power of 2"); each level is LT when its width is at
// most 4 micro-tiles or its height at most 4 micro-tiles, T-format otherwise, raster for RGBA32R (vc4_validate.c
// size_is_lt).
TextureLevel texture_level(const TextureParams& params, unsigned level);
// The bus address of texel (x, y) of `level` of cube face `face` (0 without cube maps); y = 0 is the first row in
// memory (the guide's "bottom-left origin"). x, y within the level's width and height.
std::uint32_t texel_address(const TextureParams& params, const TextureLevel& level, unsigned face, std::uint32_t x,
                            std::uint32_t y);
// A texel's bits (the low 8, 16 or 32 bits of `raw`, little-endian in memory) as r4 receives them: byte 0 red (or
// luminance), byte 1 green, byte 2 blue, byte 3 alpha (vc4_formats.c's swizzles).
std::uint32_t texel_to_r4(TextureType type, std::uint32_t raw);

// The lookup of 16 elements (the TMU's s write): `s`, `t` the coordinates as float bits (a direction's x and y in
// cube map mode), `r` the r write if there was one (the direction's z in cube map mode; else element 0 is the
// border colour in r4's layout, 0 when r was not written), `b` the b write if there was one (an LOD bias added to
// each element's quad LOD; the LOD itself with BSLOD). Elements 4q..4q+3 are quad q (element bit 0 = x, bit 1 = y)
// for the level of detail. `result` gets what r4 receives per element and `lines` the distinct 64-byte memory lines
// (address & ~63) the lookup read, in the order it first read them (the core charges the TMU cache per line). False:
// `error` names the element, level, texel and address of a read outside memory; `result` and `lines` are then
// unspecified. Any coordinate (NaN, infinity) gives a result.
bool sample_texture(const TextureParams& params, const Vector& s, const Vector& t, const Vector* r, const Vector* b,
                    DmaMemory& memory, Vector& result, std::vector<std::uint32_t>& lines, std::string& error);

}  // namespace gpuvp::vc4::qpu
