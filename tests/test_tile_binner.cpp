// PTB binner (CT0): tile by tile which tiles receive which compressed entries (exact coverage, not the bounding box),
// lazy state, the exact bytes of a tile list, block chaining from the pool, the overspill / out-of-memory handshake
// with the driver (vc4_irq.c), primitive assembly of every GL mode, indexed draws, the 16-bit array quirk, culling,
// clip windows, FLUSH_ALL_STATE, an empty scene, timing, and every error path.
#include "tests/test_vc4_support.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

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
  // CLIP_WINDOW, VIEWPORT_OFFSET), COMPRESSED_PRIMITIVE with one absolute triangle (0x81 + three u16), the escape
  // and the RETURN_FROM_SUB_LIST the FLUSH writes.
  const std::vector<std::uint8_t> expected = {
      0x38, 0x12,                                      // PRIMITIVE_LIST_FORMAT
      0x41, 0x00, 0x00, 0x02, 0x00,                    // NV_SHADER_STATE 0x20000
      0x60, 0x03, 0x00, 0x02,                          // CONFIGURATION_BITS
      0x66, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xC0, 0x00,  // CLIP_WINDOW 0, 0, 256, 192
      0x67, 0x00, 0x00, 0x00, 0x00,                    // VIEWPORT_OFFSET
      0x30, 0x81, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00,  // COMPRESSED_PRIMITIVE, triangle 0 1 2
      0x80, 0x12};                                     // escape, RETURN_FROM_SUB_LIST
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
  vertices(kVerts, {{10, 10}, {50, 10}, {90, 10},        // zero area
                    {10, 10}, {10, 50}, {50, 10},        // counter-clockwise
                    {70, 10}, {110, 10}, {70, 50}});     // clockwise
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
  l.array(0, 1, 0)   // a point in tile (0,0)
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
  l.bin_config(kAlloc, 0x10000, kTsda, 4, 3, kFlags64).op(pk::kStartTileBinning).format(0x12)
      .op(pk::kIncrementSemaphore).op(pk::kFlush);
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
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue(0x04, 0x10000);
  for (int i = 0; i < 6; ++i) l.array(4, 3, 0);
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
    EXPECT_EQ(get(kAlloc + 25, 5), (std::vector<std::uint8_t>{0x10, static_cast<std::uint8_t>(pool),
                                                              static_cast<std::uint8_t>(pool >> 8),
                                                              static_cast<std::uint8_t>(pool >> 16), 0x00}));
    EXPECT_EQ(rd(vc4::kV3dBpca), pool + 64);
    EXPECT_EQ(rd(vc4::kV3dBpcs), 0x10000u - kTiles * 32 - 64);
  });
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.blocks"), 2u);
}

