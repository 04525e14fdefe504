// PTB binner (CT0): tile by tile which tiles receive which compressed entries (exact coverage, not the bounding box),
// lazy state, the exact bytes of a tile list, block chaining from the pool, the overspill / out-of-memory handshake
// with the driver (vc4_irq.c), primitive assembly of every GL mode, indexed draws, the 16-bit array quirk, culling,
// clip windows, FLUSH_ALL_STATE, an empty scene, timing, and every error path.
#include <algorithm>
#include <array>
#include <functional>
#include <ostream>
#include <set>
#include <utility>

#include "tests/test_vc4_support.h"

using namespace gpuvp;
using namespace gpuvp::test::vc4t;
using vc4::ControlListExecutor;

namespace {

constexpr std::uint32_t kList = 0x10000;
constexpr std::uint32_t kRecord = 0x20000;
constexpr std::uint32_t kVerts = 0x21000;
constexpr std::uint32_t kIndices = 0x30000;
constexpr std::uint32_t kTsda = 0x40000;
constexpr std::uint32_t kAlloc = 0x100000;
constexpr std::uint8_t kTiles = 12;  // 4 x 3 tiles of 64x64: 256x192 pixels
// Flags: auto-init TSDA, initial block 64 bytes (field 1), further blocks 32 bytes (field 0).
constexpr std::uint8_t kFlags64 = 0x04 | 1 << 3;

using TileSet = std::set<std::pair<unsigned, unsigned>>;

class Binner : public Vc4Fixture {
 protected:
  Binner() : Vc4Fixture(default_params()) {}
  explicit Binner(vc4::V3dParams p) : Vc4Fixture(p) {}

  // Binning list prologue as Mesa / LdB emit it: mode config, START, PRIMITIVE_LIST_FORMAT, clip, config bits,
  // viewport, NV shader state.
  List prologue(std::uint8_t flags = kFlags64, std::uint32_t size = 0x10000) {
    List l{kList, {}};
    l.bin_config(kAlloc, size, kTsda, 4, 3, flags)
        .op(pk::kStartTileBinning)
        .format(0x12)
        .clip(0, 0, 256, 192)
        .config_bits(0x03, 0x00, 0x02)
        .viewport(0, 0)
        .nv_state(kRecord);
    nv_record(kRecord, kVerts);
    return l;
  }
  std::uint32_t first_block(unsigned tile, std::uint32_t initial = 64) { return kAlloc + tile * initial; }
  // n copies of the triangle (10, 10), (50, 10), (10, 50) as one indexed draw whose indices lie 40 apart (triangle k
  // uses 120k, 120k + 40, 120k + 80): no relative coding reaches them, so every entry is absolute (7 bytes).
  void absolute_triangles(List& l, unsigned n) {
    std::vector<std::array<int, 2>> px(120 * n, {0, 0});
    std::vector<std::uint8_t> idx;
    for (unsigned k = 0; k < n; ++k) {
      const std::array<std::array<int, 2>, 3> corner = {{{10, 10}, {50, 10}, {10, 50}}};
      for (unsigned v = 0; v < 3; ++v) {
        px[120 * k + 40 * v] = corner[v];
        le(idx, 120 * k + 40 * v, 2);
      }
    }
    vertices(kVerts, px);
    put(kIndices, idx);
    l.indexed(0x14, 3 * n, kIndices, 120 * (n - 1) + 80);
  }
  void run(const List& l, double us = 50, const std::function<void()>& after = {}) { run_list(0, l, us, after); }
  TileSet tiles_with_entries(std::uint32_t initial = 64) {
    TileSet s;
    for (unsigned i = 0; i < kTiles; ++i) {
      TileList t = decode(first_block(i, initial));
      EXPECT_TRUE(t.error.empty()) << "tile " << i << ": " << t.error;
      EXPECT_TRUE(t.returned) << "tile " << i;
      if (!t.entries.empty()) s.insert({i % 4, i / 4});
    }
    return s;
  }
};

// ---- coverage ----

TEST_F(Binner, TrianglesGoExactlyToTheTilesTheyTouchNotToTheirBoundingBox) {
  // A: inside tile (0,0). B: right triangle (20,60) (240,60) (240,180); its bounding box spans all 12 tiles but its
  // hypotenuse y = 60 + (x - 20) * 120/220 leaves tiles (0,2) and (1,2) untouched.
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}, {20, 60}, {240, 60}, {240, 180}});
  List l = prologue();
  l.array(4, 6, 0).op(pk::kFlush);
  run(l, 50, [&] { EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode); });
  const TileSet expected = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 1}, {2, 2}, {3, 2}};
  EXPECT_EQ(tiles_with_entries(), expected);
  TileList t00 = decode(first_block(0));
  ASSERT_EQ(t00.entries.size(), 2u);
  EXPECT_EQ(t00.entries[0], (std::vector<std::uint16_t>{0, 1, 2}));
  EXPECT_EQ(t00.entries[1], (std::vector<std::uint16_t>{3, 4, 5}));
  TileList t32 = decode(first_block(11));
  ASSERT_EQ(t32.entries.size(), 1u);
  EXPECT_EQ(t32.entries[0], (std::vector<std::uint16_t>{3, 4, 5}));
  EXPECT_EQ(v3d_.binner().primitives_binned(), 2u);
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.entries"), 11u);
}

