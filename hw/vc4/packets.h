// VideoCore IV (V3D 2.1) control-list packets: opcodes, total lengths and names (the table a driver needs to walk a
// list), field bits, and encoders that append a packet to a list. Facts: docs/vc4-v3d.md; Linux
// drivers/gpu/drm/vc4/vc4_packet.h (`enum vc4_packet`, VC4_PACKET_*_SIZE, VC4_BIN_CONFIG_*, VC4_RENDER_CONFIG_*,
// VC4_LOADSTORE_*); the VG packets 41, 42 and 67, which vc4_packet.h leaves out, from the Broadcom guide's tables
// transcribed in PeterLemon/RaspberryPi LIB/CONTROL_LIST.INC. vc4_packet.h gives COMPRESSED_PRIMITIVE and
// CLIPPED_COMPRESSED_PRIMITIVE size 1 (the opcode only: the kernel never parses them); their lists are
// escape-terminated (anholt/vc4-gpu-tools tools/vc4_dump_parse_cl.c), so they are variable here (length 0).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gpuvp::vc4 {

namespace packet {
constexpr std::uint8_t kHalt = 0;
constexpr std::uint8_t kNop = 1;
constexpr std::uint8_t kFlush = 4;
constexpr std::uint8_t kFlushAllState = 5;
constexpr std::uint8_t kStartTileBinning = 6;
constexpr std::uint8_t kIncrementSemaphore = 7;
constexpr std::uint8_t kWaitOnSemaphore = 8;
constexpr std::uint8_t kBranch = 16;
constexpr std::uint8_t kBranchToSubList = 17;
constexpr std::uint8_t kReturnFromSubList = 18;
constexpr std::uint8_t kStoreMsTileBuffer = 24;
constexpr std::uint8_t kStoreMsTileBufferAndEof = 25;
constexpr std::uint8_t kStoreFullResTileBuffer = 26;
constexpr std::uint8_t kLoadFullResTileBuffer = 27;
constexpr std::uint8_t kStoreTileBufferGeneral = 28;
constexpr std::uint8_t kLoadTileBufferGeneral = 29;
constexpr std::uint8_t kGlIndexedPrimitive = 32;
constexpr std::uint8_t kGlArrayPrimitive = 33;
constexpr std::uint8_t kVgCoordinateArrayPrimitives = 41;
constexpr std::uint8_t kVgInlinePrimitives = 42;
constexpr std::uint8_t kCompressedPrimitive = 48;
constexpr std::uint8_t kClippedCompressedPrimitive = 49;
constexpr std::uint8_t kPrimitiveListFormat = 56;
constexpr std::uint8_t kGlShaderState = 64;
constexpr std::uint8_t kNvShaderState = 65;
constexpr std::uint8_t kVgShaderState = 66;
constexpr std::uint8_t kVgInlineShaderRecord = 67;
constexpr std::uint8_t kConfigurationBits = 96;
constexpr std::uint8_t kFlatShadeFlags = 97;
constexpr std::uint8_t kPointSize = 98;
constexpr std::uint8_t kLineWidth = 99;
constexpr std::uint8_t kRhtXBoundary = 100;
constexpr std::uint8_t kDepthOffset = 101;
constexpr std::uint8_t kClipWindow = 102;
constexpr std::uint8_t kViewportOffset = 103;
constexpr std::uint8_t kZMinMaxClippingPlanes = 104;
constexpr std::uint8_t kClipperXyScaling = 105;
constexpr std::uint8_t kClipperZScaleAndOffset = 106;
constexpr std::uint8_t kTileBinningModeConfig = 112;
constexpr std::uint8_t kTileRenderingModeConfig = 113;
constexpr std::uint8_t kClearColors = 114;
constexpr std::uint8_t kTileCoordinates = 115;
// GEM_HANDLES (254, two u32 BO handles) is a kernel-UABI pseudo packet of user binning lists that never reaches the
// hardware: the kernel replaces it before the list runs, and the CLE treats it as an unknown opcode.
constexpr std::uint8_t kGemHandles = 254;
constexpr unsigned kGemHandlesLength = 9;

// EOF bit in the address word of STORE_FULL_RES_TILE_BUFFER and STORE_TILE_BUFFER_GENERAL
// (vc4_packet.h VC4_LOADSTORE_FULL_RES_EOF, VC4_LOADSTORE_TILE_BUFFER_EOF).
constexpr std::uint32_t kLoadStoreEof = 1u << 3;
// PRIMITIVE_LIST_FORMAT: 16-bit indices (data type 1 in bits 7:4), triangles (type 2 in bits 3:0).
constexpr std::uint8_t kListFormat16BitTriangles = 0x12;
constexpr std::uint8_t kListFormat16BitLines = 0x11;
constexpr std::uint8_t kListFormat16BitPoints = 0x10;
constexpr unsigned kMaxFixedLength = 16;  // TILE_BINNING_MODE_CONFIG
}  // namespace packet

