// Tile renderer (CT1): the kernel's 99-byte render-only clear of a 1024x64 buffer (IGT lib/igt_vc4.c), clears in
// RGBA8888 and BGR565 with the frame's stride and partial edge tiles, loads firing on TILE_COORDINATES, disable-clear
// bits, full-resolution stores and loads, Z/S stores, end of frame, primitives from tile lists, the multisample tile
// buffer with sample-0, 4x and 16x decimated stores (general and STORE_MS_TILE_BUFFER), and every error path.
#include <functional>
#include <ostream>
#include <utility>

#include "tests/test_vc4_support.h"
#include "tlm/vc4/qpu/qpu_assembler.h"

using namespace gpuvp;
using namespace gpuvp::test::vc4t;
using vc4::ControlListExecutor;

namespace {

constexpr std::uint32_t kList = 0x10000;
constexpr std::uint32_t kFrame = 0x100000;

class Renderer : public Vc4Fixture {
 protected:
  void run(const List& l, double us = 100, const std::function<void()>& after = {}) { run_list(1, l, us, after); }
};

List& clear_colors(List& l, std::uint32_t c, std::uint32_t z = 0, std::uint8_t s = 0) {
  return l.op(pk::kClearColors)
      .u32(c)
      .u32(c)
      .u16(static_cast<std::uint16_t>(z))
      .u8(static_cast<std::uint8_t>(z >> 16))
      .u8(0)
      .u8(s);
}
List& render_config(List& l, std::uint32_t addr, std::uint16_t w, std::uint16_t h, std::uint16_t bits) {
  return l.op(pk::kTileRenderingModeConfig).u32(addr).u16(w).u16(h).u16(bits);
}
List& tile(List& l, std::uint8_t x, std::uint8_t y) { return l.op(pk::kTileCoordinates).u8(x).u8(y); }
List& store_general(List& l, std::uint16_t bits, std::uint32_t word) {
  return l.op(pk::kStoreTileBufferGeneral).u16(bits).u32(word);
}

// vc4_render_cl.c for igt_vc4_get_cleared_bo: 1024x64 RGBA8888, clear colour {v, v}, no binning list.
TEST_F(Renderer, KernelRenderOnlyClearOf1024x64Is99BytesAndFillsEveryWord) {
  List l{kList, {}};
  clear_colors(l, 0xDEADBEEF);
  tile(l, 0, 0);
  store_general(l, 0, 0);
  render_config(l, kFrame, 1024, 64, 0x0004);
  for (std::uint8_t x = 0; x < 16; ++x)
    tile(l, x, 0).op(x == 15 ? pk::kStoreMsTileBufferAndEof : pk::kStoreMsTileBuffer);
  ASSERT_EQ(l.bytes.size(), 99u);
  // The bytes the kernel emits for that clear (vc4_render_cl.c) with the buffer at 0x100000 instead of 0x10000000.
  const std::vector<std::uint8_t> head = {0x72, 0xef, 0xbe, 0xad, 0xde, 0xef, 0xbe, 0xad, 0xde, 0x00, 0x00,
                                          0x00, 0x00, 0x00, 0x73, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00,
                                          0x00, 0x00, 0x71, 0x00, 0x00, 0x10, 0x00, 0x00, 0x04, 0x40, 0x00,
                                          0x04, 0x00, 0x73, 0x00, 0x00, 0x18, 0x73, 0x01, 0x00, 0x18};
  EXPECT_EQ(std::vector<std::uint8_t>(l.bytes.begin(), l.bytes.begin() + 43), head);
  EXPECT_EQ(std::vector<std::uint8_t>(l.bytes.end() - 4, l.bytes.end()),
            (std::vector<std::uint8_t>{0x73, 0x0f, 0x00, 0x19}));
  put(kFrame, std::vector<std::uint8_t>(1024 * 64 * 4 + 64, 0x55));
  put(l);
  test::run_thread([&] {
    wr(vc4::kV3dIntena, vc4::kV3dIntFrdone);
    submit(1, l);
    settle(200);
    EXPECT_EQ(rd(vc4::kV3dRfc), 1u);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntFrdone);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), 0u);  // CT0 never started
  });
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < 1024 * 64; ++i) bad += word(kFrame + 4 * i) != 0xDEADBEEF;
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(word(kFrame + 1024 * 64 * 4), 0x55555555u);  // nothing beyond the buffer
  EXPECT_EQ(v3d_.renderer().tiles_stored(), 16u);
}

TEST_F(Renderer, Bgr565ClearUsesTheFrameStrideAndClipsPartialTiles) {
  // 100x70: 2x2 tiles, the right and bottom ones partial. 0xFF336699 -> R 0x33>>3, G 0x66>>2, B 0x99>>3.
  const std::uint16_t px = (0x33 >> 3) << 11 | (0x66 >> 2) << 5 | (0x99 >> 3);
  List l{kList, {}};
  clear_colors(l, 0xFF336699);
  tile(l, 0, 0);
  store_general(l, 0, 0);
  render_config(l, kFrame, 100, 70, 2 << 2);  // BGR565
  for (std::uint8_t y = 0; y < 2; ++y)
    for (std::uint8_t x = 0; x < 2; ++x)
      tile(l, x, y).op(x == 1 && y == 1 ? pk::kStoreMsTileBufferAndEof : pk::kStoreMsTileBuffer);
  put(kFrame, std::vector<std::uint8_t>(100 * 70 * 2 + 16, 0xEE));
  run(l, 100, [&] { EXPECT_EQ(rd(vc4::kV3dRfc), 1u); });
  const auto fb = get(kFrame, 100 * 70 * 2 + 16);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 100 * 70; ++i) bad += (fb[2 * i] | fb[2 * i + 1] << 8) != px;
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(fb[100 * 70 * 2], 0xEE);
}

TEST_F(Renderer, LoadsFireOnTileCoordinatesAndStoresClearUnlessDisabled) {
  // Source image 128x64 RGBA8888 with a pattern; load tile (1,0) from it, store it twice (the first store with the
  // colour clear disabled), then a third store gives the clear colour.
  constexpr std::uint32_t kSrc = 0x200000, kA = 0x300000, kB = 0x340000, kC = 0x380000;
  std::vector<std::uint8_t> src;
  for (std::uint32_t i = 0; i < 128 * 64; ++i) le(src, 0xA0000000u | i, 4);
  put(kSrc, src);
  List l{kList, {}};
  clear_colors(l, 0x11223344);
  render_config(l, kA, 128, 64, 0x0004);
  l.op(pk::kLoadTileBufferGeneral).u16(1).u32(kSrc);  // colour, raster, RGBA8888
  tile(l, 1, 0);
  store_general(l, 1 | vc4::TileRenderer::kGeneralDisableColorClear, kA);
  render_config(l, kB, 128, 64, 0x0004);
  l.op(pk::kStoreMsTileBuffer);
  render_config(l, kC, 128, 64, 0x0004);
  l.op(pk::kStoreMsTileBuffer);
  run(l);
  for (std::uint32_t y = 0; y < 64; y += 21) {
    for (std::uint32_t x = 64; x < 128; x += 13) {
      const std::uint32_t off = 4 * (y * 128 + x);
      EXPECT_EQ(word(kA + off), 0xA0000000u | (y * 128 + x)) << x << "," << y;
      EXPECT_EQ(word(kB + off), 0xA0000000u | (y * 128 + x)) << x << "," << y;
      EXPECT_EQ(word(kC + off), 0x11223344u) << x << "," << y;
    }
  }
  EXPECT_EQ(word(kA), 0u);  // tile (0,0) of A was never stored
  EXPECT_EQ(core::stats().counter_value("v3d.renderer.loads"), 1u);
}

TEST_F(Renderer, ZsStoreAndFullResolutionStoreAndLoad) {
  constexpr std::uint32_t kZs = 0x200000, kFull = 0x300000, kOut = 0x400000;
  List l{kList, {}};
  clear_colors(l, 0xCAFEF00D, 0x123456, 0x78);
  tile(l, 0, 0);
  store_general(l, 0, 0);  // latch the clear values
  render_config(l, kOut, 64, 64, 0x0004);
  tile(l, 0, 0);
  // Z/S (buffer 2), raster, colour clear kept for the next store.
  store_general(l, 2 | vc4::TileRenderer::kGeneralDisableColorClear, kZs);
  // Full resolution colour only (disable Z/S), no clear.
  l.op(pk::kStoreFullResTileBuffer)
      .u32(kFull | vc4::TileRenderer::kFullResDisableZs | vc4::TileRenderer::kFullResDisableClear);
  run(l);
  EXPECT_EQ(word(kZs), 0x78123456u);
  EXPECT_EQ(word(kZs + 4 * (64 * 64 - 1)), 0x78123456u);
  EXPECT_EQ(word(kFull), 0xCAFEF00Du);
  EXPECT_EQ(word(kFull + 16 * 1024 - 4), 0xCAFEF00Du);
  EXPECT_EQ(word(kFull + 16 * 1024), 0u);
}