TEST_F(Binner, TileListBytesAreLazyStateThenCompressedEntriesThenTheFlushCap) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue();
  l.array(4, 3, 0).op(pk::kFlush);
  run(l, 50, [&] {
    EXPECT_EQ(rd(vc4::kV3dBfc), 1u);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntFldone);
  });
  // Tile 0: the state set since START in opcode order (PRIMITIVE_LIST_FORMAT, NV_SHADER_STATE, CONFIGURATION_BITS,
  // CLIP_WINDOW, VIEWPORT_OFFSET), COMPRESSED_PRIMITIVE with the triangle in its shortest coding -- the first of a
  // run has no previous triangle, so coding 2: u32 0xF | d1 << 4 | d2 << 10 | i0 << 16 with i0 0, d1 1, d2 2 is
  // 0x0000081F -- the escape and the RETURN_FROM_SUB_LIST the FLUSH writes.
  const std::vector<std::uint8_t> expected = {
      0x38, 0x12,                                            // PRIMITIVE_LIST_FORMAT
      0x41, 0x00, 0x00, 0x02, 0x00,                          // NV_SHADER_STATE 0x20000
      0x60, 0x03, 0x00, 0x02,                                // CONFIGURATION_BITS
      0x66, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xC0, 0x00,  // CLIP_WINDOW 0, 0, 256, 192
      0x67, 0x00, 0x00, 0x00, 0x00,                          // VIEWPORT_OFFSET
      0x30, 0x1F, 0x08, 0x00, 0x00,                          // COMPRESSED_PRIMITIVE, triangle 0 1 2 (coding 2)
      0x80, 0x12};                                           // escape, RETURN_FROM_SUB_LIST
  EXPECT_EQ(get(first_block(0), expected.size()), expected);
  // Tiles the triangle does not touch hold only the cap: no state (it is copied lazily).
  EXPECT_EQ(get(first_block(1), 1)[0], pk::kReturnFromSubList);
  EXPECT_EQ(get(first_block(11), 1)[0], pk::kReturnFromSubList);
}

TEST_F(Binner, OnlyChangedStateIsCopiedAgain) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue();
  l.array(4, 3, 0).config_bits(0x03, 0x70, 0x00).array(4, 3, 0).array(4, 3, 0).op(pk::kFlush);
  run(l);
  TileList t = decode(first_block(0));
  EXPECT_EQ(t.ops, (std::vector<std::uint8_t>{pk::kPrimitiveListFormat, pk::kNvShaderState, pk::kConfigurationBits,
                                              pk::kClipWindow, pk::kViewportOffset, pk::kConfigurationBits}));
  EXPECT_EQ(t.entries.size(), 3u);
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.state_packets"), 6u);
}

TEST_F(Binner, ClipWindowLimitsTheTiles) {
  vertices(kVerts, {{0, 0}, {255, 0}, {0, 191}, {255, 191}});
  List l = prologue();
  l.clip(64, 64, 64, 64).array(5, 4, 0).op(pk::kFlush);  // a full-screen strip clipped to tile (1,1)
  run(l);
  EXPECT_EQ(tiles_with_entries(), (TileSet{{1, 1}}));
}

TEST_F(Binner, ViewportOffsetMovesTheVertices) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue();
  l.viewport(128 * 16, 64 * 16).array(4, 3, 0).op(pk::kFlush);
  run(l);
  EXPECT_EQ(tiles_with_entries(), (TileSet{{2, 1}}));
}

TEST_F(Binner, ZeroAreaAndCulledFacesReachNoTile) {
  // Counter-clockwise on screen (Y down): (10,10) (10,50) (50,10) has a negative signed area.
  vertices(kVerts, {{10, 10},
                    {50, 10},
                    {90, 10},  // zero area
                    {10, 10},
                    {10, 50},
                    {50, 10},  // counter-clockwise
                    {70, 10},
                    {110, 10},
                    {70, 50}});  // clockwise
  List l = prologue();
  l.config_bits(0x01, 0x00, 0x00)  // forward-facing only, counter-clockwise is forward
      .array(4, 9, 0)
      .op(pk::kFlush);
  run(l);
  EXPECT_EQ(tiles_with_entries(), (TileSet{{0, 0}}));
  TileList t = decode(first_block(0));
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(t.entries[0], (std::vector<std::uint16_t>{3, 4, 5}));
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.culled"), 2u);
}

// ---- primitive assembly ----

TEST_F(Binner, StripsAndFansKeepTheirVertexOrder) {
  vertices(kVerts, {{10, 10}, {20, 40}, {30, 10}, {40, 40}, {50, 10}});
  List l = prologue();
  l.array(5, 5, 0).array(6, 5, 0).op(pk::kFlush);
  run(l);
  TileList t = decode(first_block(0));
  const std::vector<std::vector<std::uint16_t>> expected = {
      {0, 1, 2}, {2, 1, 3}, {2, 3, 4},   // strip: odd triangles swap their first two vertices
      {0, 1, 2}, {0, 2, 3}, {0, 3, 4}};  // fan
  EXPECT_EQ(t.entries, expected);
}

TEST_F(Binner, IndexedDrawsWith8And16BitIndices) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}, {200, 150}, {250, 150}, {200, 190}});
  put(kIndices, {5, 4, 3, 2, 1, 0});
  put(kIndices + 0x100, {3, 0, 4, 0, 5, 0});
  List l = prologue();
  l.indexed(0x04, 6, kIndices, 5).indexed(0x14, 3, kIndices + 0x100, 5).op(pk::kFlush);
  run(l);
  EXPECT_EQ(decode(first_block(0)).entries, (std::vector<std::vector<std::uint16_t>>{{2, 1, 0}}));
  EXPECT_EQ(decode(first_block(11)).entries, (std::vector<std::vector<std::uint16_t>>{{5, 4, 3}, {3, 4, 5}}));
}