// What a list walker needs of an opcode.
struct PacketLayout {
  const char* name = nullptr;
  std::uint8_t length = 0;  // total bytes including the opcode; 0 = variable (escape-terminated)
};

namespace detail {
struct PacketTable {
  std::array<PacketLayout, 256> layout{};
  std::array<bool, 256> defined{};
};
constexpr PacketTable make_packet_table() {
  PacketTable t{};
  auto def = [&t](std::uint8_t op, const char* name, std::uint8_t length) {
    t.layout[op] = PacketLayout{name, length};
    t.defined[op] = true;
  };
  using namespace packet;
  def(kHalt, "HALT", 1);
  def(kNop, "NOP", 1);
  def(kFlush, "FLUSH", 1);
  def(kFlushAllState, "FLUSH_ALL_STATE", 1);
  def(kStartTileBinning, "START_TILE_BINNING", 1);
  def(kIncrementSemaphore, "INCREMENT_SEMAPHORE", 1);
  def(kWaitOnSemaphore, "WAIT_ON_SEMAPHORE", 1);
  def(kBranch, "BRANCH", 5);
  def(kBranchToSubList, "BRANCH_TO_SUB_LIST", 5);
  def(kReturnFromSubList, "RETURN_FROM_SUB_LIST", 1);
  def(kStoreMsTileBuffer, "STORE_MS_TILE_BUFFER", 1);
  def(kStoreMsTileBufferAndEof, "STORE_MS_TILE_BUFFER_AND_EOF", 1);
  def(kStoreFullResTileBuffer, "STORE_FULL_RES_TILE_BUFFER", 5);
  def(kLoadFullResTileBuffer, "LOAD_FULL_RES_TILE_BUFFER", 5);
  def(kStoreTileBufferGeneral, "STORE_TILE_BUFFER_GENERAL", 7);
  def(kLoadTileBufferGeneral, "LOAD_TILE_BUFFER_GENERAL", 7);
  def(kGlIndexedPrimitive, "GL_INDEXED_PRIMITIVE", 14);
  def(kGlArrayPrimitive, "GL_ARRAY_PRIMITIVE", 10);
  def(kVgCoordinateArrayPrimitives, "VG_COORDINATE_ARRAY_PRIMITIVES", 10);
  def(kVgInlinePrimitives, "VG_INLINE_PRIMITIVES", 0);
  def(kCompressedPrimitive, "COMPRESSED_PRIMITIVE", 0);
  def(kClippedCompressedPrimitive, "CLIPPED_COMPRESSED_PRIMITIVE", 0);
  def(kPrimitiveListFormat, "PRIMITIVE_LIST_FORMAT", 2);
  def(kGlShaderState, "GL_SHADER_STATE", 5);
  def(kNvShaderState, "NV_SHADER_STATE", 5);
  def(kVgShaderState, "VG_SHADER_STATE", 5);
  def(kVgInlineShaderRecord, "VG_INLINE_SHADER_RECORD", 9);
  def(kConfigurationBits, "CONFIGURATION_BITS", 4);
  def(kFlatShadeFlags, "FLAT_SHADE_FLAGS", 5);
  def(kPointSize, "POINT_SIZE", 5);
  def(kLineWidth, "LINE_WIDTH", 5);
  def(kRhtXBoundary, "RHT_X_BOUNDARY", 3);
  def(kDepthOffset, "DEPTH_OFFSET", 5);
  def(kClipWindow, "CLIP_WINDOW", 9);
  def(kViewportOffset, "VIEWPORT_OFFSET", 5);
  def(kZMinMaxClippingPlanes, "Z_MIN_MAX_CLIPPING_PLANES", 9);
  def(kClipperXyScaling, "CLIPPER_XY_SCALING", 9);
  def(kClipperZScaleAndOffset, "CLIPPER_Z_SCALE_AND_OFFSET", 9);
  def(kTileBinningModeConfig, "TILE_BINNING_MODE_CONFIG", 16);
  def(kTileRenderingModeConfig, "TILE_RENDERING_MODE_CONFIG", 11);
  def(kClearColors, "CLEAR_COLORS", 14);
  def(kTileCoordinates, "TILE_COORDINATES", 3);
  return t;
}
inline constexpr PacketTable kPacketTable = make_packet_table();
}  // namespace detail

