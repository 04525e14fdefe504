// vc4 end to end, driven as the vc4 driver drives it (tb/host/vc4_driver): a Mesa-style binning list and the
// kernel's render list on the default platform, live (BusHostPort) and as a host script replayed by `gpuvp run
// --script`; the kernel's render-only clear (99 bytes, IGT lib/igt_vc4.c, Linux vc4_render_cl.c); the binner
// out-of-memory interrupt handler; the kernel's validation of binning lists and render set-ups (Linux vc4_validate.c
// vc4_validate_bin_cl, vc4_render_cl.c vc4_get_rcl; docs/vc4-v3d.md).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <ostream>

#include <gtest/gtest.h>

#include "platform/platform.h"
#include "tb/host/vc4_driver.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/sc_test.h"
#include "tlm/core/stats.h"

using namespace gpuvp;
using host::Vc4Driver;

namespace {

constexpr std::uint32_t kClear = 0xFF204080;

// Three triangles over a 256x128 frame (4x2 tiles): one in tile (0,0), one across tiles (1,0)..(2,1), one in (3,1).
host::Vc4Scene scene() {
  host::Vc4Scene s;
  s.width = 256;
  s.height = 128;
  s.vertices = {{10, 10},  {50, 10},  {10, 50},     // tile (0,0)
                {80, 20},  {180, 30}, {100, 110},   // tiles (1,0) (2,0) (1,1) (2,1)
                {200, 80}, {250, 80}, {200, 120}};  // tile (3,1)
  s.indices = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  return s;
}

// How far (in pixels) point (x, y) lies inside the nearest of the scene's triangles: positive inside one, negative
// outside all (the largest over the triangles of the smallest signed distance to their edges).
double inside_distance(const host::Vc4Scene& s, double x, double y) {
  double best = -1e9;
  for (std::size_t t = 0; t + 2 < s.indices.size(); t += 3) {
    const host::Vc4Vertex* v[3] = {&s.vertices[s.indices[t]], &s.vertices[s.indices[t + 1]],
                                   &s.vertices[s.indices[t + 2]]};
    const double area = (v[1]->x - v[0]->x) * (v[2]->y - v[0]->y) - (v[2]->x - v[0]->x) * (v[1]->y - v[0]->y);
    double nearest = 1e9;
    for (unsigned i = 0; i < 3; ++i) {
      const host::Vc4Vertex& a = *v[i];
      const host::Vc4Vertex& b = *v[(i + 1) % 3];
      const double cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
      nearest = std::min(nearest, (area > 0 ? cross : -cross) / std::hypot(b.x - a.x, b.y - a.y));
    }
    best = std::max(best, nearest);
  }
  return best;
}

struct Frame {
  Vc4Driver::Buffer fb;
  std::vector<std::uint8_t> bin;
  std::vector<std::uint8_t> render;
};

// Builds a frame: binning list with the kernel's bin set-up, render list clearing to kClear and branching into the
// tile lists; `small_pool` leaves only the initial blocks (no pool) so that the binner needs overflow memory.
Frame build_frame(Vc4Driver& d, const host::Vc4Scene& s, bool small_pool = false) {
  Frame f;
  f.fb = d.alloc(s.width * s.height * 4);
  f.bin = d.build_bin_cl(s);
  const Vc4Driver::BinSetup bin = d.bin_setup(f.bin);
  if (small_pool) {
    const std::uint32_t initial = bin.tiles_x * bin.tiles_y * 32;
    for (unsigned i = 0; i < 4; ++i) f.bin[5 + i] = static_cast<std::uint8_t>(initial >> (8 * i));
  }
  host::Vc4RenderSetup r;
  r.color_address = f.fb.addr;
  r.width = s.width;
  r.height = s.height;
  r.use_clear_color = true;
  r.clear_color[0] = r.clear_color[1] = kClear;
  r.has_bin = true;
  r.tile_alloc = bin.tile_alloc;
  r.bin_tiles_x = bin.tiles_x;
  r.bin_tiles_y = bin.tiles_y;
  r.max_x_tile = bin.tiles_x - 1;
  r.max_y_tile = bin.tiles_y - 1;
  EXPECT_EQ(Vc4Driver::validate_render_setup(r), "");
  f.render = Vc4Driver::build_render_cl(r);
  return f;
}

TEST(Vc4EndToEnd, DriverBinsAndRendersASceneLive) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  bool done = false;
  Frame f;
  test::run_thread([&] {
    d.enable_interrupts();
    f = build_frame(d, scene());
    d.submit(f.bin, f.render);
    done = d.wait_frame(1'000'000);
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dBfc), 1u);
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dRfc), 1u);
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dCtnCs(0)), vc4::ControlListExecutor::kCtMode);
    // FRDONE comes with the last store; the thread stops at its end address right after.
    EXPECT_TRUE(port.wait_for32(0xE1000000 + vc4::kV3dCtnCs(1), 0, ~0u, 20000));
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dIntctl), 0u);  // acknowledged
  });
  EXPECT_TRUE(done);
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  // 1 + 4 + 1 tile entries for three triangles; each tile's share is rasterised and shaded by the driver's flat
  // shader on the QPUs.
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.primitives"), 3u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.entries"), 6u);
  EXPECT_EQ(soc.v3d()->renderer().primitives_not_shaded(), 0u);
  EXPECT_EQ(soc.v3d()->renderer().tiles_stored(), 8u);
  // The frame: the shader's colour at pixels whose centre lies more than a pixel inside a triangle, the clear colour
  // more than a pixel outside every one (the fill rule decides the band between: reference-vc4-qpu.md 5.5).
  std::vector<std::uint32_t> fb(256 * 128);
  soc.dram().store().read(f.fb.addr, reinterpret_cast<std::uint8_t*>(fb.data()), fb.size() * 4);
  std::size_t inside = 0, outside = 0, bad = 0;
  for (unsigned y = 0; y < 128; ++y) {
    for (unsigned x = 0; x < 256; ++x) {
      const double d = inside_distance(scene(), x + 0.5, y + 0.5);
      if (d > 1.0) {
        ++inside;
        bad += fb[y * 256 + x] != 0xFFFFFFFFu;
      } else if (d < -1.0) {
        ++outside;
        bad += fb[y * 256 + x] != kClear;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(inside, 5000u);
  EXPECT_GT(outside, 25000u);
  EXPECT_GE(soc.v3d()->renderer().fragments_shaded(), inside);
  // The render list: header 14 + 3 + 7 + 11, first tile 3 + 1 + 5 + 1, seven more of 3 + 5 + 1.
  EXPECT_EQ(f.render.size(), 35u + 10 + 7 * 9);
}

TEST(Vc4EndToEnd, BinnerOutOfMemoryIsServedByTheDriversInterruptHandler) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  host::Vc4Scene s = scene();
  // 40 copies of the first triangle: tile (0,0) needs more than its 32-byte initial block.
  for (int i = 0; i < 40; ++i) s.indices.insert(s.indices.end(), {0, 1, 2});
  bool done = false;
  test::run_thread([&] {
    d.enable_interrupts();
    port.write32(0xE1000000 + vc4::kV3dBpoa, 0);  // vc4_gem.c: no pre-loaded overflow memory
    port.write32(0xE1000000 + vc4::kV3dBpos, 0);
    Frame f = build_frame(d, s, /*small_pool=*/true);
    d.submit(f.bin, f.render);
    done = d.wait_frame(1'000'000);
  });
  EXPECT_TRUE(done);
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  EXPECT_EQ(d.overflow_blocks_supplied(), 1u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.out_of_memory"), 1u);
  EXPECT_EQ(soc.v3d()->renderer().primitives_not_shaded(), 0u);
  EXPECT_GT(soc.v3d()->renderer().fragments_shaded(), 0u);
}

TEST(Vc4EndToEnd, KernelRenderOnlyClearThroughTheDriver) {
  // igt_vc4_get_cleared_bo: 256 KiB BO at 0x10000000, 1024 wide, v = 0xDEADBEEF: the kernel's 99-byte list.
  host::Vc4RenderSetup r;
  r.color_address = 0x10000000;
  r.width = 1024;
  r.height = 64;
  r.use_clear_color = true;
  r.clear_color[0] = r.clear_color[1] = 0xDEADBEEF;
  r.max_x_tile = 15;
  ASSERT_EQ(Vc4Driver::validate_render_setup(r), "");
  const std::vector<std::uint8_t> rcl = Vc4Driver::build_render_cl(r);
  ASSERT_EQ(rcl.size(), 99u);
  const std::vector<std::uint8_t> head = {0x72, 0xef, 0xbe, 0xad, 0xde, 0xef, 0xbe, 0xad, 0xde, 0x00, 0x00,
                                          0x00, 0x00, 0x00, 0x73, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00,
                                          0x00, 0x00, 0x71, 0x00, 0x00, 0x00, 0x10, 0x00, 0x04, 0x40, 0x00,
                                          0x04, 0x00, 0x73, 0x00, 0x00, 0x18, 0x73, 0x01, 0x00, 0x18};
  EXPECT_EQ(std::vector<std::uint8_t>(rcl.begin(), rcl.begin() + 43), head);
  EXPECT_EQ(std::vector<std::uint8_t>(rcl.end() - 4, rcl.end()), (std::vector<std::uint8_t>{0x73, 0x0f, 0x00, 0x19}));

  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  host::Vc4Layout layout;
  Vc4Driver d(port, layout);
  bool done = false;
  test::run_thread([&] {
    d.enable_interrupts();
    d.submit({}, rcl);
    done = d.wait_frame(1'000'000);
  });
  EXPECT_TRUE(done);
  std::vector<std::uint32_t> bo(1024 * 64);
  soc.dram().store().read(0x10000000, reinterpret_cast<std::uint8_t*>(bo.data()), bo.size() * 4);
  std::size_t bad = 0;
  for (std::uint32_t v : bo) bad += v != 0xDEADBEEF;
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(soc.v3d()->thread(0).packets_executed(), 0u);  // ct0ca == ct0ea: CT0 never ran
}

TEST(Vc4EndToEnd, MultisampleClearResolvedWithDecimate4xThroughTheDriver) {
  // The render-config bits the kernel accepts include MS_MODE_4X and DECIMATE_MODE_4X (vc4_render_cl.c; Mesa sets
  // both for MSAA): 32x32 tiles of four samples, resolved to one pixel each by the colour store.
  host::Vc4RenderSetup r;
  r.color_address = 0x10000000;
  r.width = 96;
  r.height = 40;
  r.color_bits = 1u << 2 | 1u << 0 | 1u << 4;  // RGBA8888, MS 4x, decimate 4x
  r.use_clear_color = true;
  r.clear_color[0] = r.clear_color[1] = 0x80402010;
  r.max_x_tile = 2;  // ceil(96 / 32) - 1
  r.max_y_tile = 1;  // ceil(40 / 32) - 1
  ASSERT_EQ(Vc4Driver::validate_render_setup(r), "");
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  std::vector<std::uint8_t> guard(96 * 40 * 4 + 64, 0xEE);
  soc.dram().store().write(0x10000000, guard.data(), guard.size());
  bool done = false;
  test::run_thread([&] {
    d.enable_interrupts();
    d.submit({}, Vc4Driver::build_render_cl(r));
    done = d.wait_frame(1'000'000);
  });
  EXPECT_TRUE(done);
  std::vector<std::uint32_t> fb(96 * 40 + 1);
  soc.dram().store().read(0x10000000, reinterpret_cast<std::uint8_t*>(fb.data()), fb.size() * 4);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 96 * 40; ++i) bad += fb[i] != 0x80402010;
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(fb[96 * 40], 0xEEEEEEEEu);  // a 96x40 image: nothing beyond it
  EXPECT_EQ(soc.v3d()->renderer().tiles_stored(), 6u);
}

TEST(Vc4EndToEnd, SameFrameAsAHostScriptThroughTheExecutable) {
  host::ScriptHostPort port;
  Vc4Driver d(port);
  d.enable_interrupts();
  d.supply_overspill();  // a script cannot react to OUTOMEM
  Frame f = build_frame(d, scene());
  d.submit(f.bin, f.render);
  d.wait_frame(2'000'000, /*service_oom=*/false);
  port.expect32(0xE1000000 + vc4::kV3dBfc, 1);
  port.expect32(0xE1000000 + vc4::kV3dRfc, 1);
  port.expect32(f.fb.addr, kClear);
  port.expect32(f.fb.addr + 256 * 128 * 4 - 4, kClear);
  port.expect32(f.fb.addr + (20 * 256 + 20) * 4, 0xFFFFFFFF);    // inside the first triangle
  port.expect32(f.fb.addr + (100 * 256 + 210) * 4, 0xFFFFFFFF);  // inside the third
  port.expect32(f.fb.addr + (100 * 256 + 240) * 4, kClear);      // beside it
  EXPECT_EQ(port.unknown_reads(), 0u);                           // every value the driver needed is a poll or a check
  const std::string path = ::testing::TempDir() + "vc4_e2e.gpuvp";
  std::ofstream(path) << port.script();
  test::ProcessResult r = test::run_gpuvp("run --script " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out;
}

TEST(Vc4EndToEnd, AScriptExpectingOtherPixelsFails) {
  host::ScriptHostPort port;
  Vc4Driver d(port);
  d.enable_interrupts();
  d.supply_overspill();
  Frame f = build_frame(d, scene());
  d.submit(f.bin, f.render);
  d.wait_frame(2'000'000, false);
  port.expect32(f.fb.addr + (20 * 256 + 20) * 4, kClear);  // inside the first triangle: the shader's white
  const std::string path = ::testing::TempDir() + "vc4_e2e_bad.gpuvp";
  std::ofstream(path) << port.script();
  test::ProcessResult r = test::run_gpuvp("run --quiet --script " + path);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("actual 0xffffffff"), std::string::npos) << r.out;
}

// ---- the kernel's validation (Linux vc4_validate.c, vc4_render_cl.c) ----

std::vector<std::uint8_t> user_bin_cl(std::vector<std::uint8_t> body) {
  std::vector<std::uint8_t> cl = {112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 0x04, 6};  // config 4x3, START
  for (std::uint8_t b : body) cl.push_back(b);  // (insert() draws a GCC 12 -Warray-bounds false positive here)
  cl.push_back(7);
  cl.push_back(4);
  return cl;
}

const std::vector<std::uint8_t> kDraw = {33, 4, 3, 0, 0, 0, 0, 0, 0, 0};  // GL_ARRAY_PRIMITIVE: 3 triangles' vertices

TEST(Vc4Validation, AcceptsAListWithShaderStateThenADraw) {
  std::vector<std::uint8_t> body = {64, 0x01, 0, 0, 0};  // GL_SHADER_STATE
  body.insert(body.end(), kDraw.begin(), kDraw.end());
  EXPECT_EQ(Vc4Driver::validate_bin_cl(user_bin_cl(body)), "");
  // HALT ends parsing: what follows is not checked, but the list still must end INCREMENT_SEMAPHORE, FLUSH.
  EXPECT_EQ(Vc4Driver::validate_bin_cl({112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 4, 6, 0, 2, 2}),
            "the list does not end INCREMENT_SEMAPHORE, FLUSH");
}

struct BinListCase {
  const char* name;
  std::vector<std::uint8_t> cl;
  const char* reason;  // a part of the rejection
};
// The case name in test listings, not its bytes.
void PrintTo(const BinListCase& c, std::ostream* os) { *os << c.name; }

class BinningListRejection : public ::testing::TestWithParam<BinListCase> {};

TEST_P(BinningListRejection, NamesTheReason) {
  const std::string got = Vc4Driver::validate_bin_cl(GetParam().cl);
  EXPECT_NE(got.find(GetParam().reason), std::string::npos)
      << "expected '" << GetParam().reason << "', got '" << got << "'";
}

INSTANTIATE_TEST_SUITE_P(
    Vc4Validation, BinningListRejection,
    ::testing::Values(
        BinListCase{"NvShaderState", user_bin_cl({65, 0, 0, 0, 0}),
                    "at byte 17: opcode 65 (NV_SHADER_STATE) is not allowed in a binning list"},
        BinListCase{"WaitOnSemaphore", user_bin_cl({8}), "opcode 8 (WAIT_ON_SEMAPHORE) is not allowed"},
        BinListCase{"BranchToSubList", user_bin_cl({17, 0, 0, 0, 0}), "opcode 17 (BRANCH_TO_SUB_LIST) is not allowed"},
        BinListCase{"ZMinMaxClippingPlanes", user_bin_cl({104, 0, 0, 0, 0, 0, 0, 0, 0}),
                    "opcode 104 (Z_MIN_MAX_CLIPPING_PLANES) is not allowed"},
        BinListCase{"TileCoordinates", user_bin_cl({115, 0, 0}), "opcode 115 (TILE_COORDINATES) is not allowed"},
        BinListCase{"UnknownOpcode2", user_bin_cl({2}), "opcode 2 (unknown) is not allowed"},
        BinListCase{"ConfigRunsPastTheEnd",
                    {112, 0, 0},
                    "at byte 0: TILE_BINNING_MODE_CONFIG (16 bytes) runs past the end of the list"},
        BinListCase{"FlushNotLast", user_bin_cl({4}), "at byte 17: FLUSH is not the last byte of the list"},
        BinListCase{"IncrementSemaphoreNotSecondToLast", user_bin_cl({7}),
                    "at byte 17: INCREMENT_SEMAPHORE is not the second-to-last byte"},
        BinListCase{"NoStartTileBinning",
                    {112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 4, 7, 4},
                    "no START_TILE_BINNING in the list"},
        BinListCase{"DuplicateStart", user_bin_cl({6}), "at byte 17: duplicate START_TILE_BINNING"},
        BinListCase{"StartBeforeConfig", {6, 7, 4}, "START_TILE_BINNING before TILE_BINNING_MODE_CONFIG"},
        BinListCase{"DuplicateConfig", user_bin_cl({112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 4}),
                    "duplicate TILE_BINNING_MODE_CONFIG"},
        BinListCase{"ZeroSizedTileGrid",
                    {112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 6, 7, 4},
                    "tile binning with a zero-sized tile grid"},
        BinListCase{"DoubleBufferWithoutMultisample",
                    {112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 0x84, 6, 7, 4},
                    "double-buffer in non-multisample mode"},
        BinListCase{"Colour64Bit",
                    {112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 0x06, 6, 7, 4},
                    "64-bit colour is not supported"},
        BinListCase{"DrawBeforeShaderState", user_bin_cl(kDraw), "at byte 17: draw before any GL_SHADER_STATE"},
        BinListCase{"ShaderStateHighBits", user_bin_cl({64, 0x10, 0, 0, 0}), "GL_SHADER_STATE with bits above 3:0 set"},
        BinListCase{"MoreShaderStatesThanRecords", user_bin_cl({64, 1, 0, 0, 0, 64, 1, 0, 0, 0}),
                    "more GL_SHADER_STATE packets than the 1 shader records"},
        BinListCase{"ArrayPrimitiveOverflow", user_bin_cl({64, 1, 0, 0, 0, 33, 4, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0}),
                    "GL_ARRAY_PRIMITIVE first + count overflows 32 bits"},
        BinListCase{"FlushInTheMiddle",
                    {112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 4, 6, 4, 7, 4},
                    "at byte 17: FLUSH is not the last"}),
    [](const ::testing::TestParamInfo<BinListCase>& info) { return info.param.name; });

host::Vc4RenderSetup accepted_render_setup() {
  host::Vc4RenderSetup ok;
  ok.color_address = 0x100000;
  ok.width = 256;
  ok.height = 128;
  ok.has_bin = true;
  ok.bin_tiles_x = 4;
  ok.bin_tiles_y = 2;
  ok.max_x_tile = 3;
  ok.max_y_tile = 1;
  return ok;
}

TEST(Vc4Validation, AcceptsARenderSetupWithinTheBinnedTiles) {
  EXPECT_EQ(Vc4Driver::validate_render_setup(accepted_render_setup()), "");
  // The kernel's '>' lets max == bin tiles through (Linux vc4_render_cl.c vc4_get_rcl).
  host::Vc4RenderSetup edge = accepted_render_setup();
  edge.max_x_tile = 4;
  EXPECT_EQ(Vc4Driver::validate_render_setup(edge), "");
}

struct RenderSetupCase {
  const char* name;
  std::function<void(host::Vc4RenderSetup&)> change;
  const char* reason;
};
// The case name in test listings, not its bytes.
void PrintTo(const RenderSetupCase& c, std::ostream* os) { *os << c.name; }

class RenderSetupRejection : public ::testing::TestWithParam<RenderSetupCase> {};

TEST_P(RenderSetupRejection, NamesTheReason) {
  host::Vc4RenderSetup s = accepted_render_setup();
  GetParam().change(s);
  EXPECT_EQ(Vc4Driver::validate_render_setup(s), GetParam().reason);
}

INSTANTIATE_TEST_SUITE_P(
    Vc4Validation, RenderSetupRejection,
    ::testing::Values(
        RenderSetupCase{"MinBeyondMax", [](auto& s) { s.min_x_tile = 4; }, "minimum tile beyond the maximum tile"},
        RenderSetupCase{"BeyondTheBinnedTiles", [](auto& s) { s.max_x_tile = 5; },
                        "render tiles (5, 1) beyond the binned 4x2 tiles"},
        RenderSetupCase{"NoColourSurface", [](auto& s) { s.color_address = 0; }, "no colour write surface"},
        RenderSetupCase{"ColourSurfaceMisaligned", [](auto& s) { s.color_address = 0x100008; },
                        "colour surface offset not 16-byte aligned"},
        RenderSetupCase{"TooWide", [](auto& s) { s.width = 5000; }, "surface larger than 4096 pixels"},
        RenderSetupCase{"BitsOutsideTheAllowedSet", [](auto& s) { s.color_bits = 1 << 8; },
                        "render config bits outside the allowed set"},
        RenderSetupCase{"ColourFormat", [](auto& s) { s.color_bits = 3 << 2; },
                        "colour format not 565, 565 dithered or 8888"}),
    [](const ::testing::TestParamInfo<RenderSetupCase>& info) { return info.param.name; });

// ---- the submit ioctl's checks with the job's BO table (Linux vc4_gem.c, vc4_validate.c, vc4_render_cl.c) ----

void put_u32(std::vector<std::uint8_t>& v, std::uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}
void set_u32(std::vector<std::uint8_t>& v, std::size_t at, std::uint32_t x) {
  for (int i = 0; i < 4; ++i) v[at + i] = static_cast<std::uint8_t>(x >> (8 * i));
}

// A job the kernel accepts: BOs 0 index buffer (64 bytes), 1..3 FS/VS/CS shaders, 4 vertex buffer (120 bytes:
// 12-byte attributes at stride 12 up to index 9), 5 a 64x64 RGBA8888 colour buffer (16 KiB). The binning list draws
// 6 16-bit indices (max index 9) and an array of 3 with one GL shader record of one attribute.
constexpr std::size_t kIndexedAt = 31;  // the GL_INDEXED_PRIMITIVE packet in the list below
constexpr std::size_t kGemAt = 17;      // GEM_HANDLES
constexpr std::size_t kRecord = 16;     // the shader record after its four handles
host::Vc4Submit good_job() {
  host::Vc4Submit j;
  j.bos = {{0x100000, 64},
           {0x110000, 256, true, false, 8},
           {0x120000, 256, true, false, 0},
           {0x130000, 256, true, false, 0},
           {0x140000, 120},
           {0x150000, 64 * 64 * 4}};
  j.bin_cl = {112, 0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0x04, 6,  // 1x1 tiles, START
              254, 0,    0, 0, 0, 0, 0, 0, 0,                             // GEM_HANDLES: index buffer = BO 0
              64,  0x01, 0, 0, 0,                                         // GL_SHADER_STATE, one attribute
              32,  0x14, 6, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0,              // 6 16-bit indices at offset 0, max 9
              33,  0x04, 3, 0, 0, 0, 0, 0, 0, 0,                          // array: 3 from 0
              7,   4};
  for (std::uint32_t h : {1u, 2u, 3u, 4u}) put_u32(j.shader_rec, h);
  std::vector<std::uint8_t> rec(44, 0);
  rec[0] = 0x01;  // FS single-threaded (the FS BO is not threaded)
  rec[40] = 11;   // attribute 0: 12 bytes at offset 0
  rec[41] = 12;   //              stride 12
  j.shader_rec.insert(j.shader_rec.end(), rec.begin(), rec.end());
  j.shader_rec_count = 1;
  j.uniforms_size = 8;
  j.width = 64;
  j.height = 64;
  j.color_write.hindex = 5;
  j.color_write.bits = 1u << 2;  // RGBA8888, linear
  return j;
}

TEST(Vc4Validation, SubmitChecksPassJustInsideEachLimitAndFailJustOutside) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  ASSERT_EQ(d.validate_submit(good_job()), "");
  auto with = [&](auto change) {
    host::Vc4Submit j = good_job();
    change(j);
    return d.validate_submit(j);
  };
  auto expect = [&](const std::string& got, const std::string& text) {
    EXPECT_NE(got.find(text), std::string::npos) << "expected '" << text << "', got '" << got << "'";
  };
  // 12: submit flags, pad2, an empty BO table, perfmon ids.
  EXPECT_EQ(with([](auto& j) { j.flags = 0xF; }), "");
  EXPECT_EQ(with([](auto& j) { j.flags = 0x10; }), "unknown submit flags 0x10");
  EXPECT_EQ(with([](auto& j) { j.pad2 = 1; }), "pad2 is not 0");
  EXPECT_EQ(with([](auto& j) { j.bos.clear(); }), "rendering requires BOs to validate (bo_handle_count is 0)");
  EXPECT_EQ(with([](auto& j) { j.perfmonid = 1; }), "unknown perfmon id 1");
  EXPECT_EQ(d.create_perfmon(), 1u);
  EXPECT_EQ(with([](auto& j) { j.perfmonid = 1; }), "");
  EXPECT_EQ(with([](auto& j) { j.perfmonid = 2; }), "unknown perfmon id 2");

  // 7: the index buffer. 6 indices of 2 bytes: offset 52 leaves exactly 12 bytes of the 64; 54 leaves 10.
  EXPECT_EQ(with([](auto& j) { set_u32(j.bin_cl, kIndexedAt + 6, 52); }), "");
  expect(with([](auto& j) { set_u32(j.bin_cl, kIndexedAt + 6, 54); }),
         "at byte 31: GL_INDEXED_PRIMITIVE reads 6 indices of 2 bytes at offset 54 of a 64-byte index buffer");
  expect(with([](auto& j) { set_u32(j.bin_cl, kIndexedAt + 6, 65); }), "at offset 65 of a 64-byte index buffer");
  // 8-bit indices: 12 fit after offset 52.
  EXPECT_EQ(with([](auto& j) {
              j.bin_cl[kIndexedAt + 1] = 0x04;
              set_u32(j.bin_cl, kIndexedAt + 2, 12);
              set_u32(j.bin_cl, kIndexedAt + 6, 52);
            }),
            "");
  expect(with([](auto& j) {
           j.bin_cl[kIndexedAt + 1] = 0x04;
           set_u32(j.bin_cl, kIndexedAt + 2, 13);
           set_u32(j.bin_cl, kIndexedAt + 6, 52);
         }),
         "reads 13 indices of 1 bytes");
  // GEM_HANDLES names the index buffer: BO 5 (the last) is fine, 6 is past the table ('>='), 1 is a shader BO.
  EXPECT_EQ(with([](auto& j) { set_u32(j.bin_cl, kGemAt + 1, 5); }), "");
  expect(with([](auto& j) { set_u32(j.bin_cl, kGemAt + 1, 6); }),
         "index buffer BO index 6 is not below the BO count 6");
  expect(with([](auto& j) { set_u32(j.bin_cl, kGemAt + 1, 1); }), "index buffer BO 1 is a shader BO");

  // 8: shader records. Handles first (16 bytes), then the 44-byte record.
  expect(with([](auto& j) { j.shader_rec.resize(15); }),
         "shader record 0: 4 BO handles overrun the 15 shader record bytes");
  expect(with([](auto& j) { j.shader_rec.resize(16 + 43); }), "the 44-byte record overruns the 43 shader record bytes");
  // The shader handles use '>' (an index equal to the count slips through the kernel, and names no BO).
  expect(with([](auto& j) { set_u32(j.shader_rec, 0, 7); }), "FS handle 7 is above the BO count 6");
  expect(with([](auto& j) { set_u32(j.shader_rec, 4, 6); }), "VS handle 6 equals the BO count");
  expect(with([](auto& j) { set_u32(j.shader_rec, 8, 5); }), "CS BO 5 is not a validated shader");
  expect(with([](auto& j) { set_u32(j.shader_rec, 12, 6); }), "attribute 0 BO index 6 is not below the BO count 6");
  expect(with([](auto& j) { set_u32(j.shader_rec, 12, 2); }), "attribute 0 BO 2 is a shader BO");
  expect(with([](auto& j) { j.shader_rec[kRecord] = 0; }), "the FS threading flag (multi-threaded) does not match");
  EXPECT_EQ(with([](auto& j) {
              j.shader_rec[kRecord] = 0;
              j.bos[1].threaded = true;
            }),
            "");
  expect(with([](auto& j) { j.bos[2].threaded = true; }), "VS and CS cannot be threaded");
  expect(with([](auto& j) { set_u32(j.shader_rec, kRecord + 28, 16); }), "CS code offset 16 is not 0");
  EXPECT_EQ(with([](auto& j) {
              j.uniforms_size = 8;
              j.bos[3].uniforms_src_size = 8;
            }),
            "");
  expect(with([](auto& j) { j.uniforms_size = 7; }), "FS reads 8 uniform bytes of the 7 supplied");
  // Attribute bounds: 12 bytes at offset 108 end exactly at 120; at 109 they overrun.
  EXPECT_EQ(with([](auto& j) {
              set_u32(j.shader_rec, kRecord + 36, 108);
              j.shader_rec[kRecord + 41] = 0;
            }),
            "");
  expect(with([](auto& j) {
           set_u32(j.shader_rec, kRecord + 36, 109);
           j.shader_rec[kRecord + 41] = 0;
         }),
         "attribute 0: 12 bytes at offset 109 overrun the 120-byte BO");
  // Max index x stride: index 9 needs 9 * 12 + 12 = 120 bytes.
  expect(with([](auto& j) { j.bos[4].size = 119; }), "primitives use index 9, the BO holds up to index 8");
  expect(with([](auto& j) { set_u32(j.bin_cl, kIndexedAt + 10, 10); }),
         "primitives use index 10, the BO holds up to index 9");
  // Extended records take stride bits 31:8 from the extra words: stride 0x100 | 12 needs far more than 120 bytes.
  {
    host::Vc4Submit j = good_job();
    j.bin_cl[27] = 0x09;  // extended, one attribute: 104-byte record
    j.shader_rec.resize(16 + 104, 0);
    set_u32(j.shader_rec, kRecord + 100, 0x100);
    expect(d.validate_submit(j), "primitives use index 9, the BO holds up to index 0");
  }

  // 13: the render surfaces.
  EXPECT_EQ(with([](auto& j) { j.color_write.bits = 1u << 2 | 1 | 1u << 4; }), "");  // MS 4x + decimate 4x pass
  EXPECT_EQ(with([](auto& j) { j.color_write.bits = 1u << 2 | 2u << 4; }),
            "colour write: render config bits outside the allowed set");  // decimate 16x does not
  EXPECT_EQ(with([](auto& j) { j.color_write.flags = 1; }), "colour write: flags on the render config surface");
  EXPECT_EQ(with([](auto& j) { j.color_write.bits = 3u << 2; }),
            "colour write: colour format not 565, 565 dithered or 8888");
  EXPECT_EQ(with([](auto& j) { j.color_write.bits = 3u << 6 | 1u << 2; }), "colour write: tiling beyond LT");
  expect(with([](auto& j) { j.color_write.offset = 16; }),
         "colour write: surface of 16384 bytes at offset 16 overruns");
  EXPECT_EQ(with([](auto& j) {
              j.color_write.bits = 2u << 2;
              j.color_write.offset = 8192;
            }),
            "");  // BGR565: 8 KiB
  expect(with([](auto& j) {
           j.color_write.bits = 2u << 2;
           j.color_write.offset = 8193;
         }),
         "overruns the 16384-byte BO");
  auto read = [](auto& j, std::uint16_t bits, std::uint32_t offset = 0) {
    j.color_read.hindex = 5;
    j.color_read.bits = bits;
    j.color_read.offset = offset;
  };
  EXPECT_EQ(with([&](auto& j) { read(j, 1); }), "");
  EXPECT_EQ(with([&](auto& j) { read(j, 1 | 1 << 12); }), "colour read: bits outside tiling, buffer and format");
  EXPECT_EQ(with([&](auto& j) { read(j, 1 | 3 << 4); }), "colour read: tiling beyond LT");
  EXPECT_EQ(with([&](auto& j) { read(j, 2 | 1 << 8); }), "colour read: a Z/S buffer with a colour format");
  EXPECT_EQ(with([&](auto& j) { read(j, 3); }), "colour read: buffer 3 is neither colour nor Z/S");
  EXPECT_EQ(with([&](auto& j) { read(j, 1 | 3 << 8); }),
            "colour read: colour format not RGBA8888, BGR565 dithered or BGR565");
  EXPECT_EQ(with([&](auto& j) { read(j, 1, 8); }), "colour read: offset not 16-byte aligned");
  EXPECT_EQ(with([&](auto& j) { read(j, 1 | 1 << 4); }), "");  // T format: 64x64 rounds to 64x64 (4 KiB utiles)
  EXPECT_EQ(with([&](auto& j) {
              j.zs_write = j.color_write;
              j.zs_write.bits = 2;
              j.zs_write.flags = 1;
            }),
            "Z/S write: a general Z/S write may not be full resolution");
  EXPECT_EQ(with([&](auto& j) {
              read(j, 1);
              j.color_read.flags = 1;
            }),
            "colour read: load/store bits set on a full-resolution surface");
  EXPECT_EQ(with([&](auto& j) {
              read(j, 1);
              j.color_read.flags = 2;
            }),
            "colour read: unknown surface flags");
  EXPECT_EQ(with([](auto& j) {
              j.width = 4097;
              j.bos[5].size = 1u << 30;
            }),
            "colour write: surface 4097x64 is larger than 4096");
  // 14: something must be written.
  EXPECT_EQ(with([](auto& j) { j.color_write.hindex = host::Vc4SubmitSurface::kNone; }),
            "no colour or Z/S write surface");
}