TEST_F(Binner, PointsAndLinesUseTheirOwnListFormats) {
  vertices(kVerts, {{10, 10}, {100, 10}, {100, 100}});
  List l = prologue();
  l.array(0, 1, 0)     // a point in tile (0,0)
      .array(3, 3, 0)  // line strip: (10,10)-(100,10), (100,10)-(100,100)
      .array(2, 2, 0)  // a 2-vertex line loop draws nothing (Mesa vc4_draw.c)
      .op(pk::kFlush);
  run(l);
  TileList t0 = decode(first_block(0));
  EXPECT_EQ(t0.entries, (std::vector<std::vector<std::uint16_t>>{{0}, {0, 1}}));
  // PRIMITIVE_LIST_FORMAT 0x10 before the point, 0x11 before the lines.
  EXPECT_EQ(t0.ops.back(), pk::kPrimitiveListFormat);
  const auto bytes = get(first_block(0), 64);
  const std::uint8_t points[] = {0x38, 0x10}, lines[] = {0x38, 0x11};
  EXPECT_NE(std::search(bytes.begin(), bytes.end(), std::begin(points), std::end(points)), bytes.end());
  EXPECT_NE(std::search(bytes.begin(), bytes.end(), std::begin(lines), std::end(lines)), bytes.end());
  EXPECT_EQ(tiles_with_entries(), (TileSet{{0, 0}, {1, 0}, {1, 1}}));
  EXPECT_EQ(v3d_.binner().primitives_binned(), 3u);
}

TEST_F(Binner, ArrayDrawsWrapTheirIndicesAt16Bits) {
  // GFXH-515 (Mesa vc4_draw.c): first 65534, count 3 uses vertices 65534, 65535 and 0.
  vertices(kVerts, {{10, 10}});
  vertices(kVerts + 65534 * 12, {{50, 10}, {10, 50}});
  List l = prologue();
  l.array(4, 3, 65534).op(pk::kFlush);
  run(l);
  EXPECT_EQ(decode(first_block(0)).entries, (std::vector<std::vector<std::uint16_t>>{{65534, 65535, 0}}));
  EXPECT_EQ(warnings("indices wrap at 65536 (hardware erratum GFXH-515"), 1u);
}

TEST_F(Binner, VgCoordinateArraysBinTheirPoints) {
  std::vector<std::uint8_t> xy;
  for (int v : {200, 140, 250, 140, 200, 180}) le(xy, static_cast<std::uint16_t>(v * 16), 2);
  put(0x22000, xy);
  List l = prologue();
  l.op(pk::kVgCoordinateArrayPrimitives).u8(4).u32(3).u32(0x22000).op(pk::kFlush);
  run(l);
  EXPECT_EQ(tiles_with_entries(), (TileSet{{3, 2}}));
}

// ---- FLUSH, FLUSH_ALL_STATE, empty scene ----

TEST_F(Binner, EmptySceneGivesEveryTileJustTheCapAndZeroesTheTileStateArray) {
  put(kTsda, std::vector<std::uint8_t>(kTiles * 48, 0xAA));
  List l{kList, {}};
  l.bin_config(kAlloc, 0x10000, kTsda, 4, 3, kFlags64)
      .op(pk::kStartTileBinning)
      .format(0x12)
      .op(pk::kIncrementSemaphore)
      .op(pk::kFlush);
  run(l, 50, [&] {
    EXPECT_EQ(rd(vc4::kV3dBfc), 1u);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 1u << ControlListExecutor::kCtSemaShift);  // the increment came with the FLUSH
    EXPECT_EQ(rd(vc4::kV3dCtnLc(0)), 0x00010000u);
  });
  for (unsigned i = 0; i < kTiles; ++i) EXPECT_EQ(get(first_block(i), 1)[0], pk::kReturnFromSubList) << i;
  EXPECT_EQ(get(kTsda, kTiles * 48), std::vector<std::uint8_t>(kTiles * 48, 0));
}

TEST_F(Binner, FlushAllStateWritesTheCurrentStateToEveryTile) {
  List l = prologue();
  l.op(pk::kFlushAllState);
  run(l);
  for (unsigned i = 0; i < kTiles; ++i) {
    TileList t = decode(first_block(i));
    EXPECT_EQ(t.ops, (std::vector<std::uint8_t>{pk::kPrimitiveListFormat, pk::kNvShaderState, pk::kConfigurationBits,
                                                pk::kClipWindow, pk::kViewportOffset}))
        << i;
    EXPECT_TRUE(t.returned);
  }
}

// ---- memory: chaining, overspill, out of memory ----

TEST_F(Binner, FullBlocksChainToNewBlocksFromThePool) {
  // Initial blocks of 32 bytes, further blocks of 32: 25 bytes of state leave no room for a compressed entry, so
  // the first block ends with a BRANCH to the first pool block, right after the 12 initial blocks.
  List l = prologue(0x04, 0x10000);
  absolute_triangles(l, 6);
  l.op(pk::kFlush);
  put(l);
  test::run_thread([&] {
    submit(0, l);
    settle(50);
    const std::uint32_t pool = kAlloc + kTiles * 32;
    TileList t = decode(kAlloc);
    EXPECT_TRUE(t.error.empty()) << t.error;
    EXPECT_EQ(t.entries.size(), 6u);
    // 32-byte blocks keep 6 bytes for the link: three 7-byte entries (after the COMPRESSED_PRIMITIVE opcode) each.
    EXPECT_EQ(t.branches, (std::vector<std::uint32_t>{pool, pool + 32}));
    EXPECT_EQ(get(kAlloc + 25, 5),
              (std::vector<std::uint8_t>{0x10, static_cast<std::uint8_t>(pool), static_cast<std::uint8_t>(pool >> 8),
                                         static_cast<std::uint8_t>(pool >> 16), 0x00}));
    EXPECT_EQ(rd(vc4::kV3dBpca), pool + 64);
    EXPECT_EQ(rd(vc4::kV3dBpcs), 0x10000u - kTiles * 32 - 64);
  });
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.blocks"), 2u);
}