TEST_F(Renderer, FullResolutionLoadRestoresTheTileBuffer) {
  constexpr std::uint32_t kFull = 0x300000, kOut = 0x400000;
  std::vector<std::uint8_t> full;
  for (std::uint32_t i = 0; i < 64 * 64; ++i) le(full, 0x5A000000u | i, 4);
  put(kFull, full);
  List l{kList, {}};
  render_config(l, kOut, 64, 64, 0x0004);
  l.op(pk::kLoadFullResTileBuffer).u32(kFull | vc4::TileRenderer::kFullResDisableZs);
  tile(l, 0, 0);
  l.op(pk::kStoreMsTileBufferAndEof);
  run(l, 100, [&] { EXPECT_EQ(rd(vc4::kV3dRfc), 1u); });
  EXPECT_EQ(word(kOut), 0x5A000000u);
  EXPECT_EQ(word(kOut + 4 * (64 * 64 - 1)), 0x5A000000u | (64 * 64 - 1));
}

TEST_F(Renderer, PrimitivesBeforeAnyShaderStateAreCountedAndReportedAsNotDrawn) {
  List tl{0x30000, {}};
  tl.format(0x12)
      .op(pk::kCompressedPrimitive)
      .u8(0x81)
      .u16(0)
      .u16(1)
      .u16(2)
      .u8(0x81)
      .u16(3)
      .u16(4)
      .u16(5)
      .u8(0x80)
      .op(pk::kReturnFromSubList);
  put(tl);
  List l{kList, {}};
  render_config(l, kFrame, 64, 64, 0x0004);
  tile(l, 0, 0).op(pk::kBranchToSubList).u32(0x30000).op(pk::kStoreMsTileBufferAndEof);
  run(l, 100, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u); });
  EXPECT_EQ(v3d_.renderer().primitives_not_shaded(), 2u);
  EXPECT_EQ(warnings("primitive entry at 0x30003 (PRIMITIVE_LIST_FORMAT 0x12) reached tile (0, 0) before any shader "
                     "state in the render thread"),
            1u);
}

// ---- shading (NV shader state: pre-shaded vertices, the fragment shader on the QPUs) ----

constexpr std::uint32_t kRecords = 0x40000, kCode = 0x48000, kVertexData = 0x50000, kUniforms = 0x58000;

std::vector<std::uint8_t> code_bytes(const std::string& source) {
  vc4::qpu::AssembledProgram program;
  std::string error;
  EXPECT_TRUE(vc4::qpu::assemble(source, program, error)) << error;
  std::vector<std::uint8_t> bytes;
  for (const std::uint64_t inst : program.code) le(bytes, inst, 8);
  return bytes;
}

struct ShadedVertexIn {
  int x, y;  // pixels
  float z, inv_w;
  std::vector<float> varyings;
};

class RendererShading : public Renderer {
 protected:
  // NV shader record `n` at kRecords + 16n: single-threaded (unless `threaded`), the vertices' stride, `varyings`,
  // the code at `code`, uniforms at `uniforms`, its vertices at kVertexData + 0x1000n.
  std::uint32_t record(unsigned n, const std::vector<ShadedVertexIn>& vertices, unsigned varyings, std::uint32_t code,
                       std::uint32_t uniforms = 0, bool threaded = false) {
    const std::uint32_t data = kVertexData + 0x1000 * n, at = kRecords + 16 * n;
    std::vector<std::uint8_t> r = {static_cast<std::uint8_t>(threaded ? 0 : 1),
                                   static_cast<std::uint8_t>(12 + 4 * varyings), 0,
                                   static_cast<std::uint8_t>(varyings)};
    le(r, code, 4);
    le(r, uniforms, 4);
    le(r, data, 4);
    put(at, r);
    std::vector<std::uint8_t> v;
    for (const ShadedVertexIn& p : vertices) {
      le(v, static_cast<std::uint16_t>(p.x * 16), 2);
      le(v, static_cast<std::uint16_t>(p.y * 16), 2);
      le(v, f32_bits(p.z), 4);
      le(v, f32_bits(p.inv_w), 4);
      for (unsigned k = 0; k < varyings; ++k) le(v, f32_bits(k < p.varyings.size() ? p.varyings[k] : 0.0F), 4);
    }
    put(data, v);
    return at;
  }
  // One 64x64 RGBA8888 frame per body, frame i at frame(i), cleared to `clear` (Z 0xFFFFFF), the body in tile
  // (0, 0), stored; `status` is CT1CS at the end (0: the list ran to its end).
  void render(const std::vector<std::function<void(List&)>>& bodies, std::uint32_t clear = 0xFF000000,
              std::uint32_t status = 0) {
    List l{kList, {}};
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      // As the kernel's render lists: the clear values latched by a store of nothing, then the frame.
      clear_colors(l, clear, 0xFFFFFF);
      store_general(tile(l, 0, 0), 0, 0);
      render_config(l, frame(static_cast<unsigned>(i)), 64, 64, 0x0004);
      tile(l, 0, 0).format(0x12);
      bodies[i](l);
      l.op(i + 1 == bodies.size() ? pk::kStoreMsTileBufferAndEof : pk::kStoreMsTileBuffer);
    }
    put(l);
    run(l, 400, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), status); });
  }
  static std::uint32_t frame(unsigned i) { return kFrame + 0x10000 * i; }
  static List& triangle(List& l, std::uint16_t a, std::uint16_t b, std::uint16_t c) {
    return l.op(pk::kCompressedPrimitive).u8(0x81).u16(a).u16(b).u16(c).u8(0x80);
  }
  std::uint32_t pixel(unsigned x, unsigned y, unsigned f = 0) { return word(frame(f) + 4 * (64 * y + x)); }
};

// The first varying, interpolated (partial * W + C) and truncated by ftoi, as the colour word.
const char* const kVaryingAsColourWordShader = R"(
    mov r0, vary
    fmul r1, r0, ra15
    fadd r2, r1, r5
    ftoi tlb_color_all, r2
    sig_end nop
    nop
    sig_unlock_score nop
)";

// A varying equal to x at the vertices, interpolated to the pixel centre (x + 1/2) and truncated by the shader's
// ftoi: each covered pixel's colour word is its own x; pixels outside keep the clear colour.
TEST_F(RendererShading, ATrianglesFragmentsGetTheirInterpolatedVarying) {
  put(kCode, code_bytes(kVaryingAsColourWordShader));
  const std::uint32_t rec =
      record(0, {{0, 0, 0.5F, 1.0F, {0}}, {64, 0, 0.5F, 1.0F, {64}}, {0, 64, 0.5F, 1.0F, {0}}}, 1, kCode);
  render({[&](List& l) { triangle(l.op(pk::kNvShaderState).u32(rec), 0, 1, 2); }});
  for (const auto& [x, y] : {std::pair{10u, 5u}, {40u, 20u}, {3u, 50u}, {0u, 0u}, {30u, 30u}}) {
    EXPECT_EQ(pixel(x, y), x) << x << "," << y;
  }
  for (const auto& [x, y] : {std::pair{60u, 60u}, {63u, 2u}, {33u, 33u}}) EXPECT_EQ(pixel(x, y), 0xFF000000u);
  // Centres with x + y < 63 (the hypotenuse, through the centres with x + y = 63, is neither top nor left): 2016.
  EXPECT_EQ(v3d_.renderer().fragments_shaded(), 63u * 64u / 2u);
  EXPECT_EQ(v3d_.renderer().primitives_not_shaded(), 0u);
}