TEST(Vc4Validation, MsaaSurfacesAndTheFullResolutionBoundsCheck) {
  // No binning list: a 64x64 multisample job of 2x2 tiles of 32 pixels, full-resolution colour at BO 0.
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  host::Vc4Submit j;
  j.bos = {{0x100000, 3 * 16384}};
  j.width = 64;
  j.height = 64;
  j.max_x_tile = 1;
  j.max_y_tile = 1;
  j.msaa_color_write.hindex = 0;
  // Tile (1, 1) is tile 2 * 1 + 1 = 3: the kernel asks for at least 3 whole 16 KiB tiles after the offset ('<'), one
  // fewer than the four the render writes -- the check as written, modelled as written.
  EXPECT_EQ(d.validate_submit(j), "");
  j.bos[0].size = 3 * 16384 - 1;
  EXPECT_EQ(d.validate_submit(j),
            "MSAA colour write: full-resolution tile (1, 1) is beyond the 49151-byte BO at offset 0");
  j.bos[0].size = 4 * 16384;
  j.msaa_color_write.offset = 16384;
  EXPECT_EQ(d.validate_submit(j), "");
  j.msaa_color_write.offset = 16392;
  EXPECT_EQ(d.validate_submit(j), "MSAA colour write: offset not 16-byte aligned");
  j.msaa_color_write.offset = 16400;
  EXPECT_EQ(d.validate_submit(j),
            "MSAA colour write: full-resolution tile (1, 1) is beyond the 65536-byte BO at offset 16400");
  j.msaa_color_write.offset = 0;
  j.msaa_color_write.bits = 1;
  EXPECT_EQ(d.validate_submit(j), "MSAA colour write: MSAA surface with flags or bits");
  j.msaa_color_write.bits = 0;
  j.msaa_zs_write.hindex = 1;
  EXPECT_EQ(d.validate_submit(j), "MSAA Z/S write: surface BO index 1 is not below the BO count 1");
  j.msaa_zs_write.hindex = host::Vc4SubmitSurface::kNone;
  j.min_x_tile = 2;
  EXPECT_EQ(d.validate_submit(j), "minimum tile beyond the maximum tile");
}