TEST_F(Binner, OutOfMemoryRaisesOutomemStallsAndResumesWithANewOverspillBlock) {
  // No pool (the size holds just the initial blocks) and no overspill: the first block that fills raises OUTOMEM.
  List l = prologue(0x04, kTiles * 32);
  absolute_triangles(l, 6);
  l.op(pk::kFlush);
  put(l);
  test::run_thread([&] {
    wr(vc4::kV3dBpoa, 0);
    wr(vc4::kV3dBpos, 0);
    wr(vc4::kV3dIntena, vc4::kV3dIntAll);
    submit(0, l);
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntOutomem);
    EXPECT_EQ(rd(vc4::kV3dPcs) & vc4::kV3dPcsBmOom, vc4::kV3dPcsBmOom);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | ControlListExecutor::kCtRun);
    EXPECT_TRUE(v3d_.irq().level());
    // Acknowledging OUTOMEM does not clear it while the cause remains (vc4_irq.c).
    wr(vc4::kV3dIntctl, vc4::kV3dIntOutomem);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntOutomem);
    // The driver's handler: INTDIS, new overspill block (BPOA then BPOS), ack, INTENA. 32 bytes: one block.
    wr(vc4::kV3dIntdis, vc4::kV3dIntOutomem);
    wr(vc4::kV3dBpoa, 0x200000);
    wr(vc4::kV3dBpos, 32);
    wr(vc4::kV3dIntctl, vc4::kV3dIntOutomem);
    wr(vc4::kV3dIntena, vc4::kV3dIntOutomem);
    settle(5);
    // It took the block (SPILLUSE) and ran out again at the next one.
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntOutomem | vc4::kV3dIntSpilluse);
    EXPECT_EQ(rd(vc4::kV3dBpca), 0x200020u);
    EXPECT_EQ(rd(vc4::kV3dBpcs), 0u);
    wr(vc4::kV3dBpoa, 0x300000);
    wr(vc4::kV3dBpos, 0x1000);
    wr(vc4::kV3dIntctl, vc4::kV3dIntAll);
    settle(20);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntFldone);  // SPILLUSE came before the acknowledgement
    EXPECT_EQ(rd(vc4::kV3dPcs), 0u);
    EXPECT_EQ(rd(vc4::kV3dBfc), 1u);
    TileList t = decode(kAlloc);
    EXPECT_TRUE(t.error.empty()) << t.error;
    EXPECT_EQ(t.entries.size(), 6u);
    EXPECT_EQ(t.branches, (std::vector<std::uint32_t>{0x200000, 0x300000}));
  });
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.out_of_memory"), 2u);
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.overspills"), 2u);
}

TEST_F(Binner, OverspillSuppliedInAdvanceIsTakenWhenThePoolRunsOut) {
  List l = prologue(0x04, kTiles * 32 + 32);  // a pool of one block
  absolute_triangles(l, 6);
  l.op(pk::kFlush);
  put(l);
  test::run_thread([&] {
    wr(vc4::kV3dBpoa, 0x200000);
    wr(vc4::kV3dBpos, 0x1000);
    submit(0, l);
    settle(20);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntSpilluse | vc4::kV3dIntFldone);
    EXPECT_EQ(decode(kAlloc).branches, (std::vector<std::uint32_t>{kAlloc + kTiles * 32, 0x200000}));
  });
}

TEST_F(Binner, OutOfMemoryWithoutAnAnswerIsAHang) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue(0x04, kTiles * 32);
  l.array(4, 3, 0).op(pk::kFlush);
  put(l);
  test::run_thread([&] {
    submit(0, l);
    settle(40);
    EXPECT_EQ(v3d_.thread(0).state(), ControlListExecutor::State::kHung);
    wr(vc4::kV3dCtnCs(0), ControlListExecutor::kCtRsta);
    EXPECT_EQ(rd(vc4::kV3dPcs), 0u);
  });
  EXPECT_EQ(errors("CT0 (binning) hung: no progress for 20000 ns (binner out of memory: no overspill block "
                   "(BPOA/BPOS) supplied"),
            1u);
}

TEST_F(Binner, AHugeDrawStopsWhenSoftwareResetsTheThread) {
  // 2^32 - 1 points from one GL_ARRAY_PRIMITIVE: the count is the guest's. CTRSTA must stop the binner inside the
  // packet, not after it.
  vertices(kVerts, {{10, 10}});
  List l = prologue();
  l.array(0, 0xFFFFFFFF, 0).op(pk::kFlush);
  put(l);
  std::uint64_t at_reset = 0;
  test::run_thread([&] {
    submit(0, l);
    settle(20);
    wr(vc4::kV3dCtnCs(0), ControlListExecutor::kCtRsta);
    settle(1);
    at_reset = core::stats().counter_value("v3d.ptb.primitives");
    settle(20);
  });
  EXPECT_GT(at_reset, 0u);
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.primitives"), at_reset) << "the binner went on after the reset";
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.flushes"), 0u);
  test::take_reports(sc_core::SC_WARNING, "indices wrap at 65536");
}