// Three triangles over the whole frame, Z passed through (rb15 to tlb_z), each with its colour as a uniform: with
// "less" and Z updates the nearest (Z 0.25, green) wins whatever the order; without updates every one passes against
// the cleared Z and the last (blue) stays.
TEST_F(RendererShading, TheDepthTestKeepsTheNearestFragment) {
  put(kCode, code_bytes(R"(
      mov tlb_z, rb15
      mov tlb_color_all, uni
      sig_end nop
      nop
      sig_unlock_score nop
  )"));
  const std::uint32_t colours[3] = {0xFFFF0000, 0xFF00FF00, 0xFF0000FF};
  const float depths[3] = {0.5F, 0.25F, 0.75F};
  std::uint32_t recs[3];
  for (unsigned i = 0; i < 3; ++i) {
    put(kUniforms + 16 * i, {static_cast<std::uint8_t>(colours[i]), static_cast<std::uint8_t>(colours[i] >> 8),
                             static_cast<std::uint8_t>(colours[i] >> 16), static_cast<std::uint8_t>(colours[i] >> 24)});
    recs[i] = record(i, {{0, 0, depths[i], 1.0F, {}}, {128, 0, depths[i], 1.0F, {}}, {0, 128, depths[i], 1.0F, {}}}, 0,
                     kCode, kUniforms + 16 * i);
  }
  const std::uint8_t updates[2] = {0x80, 0x00};
  std::vector<std::function<void(List&)>> frames;
  for (const std::uint8_t update : updates) {
    frames.emplace_back([&, update](List& l) {
      l.config_bits(0x03, static_cast<std::uint8_t>(0x10 | update));  // both faces; Z "less" (1 << 12), update
      for (unsigned i = 0; i < 3; ++i) triangle(l.op(pk::kNvShaderState).u32(recs[i]), 0, 1, 2);
    });
  }
  render(frames);
  for (unsigned f = 0; f < 2; ++f) {
    std::size_t wrong = 0;
    for (unsigned y = 0; y < 64; ++y) {
      for (unsigned x = 0; x < 64; ++x) wrong += pixel(x, y, f) != (updates[f] ? 0xFF00FF00u : 0xFF0000FFu);
    }
    EXPECT_EQ(wrong, 0u) << "update " << int{updates[f]};
  }
}

// Each triangle keeps the depth state of the CONFIGURATION_BITS before it, however late its shaders run: green (Z
// 0.25, "less" with updates) first, then blue (0.75) with "always" and no update, then red (0.5) with "less" again:
// blue overwrites green's colour but not its Z, so red fails against 0.25 and blue stays.
TEST_F(RendererShading, EachTriangleKeepsTheDepthStateItWasDrawnWith) {
  put(kCode, code_bytes(R"(
      mov tlb_z, rb15
      mov tlb_color_all, uni
      sig_end nop
      nop
      sig_unlock_score nop
  )"));
  const std::uint32_t colours[3] = {0xFF00FF00, 0xFF0000FF, 0xFFFF0000};
  const float depths[3] = {0.25F, 0.75F, 0.5F};
  std::uint32_t recs[3];
  for (unsigned i = 0; i < 3; ++i) {
    put(kUniforms + 16 * i, {static_cast<std::uint8_t>(colours[i]), static_cast<std::uint8_t>(colours[i] >> 8),
                             static_cast<std::uint8_t>(colours[i] >> 16), static_cast<std::uint8_t>(colours[i] >> 24)});
    recs[i] = record(i, {{0, 0, depths[i], 1.0F, {}}, {128, 0, depths[i], 1.0F, {}}, {0, 128, depths[i], 1.0F, {}}}, 0,
                     kCode, kUniforms + 16 * i);
  }
  render({[&](List& l) {
    triangle(l.config_bits(0x03, 0x90).op(pk::kNvShaderState).u32(recs[0]), 0, 1, 2);  // less, update
    triangle(l.config_bits(0x03, 0x70).op(pk::kNvShaderState).u32(recs[1]), 0, 1, 2);  // always
    triangle(l.config_bits(0x03, 0x90).op(pk::kNvShaderState).u32(recs[2]), 0, 1, 2);  // less, update
  }});
  std::size_t wrong = 0;
  for (unsigned y = 0; y < 64; ++y) {
    for (unsigned x = 0; x < 64; ++x) wrong += pixel(x, y) != 0xFF0000FFu;
  }
  EXPECT_EQ(wrong, 0u);
}

// Culling by facing as CONFIGURATION_BITS asks (b0 forward, b1 reverse enabled; b2 clockwise is forward): a
// clockwise triangle with only reverse faces enabled draws nothing.
TEST_F(RendererShading, FacingCullsAsTheConfigurationBitsSay) {
  put(kCode, code_bytes("load_imm tlb_color_all, 0xffffffff\nsig_end nop\nnop\nsig_unlock_score nop\n"));
  const std::uint32_t rec =
      record(0, {{0, 0, 0.5F, 1.0F, {}}, {64, 0, 0.5F, 1.0F, {}}, {0, 64, 0.5F, 1.0F, {}}}, 0, kCode);
  render({[&](List& l) { triangle(l.config_bits(0x06).op(pk::kNvShaderState).u32(rec), 0, 1, 2); },
          [&](List& l) { triangle(l.config_bits(0x05).op(pk::kNvShaderState).u32(rec), 0, 1, 2); }});
  EXPECT_EQ(pixel(5, 5, 0), 0xFF000000u);  // reverse only: culled
  EXPECT_EQ(pixel(5, 5, 1), 0xFFFFFFFFu);  // forward only, clockwise forward: drawn
  EXPECT_EQ(v3d_.renderer().fragments_shaded(), 63u * 64u / 2u);
}

// The stencil test through TLB_STENCIL_SETUP (Mesa's word layout: tile_renderer.cpp): a triangle over the upper
// left half writes stencil 1 (always, replace on pass); a triangle over the whole tile then draws only where the
// stencil equals 1 (keep), and a third only where it does not (incrementing it there). The frame: the second
// triangle's colour exactly on the first, the third's elsewhere; the Z/S store holds 1 everywhere (replaced under the
// first triangle, incremented from the cleared 0 outside).
TEST_F(RendererShading, TheStencilTestDrawsOnlyWhereAnEarlierTriangleMarked) {
  // Uniforms: the stencil setup, then the colour.
  put(kCode, code_bytes(R"(
      mov tlb_stencil_setup, uni
      mov tlb_z, rb15
      mov tlb_color_all, uni
      sig_end nop
      nop
      sig_unlock_score nop
  )"));
  const auto setup = [](unsigned func, unsigned fail, unsigned zfail, unsigned zpass, unsigned ref) {
    return 3U << 30 | 3U << 28 | zfail << 25 | zpass << 22 | fail << 19 | func << 16 | ref << 8 | 0xFFU;
  };
  const std::uint32_t uniforms[3][2] = {{setup(7, 1, 1, 2, 1), 0xFF111111},   // always, replace on pass
                                        {setup(2, 1, 1, 1, 1), 0xFF00FF00},   // equal 1, keep
                                        {setup(5, 1, 1, 3, 1), 0xFFFF0000}};  // not equal 1: incr on pass
  std::uint32_t recs[3];
  for (unsigned i = 0; i < 3; ++i) {
    std::vector<std::uint8_t> u;
    le(u, uniforms[i][0], 4);
    le(u, uniforms[i][1], 4);
    put(kUniforms + 16 * i, u);
    const std::vector<ShadedVertexIn> v =
        i == 0
            ? std::vector<ShadedVertexIn>{{0, 0, 0.5F, 1.0F, {}}, {64, 0, 0.5F, 1.0F, {}}, {0, 64, 0.5F, 1.0F, {}}}
            : std::vector<ShadedVertexIn>{{0, 0, 0.5F, 1.0F, {}}, {128, 0, 0.5F, 1.0F, {}}, {0, 128, 0.5F, 1.0F, {}}};
    recs[i] = record(i, v, 0, kCode, kUniforms + 16 * i);
  }
  render({[&](List& l) {
    l.config_bits(0x03, 0x70);  // both faces, depth always, no update
    for (unsigned i = 0; i < 3; ++i) triangle(l.op(pk::kNvShaderState).u32(recs[i]), 0, 1, 2);
    // The Z/S buffer, keeping the colour for the frame's store.
    store_general(l, static_cast<std::uint16_t>(2 | vc4::TileBufferFields::kGeneralDisableColorClear), kFrame + 0x8000);
  }});
  std::size_t wrong = 0, marked = 0;
  for (unsigned y = 0; y < 64; ++y) {
    for (unsigned x = 0; x < 64; ++x) {
      const bool first = x + y < 63;  // centres inside the first triangle (rasteriser.h's rule)
      marked += first;
      wrong += pixel(x, y) != (first ? 0xFF00FF00u : 0xFFFF0000u);
      const std::uint32_t zs = word(kFrame + 0x8000 + 4 * (64 * y + x));
      wrong += (zs >> 24) != 1u;
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(marked, 63u * 64u / 2u);
}

// Two-sided stencil and write masks: the front face's setup replaces with 0x5A (mask 0xFF), the back face's with 0xA5
// through the mask code 0 (0x01), then through an explicit write-mask word (back 0xF0). A forward (counter-clockwise)
// triangle, then the same pixels reversed twice: 0x5A, then (0x5A & ~0x01) | (0xA5 & 0x01) = 0x5B, then
// (0x5B & 0x0F) | (0xA5 & 0xF0) = 0xAB.
TEST_F(RendererShading, StencilSetupsAreChosenByFacingAndMaskTheirWrites) {
  put(kCode, code_bytes(R"(
      mov tlb_stencil_setup, uni
      mov tlb_stencil_setup, uni
      mov tlb_stencil_setup, uni
      mov tlb_z, rb15
      load_imm tlb_color_all, 0xffffffff
      sig_end nop
      nop
      sig_unlock_score nop
  )"));
  const auto replace = [](unsigned faces, unsigned mask_code, unsigned ref) {
    return faces << 30 | mask_code << 28 | 2U << 22 | 7U << 16 | ref << 8 | 0xFFU;  // always; replace on pass
  };
  const std::uint32_t front = replace(1, 3, 0x5A), back = replace(2, 0, 0xA5);
  const std::uint32_t words[2][3] = {{front, back, back}, {front, back, 0xF0FF}};
  std::uint32_t recs[3];
  for (unsigned i = 0; i < 3; ++i) {
    std::vector<std::uint8_t> u;
    for (const std::uint32_t w : words[i == 2 ? 1 : 0]) le(u, w, 4);
    put(kUniforms + 16 * i, u);
    recs[i] = i == 0 ? record(i, {{0, 0, 0.5F, 1.0F, {}}, {0, 64, 0.5F, 1.0F, {}}, {64, 0, 0.5F, 1.0F, {}}}, 0, kCode,
                              kUniforms)
                     : record(i, {{0, 0, 0.5F, 1.0F, {}}, {64, 0, 0.5F, 1.0F, {}}, {0, 64, 0.5F, 1.0F, {}}}, 0, kCode,
                              kUniforms + 16 * i);
  }
  std::vector<std::function<void(List&)>> frames;
  for (unsigned f = 1; f <= 3; ++f) {
    frames.emplace_back([&, f](List& l) {
      l.config_bits(0x03, 0x70);
      for (unsigned i = 0; i < f; ++i) triangle(l.op(pk::kNvShaderState).u32(recs[i]), 0, 1, 2);
      store_general(l, static_cast<std::uint16_t>(2 | vc4::TileBufferFields::kGeneralDisableColorClear),
                    kFrame + 0x30000 + 0x4000 * f);
    });
  }
  render(frames);
  const std::uint32_t expected[3] = {0x5A, 0x5B, 0xAB};
  for (unsigned f = 1; f <= 3; ++f) {
    EXPECT_EQ(word(kFrame + 0x30000 + 0x4000 * f + 4 * (64 * 10 + 10)) >> 24, expected[f - 1]) << f;
    EXPECT_EQ(word(kFrame + 0x30000 + 0x4000 * f + 4 * (64 * 60 + 60)) >> 24, 0u) << f;  // outside: cleared
  }
}

// Early Z (CONFIGURATION_BITS b16): the nearer triangle (Z 0.25, "less" with updates) drawn first, the farther one
// (0.75) then never reaches its shader: the frame is the near triangle's colour, and only its fragments were shaded.
// With TILE_RENDERING_MODE_CONFIG's early-Z disable bit (b11) the far triangle's fragments are shaded and fail late,
// leaving the same frame.
TEST_F(RendererShading, EarlyZKeepsHiddenFragmentsFromTheShaders) {
  put(kCode, code_bytes(R"(
      mov tlb_z, rb15
      mov tlb_color_all, uni
      sig_end nop
      nop
      sig_unlock_score nop
  )"));
  const std::uint32_t colours[2] = {0xFF00FF00, 0xFFFF0000};
  const float depths[2] = {0.25F, 0.75F};
  std::uint32_t recs[2];
  for (unsigned i = 0; i < 2; ++i) {
    put(kUniforms + 16 * i, {static_cast<std::uint8_t>(colours[i]), static_cast<std::uint8_t>(colours[i] >> 8),
                             static_cast<std::uint8_t>(colours[i] >> 16), static_cast<std::uint8_t>(colours[i] >> 24)});
    recs[i] = record(i, {{0, 0, depths[i], 1.0F, {}}, {128, 0, depths[i], 1.0F, {}}, {0, 128, depths[i], 1.0F, {}}}, 0,
                     kCode, kUniforms + 16 * i);
  }
  List l{kList, {}};
  for (const std::uint16_t disable : {0, 1 << 11}) {
    clear_colors(l, 0xFF000000, 0xFFFFFF);
    store_general(tile(l, 0, 0), 0, 0);
    render_config(l, frame(disable != 0 ? 1 : 0), 64, 64, static_cast<std::uint16_t>(0x0004 | disable));
    tile(l, 0, 0).format(0x12);
    l.config_bits(0x03, 0x90, 0x01);  // both faces; less, update; early Z
    for (unsigned i = 0; i < 2; ++i) triangle(l.op(pk::kNvShaderState).u32(recs[i]), 0, 1, 2);
    l.op(disable != 0 ? pk::kStoreMsTileBufferAndEof : pk::kStoreMsTileBuffer);
  }
  put(l);
  run(l, 400, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u); });
  for (unsigned f = 0; f < 2; ++f) {
    std::size_t wrong = 0;
    for (unsigned y = 0; y < 64; ++y) {
      for (unsigned x = 0; x < 64; ++x) wrong += pixel(x, y, f) != 0xFF00FF00u;
    }
    EXPECT_EQ(wrong, 0u) << f;
  }
  // 4096 pixels a triangle a frame: the far one's reach shaders only in the second frame.
  EXPECT_EQ(core::stats().counter_value("v3d.renderer.early_z_rejected"), 4096u);
  EXPECT_EQ(v3d_.renderer().fragments_shaded(), 3u * 4096u);
}

// Early Z never drops a fragment the late test passes: Z cleared to 0.5, a triangle at 0.9 with "always" and updates,
// then one at 0.7 with "less" and early Z: against 0.9 it passes, so it is drawn everywhere (the front end waits for
// the earlier batches on its quads before its early test).
TEST_F(RendererShading, EarlyZTestsAgainstTheZEarlierTrianglesLeave) {
  put(kCode, code_bytes(R"(
      mov tlb_z, rb15
      mov tlb_color_all, uni
      sig_end nop
      nop
      sig_unlock_score nop
  )"));
  const std::uint32_t colours[2] = {0xFF0000FF, 0xFFFFFF00};
  const float depths[2] = {0.9F, 0.7F};
  std::uint32_t recs[2];
  for (unsigned i = 0; i < 2; ++i) {
    put(kUniforms + 16 * i, {static_cast<std::uint8_t>(colours[i]), static_cast<std::uint8_t>(colours[i] >> 8),
                             static_cast<std::uint8_t>(colours[i] >> 16), static_cast<std::uint8_t>(colours[i] >> 24)});
    recs[i] = record(i, {{0, 0, depths[i], 1.0F, {}}, {128, 0, depths[i], 1.0F, {}}, {0, 128, depths[i], 1.0F, {}}}, 0,
                     kCode, kUniforms + 16 * i);
  }
  List l{kList, {}};
  clear_colors(l, 0xFF000000, 0x800000);  // Z 0.5
  store_general(tile(l, 0, 0), 0, 0);
  render_config(l, frame(0), 64, 64, 0x0004);
  tile(l, 0, 0).format(0x12);
  triangle(l.config_bits(0x03, 0xF0, 0x00).op(pk::kNvShaderState).u32(recs[0]), 0, 1, 2);  // always, update
  triangle(l.config_bits(0x03, 0x90, 0x03).op(pk::kNvShaderState).u32(recs[1]), 0, 1, 2);  // less; early Z
  l.op(pk::kStoreMsTileBufferAndEof);
  put(l);
  run(l, 400, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u); });
  std::size_t wrong = 0;
  for (unsigned y = 0; y < 64; ++y) {
    for (unsigned x = 0; x < 64; ++x) wrong += pixel(x, y) != 0xFFFFFF00u;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(core::stats().counter_value("v3d.renderer.early_z_rejected"), 0u);
}

// 4x multisample shading: one 32x32 tile of four samples, the triangle (0, 0), (32, 0), (0, 32). Sample k of pixel
// (x, y) lies at (16x + sx_k, 16y + sy_k) sixteenths with (sx, sy) = (6, 2), (14, 6), (2, 10), (10, 14)
// (rasteriser.h); it is inside when the sum is below 512 (never equal: the offsets' sums are 8, 20, 12, 24).
class RendererMultisample : public RendererShading {
 protected:
  static constexpr int kSampleX[4] = {6, 14, 2, 10}, kSampleY[4] = {2, 6, 10, 14};
  static bool inside(unsigned x, unsigned y, unsigned k) {
    return 16 * static_cast<int>(x + y) + kSampleX[k] + kSampleY[k] < 512;
  }
  // Renders the triangle with `shader` into the tile buffer and keeps it (no store clears it).
  void draw(const std::string& shader, std::uint32_t status = 0) {
    put(kCode, code_bytes(shader));
    const std::uint32_t rec =
        record(0, {{0, 0, 0.5F, 1.0F, {}}, {32, 0, 0.5F, 1.0F, {}}, {0, 32, 0.5F, 1.0F, {}}}, 0, kCode);
    List l{kList, {}};
    clear_colors(l, 0, 0xFFFFFF);
    store_general(tile(l, 0, 0), 0, 0);
    render_config(l, kFrame, 32, 32, 0x0005);  // 4x multisample, RGBA8888
    tile(l, 0, 0).format(0x12);
    triangle(l.op(pk::kNvShaderState).u32(rec), 0, 1, 2);
    store_general(l, vc4::TileRenderer::kGeneralDisableColorClear | vc4::TileRenderer::kGeneralDisableZsClear,
                  kFrame + 0x10000);  // buffer 0 (none): waits for the shaders, keeps the tile buffer
    put(l);
    run(l, 400, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), status); });
  }
};

// Each covered sample receives the fragment's TLB_COLOR_ALL write; the value written is the multisample mask the
// shader reads (raddr 42 A): the pixel's covered samples.
TEST_F(RendererMultisample, CoverageIsPerSampleAndTheShaderReadsTheMask) {
  draw("mov tlb_color_all, ms_flags\nsig_end nop\nnop\nsig_unlock_score nop\n");
  std::size_t wrong = 0, partial = 0;
  for (unsigned y = 0; y < 32; ++y) {
    for (unsigned x = 0; x < 32; ++x) {
      unsigned mask = 0;
      for (unsigned k = 0; k < 4; ++k) mask |= inside(x, y, k) ? 1U << k : 0U;
      partial += mask != 0 && mask != 0xF;
      for (unsigned k = 0; k < 4; ++k) wrong += v3d_.renderer().color_at(x, y, k) != (inside(x, y, k) ? mask : 0U);
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(partial, 31u);  // the hypotenuse's pixels are partly covered
}

// TLB_COLOR_MS writes go to the samples in order (the n-th write to sample n), each only where covered; a fifth
// write is an error.
TEST_F(RendererMultisample, PerSampleColourWritesGoToTheirSamples) {
  draw(R"(
      load_imm tlb_color_ms, 0x11
      load_imm tlb_color_ms, 0x22
      load_imm tlb_color_ms, 0x33
      load_imm tlb_color_ms, 0x44
      sig_end nop
      nop
      sig_unlock_score nop
  )");
  std::size_t wrong = 0;
  for (unsigned y = 0; y < 32; ++y) {
    for (unsigned x = 0; x < 32; ++x) {
      for (unsigned k = 0; k < 4; ++k) {
        wrong += v3d_.renderer().color_at(x, y, k) != (inside(x, y, k) ? 0x11U * (k + 1) : 0U);
      }
    }
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_F(RendererMultisample, AFifthPerSampleColourWriteIsAnError) {
  draw(
      "load_imm tlb_color_ms, 1\nload_imm tlb_color_ms, 2\nload_imm tlb_color_ms, 3\nload_imm tlb_color_ms, 4\n"
      "load_imm tlb_color_ms, 5\nsig_end nop\nnop\nsig_unlock_score nop\n",
      ControlListExecutor::kCtErr);
  EXPECT_EQ(errors("fragment shader: QPU"), 1u);                               // the thread's report
  EXPECT_GE(errors("TLB_COLOR_MS write 5 of a fragment with 4 samples"), 1u);  // each shader's own
}

// A compressed entry of `list_format` for one point or line, in its absolute coding, in a COMPRESSED_PRIMITIVE run.
List& entry(List& l, std::uint8_t list_format, std::uint16_t a, std::uint16_t b = 0) {
  vc4::compressed::Primitive q;
  q.vertices = vc4::compressed::vertices_of(list_format);
  q.index = {a, b, 0};
  std::array<std::uint8_t, vc4::compressed::kMaxEntryLength> bytes{};
  const unsigned n = vc4::compressed::encode(list_format, q, nullptr, bytes);
  l.op(pk::kCompressedPrimitive);
  for (unsigned i = 0; i < n; ++i) l.u8(bytes[i]);
  return l.u8(0x80);
}

// POINT_SIZE 4 around a pixel corner covers its 4x4 pixels; a 1-pixel LINE_WIDTH line along a pixel row boundary
// covers the row above it (centres on a top edge count, rasteriser.h), 16 pixels from x 4 to 19. The point's
// fragment shader reads the point coordinate (the first varying: 1/8, 3/8, 5/8, 7/8 across the columns) and writes
// 8 x point_x as an integer; the line's writes white.
TEST_F(RendererShading, PointsAndLinesAreRasterisedWithTheirSizesAndPointCoordinates) {
  put(kCode, code_bytes(R"(
      mov r0, vary
      fmul r1, r0, ra15
      fadd r2, r1, r5
      fmul r2, r2, 8.0
      ftoi tlb_color_all, r2
      sig_end nop
      nop
      sig_unlock_score nop
  )"));
  put(kCode + 0x100, code_bytes("load_imm tlb_color_all, 0xffffffff\nsig_end nop\nnop\nsig_unlock_score nop\n"));
  const std::uint32_t point = record(0, {{10, 10, 0.5F, 1.0F, {}}}, 0, kCode);
  const std::uint32_t line = record(1, {{4, 30, 0.5F, 1.0F, {}}, {20, 30, 0.5F, 1.0F, {}}}, 0, kCode + 0x100);
  render({[&](List& l) {
    l.op(pk::kPointSize).u32(f32_bits(4.0F)).op(pk::kLineWidth).u32(f32_bits(1.0F));
    entry(l.op(pk::kNvShaderState).u32(point).format(pk::kListFormat16BitPoints), pk::kListFormat16BitPoints, 0);
    entry(l.op(pk::kNvShaderState).u32(line).format(pk::kListFormat16BitLines), pk::kListFormat16BitLines, 0, 1);
  }});
  std::size_t lit = 0;
  for (unsigned y = 0; y < 64; ++y) {
    for (unsigned x = 0; x < 64; ++x) lit += pixel(x, y) != 0xFF000000u;
  }
  EXPECT_EQ(lit, 32u);
  for (unsigned y = 8; y < 12; ++y) {
    for (unsigned x = 8; x < 12; ++x) EXPECT_EQ(pixel(x, y), 2 * (x - 8) + 1) << x << "," << y;
  }
  for (unsigned x = 4; x < 20; ++x) EXPECT_EQ(pixel(x, 29), 0xFFFFFFFFu) << x;
  EXPECT_EQ(v3d_.renderer().fragments_shaded(), 32u);
}

// A full tile of the varying-equals-x shader with a thread switch: its 256 batches over 12 QPUs; the QPUs' thread
// switches in all.
class RendererThreading : public RendererShading {
 protected:
  std::uint64_t render_tile(bool threaded) {
    put(kCode, code_bytes(R"(
        mov r0, vary
        sig_switch fmul r1, r0, ra15
        nop
        nop
        fadd r2, r1, r5
        ftoi tlb_color_all, r2
        sig_end nop
        nop
        sig_unlock_score nop
    )"));
    const std::uint32_t rec = record(
        0, {{0, 0, 0.5F, 1.0F, {0}}, {64, 0, 0.5F, 1.0F, {64}}, {0, 64, 0.5F, 1.0F, {0}}, {64, 64, 0.5F, 1.0F, {64}}},
        1, kCode, 0, threaded);
    render({[&](List& l) {
      triangle(l.op(pk::kNvShaderState).u32(rec), 0, 1, 2);
      triangle(l, 1, 3, 2);
    }});
    for (unsigned y = 0; y < 64; ++y) {
      for (unsigned x = 0; x < 64; ++x) EXPECT_EQ(pixel(x, y), x) << x << "," << y;
    }
    std::uint64_t switches = 0;
    for (unsigned q = 0; q < 12; ++q) {
      switches += core::stats().counter_value("v3d.qpus.qpu" + std::to_string(q) + ".thread_switches");
    }
    return switches;
  }
};

// The NV record's flag bit 0 clear makes the fragment shader threaded: batches pair up on QPUs and take turns at the
// shader's switch; every pixel still gets its own x.
TEST_F(RendererThreading, AThreadedFragmentShaderSharesQpusAndTakesTurnsAtItsSwitches) {
  EXPECT_GT(render_tile(true), 0u);
}

// Single-threaded (flag bit 0 set), the same shader's switches hand nothing over.
TEST_F(RendererThreading, ASingleThreadedShadersSwitchesHandNothingOver) { EXPECT_EQ(render_tile(false), 0u); }

// CLIPPED_COMPRESSED_PRIMITIVE (the binner's clipper output, tlm/vc4/clipper.h): the record replaces the flagged
// vertex of the run's first primitive by its own position, Zs and 1/Wc, and its varyings by the coefficients' sum of
// the original vertices'. The triangle (0, 0), (64, 0), (0, 64) with a varying equal to x has vertex 2 replaced by
// (32, 64) with coefficients (1/2, 1/2, 0), whose varying 32 is again its x: every covered pixel's colour is its own x,
// and the covered pixels are those of (0, 0), (64, 0), (32, 64). The next primitive of the run is drawn unclipped.
TEST_F(RendererShading, AClippedPrimitiveRecordReplacesItsFlaggedVertices) {
  put(kCode, code_bytes(kVaryingAsColourWordShader));
  const std::uint32_t rec = record(0,
                                   {{0, 0, 0.5F, 1.0F, {0}},
                                    {64, 0, 0.5F, 1.0F, {64}},
                                    {0, 64, 0.5F, 1.0F, {0}},
                                    {60, 60, 0.5F, 1.0F, {60}},
                                    {64, 60, 0.5F, 1.0F, {64}},
                                    {64, 64, 0.5F, 1.0F, {64}}},
                                   1, kCode);
  // The record: XS, YS relative to the viewport centre (no VIEWPORT_OFFSET here), ZS, 1/WC, three coefficients.
  constexpr std::uint32_t kRecord = 0x70000;
  std::vector<std::uint8_t> r;
  le(r, 32 * 16, 2);
  le(r, 64 * 16, 2);
  le(r, f32_bits(0.5F), 4);
  le(r, f32_bits(1.0F), 4);
  for (const float w : {0.5F, 0.5F, 0.0F, 0.0F, 0.0F}) le(r, f32_bits(w), 4);
  put(kRecord, r);
  render({[&](List& l) {
    l.op(pk::kNvShaderState).u32(rec).op(pk::kClippedCompressedPrimitive).u32(kRecord | 4U);
    l.u8(0x81).u16(0).u16(1).u16(2).u8(0x81).u16(3).u16(4).u16(5).u8(0x80);
  }});
  std::size_t covered = 0;
  for (unsigned y = 0; y < 64; ++y) {
    for (unsigned x = 0; x < 64; ++x) {
      const double cx = x + 0.5, cy = y + 0.5;
      // Inside the clipped triangle's edges x = y / 2 and x = 64 - y / 2 by half a pixel, or outside by as much
      // (away from the second triangle's corner).
      const double left = cy / 2, right = 64 - cy / 2;
      if (cx > left + 0.5 && cx < right - 0.5) {
        EXPECT_EQ(pixel(x, y), x) << x << "," << y;
        ++covered;
      } else if (cy < 59 && (cx < left - 0.5 || cx > right + 0.5)) {
        EXPECT_EQ(pixel(x, y), 0xFF000000u) << x << "," << y;
      }
    }
  }
  EXPECT_GT(covered, 1800u);
  // Pixel (5, 50) was inside the original triangle and is outside the clipped one.
  EXPECT_EQ(pixel(5, 50), 0xFF000000u);
  // The run's second triangle (60, 60), (64, 60), (64, 64) is drawn as it is.
  EXPECT_EQ(pixel(63, 61), 63u);
  EXPECT_EQ(core::stats().counter_value("v3d.renderer.clipped"), 1u);
}

// A clipped primitive record the render thread cannot use stops it with CTERR: flags naming a vertex the primitive
// does not have, or (below) a record outside DRAM.
TEST_F(RendererShading, AClippedPrimitiveRecordNamingAMissingVertexIsAModelledError) {
  const std::uint32_t rec =
      record(0, {{0, 0, 0.5F, 1.0F, {}}, {64, 0, 0.5F, 1.0F, {}}, {0, 64, 0.5F, 1.0F, {}}}, 0, kCode);
  put(kCode, code_bytes("load_imm tlb_color_all, 0xffffffff\nsig_end nop\nnop\nsig_unlock_score nop\n"));
  render({[&](List& l) {
           l.op(pk::kNvShaderState).u32(rec).format(pk::kListFormat16BitLines);
           l.op(pk::kClippedCompressedPrimitive).u32(0x70000 | 4U).u8(0x81).u16(0).u16(1).u8(0x80);
         }},
         0xFF000000, ControlListExecutor::kCtErr);
  EXPECT_EQ(errors("CLIPPED_COMPRESSED_PRIMITIVE flags 4 name a vertex the 2-vertex primitive does not have"), 1u);
}

TEST_F(RendererShading, AClippedPrimitiveRecordOutsideDramIsAModelledError) {
  const std::uint32_t rec =
      record(0, {{0, 0, 0.5F, 1.0F, {}}, {64, 0, 0.5F, 1.0F, {}}, {0, 64, 0.5F, 1.0F, {}}}, 0, kCode);
  put(kCode, code_bytes("load_imm tlb_color_all, 0xffffffff\nsig_end nop\nnop\nsig_unlock_score nop\n"));
  render({[&](List& l) {
           l.op(pk::kNvShaderState).u32(rec);
           l.op(pk::kClippedCompressedPrimitive).u32(0xFFFFFFF8U | 1U).u8(0x81).u16(0).u16(1).u16(2).u8(0x80);
         }},
         0xFF000000, ControlListExecutor::kCtErr);
  EXPECT_EQ(errors("clipped primitive record: load of 32 bytes at 0xfffffff8 is outside DRAM"), 1u);
}

// A fragment shader's error (its code here is zeros: a breakpoint) stops the render thread with CTERR when the tile
// is stored, naming the shader's QPU, address and instruction.
TEST_F(RendererShading, AFragmentShadersErrorStopsTheRenderThread) {
  const std::uint32_t rec =
      record(0, {{0, 0, 0.5F, 1.0F, {}}, {64, 0, 0.5F, 1.0F, {}}, {0, 64, 0.5F, 1.0F, {}}}, 0, kCode + 0x800);
  render({[&](List& l) { triangle(l.op(pk::kNvShaderState).u32(rec), 0, 1, 2); }}, 0xFF000000,
         ControlListExecutor::kCtErr);
  EXPECT_EQ(errors("fragment shader: QPU"), 1u);
  EXPECT_GE(errors("software breakpoint"), 1u);  // each shader's own report
}

// With GL shader state the vertex shader runs first: its error (an eight-attribute record of zeros, no attribute
// selected, its code at 0: a breakpoint) stops the render thread with CTERR at the primitive.
TEST_F(RendererShading, AVertexShadersErrorStopsTheRenderThread) {
  render({[&](List& l) { triangle(l.op(pk::kGlShaderState).u32(0x60000), 0, 1, 2); }}, 0xFF000000,
         ControlListExecutor::kCtErr);
  EXPECT_EQ(errors("vertex shader: QPU 0 at 0x00000000"), 1u);
  EXPECT_GE(errors("software breakpoint"), 1u);  // the shader's own report
}

struct RenderErrorCase {
  const char* name;
  std::function<void(List&)> list;
  const char* report;  // a part of the error report
};
// The case name in test listings, not its bytes.
void PrintTo(const RenderErrorCase& c, std::ostream* os) { *os << c.name; }

class RendererGuestError : public Renderer, public ::testing::WithParamInterface<RenderErrorCase> {};

TEST_P(RendererGuestError, StopsCt1WithCterr) {
  List l{0x50000, {}};
  GetParam().list(l);
  put(l);
  test::run_thread([&] {
    submit(1, l);
    settle(10);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), ControlListExecutor::kCtErr);
  });
  EXPECT_EQ(errors(GetParam().report), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Renderer, RendererGuestError,
    ::testing::Values(
        RenderErrorCase{"StoreBeforeConfig", [](List& l) { store_general(l, 1, kFrame); },
                        "STORE_TILE_BUFFER_GENERAL before any TILE_RENDERING_MODE_CONFIG"},
        RenderErrorCase{"TileBeforeConfig", [](List& l) { tile(l, 1, 0); },
                        "TILE_COORDINATES (1, 0) outside the 1x1 tile grid (no TILE_RENDERING_MODE_CONFIG yet)"},
        RenderErrorCase{"TileOutsideTheGrid",
                        [](List& l) {
                          render_config(l, kFrame, 128, 64, 4);
                          tile(l, 2, 0);
                        },
                        "TILE_COORDINATES (2, 0) outside the 2x1 tile grid of the 128x64 frame"},
        RenderErrorCase{"ZeroSizedFrame", [](List& l) { render_config(l, kFrame, 0, 64, 4); },
                        "TILE_RENDERING_MODE_CONFIG with a 0x64 frame"},
        RenderErrorCase{"TLinearMemoryFormat", [](List& l) { render_config(l, kFrame, 64, 64, 4 | 1 << 6); },
                        "memory format 1 (T/LT tiling) is not modelled"},
        RenderErrorCase{"UndefinedDecimateMode", [](List& l) { render_config(l, kFrame, 64, 64, 4 | 3 << 4); },
                        "decimate mode 3 is undefined"},
        RenderErrorCase{"HdrColour", [](List& l) { render_config(l, kFrame, 64, 64, 4 | 2); },
                        "64-bit (HDR) colour is not modelled"},
        RenderErrorCase{"UndefinedColourFormat", [](List& l) { render_config(l, kFrame, 64, 64, 3 << 2); },
                        "colour format 3 is undefined"},
        RenderErrorCase{"StoreOutsideDram",
                        [](List& l) {
                          render_config(l, 0xFFFF00, 64, 64, 4);
                          tile(l, 0, 0);
                          l.op(pk::kStoreMsTileBuffer);
                        },
                        "tile (0, 0) store of 256 bytes at 0x1000000 is outside DRAM"},
        RenderErrorCase{"StoreGeneralTTiled",
                        [](List& l) {
                          render_config(l, kFrame, 64, 64, 4);
                          tile(l, 0, 0);
                          store_general(l, 1 | 1 << 4, kFrame);
                        },
                        "STORE_TILE_BUFFER_GENERAL T-tiled memory format is not modelled"},
        RenderErrorCase{"StoreGeneralUndefinedMode",
                        [](List& l) {
                          render_config(l, kFrame, 64, 64, 4);
                          tile(l, 0, 0);
                          store_general(l, 1 | 3 << 6, kFrame);
                        },
                        "STORE_TILE_BUFFER_GENERAL mode 3 is undefined"},
        RenderErrorCase{"StoreGeneralZsDecimated",
                        [](List& l) {
                          render_config(l, kFrame, 64, 64, 4);
                          tile(l, 0, 0);
                          store_general(l, 2 | 1 << 6, kFrame);
                        },
                        "STORE_TILE_BUFFER_GENERAL of the Z/S buffer with decimation 4x is not modelled"},
        RenderErrorCase{"StoreGeneralFullDump",
                        [](List& l) {
                          render_config(l, kFrame, 64, 64, 4);
                          store_general(l, 5, kFrame);
                        },
                        "STORE_TILE_BUFFER_GENERAL of the full dump buffer is not modelled"},
        RenderErrorCase{"LoadGeneralLtTiled",
                        [](List& l) {
                          render_config(l, kFrame, 64, 64, 4);
                          l.op(pk::kLoadTileBufferGeneral).u16(1 | 2 << 4).u32(kFrame);
                        },
                        "LOAD_TILE_BUFFER_GENERAL LT-tiled memory format is not modelled"},
        RenderErrorCase{"FullResLoadOutsideDram",
                        [](List& l) {
                          render_config(l, kFrame, 64, 64, 4);
                          l.op(pk::kLoadFullResTileBuffer).u32(0xFFF000);
                          tile(l, 0, 0);
                        },
                        "full-resolution load of 16384 bytes at 0xfff000 is outside DRAM"}),
    [](const ::testing::TestParamInfo<RenderErrorCase>& info) { return info.param.name; });

// ---- multisample tile buffer, decimation ----

constexpr std::uint32_t kGridIn = 0x300000;
// A full-resolution buffer (the 64x64 sample grid, row by row) with sample (gx, gy) = A 0xFF, R gx, G gy and
// B 0 / 80 / 160 / 240 for the four grid positions of a 2x2 block (in multisample mode: samples 0, 1, 2, 3 of a pixel).
std::vector<std::uint8_t> sample_grid() {
  std::vector<std::uint8_t> g;
  for (std::uint32_t gy = 0; gy < 64; ++gy) {
    for (std::uint32_t gx = 0; gx < 64; ++gx) {
      le(g, 0xFF000000u | gx << 16 | gy << 8 | ((gx & 1) + 2 * (gy & 1)) * 80, 4);
    }
  }
  return g;
}
// Loads the grid into tile (0, 0) of a `w`x`h` frame configured with `bits`.
List& load_grid(List& l, std::uint16_t w, std::uint16_t h, std::uint16_t bits) {
  render_config(l, kFrame, w, h, bits);
  l.op(pk::kLoadFullResTileBuffer).u32(kGridIn | vc4::TileRenderer::kFullResDisableZs);
  return tile(l, 0, 0);
}

TEST_F(Renderer, MultisampleStoresSampleZeroOrAveragesFourOrSixteenSamples) {
  constexpr std::uint32_t kSample = 0x400000, kDec4 = 0x410000, kDec16 = 0x420000, k565 = 0x430000, kFull = 0x440000;
  constexpr std::uint16_t kNoClear =
      vc4::TileRenderer::kGeneralDisableColorClear | vc4::TileRenderer::kGeneralDisableZsClear;
  put(kGridIn, sample_grid());
  for (std::uint32_t a : {kSample, kDec4, kDec16, k565, kFull}) put(a, std::vector<std::uint8_t>(0x10000, 0xEE));
  List l{kList, {}};
  load_grid(l, 32, 32, 1 | 1 << 2);         // 32x32 pixels, 4x multisample, RGBA8888: one 32x32 tile of 4 samples
  store_general(l, 1 | kNoClear, kSample);  // sample 0
  store_general(l, 1 | 1 << 6 | kNoClear, kDec4);          // decimate 4x
  store_general(l, 1 | 2 << 6 | kNoClear, kDec16);         // decimate 16x
  store_general(l, 1 | 1 << 6 | 2 << 8 | kNoClear, k565);  // decimate 4x, BGR565
  l.op(pk::kStoreFullResTileBuffer)
      .u32(kFull | vc4::TileRenderer::kFullResDisableZs | vc4::TileRenderer::kFullResDisableClear | pk::kLoadStoreEof);
  run(l, 200, [&] {
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dRfc), 1u);
  });
  // The tile buffer holds the four distinct samples of every pixel.
  EXPECT_EQ(v3d_.renderer().color_at(3, 5, 0), 0xFF060A00u);
  EXPECT_EQ(v3d_.renderer().color_at(3, 5, 3), 0xFF070BF0u);
  // Sample mode: 32x32 pixels of sample 0 (grid (2x, 2y)), stride 128.
  EXPECT_EQ(word(kSample), 0xFF000000u);
  EXPECT_EQ(word(kSample + 5 * 128 + 3 * 4), 0xFF060A00u);
  EXPECT_EQ(word(kSample + 31 * 128 + 31 * 4), 0xFF3E3E00u);
  EXPECT_EQ(word(kSample + 32 * 128), 0xEEEEEEEEu);
  // 4x: the four samples of a pixel averaged, rounded to nearest: R (2x + 2x + 1) * 2 / 4 -> 2x + 1, G 2y + 1,
  // B (0 + 80 + 160 + 240) / 4 = 120.
  EXPECT_EQ(word(kDec4), 0xFF010178u);
  EXPECT_EQ(word(kDec4 + 5 * 128 + 3 * 4), 0xFF070B78u);
  EXPECT_EQ(word(kDec4 + 31 * 128 + 31 * 4), 0xFF3F3F78u);
  EXPECT_EQ(word(kDec4 + 32 * 128), 0xEEEEEEEEu);
  // 16x: 2x2 pixels of 4 samples into one: a 16x16 image, stride 64; R 4X + 1.5 rounds to 4X + 2.
  EXPECT_EQ(word(kDec16), 0xFF020278u);
  EXPECT_EQ(word(kDec16 + 2 * 64 + 1 * 4), 0xFF060A78u);
  EXPECT_EQ(word(kDec16 + 15 * 64 + 15 * 4), 0xFF3E3E78u);
  EXPECT_EQ(word(kDec16 + 16 * 64), 0xEEEEEEEEu);
  // 4x into BGR565: 0xFF010178 -> R 0x01 >> 3, G 0x01 >> 2, B 0x78 >> 3 = 0x000F; 0xFF3F3F78 -> 0x39EF.
  EXPECT_EQ(get(k565, 2), (std::vector<std::uint8_t>{0x0F, 0x00}));
  EXPECT_EQ(get(k565 + 31 * 64 + 31 * 2, 2), (std::vector<std::uint8_t>{0xEF, 0x39}));
  EXPECT_EQ(get(k565 + 32 * 64, 2), (std::vector<std::uint8_t>{0xEE, 0xEE}));
  // The full-resolution store writes the sample grid back unchanged (16 KiB).
  EXPECT_EQ(get(kFull, 64 * 64 * 4), sample_grid());
  EXPECT_EQ(word(kFull + 64 * 64 * 4), 0xEEEEEEEEu);
}

TEST_F(Renderer, StoreMsTileBufferResolvesWithTheConfiguredDecimation) {
  // TILE_RENDERING_MODE_CONFIG decimate 1x (sample 0), 4x (Mesa and Broadcom's driver pair it with 4x multisample)
  // and 16x, each storing the same grid to its own frame buffer with STORE_MS_TILE_BUFFER.
  constexpr std::uint32_t kOut[3] = {0x400000, 0x410000, 0x420000};
  put(kGridIn, sample_grid());
  for (std::uint32_t a : kOut) put(a, std::vector<std::uint8_t>(0x2000, 0xEE));
  List l{kList, {}};
  for (unsigned d = 0; d < 3; ++d) {
    render_config(l, kOut[d], 32, 32, static_cast<std::uint16_t>(1 | 1 << 2 | d << 4));
    l.op(pk::kLoadFullResTileBuffer).u32(kGridIn | vc4::TileRenderer::kFullResDisableZs);
    tile(l, 0, 0).op(d == 2 ? pk::kStoreMsTileBufferAndEof : pk::kStoreMsTileBuffer);
  }
  run(l, 200, [&] { EXPECT_EQ(rd(vc4::kV3dRfc), 1u); });
  EXPECT_EQ(word(kOut[0] + 31 * 128 + 31 * 4), 0xFF3E3E00u);
  EXPECT_EQ(word(kOut[0] + 32 * 128), 0xEEEEEEEEu);
  EXPECT_EQ(word(kOut[1] + 31 * 128 + 31 * 4), 0xFF3F3F78u);
  EXPECT_EQ(word(kOut[1] + 32 * 128), 0xEEEEEEEEu);
  EXPECT_EQ(word(kOut[2] + 15 * 64 + 15 * 4), 0xFF3E3E78u);
  EXPECT_EQ(word(kOut[2] + 16 * 64), 0xEEEEEEEEu);
}

TEST_F(Renderer, WithoutMultisamplingDecimationAveragesBlocksOfPixels) {
  // One sample per pixel: 4x averages 2x2 pixels (a 32x32 image of the 64x64 tile), 16x 4x4 pixels (16x16).
  constexpr std::uint32_t kDec4 = 0x410000, kDec16 = 0x420000, kSample = 0x430000;
  put(kGridIn, sample_grid());
  for (std::uint32_t a : {kDec4, kDec16, kSample}) put(a, std::vector<std::uint8_t>(0x8000, 0xEE));
  constexpr std::uint16_t kNoClear = vc4::TileRenderer::kGeneralDisableColorClear;
  List l{kList, {}};
  load_grid(l, 64, 64, 1 << 2);
  store_general(l, 1 | 1 << 6 | kNoClear, kDec4);
  store_general(l, 1 | 2 << 6 | kNoClear, kDec16);
  store_general(l, 1 | kNoClear, kSample);
  run(l, 200, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u); });
  EXPECT_EQ(word(kDec4 + 5 * 128 + 3 * 4), 0xFF070B78u);
  EXPECT_EQ(word(kDec4 + 32 * 128), 0xEEEEEEEEu);
  EXPECT_EQ(word(kDec16 + 15 * 64 + 15 * 4), 0xFF3E3E78u);
  EXPECT_EQ(word(kDec16 + 16 * 64), 0xEEEEEEEEu);
  // Sample mode is the pixel itself at full resolution: (63, 63) is grid (63, 63), B 240.
  EXPECT_EQ(word(kSample + 63 * 256 + 63 * 4), 0xFF3F3FF0u);
}

TEST_F(Renderer, DecimatedStoresOfPartialTilesUseTheDecimatedFrameStride) {
  // A 40x40 multisample frame: 2x2 tiles of 32 pixels. Decimated 16x it is ceil(80 / 4) = 20 pixels across, stride
  // 80 bytes; tile (1, 1) covers stored pixels 16..19 in both directions (a 4x4 corner).
  constexpr std::uint32_t kOut = 0x400000;
  put(kGridIn, sample_grid());
  put(kOut, std::vector<std::uint8_t>(0x1000, 0xEE));
  List l{kList, {}};
  render_config(l, kFrame, 40, 40, 1 | 1 << 2);
  l.op(pk::kLoadFullResTileBuffer).u32(kGridIn | vc4::TileRenderer::kFullResDisableZs);
  tile(l, 1, 1);
  store_general(l, 1 | 2 << 6, kOut);
  run(l, 100, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u); });
  EXPECT_EQ(word(kOut + 16 * 80 + 16 * 4), 0xFF020278u);  // the tile's first block
  EXPECT_EQ(word(kOut + 19 * 80 + 19 * 4), 0xFF0E0E78u);
  EXPECT_EQ(word(kOut + 16 * 80 + 15 * 4), 0xEEEEEEEEu);  // left of the tile: untouched
  EXPECT_EQ(word(kOut + 20 * 80), 0xEEEEEEEEu);           // below the frame
  EXPECT_EQ(word(kOut + 15 * 80 + 16 * 4), 0xEEEEEEEEu);  // above the tile
  EXPECT_EQ(word(kOut + 16 * 80 + 20 * 4), 0xEEEEEEEEu);  // right of the frame (next row's start is 16 * 80 + 80)
}

// The frame `gpuvp --dump-fb` writes: what STORE_MS_TILE_BUFFER stored, described by the configuration in effect.
TEST_F(Renderer, MultisampleStoresRecordTheFrameTheyWrote) {
  EXPECT_FALSE(v3d_.renderer().last_frame().has_value());
  List l{kList, {}};
  clear_colors(l, 0xFF336699);
  render_config(l, kFrame, 100, 70, 2 << 2);  // BGR565, 2x2 tiles
  for (std::uint8_t y = 0; y < 2; ++y)
    for (std::uint8_t x = 0; x < 2; ++x)
      tile(l, x, y).op(x == 1 && y == 1 ? pk::kStoreMsTileBufferAndEof : pk::kStoreMsTileBuffer);
  run(l, 100, [&] { EXPECT_EQ(rd(vc4::kV3dRfc), 1u); });
  const auto& frame = v3d_.renderer().last_frame();
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->address, kFrame);
  EXPECT_EQ(frame->width, 100u);
  EXPECT_EQ(frame->height, 70u);
  EXPECT_EQ(frame->stride, 200u);
  EXPECT_EQ(frame->format, vc4::ColorFormat::kBgr565);
  EXPECT_EQ(frame->layout, vc4::MemoryLayout::kLinear);
}