TEST_F(Binner, OutOfMemoryRaisesOutomemStallsAndResumesWithANewOverspillBlock) {
  // No pool (the size holds just the initial blocks) and no overspill: the first block that fills raises OUTOMEM.
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue(0x04, kTiles * 32);
  for (int i = 0; i < 6; ++i) l.array(4, 3, 0);
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
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  List l = prologue(0x04, kTiles * 32 + 32);  // a pool of one block
  for (int i = 0; i < 6; ++i) l.array(4, 3, 0);
  l.op(pk::kFlush);
  put(l);
  test::run_thread([&] {
    wr(vc4::kV3dBpoa, 0x200000);
    wr(vc4::kV3dBpos, 0x1000);
    submit(0, l);
    settle(20);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntSpilluse | vc4::kV3dIntFldone);
    EXPECT_EQ(decode(kAlloc).branches,
              (std::vector<std::uint32_t>{kAlloc + kTiles * 32, 0x200000}));
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

TEST_F(Binner, GuestErrorsStopCt0WithCterrAndAClearReport) {
  const std::vector<std::pair<std::function<List()>, std::string>> cases = {
      {[&] { List l{kList, {}}; l.op(pk::kStartTileBinning); return l; },
       "START_TILE_BINNING before any TILE_BINNING_MODE_CONFIG"},
      {[&] { List l{kList, {}}; l.bin_config(kAlloc, 0x1000, kTsda, 0, 3, 4); return l; },
       "TILE_BINNING_MODE_CONFIG with a 0x3 tile grid"},
      {[&] { List l{kList, {}}; l.bin_config(kAlloc, 0x1000, kTsda + 8, 4, 3, 4); return l; },
       "tile state data array address 0x40008 is not 16-byte aligned"},
      {[&] { List l{kList, {}}; l.bin_config(0xFFFF00, 0x1000, kTsda, 4, 3, 4).op(pk::kStartTileBinning); return l; },
       "tile allocation memory 0xffff00 with 12 initial blocks of 32 bytes is outside DRAM"},
      {[&] { List l{kList, {}}; l.array(4, 3, 0); return l; }, "GL_ARRAY_PRIMITIVE outside tile binning"},
      {[&] {
         List l{kList, {}};
         l.bin_config(kAlloc, 0x1000, kTsda, 4, 3, 4).op(pk::kStartTileBinning).array(4, 3, 0);
         return l;
       },
       "GL_ARRAY_PRIMITIVE before any shader state"},
      {[&] {
         List l = prologue();
         l.op(pk::kGlShaderState).u32(kRecord).array(4, 3, 0);
         return l;
       },
       "with GL_SHADER_STATE: the coordinate shader runs on the QPUs, which are not modelled"},
      {[&] { List l = prologue(); l.nv_state(kRecord + 4).array(4, 3, 0); return l; },
       "NV shader record address 0x20004 is not 16-byte aligned"},
      {[&] { List l = prologue(); l.nv_state(0x2000000).array(4, 3, 0); return l; },
       "bad NV shader record address: 0x2000000 (16 bytes) is outside DRAM"},
      {[&] { List l = prologue(); l.nv_state(kRecord + 0x100).array(4, 3, 0); return l; },
       "GL_ARRAY_PRIMITIVE: vertex 2 at 0x1000008: 0x1000008 (4 bytes) is outside DRAM"},
      {[&] { List l = prologue(); l.array(9, 3, 0); return l; }, "GL_ARRAY_PRIMITIVE primitive mode 9 is undefined"},
      {[&] { List l = prologue(); l.indexed(0x24, 3, kIndices, 5); return l; },
       "GL_INDEXED_PRIMITIVE index type 2 is undefined"},
      {[&] { List l = prologue(); l.indexed(0x04, 3, 0xFFFFFF, 5); return l; },
       "GL_INDEXED_PRIMITIVE index buffer 0xffffff (3 indices) is outside DRAM"},
      {[&] { List l = prologue(); l.indexed(0x04, 3, kIndices, 1); return l; },
       "index 2 (element 2) exceeds the maximum index 1"},
      {[&] { List l = prologue(); l.op(pk::kVgCoordinateArrayPrimitives).u8(1).u32(3).u32(0x22000); return l; },
       "VG_COORDINATE_ARRAY_PRIMITIVES type 1 (RHT) is not modelled"},
  };
  vertices(kVerts, {{10, 10}, {50, 10}, {10, 50}});
  nv_record(kRecord + 0x100, 0xFFFFF0);  // vertex 2 lies past the end of DRAM
  put(kIndices, {0, 1, 2});
  std::vector<List> lists;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    List l = cases[i].first();
    l.base = static_cast<std::uint32_t>(0x50000 + 0x1000 * i);
    lists.push_back(l);
    put(l);
  }
  test::run_thread([&] {
    for (std::size_t i = 0; i < lists.size(); ++i) {
      submit(0, lists[i]);
      settle(10);
      EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | ControlListExecutor::kCtErr) << cases[i].second;
      EXPECT_LT(rd(vc4::kV3dCtnCa(0)), lists[i].here()) << cases[i].second;
    }
  });
  for (const auto& c : cases) EXPECT_EQ(errors(c.second), 1u) << c.second;
}

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

}  // namespace