TEST_F(Binner, AResetAndARestartInOneDeltaEndTheOldDraw) {
  // Software resets the thread and starts the next list before the binner's process runs again: the old packet
  // must end there, not bin on into the new list (the thread is running again by then).
  vertices(kVerts, {{10, 10}});
  List huge = prologue();
  huge.array(0, 0xFFFFFFFF, 0).op(pk::kFlush);
  put(huge);
  List next = prologue();
  next.base = kList + 0x1000;
  next.op(pk::kFlush);
  put(next);
  std::uint64_t at_reset = 0;
  test::run_thread([&] {
    submit(0, huge);
    settle(5);
    at_reset = core::stats().counter_value("v3d.ptb.primitives");
    wr(vc4::kV3dCtnCs(0), ControlListExecutor::kCtRsta);
    submit(0, next);
    settle(20);
  });
  EXPECT_GT(at_reset, 0u);
  EXPECT_LE(core::stats().counter_value("v3d.ptb.primitives"), at_reset + 1) << "the old draw went on";
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.flushes"), 1u);  // the new list's
  test::take_reports(sc_core::SC_WARNING, "indices wrap at 65536");
}

// ---- quirks and errors ----

TEST_F(Binner, ZeroSizedClipWindowHangsTheBinner) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue();
  l.clip(0, 0, 0, 192).array(4, 3, 0).op(pk::kFlush);
  put(l);
  test::run_thread([&] {
    submit(0, l);
    settle(40);
    EXPECT_EQ(v3d_.thread(0).state(), ControlListExecutor::State::kHung);
  });
  EXPECT_EQ(errors("GL_ARRAY_PRIMITIVE with a zero-sized CLIP_WINDOW: the binner hangs"), 1u);
}

struct BinnerErrorCase;
class BinnerGuestError : public Binner, public ::testing::WithParamInterface<BinnerErrorCase> {
 public:
  using Binner::prologue;
};
struct BinnerErrorCase {
  const char* name;
  std::function<List(BinnerGuestError&)> list;
  const char* report;  // a part of the error report
};
// The case name in test listings, not its bytes.
void PrintTo(const BinnerErrorCase& c, std::ostream* os) { *os << c.name; }

TEST_P(BinnerGuestError, StopsCt0WithCterrAndAClearReport) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  nv_record(kRecord + 0x100, 0xFFFFF0);  // vertex 2 lies past the end of DRAM
  put(kIndices, {0, 1, 2});
  List l = GetParam().list(*this);
  l.base = 0x50000;
  put(l);
  test::run_thread([&] {
    submit(0, l);
    settle(10);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | ControlListExecutor::kCtErr);
    EXPECT_LT(rd(vc4::kV3dCtnCa(0)), l.here());
  });
  EXPECT_EQ(errors(GetParam().report), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Binner, BinnerGuestError,
    ::testing::Values(
        BinnerErrorCase{"StartBeforeConfig",
                        [](BinnerGuestError&) {
                          List l{kList, {}};
                          l.op(pk::kStartTileBinning);
                          return l;
                        },
                        "START_TILE_BINNING before any TILE_BINNING_MODE_CONFIG"},
        BinnerErrorCase{"ZeroSizedTileGrid",
                        [](BinnerGuestError&) {
                          List l{kList, {}};
                          l.bin_config(kAlloc, 0x1000, kTsda, 0, 3, 4);
                          return l;
                        },
                        "TILE_BINNING_MODE_CONFIG with a 0x3 tile grid"},
        BinnerErrorCase{"MisalignedTileStateArray",
                        [](BinnerGuestError&) {
                          List l{kList, {}};
                          l.bin_config(kAlloc, 0x1000, kTsda + 8, 4, 3, 4);
                          return l;
                        },
                        "tile state data array address 0x40008 is not 16-byte aligned"},
        BinnerErrorCase{"TileAllocationOutsideDram",
                        [](BinnerGuestError&) {
                          List l{kList, {}};
                          l.bin_config(0xFFFF00, 0x1000, kTsda, 4, 3, 4).op(pk::kStartTileBinning);
                          return l;
                        },
                        "tile allocation memory 0xffff00 with 12 initial blocks of 32 bytes is outside DRAM"},
        BinnerErrorCase{"ArrayOutsideBinning",
                        [](BinnerGuestError&) {
                          List l{kList, {}};
                          l.array(4, 3, 0);
                          return l;
                        },
                        "GL_ARRAY_PRIMITIVE outside tile binning"},
        BinnerErrorCase{"ArrayBeforeShaderState",
                        [](BinnerGuestError&) {
                          List l{kList, {}};
                          l.bin_config(kAlloc, 0x1000, kTsda, 4, 3, 4).op(pk::kStartTileBinning).array(4, 3, 0);
                          return l;
                        },
                        "GL_ARRAY_PRIMITIVE before any shader state"},
        BinnerErrorCase{"GlShaderRecordOutsideDram",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.op(pk::kGlShaderState).u32(0xFFFFFF01U).array(4, 3, 0);
                          return l;
                        },
                        "bad GL shader record address: 0xffffff00 (44 bytes) is outside DRAM"},
        BinnerErrorCase{"MisalignedNvRecord",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.nv_state(kRecord + 4).array(4, 3, 0);
                          return l;
                        },
                        "NV shader record address 0x20004 is not 16-byte aligned"},
        BinnerErrorCase{"NvRecordOutsideDram",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.nv_state(0x2000000).array(4, 3, 0);
                          return l;
                        },
                        "bad NV shader record address: 0x2000000 (16 bytes) is outside DRAM"},
        BinnerErrorCase{"VertexOutsideDram",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.nv_state(kRecord + 0x100).array(4, 3, 0);
                          return l;
                        },
                        "GL_ARRAY_PRIMITIVE: vertex 2 at 0x1000008: 0x1000008 (4 bytes) is outside DRAM"},
        BinnerErrorCase{"UndefinedPrimitiveMode",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.array(9, 3, 0);
                          return l;
                        },
                        "GL_ARRAY_PRIMITIVE primitive mode 9 is undefined"},
        BinnerErrorCase{"UndefinedIndexType",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.indexed(0x24, 3, kIndices, 5);
                          return l;
                        },
                        "GL_INDEXED_PRIMITIVE index type 2 is undefined"},
        BinnerErrorCase{"IndexBufferOutsideDram",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.indexed(0x04, 3, 0xFFFFFF, 5);
                          return l;
                        },
                        "GL_INDEXED_PRIMITIVE index buffer 0xffffff (3 indices) is outside DRAM"},
        BinnerErrorCase{"IndexAboveTheMaximum",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.indexed(0x04, 3, kIndices, 1);
                          return l;
                        },
                        "index 2 (element 2) exceeds the maximum index 1"},
        BinnerErrorCase{"VgCoordinateArrays",
                        [](BinnerGuestError& t) {
                          List l = t.prologue();
                          l.op(pk::kVgCoordinateArrayPrimitives).u8(1).u32(3).u32(0x22000);
                          return l;
                        },
                        "VG_COORDINATE_ARRAY_PRIMITIVES type 1 (RHT) is not modelled"}),
    [](const ::testing::TestParamInfo<BinnerErrorCase>& info) { return info.param.name; });