// The layout of an opcode, or nullptr for an opcode the hardware does not define.
constexpr const PacketLayout* packet_layout(std::uint8_t opcode) {
  return detail::kPacketTable.defined[opcode] ? &detail::kPacketTable.layout[opcode] : nullptr;
}

// TILE_BINNING_MODE_CONFIG: its last byte's flags (vc4_packet.h VC4_BIN_CONFIG_*) and the tile state data array it
// points to.
struct BinningModeConfigFields {
  static constexpr std::uint8_t kConfigMs4x = 1u << 0;
  static constexpr std::uint8_t kConfig64BitColor = 1u << 1;
  static constexpr std::uint8_t kConfigAutoInitTsda = 1u << 2;
  static constexpr unsigned kConfigInitialBlockShift = 3;  // 4:3: 32, 64, 128, 256
  static constexpr unsigned kConfigBlockShift = 5;         // 6:5
  static constexpr std::uint8_t kConfigDbNonMs = 1u << 7;
  // Bytes per tile of the tile state data array (vc4_validate.c "48 bytes per tile").
  static constexpr std::uint32_t kTsdaBytesPerTile = 48;
};

// TILE_RENDERING_MODE_CONFIG flags (VC4_RENDER_CONFIG_*), the STORE/LOAD_TILE_BUFFER_GENERAL first word
// (VC4_LOADSTORE_TILE_BUFFER_*, VC4_STORE_TILE_BUFFER_*) and the full-resolution load/store address word bits
// (VC4_LOADSTORE_FULL_RES_*).
struct TileBufferFields {
  static constexpr std::uint16_t kConfigMs4x = 1u << 0;
  static constexpr std::uint16_t kConfig64BitColor = 1u << 1;
  static constexpr unsigned kConfigFormatShift = 2;                // 3:2: 0 BGR565 dithered, 1 RGBA8888, 2 BGR565
  static constexpr unsigned kConfigDecimateShift = 4;              // 5:4: 0 1x, 1 4x, 2 16x
  static constexpr unsigned kConfigMemFormatShift = 6;             // 7:6: 0 linear, 1 T, 2 LT
  static constexpr std::uint16_t kConfigEarlyZGreater = 1u << 10;  // early-Z direction: 0 LT/LE, 1 GT/GE
  static constexpr std::uint16_t kConfigEarlyZDisable = 1u << 11;
  static constexpr unsigned kGeneralBufferMask = 7;  // 0 none, 1 colour, 2 Z/S, 3 Z, 4 VG mask, 5 full dump
  static constexpr unsigned kGeneralTilingShift = 4;
  static constexpr unsigned kGeneralModeShift = 6;         // 0 sample, 1 decimate 4x, 2 decimate 16x
  static constexpr unsigned kGeneralPixelFormatShift = 8;  // 0 RGBA8888, 1 BGR565 dithered, 2 BGR565
  static constexpr std::uint16_t kGeneralDisableColorClear = 1u << 13;
  static constexpr std::uint16_t kGeneralDisableZsClear = 1u << 14;
  static constexpr std::uint32_t kFullResDisableColor = 1u << 0;
  static constexpr std::uint32_t kFullResDisableZs = 1u << 1;
  static constexpr std::uint32_t kFullResDisableClear = 1u << 2;
};