TEST_F(Renderer, ADecimatedFrameIsRecordedAtItsStoredSize) {
  // Decimate 4x without multisampling: 100x70 is stored as 50x35 (rounded up), BGR565 dithered, stride 100.
  List l{kList, {}};
  render_config(l, kFrame, 100, 70, 0 << 2 | 1 << 4);
  tile(l, 0, 0).op(pk::kStoreMsTileBufferAndEof);
  run(l);
  const auto& frame = v3d_.renderer().last_frame();
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->width, 50u);
  EXPECT_EQ(frame->height, 35u);
  EXPECT_EQ(frame->stride, 100u);
  EXPECT_EQ(frame->format, vc4::ColorFormat::kBgr565Dithered);
}

TEST_F(Renderer, GeneralStoresAndLaterConfigurationsLeaveTheRecordedFrame) {
  // A general colour store has its own address and format: not the frame. A configuration nothing stored into does
  // not replace the frame that was stored.
  constexpr std::uint32_t kOther = 0x300000;
  List l{kList, {}};
  render_config(l, kFrame, 64, 64, 0x0004);
  tile(l, 0, 0).op(pk::kStoreMsTileBuffer);
  render_config(l, kOther, 128, 32, 2 << 2);
  tile(l, 1, 0);
  store_general(l, 1 | 2 << 8, kOther);
  run(l);
  const auto& frame = v3d_.renderer().last_frame();
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->address, kFrame);
  EXPECT_EQ(frame->width, 64u);
  EXPECT_EQ(frame->height, 64u);
  EXPECT_EQ(frame->stride, 256u);
  EXPECT_EQ(frame->format, vc4::ColorFormat::kRgba8888);
}

TEST_F(Renderer, GeneralStoresAloneRecordNoFrame) {
  List l{kList, {}};
  render_config(l, kFrame, 64, 64, 0x0004);
  tile(l, 0, 0);
  store_general(l, 1, kFrame);
  run(l);
  EXPECT_FALSE(v3d_.renderer().last_frame().has_value());
}

TEST_F(Renderer, StoreTimeFollowsTheBytesStored) {
  // 64 rows of 256 bytes at 16 bytes per cycle: at least 1024 V3D cycles (4.1 us at 250 MHz) per tile store.
  List l{kList, {}};
  render_config(l, kFrame, 64, 64, 0x0004);
  tile(l, 0, 0);
  for (int i = 0; i < 4; ++i) l.op(pk::kStoreMsTileBuffer);
  run(l);
  const core::Picoseconds busy = core::stats().busy_time("v3d.ct1.busy").busy_ps;
  EXPECT_GE(busy, 4u * 1024 * 4000);
  EXPECT_LT(busy, 4u * 1024 * 4000 * 3);
}

}  // namespace