// ---- timing ----

vc4::V3dParams expensive() {
  vc4::V3dParams p;
  p.cle.hang_timeout_ns = 20'000;
  p.binner.primitive_cycles = 1000;
  return p;
}

class ExpensiveBinner : public Binner {
 protected:
  ExpensiveBinner() : Binner(expensive()) {}
};

TEST_F(ExpensiveBinner, PrimitiveCostIsCountedInV3dCycles) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue();
  for (int i = 0; i < 10; ++i) l.array(4, 3, 0);
  l.op(pk::kFlush);
  put(l);
  test::run_thread([&] {
    submit(0, l);
    settle(30);
    // 10 primitives x 1000 cycles at 250 MHz = 40 us: still running after 30 us, done after 50.
    EXPECT_EQ(rd(vc4::kV3dBfc), 0u);
    settle(20);
    EXPECT_EQ(rd(vc4::kV3dBfc), 1u);
  });
  EXPECT_GE(core::stats().busy_time("v3d.ct0.busy").busy_ps, 40'000'000u);
}

// ---- the compressed entry codings (compressed_list.h; hand-made vectors from the documented bit layouts) ----

namespace cl = vc4::compressed;

cl::Primitive tri(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  cl::Primitive p;
  p.vertices = 3;
  p.index = {a, b, c};
  return p;
}
std::vector<std::uint16_t> decoded(std::uint8_t format, std::vector<std::uint8_t> bytes, const cl::Primitive& prev,
                                   std::string* error = nullptr) {
  cl::Primitive out;
  std::string why;
  EXPECT_EQ(cl::entry_length(format, bytes[0]), bytes.size());
  if (!cl::decode(format, bytes.data(), prev, out, why)) {
    if (error) *error = why;
    return {};
  }
  return std::vector<std::uint16_t>(out.index.begin(), out.index.begin() + out.vertices);
}
std::vector<std::uint8_t> encoded(std::uint8_t format, const cl::Primitive& p, const cl::Primitive* prev) {
  std::array<std::uint8_t, cl::kMaxEntryLength> out{};
  const unsigned n = cl::encode(format, p, prev, out);
  return std::vector<std::uint8_t>(out.begin(), out.begin() + n);
}

TEST(CompressedList, EntryLengthsFollowTheFirstByte) {
  EXPECT_EQ(cl::entry_length(0x12, 0x80), 1u);  // escape
  EXPECT_EQ(cl::entry_length(0x12, 0x82), 3u);  // relative branch
  EXPECT_EQ(cl::entry_length(0x12, 0x81), 7u);
  EXPECT_EQ(cl::entry_length(0x12, 0x1F), 4u);
  EXPECT_EQ(cl::entry_length(0x12, 0x13), 2u);
  EXPECT_EQ(cl::entry_length(0x12, 0x0B), 2u);
  EXPECT_EQ(cl::entry_length(0x12, 0x0C), 1u);
  EXPECT_EQ(cl::entry_length(0x11, 0x81), 5u);
  EXPECT_EQ(cl::entry_length(0x11, 0x86), 3u);
  EXPECT_EQ(cl::entry_length(0x11, 0x07), 2u);
  EXPECT_EQ(cl::entry_length(0x11, 0x04), 1u);
  EXPECT_EQ(cl::entry_length(0x10, 0x81), 3u);
  EXPECT_EQ(cl::entry_length(0x10, 0x73), 2u);
  EXPECT_EQ(cl::entry_length(0x10, 0x04), 1u);
  EXPECT_EQ(cl::entry_length(0x32, 0x81), 0u);  // 32-bit x/y triangles: not modelled
}

TEST(CompressedList, TriangleCodingsDecodeAgainstThePreviousTriangle) {
  const cl::Primitive prev = tri(10, 20, 30);
  EXPECT_EQ(decoded(0x12, {0x81, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00}, prev), (std::vector<std::uint16_t>{1, 2, 3}));
  // Coding 2: u32 0xF45F = 0xF | 5 << 4 | (-3 & 63) << 10, i0 0x1234 in the high half.
  EXPECT_EQ(decoded(0x12, {0x5F, 0xF4, 0x34, 0x12}, prev), (std::vector<std::uint16_t>{0x1234, 0x1239, 0x1231}));
  // Coding 1: deltas +1, -2, +7 to (10, 20, 30).
  EXPECT_EQ(decoded(0x12, {0x13, 0x7E}, prev), (std::vector<std::uint16_t>{11, 18, 37}));
  // Coding 0: flag 0 (p2, p1, p2 + d), 1 (p0, p2, p2 + d), 2 (p1, p0, p2 + d); d in bits 7:2.
  EXPECT_EQ(decoded(0x12, {0x0C}, prev), (std::vector<std::uint16_t>{30, 20, 33}));
  EXPECT_EQ(decoded(0x12, {0xFD}, prev), (std::vector<std::uint16_t>{10, 30, 29}));
  EXPECT_EQ(decoded(0x12, {0x7E}, prev), (std::vector<std::uint16_t>{20, 10, 61}));
}