TEST(Vc4Validation, ExecSizeArithmeticOverflowsAtItsExactEdges) {
  // 10: vc4_get_bcl in 32-bit arithmetic.
  EXPECT_EQ(Vc4Driver::check_exec_sizes(0xFFFFFFF0u, 0, 0, 0), "");
  EXPECT_EQ(Vc4Driver::check_exec_sizes(0xFFFFFFF1u, 0, 0, 0),
            "overflow in exec arguments: binning list size rounded to 16 bytes");
  EXPECT_EQ(Vc4Driver::check_exec_sizes(16, 0xFFFFFFEFu, 0, 0), "");
  EXPECT_EQ(Vc4Driver::check_exec_sizes(16, 0xFFFFFFF0u, 0, 0), "overflow in exec arguments: shader record size");
  EXPECT_EQ(Vc4Driver::check_exec_sizes(16, 16, 0xFFFFFFDFu, 0), "");
  EXPECT_EQ(Vc4Driver::check_exec_sizes(16, 16, 0xFFFFFFE0u, 0), "overflow in exec arguments: uniforms size");
  // UINT_MAX / sizeof(struct vc4_shader_state) = 0x1FFFFFFF is already refused.
  EXPECT_EQ(Vc4Driver::check_exec_sizes(0, 0, 0, 0x1FFFFFFEu), "");
  EXPECT_EQ(Vc4Driver::check_exec_sizes(0, 0, 0, 0x1FFFFFFFu), "overflow in exec arguments: shader record count");
  // 8 x 0x1FFFFFFE = 0xFFFFFFF0: 15 more bytes of list (rounded to 16) wrap the total.
  EXPECT_EQ(Vc4Driver::check_exec_sizes(0, 0, 15, 0x1FFFFFFEu), "");
  EXPECT_EQ(Vc4Driver::check_exec_sizes(0, 0, 16, 0x1FFFFFFEu), "overflow in exec arguments: shader state array");
  // Array draws: first + count may reach 0xFFFFFFFF, not 2^32.
  const std::vector<std::uint8_t> head = {112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0x04, 6, 64, 1, 0, 0, 0};
  std::vector<std::uint8_t> cl = head;
  cl.insert(cl.end(), {33, 4, 0xFE, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 7, 4});
  EXPECT_EQ(Vc4Driver::validate_bin_cl(cl), "");
  cl = head;
  cl.insert(cl.end(), {33, 4, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 7, 4});
  EXPECT_EQ(Vc4Driver::validate_bin_cl(cl), "at byte 22: GL_ARRAY_PRIMITIVE first + count overflows 32 bits");
}

TEST(Vc4Validation, OffByOneRenderSetupIsCaughtByTheModel) {
  // max_x_tile == bin_tiles_x passes the kernel's check; the render list then branches into a tile list that the
  // binner never wrote and selects a tile outside the frame: the renderer stops CT1 with an error.
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  host::Vc4RenderSetup r;
  r.color_address = 0x100000;
  r.width = 128;
  r.height = 64;
  r.max_x_tile = 2;
  r.bin_tiles_x = 2;
  r.bin_tiles_y = 1;
  ASSERT_EQ(Vc4Driver::validate_render_setup(r), "");
  test::run_thread([&] {
    d.submit({}, Vc4Driver::build_render_cl(r));
    EXPECT_FALSE(d.wait_frame(50'000, false));
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dCtnCs(1)), vc4::ControlListExecutor::kCtErr);
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "TILE_COORDINATES (2, 0) outside the 2x1 tile grid").size(), 1u);
}

}  // namespace