// ---- Encoders: each appends one packet (little-endian fields) to a list being built ----
namespace packet {
inline void put_u8(std::vector<std::uint8_t>& cl, std::uint32_t v) { cl.push_back(static_cast<std::uint8_t>(v)); }
inline void put_u16(std::vector<std::uint8_t>& cl, std::uint32_t v) {
  put_u8(cl, v);
  put_u8(cl, v >> 8);
}
inline void put_u32(std::vector<std::uint8_t>& cl, std::uint32_t v) {
  put_u16(cl, v);
  put_u16(cl, v >> 16);
}
inline void put_f32(std::vector<std::uint8_t>& cl, float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  put_u32(cl, u);
}

inline void halt(std::vector<std::uint8_t>& cl) { put_u8(cl, kHalt); }
inline void flush(std::vector<std::uint8_t>& cl) { put_u8(cl, kFlush); }
inline void start_tile_binning(std::vector<std::uint8_t>& cl) { put_u8(cl, kStartTileBinning); }
inline void increment_semaphore(std::vector<std::uint8_t>& cl) { put_u8(cl, kIncrementSemaphore); }
inline void wait_on_semaphore(std::vector<std::uint8_t>& cl) { put_u8(cl, kWaitOnSemaphore); }
inline void branch(std::vector<std::uint8_t>& cl, std::uint32_t address) {
  put_u8(cl, kBranch);
  put_u32(cl, address);
}
inline void branch_to_sub_list(std::vector<std::uint8_t>& cl, std::uint32_t address) {
  put_u8(cl, kBranchToSubList);
  put_u32(cl, address);
}
inline void store_ms_tile_buffer(std::vector<std::uint8_t>& cl, bool end_of_frame = false) {
  put_u8(cl, end_of_frame ? kStoreMsTileBufferAndEof : kStoreMsTileBuffer);
}
// bits: the first (16-bit) word (TileBufferFields::kGeneral*); address_word: address | EOF and disable bits.
inline void store_tile_buffer_general(std::vector<std::uint8_t>& cl, std::uint16_t bits, std::uint32_t address_word) {
  put_u8(cl, kStoreTileBufferGeneral);
  put_u16(cl, bits);
  put_u32(cl, address_word);
}
inline void gl_indexed_primitive(std::vector<std::uint8_t>& cl, std::uint8_t mode_and_index_type, std::uint32_t count,
                                 std::uint32_t address, std::uint32_t max_index) {
  put_u8(cl, kGlIndexedPrimitive);
  put_u8(cl, mode_and_index_type);
  put_u32(cl, count);
  put_u32(cl, address);
  put_u32(cl, max_index);
}
inline void gl_array_primitive(std::vector<std::uint8_t>& cl, std::uint8_t mode, std::uint32_t count,
                               std::uint32_t first) {
  put_u8(cl, kGlArrayPrimitive);
  put_u8(cl, mode);
  put_u32(cl, count);
  put_u32(cl, first);
}
inline void primitive_list_format(std::vector<std::uint8_t>& cl, std::uint8_t format) {
  put_u8(cl, kPrimitiveListFormat);
  put_u8(cl, format);
}
// POINT_SIZE and LINE_WIDTH: an f32 in pixels (Mesa v3d_packet_v21.xml).
inline void point_size(std::vector<std::uint8_t>& cl, float size) {
  put_u8(cl, kPointSize);
  put_f32(cl, size);
}
inline void line_width(std::vector<std::uint8_t>& cl, float width) {
  put_u8(cl, kLineWidth);
  put_f32(cl, width);
}
// GL_SHADER_STATE: the record address (16-byte aligned) with the extended flag (b3) and the attribute count (b2:0,
// 0 = 8) in its low bits.
inline void gl_shader_state(std::vector<std::uint8_t>& cl, std::uint32_t record_word) {
  put_u8(cl, kGlShaderState);
  put_u32(cl, record_word);
}
inline void nv_shader_state(std::vector<std::uint8_t>& cl, std::uint32_t record) {
  put_u8(cl, kNvShaderState);
  put_u32(cl, record);
}
inline void configuration_bits(std::vector<std::uint8_t>& cl, std::uint8_t b0, std::uint8_t b1, std::uint8_t b2) {
  put_u8(cl, kConfigurationBits);
  put_u8(cl, b0);
  put_u8(cl, b1);
  put_u8(cl, b2);
}
inline void clip_window(std::vector<std::uint8_t>& cl, std::uint16_t left, std::uint16_t bottom, std::uint16_t width,
                        std::uint16_t height) {
  put_u8(cl, kClipWindow);
  put_u16(cl, left);
  put_u16(cl, bottom);
  put_u16(cl, width);
  put_u16(cl, height);
}
inline void viewport_offset(std::vector<std::uint8_t>& cl, std::int16_t x, std::int16_t y) {
  put_u8(cl, kViewportOffset);
  put_u16(cl, static_cast<std::uint16_t>(x));
  put_u16(cl, static_cast<std::uint16_t>(y));
}
// Half the viewport's width and height in 1/16 pixel.
inline void clipper_xy_scaling(std::vector<std::uint8_t>& cl, float x, float y) {
  put_u8(cl, kClipperXyScaling);
  put_f32(cl, x);
  put_f32(cl, y);
}
// Zs = Zc / Wc x scale + offset (the scale first: Mesa v3d_packet_v21.xml, vc4_emit.c).
inline void clipper_z_scale_and_offset(std::vector<std::uint8_t>& cl, float scale, float offset) {
  put_u8(cl, kClipperZScaleAndOffset);
  put_f32(cl, scale);
  put_f32(cl, offset);
}
inline void tile_binning_mode_config(std::vector<std::uint8_t>& cl, std::uint32_t tile_alloc,
                                     std::uint32_t tile_alloc_size, std::uint32_t tsda, std::uint8_t tiles_x,
                                     std::uint8_t tiles_y, std::uint8_t flags) {
  put_u8(cl, kTileBinningModeConfig);
  put_u32(cl, tile_alloc);
  put_u32(cl, tile_alloc_size);
  put_u32(cl, tsda);
  put_u8(cl, tiles_x);
  put_u8(cl, tiles_y);
  put_u8(cl, flags);
}
inline void tile_rendering_mode_config(std::vector<std::uint8_t>& cl, std::uint32_t address, std::uint16_t width,
                                       std::uint16_t height, std::uint16_t flags) {
  put_u8(cl, kTileRenderingModeConfig);
  put_u32(cl, address);
  put_u16(cl, width);
  put_u16(cl, height);
  put_u16(cl, flags);
}
// Clear colours (two 32-bit words), 24-bit Z, VG mask and stencil.
inline void clear_colors(std::vector<std::uint8_t>& cl, std::uint32_t color0, std::uint32_t color1,
                         std::uint32_t clear_z, std::uint8_t vg_mask, std::uint8_t clear_s) {
  put_u8(cl, kClearColors);
  put_u32(cl, color0);
  put_u32(cl, color1);
  put_u16(cl, clear_z);
  put_u8(cl, clear_z >> 16);
  put_u8(cl, vg_mask);
  put_u8(cl, clear_s);
}
inline void tile_coordinates(std::vector<std::uint8_t>& cl, std::uint8_t column, std::uint8_t row) {
  put_u8(cl, kTileCoordinates);
  put_u8(cl, column);
  put_u8(cl, row);
}
}  // namespace packet

}  // namespace gpuvp::vc4