TEST(CompressedList, LineAndPointCodingsAndTheUndocumentedOnes) {
  const cl::Primitive prev = tri(100, 0, 0);
  EXPECT_EQ(decoded(0x11, {0x81, 0x05, 0x00, 0x06, 0x00}, prev), (std::vector<std::uint16_t>{5, 6}));
  EXPECT_EQ(decoded(0x11, {0x86, 0x64, 0x00}, prev), (std::vector<std::uint16_t>{100, 69}));  // d1 = -31
  EXPECT_EQ(decoded(0x10, {0x81, 0x07, 0x00}, prev), (std::vector<std::uint16_t>{7}));
  EXPECT_EQ(decoded(0x10, {0x73, 0xFE}, prev), (std::vector<std::uint16_t>{0}));  // 100 + (-100)
  std::string error;
  EXPECT_TRUE(decoded(0x11, {0x04}, prev, &error).empty());
  EXPECT_NE(error.find("the 1-byte line coding is not modelled"), std::string::npos) << error;
  EXPECT_TRUE(decoded(0x11, {0x07, 0x00}, prev, &error).empty());
  EXPECT_NE(error.find("the 2-byte line coding is not modelled"), std::string::npos) << error;
  EXPECT_TRUE(decoded(0x10, {0x04}, prev, &error).empty());
  EXPECT_NE(error.find("the 1-byte point coding is not modelled"), std::string::npos) << error;
}

TEST(CompressedList, EncoderPicksTheShortestCodingAtEveryBoundary) {
  const cl::Primitive p = tri(10, 20, 30);
  EXPECT_EQ(encoded(0x12, tri(30, 20, 33), &p), (std::vector<std::uint8_t>{0x0C}));
  EXPECT_EQ(encoded(0x12, tri(10, 30, 29), &p), (std::vector<std::uint8_t>{0xFD}));
  EXPECT_EQ(encoded(0x12, tri(20, 10, 61), &p), (std::vector<std::uint8_t>{0x7E}));  // d = +31
  const cl::Primitive q = tri(100, 200, 300);
  EXPECT_EQ(encoded(0x12, tri(300, 200, 269), &q), (std::vector<std::uint8_t>{0x84}));  // d = -31: one byte
  // d = -32 would be the byte 0x80 (the escape): seven bytes instead.
  EXPECT_EQ(encoded(0x12, tri(300, 200, 268), &q),
            (std::vector<std::uint8_t>{0x81, 0x2C, 0x01, 0xC8, 0x00, 0x0C, 0x01}));
  EXPECT_EQ(encoded(0x12, tri(17, 12, 30), &p), (std::vector<std::uint8_t>{0x73, 0x08}));  // deltas +7, -8, 0
  EXPECT_EQ(encoded(0x12, tri(18, 12, 30), &p), (std::vector<std::uint8_t>{0xAF, 0x33, 0x12, 0x00}));  // +8: coding 2
  // Without a previous triangle (the start of a run): coding 2 up to deltas 31 / -32, else absolute.
  EXPECT_EQ(encoded(0x12, tri(30, 20, 33), nullptr), (std::vector<std::uint8_t>{0x6F, 0x0F, 0x1E, 0x00}));
  EXPECT_EQ(encoded(0x12, tri(1000, 1031, 968), nullptr), (std::vector<std::uint8_t>{0xFF, 0x81, 0xE8, 0x03}));
  EXPECT_EQ(encoded(0x12, tri(1000, 1032, 968), nullptr),
            (std::vector<std::uint8_t>{0x81, 0xE8, 0x03, 0x08, 0x04, 0xC8, 0x03}));
  cl::Primitive line;
  line.vertices = 2;
  line.index = {100, 69, 0};
  EXPECT_EQ(encoded(0x11, line, nullptr), (std::vector<std::uint8_t>{0x86, 0x64, 0x00}));
  line.index = {100, 131, 0};
  EXPECT_EQ(encoded(0x11, line, nullptr), (std::vector<std::uint8_t>{0x7E, 0x64, 0x00}));
  line.index = {100, 68, 0};  // d1 = -32 would be 0x82, the relative branch
  EXPECT_EQ(encoded(0x11, line, nullptr), (std::vector<std::uint8_t>{0x81, 0x64, 0x00, 0x44, 0x00}));
  cl::Primitive point;
  point.vertices = 1;
  point.index = {7, 0, 0};
  EXPECT_EQ(encoded(0x10, point, &point), (std::vector<std::uint8_t>{0x81, 0x07, 0x00}));  // points stay absolute
}

TEST(CompressedList, EveryEncodedSequenceDecodesToItself) {
  // A deterministic walk through index space with small and large steps: each entry, encoded against the previous
  // one, decodes back to the same indices.
  std::uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7FFF; };
  cl::Primitive prev = tri(500, 501, 502);
  std::array<unsigned, 4> codings{};
  for (int i = 0; i < 5000; ++i) {
    auto near = [&](std::uint16_t base, int spread) {
      return static_cast<std::uint16_t>(
          std::clamp<int>(base + static_cast<int>(next() % (2 * spread + 1)) - spread, 0, 0xFFFF));
    };
    const std::uint16_t far = static_cast<std::uint16_t>(next() * 2);
    cl::Primitive p;
    switch (i % 4) {
      case 0:
        p = tri(prev.index[2], prev.index[1], near(prev.index[2], 9));
        break;  // a strip step
      case 1:
        p = tri(near(prev.index[0], 9), near(prev.index[1], 9), near(prev.index[2], 9));
        break;
      case 2:
        p = tri(far, near(far, 33), near(far, 33));
        break;  // around a new base
      default:
        p = tri(far, near(far, 3000), near(far, 3000));
        break;
    }
    const std::vector<std::uint8_t> bytes = encoded(0x12, p, &prev);
    ASSERT_NE(bytes[0], 0x80);
    ASSERT_NE(bytes[0], 0x82);
    cl::Primitive out;
    std::string why;
    ASSERT_EQ(cl::entry_length(0x12, bytes[0]), bytes.size());
    ASSERT_TRUE(cl::decode(0x12, bytes.data(), prev, out, why)) << why;
    ASSERT_EQ(out.index, p.index) << "entry " << i;
    ++codings[out.coding];
    prev = p;
  }
  for (unsigned c = 0; c < 4; ++c) EXPECT_GT(codings[c], 100u) << "coding " << c;
}

TEST_F(Binner, TrianglesUseTheShortestCodingAndTheRendererDecodesThemBack) {
  // All in tile (0, 0). After (0, 1, 2): (2, 1, 3) coding 0 flag 0, (2, 3, 5) flag 1, (3, 2, 4) flag 2, (4, 1, 6)
  // coding 1, (20, 40, 0) coding 2, (0, 100, 200) coding 3.
  std::vector<std::array<int, 2>> px(201, {0, 0});
  px[0] = {10, 10}, px[1] = {50, 10}, px[2] = {10, 50}, px[3] = {50, 50}, px[4] = {40, 30}, px[5] = {20, 60};
  px[6] = {30, 20}, px[20] = {60, 5}, px[40] = {5, 60}, px[100] = {55, 55}, px[200] = {5, 30};
  vertices(kVerts, px);
  const std::vector<std::vector<std::uint16_t>> tris = {{0, 1, 2}, {2, 1, 3},   {2, 3, 5},    {3, 2, 4},
                                                        {4, 1, 6}, {20, 40, 0}, {0, 100, 200}};
  std::vector<std::uint8_t> idx;
  for (const auto& t : tris)
    for (std::uint16_t i : t) le(idx, i, 2);
  put(kIndices, idx);
  List l = prologue();
  l.indexed(0x14, 21, kIndices, 200).op(pk::kFlush);
  // Then the render thread walks that tile list: every entry reaches the tile renderer with its indices.
  List r{0x60000, {}};
  r.op(pk::kTileRenderingModeConfig).u32(0x400000).u16(256).u16(192).u16(1 << 2);
  r.op(pk::kTileCoordinates).u8(0).u8(0);
  r.op(pk::kBranchToSubList).u32(first_block(0));
  r.op(pk::kStoreMsTileBufferAndEof);
  put(l);
  put(r);
  test::run_thread([&] {
    submit(0, l);
    settle(50);
    EXPECT_EQ(rd(vc4::kV3dBfc), 1u);
    submit(1, r);
    settle(30);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dRfc), 1u);
  });
  const std::vector<std::uint8_t> expected = {0x30,                    // COMPRESSED_PRIMITIVE
                                              0x1F, 0x08, 0x00, 0x00,  // (0, 1, 2): coding 2 (first of the run)
                                              0x04,                    // (2, 1, 3): coding 0 flag 0, d +1
                                              0x09,                    // (2, 3, 5): coding 0 flag 1, d +2
                                              0xFE,                    // (3, 2, 4): coding 0 flag 2, d -1
                                              0x13, 0x2F,              // (4, 1, 6): coding 1, deltas +1 -1 +2
                                              0x4F, 0xB1, 0x14, 0x00,  // (20, 40, 0): coding 2, d1 +20 d2 -20
                                              0x81, 0x00, 0x00, 0x64, 0x00, 0xC8, 0x00,  // (0, 100, 200): absolute
                                              0x80, 0x12};                               // escape, RETURN_FROM_SUB_LIST
  EXPECT_EQ(get(first_block(0) + 25, expected.size()), expected);
  TileList t = decode(first_block(0));
  EXPECT_TRUE(t.error.empty()) << t.error;
  EXPECT_EQ(t.entries, tris);
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.entries"), 7u);

  std::vector<std::vector<std::uint16_t>> got;
  for (const cl::Primitive& p : v3d_.renderer().tile_primitives()) {
    got.emplace_back(p.index.begin(), p.index.begin() + p.vertices);
  }
  EXPECT_EQ(got, tris);
  // The tile list carries the binning list's NV shader state: every triangle is shaded (the record's flat shader).
  EXPECT_EQ(v3d_.renderer().primitives_not_shaded(), 0u);
  EXPECT_GT(v3d_.renderer().fragments_shaded(), 0u);
}

TEST_F(Binner, LinesWithNearIndicesUseTheThreeByteCoding) {
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue();
  l.array(1, 2, 0).op(pk::kFlush);  // one line 0 -> 1
  run(l);
  // PRIMITIVE_LIST_FORMAT 0x11 (16-bit lines) after the state, then 0x30, {d1 +1 << 2 | 2, i0 0}.
  TileList t = decode(first_block(0));
  EXPECT_TRUE(t.error.empty()) << t.error;
  ASSERT_EQ(t.raw.size(), 1u);
  EXPECT_EQ(t.raw[0], (std::vector<std::uint8_t>{0x06, 0x00, 0x00}));
  EXPECT_EQ(t.entries[0], (std::vector<std::uint16_t>{0, 1}));
}

}  // namespace
