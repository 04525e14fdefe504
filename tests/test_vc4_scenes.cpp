// vc4 rendering scenes end to end, driven as the vc4 driver drives them (tb/host/vc4_driver): triangle strips and
// fans, points and lines, the depth test, discard, blending in the fragment shader, a scene large enough for block
// chaining and binner overspill, and one scene as a host script through the `gpuvp` executable. Several draws share a
// frame as Mesa's jobs do: the driver's binning lists of the draws joined into one (one TILE_BINNING_MODE_CONFIG and
// START_TILE_BINNING, each draw's state and primitives in turn, one INCREMENT_SEMAPHORE and FLUSH).
//
// Every expectation is computed here from the scene's geometry: rectangles with corners on whole pixels (no pixel
// centre lies on their sides), triangles whose edges pass through no pixel centre (checked here), points of an even
// size on whole pixels or an odd size on pixel centres, lines with their ends on whole pixels and their sides off the
// pixel centres -- so the unpublished fill rule (reference-vc4-qpu.md 5.5) decides no pixel whose value is asserted.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hw/vc4/v3d_regs.h"
#include "platform/platform.h"
#include "tb/host/vc4_driver.h"
#include "tb/host/vc4_shaders.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/sc_test.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/qpu/qpu_assembler.h"

using namespace gpuvp;
using host::Vc4Driver;
using host::Vc4Scene;
using host::Vc4Vertex;

namespace {

constexpr std::uint32_t kClear = 0xFF204080;
constexpr std::uint32_t kV3d = 0xE1000000;
constexpr unsigned kWidth = 256, kHeight = 128;  // 4x2 tiles unless a test says otherwise

std::vector<std::uint64_t> assembled(const std::string& source) {
  vc4::qpu::AssembledProgram program;
  std::string error;
  EXPECT_TRUE(vc4::qpu::assemble(source, program, error)) << error;
  return program.code;
}

std::string hex(std::uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

// ---- fragment shaders ----

constexpr std::uint32_t kForwardColour = 0xFF00FF00, kReverseColour = 0xFFFF0000;

// Green where the primitive faces forward, red where it faces backwards (raddr 42 B, the reverse flag).
std::string facing_shader() {
  return "mov.sf r0, rev_flag\nload_imm r1, " + hex(kForwardColour) + "\nload_imm r2, " + hex(kReverseColour) +
         "\nmov.zs r3, r1\nmov.zc r3, r2\nmov tlb_color_all, r3\nsig_end nop\nnop\nsig_unlock_score nop\n";
}

// The fragment's Z (rb15) to the depth test, then a constant colour (written only where the test passed).
std::string depth_tested_colour_shader(std::uint32_t colour) {
  return "mov tlb_z, rb15\nload_imm tlb_color_all, " + hex(colour) + "\nsig_end nop\nnop\nsig_unlock_score nop\n";
}

// The first varying, interpolated (partial * W + C), truncated to an integer: the colour's low bits, alpha 0xff.
const char* kVaryingAsIntegerShader = R"(
    mov r0, vary
    fmul r0, r0, ra15
    fadd r0, r0, r5
    ftoi r0, r0
    load_imm r1, 0xff000000
    or tlb_color_all, r0, r1
    sig_end nop
    nop
    sig_unlock_score nop
)";

// A point's two coordinates (the hardware's varyings ahead of the vertex's), times 16 and truncated: point_x in the
// colour's low byte, point_y in the next.
const char* kPointCoordinateShader = R"(
    mov r0, vary
    fmul r0, r0, ra15
    fadd r0, r0, r5
    mov r1, vary
    fmul r1, r1, ra15
    fadd r1, r1, r5
    fmul r0, r0, 16.0
    fmul r1, r1, 16.0
    ftoi r0, r0
    ftoi r1, r1
    shl r1, r1, 8
    or tlb_color_all, r0, r1
    sig_end nop
    nop
    sig_unlock_score nop
)";

// ---- scenes ----

struct Rect {
  int x0, y0, x1, y1;  // [x0, x1) x [y0, y1) in pixels
  bool contains(int x, int y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
  int area() const { return (x1 - x0) * (y1 - y0); }
};

Vc4Scene empty_scene(unsigned width = kWidth, unsigned height = kHeight) {
  Vc4Scene s;
  s.width = width;
  s.height = height;
  return s;
}

// Appends the rectangle as two triangles of the same winding, every vertex at depth z with varying 0 given.
void add_rect(Vc4Scene& s, const Rect& r, float z = 0.5F, float varying0 = 0) {
  const auto first = static_cast<std::uint16_t>(s.vertices.size());
  const float x0 = static_cast<float>(r.x0), y0 = static_cast<float>(r.y0), x1 = static_cast<float>(r.x1),
              y1 = static_cast<float>(r.y1);
  for (const auto& [x, y] : {std::pair{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}}) {
    Vc4Vertex v;
    v.x = x;
    v.y = y;
    v.z = z;
    v.varyings[0] = varying0;
    s.vertices.push_back(v);
  }
  for (const int i : {0, 2, 1, 1, 2, 3}) s.indices.push_back(static_cast<std::uint16_t>(first + i));
}

// A frame of the test's expectations.
struct Image {
  unsigned width, height;
  std::vector<std::uint32_t> px;
  explicit Image(unsigned w = kWidth, unsigned h = kHeight, std::uint32_t fill = kClear)
      : width(w), height(h), px(static_cast<std::size_t>(w) * h, fill) {}
  std::uint32_t& at(int x, int y) { return px[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)]; }
  void fill(const Rect& r, std::uint32_t colour) {
    for (int y = r.y0; y < r.y1; ++y) {
      for (int x = r.x0; x < r.x1; ++x) at(x, y) = colour;
    }
  }
};

// Whether a rendered frame is the expected one; if not, how many pixels differ and the first few of them.
::testing::AssertionResult same_frame(const std::vector<std::uint32_t>& got, const Image& want) {
  if (got.size() != want.px.size()) {
    return ::testing::AssertionFailure() << got.size() << " pixels, expected " << want.px.size();
  }
  std::size_t n = 0;
  std::string first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want.px[i]) continue;
    if (++n <= 5) {
      first += " (" + std::to_string(i % want.width) + "," + std::to_string(i / want.width) + ") " + hex(got[i]) +
               " not " + hex(want.px[i]) + ";";
    }
  }
  if (n == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << n << " pixels differ:" << first;
}

std::size_t count_not(const std::vector<std::uint32_t>& px, std::uint32_t colour) {
  return static_cast<std::size_t>(std::count_if(px.begin(), px.end(), [&](std::uint32_t p) { return p != colour; }));
}

// Where pixel (x, y)'s centre lies against triangle abc (vertices on whole pixels), exactly in half-pixel units:
// 1 strictly inside, 0 on an edge, -1 outside.
struct Pt {
  int x, y;
};
int centre_in_triangle(Pt a, Pt b, Pt c, int x, int y) {
  const auto side = [&](Pt p, Pt q) {
    const std::int64_t r =
        std::int64_t{2 * (q.x - p.x)} * (2 * y + 1 - 2 * p.y) - std::int64_t{2 * (q.y - p.y)} * (2 * x + 1 - 2 * p.x);
    return r > 0 ? 1 : r < 0 ? -1 : 0;
  };
  const int s0 = side(a, b), s1 = side(b, c), s2 = side(c, a);
  if (s0 == s1 && s1 == s2 && s0 != 0) return 1;
  const bool no_positive = s0 <= 0 && s1 <= 0 && s2 <= 0, no_negative = s0 >= 0 && s1 >= 0 && s2 >= 0;
  return no_positive || no_negative ? 0 : -1;
}

// ---- driving the platform ----

// The driver's binning list of each draw, joined: the first list's TILE_BINNING_MODE_CONFIG and START_TILE_BINNING
// (16 + 1 bytes), each list's state and primitives, the last list's INCREMENT_SEMAPHORE and FLUSH.
std::vector<std::uint8_t> joined_binning_list(Vc4Driver& d, const std::vector<Vc4Scene>& draws) {
  constexpr std::size_t kHead = 17;
  std::vector<std::uint8_t> cl;
  for (std::size_t i = 0; i < draws.size(); ++i) {
    const std::vector<std::uint8_t> one = d.build_bin_cl(draws[i]);
    EXPECT_EQ(one[0], vc4::packet::kTileBinningModeConfig);
    EXPECT_EQ(one[kHead - 1], vc4::packet::kStartTileBinning);
    EXPECT_EQ(one[one.size() - 2], vc4::packet::kIncrementSemaphore);
    const std::size_t from = i == 0 ? 0 : kHead, to = i + 1 == draws.size() ? one.size() : one.size() - 2;
    cl.insert(cl.end(), one.begin() + static_cast<std::ptrdiff_t>(from), one.begin() + static_cast<std::ptrdiff_t>(to));
  }
  return cl;
}

struct FrameOptions {
  std::uint32_t clear_z = 0xFFFFFF;
  // Tile allocation memory beyond the initial blocks (0: the rest of the kernel's bin slot, as bin_setup() leaves it).
  std::uint32_t pool_bytes = 0;
  std::uint64_t timeout_ns = 5'000'000;
  // Words after the colour buffer, filled with kGuard before the frame and returned after its pixels.
  unsigned guard_words = 0;
};
constexpr std::uint32_t kGuard = 0xA5A5A5A5;

// Writes and starts the frame's lists; returns the colour buffer.
Vc4Driver::Buffer submit_frame(Vc4Driver& d, const std::vector<Vc4Scene>& draws, const FrameOptions& o) {
  const unsigned width = draws.front().width, height = draws.front().height;
  const Vc4Driver::Buffer fb = d.alloc(width * height * 4 + o.guard_words * 4);
  if (o.guard_words != 0) d.upload(fb, width * height * 4, std::vector<std::uint8_t>(o.guard_words * 4, 0xA5));
  std::vector<std::uint8_t> bin = joined_binning_list(d, draws);
  const Vc4Driver::BinSetup setup = d.bin_setup(bin);
  if (o.pool_bytes != 0) {
    const std::uint32_t size = setup.tiles_x * setup.tiles_y * 32 + o.pool_bytes;  // 32-byte initial blocks
    for (unsigned i = 0; i < 4; ++i) bin[5 + i] = static_cast<std::uint8_t>(size >> (8 * i));
  }
  host::Vc4RenderSetup r;
  r.color_address = fb.addr;
  r.width = width;
  r.height = height;
  r.use_clear_color = true;
  r.clear_color[0] = r.clear_color[1] = kClear;
  r.clear_z = o.clear_z;
  r.has_bin = true;
  r.tile_alloc = setup.tile_alloc;
  r.bin_tiles_x = setup.tiles_x;
  r.bin_tiles_y = setup.tiles_y;
  r.max_x_tile = setup.tiles_x - 1;
  r.max_y_tile = setup.tiles_y - 1;
  EXPECT_EQ(Vc4Driver::validate_render_setup(r), "");
  d.submit(bin, Vc4Driver::build_render_cl(r));
  return fb;
}

// Bins and renders one frame of the draws (inside the simulation); returns its pixels (and the guard words).
std::vector<std::uint32_t> render(Vc4Driver& d, platform::Platform& soc, const std::vector<Vc4Scene>& draws,
                                  const FrameOptions& o = {}) {
  const Vc4Driver::Buffer fb = submit_frame(d, draws, o);
  EXPECT_TRUE(d.wait_frame(o.timeout_ns));
  std::vector<std::uint32_t> pixels(fb.size / 4);
  soc.dram().store().read(fb.addr, reinterpret_cast<std::uint8_t*>(pixels.data()), fb.size);
  return pixels;
}

// One simulation of the default platform: `body` renders its frames through the driver.
void simulate(const std::function<void(Vc4Driver&, platform::Platform&)>& body) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  test::run_thread([&] {
    d.enable_interrupts();
    body(d, soc);
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  EXPECT_EQ(soc.v3d()->renderer().primitives_not_shaded(), 0u);
}

std::uint64_t fragments(platform::Platform& soc) { return soc.v3d()->renderer().fragments_shaded(); }

// ---- 1. triangle strips and fans ----

// The strip: a zig-zag of 10 vertices over [20, 140) x [10, 70), 8 triangles 30 pixels wide and 60 high (their
// diagonals, of slope 2, pass through no pixel centre). The fan: 8 triangles around (200, 90) over [150, 250) x
// [60, 120), its rim run the same way round as the strip's triangles.
const Rect kStripRect{20, 10, 140, 70}, kFanRect{150, 60, 250, 120};

std::vector<Pt> strip_points() {
  std::vector<Pt> p;
  for (int x = kStripRect.x0; x <= kStripRect.x1; x += 30) {
    p.push_back({x, kStripRect.y0});
    p.push_back({x, kStripRect.y1});
  }
  return p;
}
std::vector<Pt> fan_points() {
  return {{200, 90},  {150, 60}, {150, 90}, {150, 120}, {200, 120},
          {250, 120}, {250, 90}, {250, 60}, {200, 60},  {150, 60}};
}

Vc4Scene facing_draw(const std::vector<Pt>& points, unsigned mode, const std::vector<std::uint16_t>& indices) {
  Vc4Scene s = empty_scene();
  for (const Pt& p : points) s.vertices.push_back({static_cast<float>(p.x), static_cast<float>(p.y)});
  s.indices = indices;
  s.mode = mode;
  s.fragment_shader = assembled(facing_shader());
  return s;
}

std::vector<std::uint16_t> sequence(std::size_t n) {
  std::vector<std::uint16_t> i(n);
  for (std::size_t k = 0; k < n; ++k) i[k] = static_cast<std::uint16_t>(k);
  return i;
}

// GL's triangles of a strip (OpenGL ES 2.0 2.6.1: triangle i is i, i+1, i+2, odd ones with their first two vertices
// swapped so that every triangle keeps the first one's winding) and of a fan (0, i+1, i+2); `swap_odd` false gives
// the strip's triangles without the swap (every other one reversed).
std::vector<std::uint16_t> strip_as_list(std::size_t n, bool swap_odd = true) {
  std::vector<std::uint16_t> out;
  for (std::size_t k = 0; k + 2 < n; ++k) {
    const bool odd = swap_odd && (k & 1) != 0;
    out.insert(out.end(), {static_cast<std::uint16_t>(odd ? k + 1 : k), static_cast<std::uint16_t>(odd ? k : k + 1),
                           static_cast<std::uint16_t>(k + 2)});
  }
  return out;
}
std::vector<std::uint16_t> fan_as_list(std::size_t n) {
  std::vector<std::uint16_t> out;
  for (std::size_t k = 0; k + 2 < n; ++k) {
    out.insert(out.end(), {0, static_cast<std::uint16_t>(k + 1), static_cast<std::uint16_t>(k + 2)});
  }
  return out;
}

// A strip and a fan cover their rectangles exactly (every pixel once: triangles sharing an edge share its pixels),
// all in one facing colour, and draw the frame of the equivalent triangle lists bit for bit; the strip's triangles
// listed without GL's odd swap show the other facing on exactly the odd triangles, so the facing shader does see it.
TEST(Vc4Scenes, TriangleStripAndFanCoverTheirRectanglesExactlyAsTheEquivalentLists) {
  const std::vector<Pt> strip = strip_points(), fan = fan_points();
  ASSERT_EQ(strip.size(), 10u);
  std::vector<std::uint32_t> as_strip, as_lists, unswapped;
  std::uint64_t strip_fragments = 0, list_fragments = 0;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    as_strip =
        render(d, soc, {facing_draw(strip, 5, sequence(strip.size())), facing_draw(fan, 6, sequence(fan.size()))});
    strip_fragments = fragments(soc);
    as_lists = render(
        d, soc, {facing_draw(strip, 4, strip_as_list(strip.size())), facing_draw(fan, 4, fan_as_list(fan.size()))});
    list_fragments = fragments(soc) - strip_fragments;
    unswapped = render(d, soc, {facing_draw(strip, 4, strip_as_list(strip.size(), false))});
  });
  EXPECT_EQ(as_strip, as_lists);
  EXPECT_EQ(strip_fragments, static_cast<std::uint64_t>(kStripRect.area() + kFanRect.area()));
  EXPECT_EQ(list_fragments, strip_fragments);

  // One facing over both shapes: the colour of the strip's first triangle.
  ASSERT_EQ(as_strip.size(), std::size_t{kWidth} * kHeight);
  const std::uint32_t facing = as_strip[22 + 12 * kWidth];  // inside triangle 0 (20,10) (20,70) (50,10)
  ASSERT_TRUE(facing == kForwardColour || facing == kReverseColour) << hex(facing);
  const std::uint32_t other = facing == kForwardColour ? kReverseColour : kForwardColour;
  Image want;
  want.fill(kStripRect, facing);
  want.fill(kFanRect, facing);
  EXPECT_TRUE(same_frame(as_strip, want));

  // Without the swap: each pixel centre of the strip lies strictly inside exactly one triangle (none on an edge),
  // the odd ones in the other facing.
  Image control;
  const std::vector<std::uint16_t> listed = strip_as_list(strip.size(), false);
  std::size_t in_odd = 0;
  for (int y = kStripRect.y0; y < kStripRect.y1; ++y) {
    for (int x = kStripRect.x0; x < kStripRect.x1; ++x) {
      int owners = 0;
      for (std::size_t t = 0; t < listed.size() / 3; ++t) {
        const int where =
            centre_in_triangle(strip[listed[3 * t]], strip[listed[3 * t + 1]], strip[listed[3 * t + 2]], x, y);
        ASSERT_NE(where, 0) << "pixel " << x << "," << y << " on an edge of triangle " << t;
        if (where > 0) {
          ++owners;
          control.at(x, y) = (t & 1) != 0 ? other : facing;
          in_odd += t & 1;
        }
      }
      ASSERT_EQ(owners, 1) << x << "," << y;
    }
  }
  EXPECT_EQ(in_odd, static_cast<std::size_t>(kStripRect.area() / 2));  // 4 of the 8 equal triangles
  EXPECT_TRUE(same_frame(unswapped, control));
}

// ---- 2. points and lines ----

// POINT_SIZE 4 on whole pixels and 3 on pixel centres (two draws, so the size changes between them in the tile
// lists): squares of exactly 16 and 9 pixels, centres strictly inside, including squares across tile corners.
TEST(Vc4Scenes, PointsCoverExactSquaresOfTheirSizeAcrossTileBoundaries) {
  struct Point {
    float x, y;
  };
  const std::vector<Point> fours = {{10, 10}, {64, 64}, {200, 100}, {128, 30}};
  const std::vector<Point> threes = {{40.5F, 100.5F}, {191.5F, 63.5F}};
  const auto draw = [](const std::vector<Point>& points, float size, std::uint32_t colour) {
    Vc4Scene s = empty_scene();
    for (const Point& p : points) s.vertices.push_back({p.x, p.y});
    s.indices = sequence(points.size());
    s.mode = 0;
    s.point_size = size;
    s.color = colour;
    return s;
  };
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    got = render(d, soc, {draw(fours, 4, 0xFFFFFFFF), draw(threes, 3, 0xFF00FFFF)});
  });
  Image want;
  for (const Point& p : fours) want.fill({int(p.x) - 2, int(p.y) - 2, int(p.x) + 2, int(p.y) + 2}, 0xFFFFFFFF);
  for (const Point& p : threes) want.fill({int(p.x) - 1, int(p.y) - 1, int(p.x) + 2, int(p.y) + 2}, 0xFF00FFFF);
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(count_not(got, kClear), 4u * 16 + 2u * 9);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"), 4u * 16 + 2u * 9);
}

// A point's coordinates (the two varyings the hardware puts ahead of the vertex's, rasteriser.h: point_x 0 to 1 left
// to right, point_y 1 to 0 top to bottom, at the pixel centres): column i of a point of size s reads
// (i + 1/2) / s, row j (s - j - 1/2) / s; times 16 these are whole numbers for sizes 4 and 8.
TEST(Vc4Scenes, APointShaderReadsThePointCoordinatesAcrossItsSquare) {
  struct Point {
    int x, y, size;
  };
  const std::vector<Point> points = {{20, 20, 4}, {100, 64, 4}, {200, 40, 8}};
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    std::vector<Vc4Scene> draws;
    for (const Point& p : points) {
      Vc4Scene s = empty_scene();
      s.vertices = {{static_cast<float>(p.x), static_cast<float>(p.y)}};
      s.indices = {0};
      s.mode = 0;
      s.point_size = static_cast<float>(p.size);
      s.fragment_shader = assembled(kPointCoordinateShader);
      draws.push_back(s);
    }
    d.supply_overspill();
    got = render(d, soc, draws);
  });
  Image want;
  for (const Point& p : points) {
    for (int j = 0; j < p.size; ++j) {
      for (int i = 0; i < p.size; ++i) {
        const auto px = static_cast<std::uint32_t>((16 * i + 8) / p.size),
                   py = static_cast<std::uint32_t>((16 * (p.size - j) - 8) / p.size);
        want.at(p.x - p.size / 2 + i, p.y - p.size / 2 + j) = px | py << 8;
      }
    }
  }
  EXPECT_TRUE(same_frame(got, want));
}

// Axis-aligned width-1 lines (GL_LINES) through pixel centres with their ends on whole pixels: each covers the one
// row or column of pixels between its ends, whichever way it runs, across tile boundaries; the crossing pixel of two
// lines is shaded twice.
TEST(Vc4Scenes, LinesOfWidthOneThroughPixelCentresCoverExactRuns) {
  struct Line {
    float ax, ay, bx, by;
  };
  const std::vector<Line> lines = {{4, 30.5F, 100, 30.5F},      // row 30, x 4..99
                                   {70.5F, 10, 70.5F, 120},     // column 70, y 10..119
                                   {250, 100.5F, 150, 100.5F},  // row 100, x 150..249, right to left
                                   {130.5F, 127, 130.5F, 60}};  // column 130, y 60..126, bottom to top
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene s = empty_scene();
    for (const Line& l : lines) {
      s.vertices.push_back({l.ax, l.ay});
      s.vertices.push_back({l.bx, l.by});
    }
    s.indices = sequence(s.vertices.size());
    s.mode = 1;
    s.line_width = 1;
    d.supply_overspill();
    got = render(d, soc, {s});
  });
  Image want;
  std::uint64_t shaded = 0;
  for (const Line& l : lines) {
    const Rect r = l.ay == l.by ? Rect{int(std::min(l.ax, l.bx)), int(l.ay), int(std::max(l.ax, l.bx)), int(l.ay) + 1}
                                : Rect{int(l.ax), int(std::min(l.ay, l.by)), int(l.ax) + 1, int(std::max(l.ay, l.by))};
    want.fill(r, 0xFFFFFFFF);
    shaded += static_cast<std::uint64_t>(r.area());
  }
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(count_not(got, kClear), shaded - 1);  // rows 30 and column 70 cross once
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"), shaded);
}

// A line loop (closed back to its first vertex) and a line strip of width 2 along whole-pixel coordinates: each
// segment covers the 2-pixel-wide rectangle between its ends (square ends, no caps: rasteriser.h), whose sides lie
// on pixel boundaries; the frame is the union, and each segment's pixels are shaded once.
TEST(Vc4Scenes, LineLoopAndLineStripOfWidthTwoCoverTheirSegmentsRectangles) {
  const std::vector<Pt> loop = {{8, 8}, {56, 8}, {56, 40}, {8, 40}};
  const std::vector<Pt> strip = {{80, 20}, {180, 20}, {180, 100}, {100, 100}};
  const auto draw = [](const std::vector<Pt>& points, unsigned mode, std::uint32_t colour) {
    Vc4Scene s = empty_scene();
    for (const Pt& p : points) s.vertices.push_back({static_cast<float>(p.x), static_cast<float>(p.y)});
    s.indices = sequence(points.size());
    s.mode = mode;
    s.line_width = 2;
    s.color = colour;
    return s;
  };
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    got = render(d, soc, {draw(loop, 2, 0xFFFFFFFF), draw(strip, 3, 0xFFFFFF00)});
  });
  const auto segment = [](Pt a, Pt b) {
    return a.y == b.y ? Rect{std::min(a.x, b.x), a.y - 1, std::max(a.x, b.x), a.y + 1}
                      : Rect{a.x - 1, std::min(a.y, b.y), a.x + 1, std::max(a.y, b.y)};
  };
  Image want;
  std::uint64_t shaded = 0;
  for (std::size_t i = 0; i < loop.size(); ++i) {
    const Rect r = segment(loop[i], loop[(i + 1) % loop.size()]);
    want.fill(r, 0xFFFFFFFF);
    shaded += static_cast<std::uint64_t>(r.area());
  }
  for (std::size_t i = 0; i + 1 < strip.size(); ++i) {
    const Rect r = segment(strip[i], strip[i + 1]);
    want.fill(r, 0xFFFFFF00);
    shaded += static_cast<std::uint64_t>(r.area());
  }
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(shaded, 2u * (48 + 32 + 48 + 32) + 2u * (100 + 80 + 80));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"), shaded);
}

// Two rectangles in one triangle strip joined by repeated vertices (a3 a3 b0 b0: four zero-area triangles, which the
// binner drops): the second rectangle's first triangle is again an even one, so both rectangles face one way, each
// pixel once.
TEST(Vc4Scenes, ATriangleStripJoinedByDegenerateTrianglesKeepsOneFacing) {
  const Rect a{10, 10, 60, 50}, b{100, 70, 150, 110};
  const std::vector<Pt> points = {{a.x0, a.y0}, {a.x0, a.y1}, {a.x1, a.y0}, {a.x1, a.y1}, {a.x1, a.y1},
                                  {b.x0, b.y0}, {b.x0, b.y0}, {b.x0, b.y1}, {b.x1, b.y0}, {b.x1, b.y1}};
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    got = render(d, soc, {facing_draw(points, 5, sequence(points.size()))});
  });
  ASSERT_EQ(got.size(), std::size_t{kWidth} * kHeight);
  const std::uint32_t facing = got[12 + 12 * kWidth];  // inside the first triangle
  EXPECT_TRUE(facing == kForwardColour || facing == kReverseColour) << hex(facing);
  Image want;
  want.fill(a, facing);
  want.fill(b, facing);
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.primitives"), 8u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.culled"), 4u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"),
            static_cast<std::uint64_t>(a.area() + b.area()));
}

// A frame of 200x100 pixels (its right and bottom tiles partly outside) with geometry beyond its edges: a rectangle
// from negative coordinates, one past the right and bottom edges, a point on the last pixel and a line from x = -20.
// Each is cut at the frame's edges exactly, and nothing is written past the colour buffer.
TEST(Vc4Scenes, GeometryBeyondTheFrameIsCutAtItsEdgesInAFrameOfPartialTiles) {
  constexpr unsigned kW = 200, kH = 100;
  const Rect left_top{-50, -40, 60, 30}, right_bottom{150, 50, 260, 130};
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene rects = empty_scene(kW, kH);
    add_rect(rects, left_top);
    add_rect(rects, right_bottom);
    Vc4Scene point = empty_scene(kW, kH);
    point.vertices = {{199, 99}};
    point.indices = {0};
    point.mode = 0;
    point.point_size = 4;
    point.color = 0xFF00FFFF;
    Vc4Scene line = empty_scene(kW, kH);
    line.vertices = {{-20, 80.5F}, {40, 80.5F}};
    line.indices = {0, 1};
    line.mode = 1;
    line.color = 0xFFFFFF00;
    d.supply_overspill();
    FrameOptions o;
    o.guard_words = 64 * kW;  // as many rows again as the bottom tiles reach past the frame
    got = render(d, soc, {rects, point, line}, o);
  });
  ASSERT_EQ(got.size(), std::size_t{kW} * kH + 64 * kW);
  const std::vector<std::uint32_t> guard(got.begin() + kW * kH, got.end());
  got.resize(std::size_t{kW} * kH);
  Image want(kW, kH);
  want.fill({0, 0, 60, 30}, 0xFFFFFFFF);
  want.fill({150, 50, 200, 100}, 0xFFFFFFFF);
  want.fill({197, 97, 200, 100}, 0xFF00FFFF);
  want.fill({0, 80, 40, 81}, 0xFFFFFF00);
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(std::count(guard.begin(), guard.end(), kGuard), static_cast<std::ptrdiff_t>(guard.size()));
}

// A line's own coordinate (the hardware's varying ahead of the vertex's, rasteriser.h: 0 to 1 across the width, 0
// on the side away from the normal (-dy, dx), so the top of a line drawn left to right) and a vertex varying u
// interpolated along it: width-2 lines at y = 40 left to right and at y = 90 right to left, u 0 at x = 0 and 1 at
// x = 256. The shader writes line_x * 16 (4 or 12: 1/4 and 3/4 at the two rows' centres) in byte 0 and u * 256
// truncated (x, since u = (x + 1/2) / 256 at the centre) in byte 1.
TEST(Vc4Scenes, ALineShaderReadsTheLineCoordinateAndItsVaryingAlongTheLine) {
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene s = empty_scene();
    s.vertices = {{0, 40, 0.5F, 1, {0}}, {256, 40, 0.5F, 1, {1}}, {256, 90, 0.5F, 1, {1}}, {0, 90, 0.5F, 1, {0}}};
    s.indices = {0, 1, 2, 3};
    s.mode = 1;
    s.line_width = 2;
    s.varyings = 1;
    s.fragment_shader = assembled(R"(
        mov r0, vary
        fmul r0, r0, ra15
        fadd r0, r0, r5
        mov r1, vary
        fmul r1, r1, ra15
        fadd r1, r1, r5
        fmul r0, r0, 16.0
        ftoi r0, r0
        load_imm r2, 256.0
        fmul r1, r1, r2
        ftoi r1, r1
        shl r1, r1, 8
        or tlb_color_all, r0, r1
        sig_end nop
        nop
        sig_unlock_score nop
    )");
    d.supply_overspill();
    got = render(d, soc, {s});
  });
  Image want;
  for (int x = 0; x < static_cast<int>(kWidth); ++x) {
    const auto u = static_cast<std::uint32_t>(x) << 8;
    want.at(x, 39) = u | 4;  // left to right: the top row is the side away from the normal (0, +dx)
    want.at(x, 40) = u | 12;
    want.at(x, 89) = u | 12;  // right to left: the normal points up
    want.at(x, 90) = u | 4;
  }
  EXPECT_TRUE(same_frame(got, want));
}

// Points of size 100 and lines of width 10 reach into every tile their squares and rectangles cover: the point at
// (128, 64) covers [78, 178) x [14, 114) over six tiles, a vertical line at x = 200 covers [195, 205) x [4, 124) and a
// horizontal one at y = 64 covers [8, 60) x [59, 69), both across a tile edge.
TEST(Vc4Scenes, LargePointsAndWideLinesReachEveryTileTheyCover) {
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene point = empty_scene();
    point.vertices = {{128, 64}};
    point.indices = {0};
    point.mode = 0;
    point.point_size = 100;
    Vc4Scene lines = empty_scene();
    lines.vertices = {{200, 4}, {200, 124}, {8, 64}, {60, 64}};
    lines.indices = {0, 1, 2, 3};
    lines.mode = 1;
    lines.line_width = 10;
    lines.color = 0xFF00FFFF;
    d.supply_overspill();
    got = render(d, soc, {point, lines});
  });
  Image want;
  want.fill({78, 14, 178, 114}, 0xFFFFFFFF);
  want.fill({195, 4, 205, 124}, 0xFF00FFFF);
  want.fill({8, 59, 60, 69}, 0xFF00FFFF);
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"), 100u * 100 + 10u * 120 + 52u * 10);
}

// The same strip, fan, points and lines with GL shader state (the coordinate shader positions them for the binner,
// the vertex shader for the renderer, on the QPUs) draw the NV frame bit for bit: whole-pixel positions at W = 1 are
// exact through the shaders' viewport scaling.
TEST(Vc4Scenes, GlShadedStripFanPointsAndLinesDrawTheNvFrame) {
  const auto draws = [](bool gl) {
    const std::vector<Pt> strip = strip_points(), fan = fan_points();
    std::vector<Vc4Scene> out = {facing_draw(strip, 5, sequence(strip.size())),
                                 facing_draw(fan, 6, sequence(fan.size()))};
    Vc4Scene points = empty_scene();
    points.vertices = {{10, 100}, {64, 100}, {128, 120}};
    points.indices = {0, 1, 2};
    points.mode = 0;
    points.point_size = 4;
    points.color = 0xFF0000FF;
    Vc4Scene lines = empty_scene();
    lines.vertices = {{4, 90.5F}, {100, 90.5F}, {140.5F, 4}, {140.5F, 124}};
    lines.indices = {0, 1, 2, 3};
    lines.mode = 1;
    lines.color = 0xFFFFFF00;
    out.push_back(points);
    out.push_back(lines);
    if (gl) {
      for (Vc4Scene& s : out) {
        s.coordinate_shader = assembled(host::scene_coordinate_shader_source());
        s.vertex_shader = assembled(host::scene_vertex_shader_source());
      }
    }
    return out;
  };
  std::vector<std::uint32_t> nv, gl;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    nv = render(d, soc, draws(false));
    gl = render(d, soc, draws(true));
  });
  EXPECT_EQ(nv, gl);
  EXPECT_EQ(count_not(nv, kClear),
            static_cast<std::size_t>(kStripRect.area() + kFanRect.area() + 3 * 16 + 96 + 120));  // nothing overlaps
  EXPECT_GT(core::stats().counter_value("gpuvp.v3d.ptb.vertices_shaded"), 0u);
}

// Triangle winding on screen, from the test's own arithmetic: the sign of twice the signed area (y down).
int winding(Pt a, Pt b, Pt c) {
  const std::int64_t area = std::int64_t{b.x - a.x} * (c.y - a.y) - std::int64_t{c.x - a.x} * (b.y - a.y);
  return area > 0 ? 1 : area < 0 ? -1 : 0;
}

// A strip of 1026 vertices (1024 triangles one pixel wide over [0, 512) x [0, 64); their diagonals, of slope 64,
// pass through no pixel centre) and a fan of 322 around (256, 192) over [0, 512) x [128, 256), both far longer than
// the binner's index reads (256 at a time): each covers its rectangle once, in one facing; the two face the same way
// exactly when their first triangles wind the same way on screen.
TEST(Vc4Scenes, VeryLongStripAndFanKeepOneFacingEachAcrossTheIndexStream) {
  constexpr unsigned kW = 512, kH = 256;
  const Rect strip_rect{0, 0, 512, 64}, fan_rect{0, 128, 512, 256};
  std::vector<Pt> strip, fan = {{256, 192}};
  for (int x = 0; x <= 512; ++x) {
    strip.push_back({x, 0});
    strip.push_back({x, 64});
  }
  for (int x = 0; x < 512; x += 4) fan.push_back({x, 128});
  for (int y = 128; y < 256; y += 4) fan.push_back({512, y});
  for (int x = 512; x > 0; x -= 4) fan.push_back({x, 256});
  for (int y = 256; y > 128; y -= 4) fan.push_back({0, y});
  fan.push_back({0, 128});
  ASSERT_EQ(strip.size(), 1026u);
  ASSERT_EQ(fan.size(), 322u);
  const auto draw = [&](const std::vector<Pt>& points, unsigned mode) {
    Vc4Scene s = facing_draw(points, mode, sequence(points.size()));
    s.width = kW;
    s.height = kH;
    return s;
  };
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    got = render(d, soc, {draw(strip, 5), draw(fan, 6)});
  });
  ASSERT_EQ(got.size(), std::size_t{kW} * kH);
  const std::uint32_t strip_facing = got[0], fan_facing = got[10 + 130 * kW];
  EXPECT_TRUE(strip_facing == kForwardColour || strip_facing == kReverseColour) << hex(strip_facing);
  EXPECT_EQ(strip_facing == fan_facing, winding(strip[0], strip[1], strip[2]) == winding(fan[0], fan[1], fan[2]));
  Image want(kW, kH);
  want.fill(strip_rect, strip_facing);
  want.fill(fan_rect, fan_facing);
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"),
            static_cast<std::uint64_t>(strip_rect.area() + fan_rect.area()));
}

// Perspective-correct varyings on triangles and lines: a rectangle over the frame and a width-1 line along row 100
// whose left ends have 1/W = 1 and right ends 1/W = 1/4, varying u 0 at the left and 1 at the right. At screen
// position t = (x + 1/2) / 256 the perspective-correct value is u = (t / 4) / (1 - t + t / 4) (screen-linear would
// be t); the shader writes floor(1024 u) (columns where 1024 u is within 1/1000 of a whole number are not compared:
// float rounding could go either way there), and the fragments' Z, screen-linear from 0 to 1, on row 120 instead.
TEST(Vc4Scenes, VaryingsArePerspectiveCorrectOnTrianglesAndLines) {
  // Lines read their line coordinate first (rasteriser.h), and drop it.
  const auto varying_shader = [](bool line, bool z) {
    return assembled(std::string(line ? "mov r3, vary\n" : "") + R"(
        mov r0, vary
        fmul r0, r0, ra15
        fadd r0, r0, r5
        load_imm r2, 1024.0
        fmul r0, r0, r2
        ftoi r0, r0
        load_imm r1, 0xff000000
    )" + (z ? "or tlb_color_all, rb15, r1\n" : "or tlb_color_all, r0, r1\n") +
                     "sig_end nop\nnop\nsig_unlock_score nop\n");
  };
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene rect = empty_scene();
    rect.vertices = {{0, 0, 0, 1, {0}}, {256, 0, 1, 0.25F, {1}}, {0, 100, 0, 1, {0}}, {256, 100, 1, 0.25F, {1}}};
    rect.indices = {0, 2, 1, 1, 2, 3};
    rect.varyings = 1;
    rect.fragment_shader = varying_shader(false, false);
    Vc4Scene line = empty_scene();
    line.vertices = {{0, 110.5F, 0, 1, {0}}, {256, 110.5F, 1, 0.25F, {1}}};
    line.indices = {0, 1};
    line.mode = 1;
    line.varyings = 1;
    line.fragment_shader = varying_shader(true, false);
    Vc4Scene depth = line;
    depth.vertices[0].y = depth.vertices[1].y = 120.5F;
    depth.fragment_shader = varying_shader(true, true);
    d.supply_overspill();
    got = render(d, soc, {rect, line, depth});
  });
  ASSERT_EQ(got.size(), std::size_t{kWidth} * kHeight);
  std::size_t compared = 0;
  for (int x = 0; x < static_cast<int>(kWidth); ++x) {
    const double t = (x + 0.5) / 256, u = 1024 * (t / 4) / (1 - t + t / 4);
    const auto z = static_cast<std::uint32_t>(std::llround(t * 0xFFFFFF));
    EXPECT_EQ(got[static_cast<std::size_t>(x) + 120 * kWidth], 0xFF000000u | z) << x;
    if (std::abs(u - std::round(u)) < 1e-3) continue;
    ++compared;
    const auto want = 0xFF000000u | static_cast<std::uint32_t>(std::floor(u));
    for (const int y : {0, 37, 99, 110})
      EXPECT_EQ(got[static_cast<std::size_t>(x + y * static_cast<int>(kWidth))], want) << x << "," << y;
  }
  EXPECT_GT(compared, 250u);
}

// A long triangle strip (a zig-zag of 34 vertices over the frame's width) and a fan of 18 vertices around a centre,
// with GL shader state: the coordinate shader's batches of up to 16 vertices gathered ahead in the index stream give
// the NV frame bit for bit, and every pixel of both rectangles once.
TEST(Vc4Scenes, LongGlShadedStripAndFanDrawTheNvFrame) {
  const auto draws = [](bool gl) {
    std::vector<Pt> strip, fan = {{192, 96}};
    for (int x = 0; x <= 256; x += 16) {
      strip.push_back({x, 8});
      strip.push_back({x, 56});
    }
    for (int x = 128; x <= 256; x += 32) fan.push_back({x, 64});
    for (int y = 80; y <= 128; y += 16) fan.push_back({256, y});
    for (int x = 224; x >= 128; x -= 32) fan.push_back({x, 128});
    for (int y = 112; y >= 64; y -= 16) fan.push_back({128, y});
    std::vector<Vc4Scene> out = {facing_draw(strip, 5, sequence(strip.size())),
                                 facing_draw(fan, 6, sequence(fan.size()))};
    if (gl) {
      for (Vc4Scene& s : out) {
        s.coordinate_shader = assembled(host::scene_coordinate_shader_source());
        s.vertex_shader = assembled(host::scene_vertex_shader_source());
      }
    }
    return out;
  };
  EXPECT_EQ(draws(false)[0].vertices.size(), 34u);
  EXPECT_EQ(draws(false)[1].vertices.size(), 18u);
  std::vector<std::uint32_t> nv, gl;
  std::uint64_t nv_fragments = 0;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    nv = render(d, soc, draws(false));
    nv_fragments = fragments(soc);
    gl = render(d, soc, draws(true));
  });
  EXPECT_EQ(nv, gl);
  EXPECT_EQ(nv_fragments, 256u * 48 + 128u * 64);
  EXPECT_EQ(count_not(gl, kClear), 256u * 48 + 128u * 64);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.vertices_shaded"), 34u + 18u);
}

// ---- 3. the depth test ----

struct DepthRect {
  Rect rect;
  float z;
  std::uint32_t colour;
};
// Overlapping rectangles drawn in this order: red at Z 0.5, green nearer (0.25), blue farther (0.75).
const std::vector<DepthRect> kDepthRects = {{{16, 16, 144, 80}, 0.5F, 0xFFFF0000},
                                            {{80, 48, 208, 112}, 0.25F, 0xFF00FF00},
                                            {{48, 32, 176, 96}, 0.75F, 0xFF0000FF}};

std::vector<Vc4Scene> depth_draws(unsigned func, bool write) {
  std::vector<Vc4Scene> draws;
  for (const DepthRect& r : kDepthRects) {
    Vc4Scene s = empty_scene();
    add_rect(s, r.rect, r.z);
    s.fragment_shader = assembled(depth_tested_colour_shader(r.colour));
    s.depth_func = func;
    s.depth_write = write;
    draws.push_back(s);
  }
  return draws;
}

// The frame the depth test leaves: each rectangle's fragments compared with the Z buffer in draw order.
Image depth_frame(unsigned func, bool write, std::uint32_t clear_z) {
  Image want;
  std::vector<std::uint32_t> zbuf(want.px.size(), clear_z);
  for (const DepthRect& r : kDepthRects) {
    const auto z = static_cast<std::uint32_t>(std::llround(double{r.z} * 0xFFFFFF));
    for (int y = r.rect.y0; y < r.rect.y1; ++y) {
      for (int x = r.rect.x0; x < r.rect.x1; ++x) {
        std::uint32_t& old = zbuf[static_cast<std::size_t>(y) * want.width + static_cast<std::size_t>(x)];
        const bool pass = func == 7 || (func == 1 && z < old) || (func == 4 && z > old);
        if (!pass) continue;
        want.at(x, y) = r.colour;
        if (write) old = z;
      }
    }
  }
  return want;
}

// "less" with Z writes keeps the nearest rectangle wherever they overlap; without Z writes every fragment passes
// against the cleared Z (1.0) and the last drawn stays, as with "always"; "greater" with Z writes against a Z buffer
// cleared to 0 keeps the farthest.
TEST(Vc4Scenes, DepthTestKeepsTheNearestTheLastOrTheFarthestAsConfigured) {
  struct Case {
    unsigned func;
    bool write;
    std::uint32_t clear_z;
  };
  const std::vector<Case> cases = {{1, true, 0xFFFFFF}, {1, false, 0xFFFFFF}, {7, true, 0xFFFFFF}, {4, true, 0}};
  std::vector<std::vector<std::uint32_t>> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    for (const Case& c : cases) {
      FrameOptions o;
      o.clear_z = c.clear_z;
      got.push_back(render(d, soc, depth_draws(c.func, c.write), o));
    }
  });
  ASSERT_EQ(got.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("depth function " + std::to_string(cases[i].func) + (cases[i].write ? " with" : " without") +
                 " Z writes");
    EXPECT_TRUE(same_frame(got[i], depth_frame(cases[i].func, cases[i].write, cases[i].clear_z)));
  }
  // The four frames differ where they should: green in front (less), blue on top (last), red behind blue (farthest).
  EXPECT_EQ(got[0][100 + 60 * kWidth], 0xFF00FF00u);
  EXPECT_EQ(got[1][100 + 60 * kWidth], 0xFF0000FFu);
  EXPECT_EQ(got[3][100 + 60 * kWidth], 0xFF0000FFu);
  EXPECT_EQ(got[3][60 + 40 * kWidth], 0xFF0000FFu);
  EXPECT_EQ(got[0][60 + 40 * kWidth], 0xFFFF0000u);
}

// A rectangle over the whole frame with Z running from 0 at x = 0 to 1 at x = 256 writes its fragments' Z (rb15, as
// the renderer gives it: round(Z * 0xffffff) at the pixel centre, screen-linear) as colour, and Z to the buffer; a
// second rectangle at Z 0.5 with "less" then shows exactly where the first one's Z is larger: x >= 128 (the pixel
// centres' Z are 1/512 or more from 0.5).
TEST(Vc4Scenes, FragmentsCarryTheirScreenLinearDepthIntoTheDepthTest) {
  std::vector<std::uint32_t> got;
  const Rect front{64, 32, 256, 96};
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene ramp = empty_scene();
    ramp.vertices = {{0, 0, 0}, {256, 0, 1}, {0, 128, 0}, {256, 128, 1}};
    ramp.indices = {0, 2, 1, 1, 2, 3};
    ramp.fragment_shader = assembled(R"(
        mov tlb_z, rb15
        load_imm r1, 0xff000000
        or tlb_color_all, rb15, r1
        sig_end nop
        nop
        sig_unlock_score nop
    )");
    ramp.depth_func = 7;
    ramp.depth_write = true;
    Vc4Scene flat = empty_scene();
    add_rect(flat, front, 0.5F);
    flat.fragment_shader = assembled(depth_tested_colour_shader(0xFFFFFFFF));
    flat.depth_func = 1;
    d.supply_overspill();
    got = render(d, soc, {ramp, flat});
  });
  Image want;
  for (int y = 0; y < static_cast<int>(kHeight); ++y) {
    for (int x = 0; x < static_cast<int>(kWidth); ++x) {
      const auto z = static_cast<std::uint32_t>(std::llround((x + 0.5) / 256.0 * 0xFFFFFF));
      want.at(x, y) = front.contains(x, y) && x >= 128 ? 0xFFFFFFFF : 0xFF000000 | z;
    }
  }
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(got[10 + 10 * kWidth], 0xFF000000u | 688128u);  // 10.5 / 256 * 0xffffff = 688127.96
}

// The comparisons against an equal stored Z. A rectangle at Z 0.5 with "less" writes Z; the same rectangle again
// passes "equal" everywhere and "not equal" and "greater" nowhere; a wider one at 0.5 with "less or equal" passes over
// the first (0.5 <= 0.5) and beside it (0.5 <= the cleared 1.0); one at 0.75 with "greater or equal" passes only over
// the first (0.75 >= 0.5, not >= 1.0); "never" at 0.1 passes nowhere. Only the first draw writes Z.
TEST(Vc4Scenes, DepthComparisonsAgainstAnEqualStoredZ) {
  const Rect first{32, 16, 128, 80}, wider{16, 32, 160, 112};
  struct Step {
    Rect rect;
    float z;
    unsigned func;
    std::uint32_t colour;
  };
  const std::vector<Step> steps = {{first, 0.5F, 1, 0xFFFF0000}, {first, 0.5F, 2, 0xFF00FF00},
                                   {first, 0.5F, 5, 0xFF0000FF}, {first, 0.5F, 4, 0xFF00FFFF},
                                   {wider, 0.5F, 3, 0xFFFFFFFF}, {wider, 0.75F, 6, 0xFFFF00FF},
                                   {wider, 0.1F, 0, 0xFF000000}};
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    std::vector<Vc4Scene> draws;
    for (const Step& step : steps) {
      Vc4Scene s = empty_scene();
      add_rect(s, step.rect, step.z);
      s.fragment_shader = assembled(depth_tested_colour_shader(step.colour));
      s.depth_func = step.func;
      s.depth_write = step.func == 1;
      draws.push_back(s);
    }
    d.supply_overspill();
    got = render(d, soc, draws);
  });
  // Only the first step writes Z: 0.5 over `first`, 1.0 (cleared) elsewhere.
  Image want;
  want.fill(first, 0xFF00FF00);  // equal
  want.fill(wider, 0xFFFFFFFF);  // less or equal: 0.5 <= 0.5 over first, 0.5 <= 1.0 beside it
  for (int y = first.y0; y < first.y1; ++y) {
    for (int x = first.x0; x < first.x1; ++x) {
      if (wider.contains(x, y)) want.at(x, y) = 0xFFFF00FF;  // greater or equal: 0.75 >= 0.5 there only
    }
  }
  EXPECT_TRUE(same_frame(got, want));
}

// ---- state across draws and tiles ----

// Draw state reaches each tile before the first primitive of the next draw there, whatever the tile saw last: a red
// rectangle at Z 0.5 ("less", Z written) in tile (0, 0), a green one at 0.25 ("always", Z written) in tile (1, 0),
// then a blue one at 0.75 ("less", Z written) over both tiles. Blue loses to red in tile (0, 0) and to green in tile
// (1, 0) -- only if that tile has the third draw's depth function rather than the second's, and its shader.
TEST(Vc4Scenes, EachDrawsStateReachesEveryTileItsPrimitivesReach) {
  const Rect red{8, 8, 56, 56}, green{72, 8, 120, 56}, blue{0, 0, 128, 64};
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    const auto draw = [](const Rect& r, float z, unsigned func, std::uint32_t colour) {
      Vc4Scene s = empty_scene();
      add_rect(s, r, z);
      s.fragment_shader = assembled(depth_tested_colour_shader(colour));
      s.depth_func = func;
      s.depth_write = true;
      return s;
    };
    d.supply_overspill();
    got = render(d, soc,
                 {draw(red, 0.5F, 1, 0xFFFF0000), draw(green, 0.25F, 7, 0xFF00FF00), draw(blue, 0.75F, 1, 0xFF0000FF)});
  });
  Image want;
  want.fill(blue, 0xFF0000FF);
  want.fill(red, 0xFFFF0000);
  want.fill(green, 0xFF00FF00);
  EXPECT_TRUE(same_frame(got, want));
}

// 200 draws, each a 10x10 rectangle of its own colour with its own shader record, in a tile allocation pool of 8
// blocks: the tile lists interleave state packets and primitives across chained blocks and the overspill block, and
// every rectangle comes out in its own colour.
TEST(Vc4Scenes, TwoHundredDrawsWithTheirOwnShaderStateAcrossChainedBlocks) {
  std::vector<Vc4Scene> draws;
  Image want;
  for (int i = 0; i < 20; ++i) {
    for (int j = 0; j < 10; ++j) {
      const Rect r{8 + 12 * i, 4 + 12 * j, 18 + 12 * i, 14 + 12 * j};
      const auto colour = 0xFF000000u | static_cast<std::uint32_t>(i * 10 + j) << 8 | static_cast<std::uint32_t>(i + j);
      Vc4Scene s = empty_scene();
      add_rect(s, r);
      s.color = colour;
      draws.push_back(s);
      want.fill(r, colour);
    }
  }
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    FrameOptions o;
    o.pool_bytes = 8 * 128;
    got = render(d, soc, draws, o);
  });
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.primitives"), 400u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.overspills"), 1u);
  EXPECT_GT(core::stats().counter_value("gpuvp.v3d.ptb.blocks"), 8u);
  EXPECT_GE(core::stats().counter_value("gpuvp.v3d.ptb.state_packets"), 200u);
}

// ---- 4. discard ----

// A fragment shader that writes its colour only where x + y is even (flags from the pixel coordinates, a
// conditional TLB write) leaves a checkerboard of the triangle: the triangle (16,8) (240,8) (16,120) has its
// hypotenuse at slope 1/2, through no pixel centre, so its pixels are exactly the centres strictly inside. Every
// covered fragment is shaded, kept or not.
TEST(Vc4Scenes, ADiscardingShaderKeepsACheckerboardOfTheTriangle) {
  const Pt a{16, 8}, b{240, 8}, c{16, 120};
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene s = empty_scene();
    s.vertices = {{16, 8}, {240, 8}, {16, 120}};
    s.indices = {0, 1, 2};
    s.fragment_shader = assembled(R"(
        add r0, x_pix, y_pix
        and.sf nop, r0, 1
        load_imm r1, 0xff30c0f0
        mov.zs tlb_color_all, r1
        sig_end nop
        nop
        sig_unlock_score nop
    )");
    d.supply_overspill();
    got = render(d, soc, {s});
  });
  Image want;
  std::size_t covered = 0, kept = 0;
  for (int y = 0; y < static_cast<int>(kHeight); ++y) {
    for (int x = 0; x < static_cast<int>(kWidth); ++x) {
      const int where = centre_in_triangle(a, b, c, x, y);
      ASSERT_NE(where, 0) << x << "," << y;
      if (where < 0) continue;
      ++covered;
      if ((x + y) % 2 == 0) {
        want.at(x, y) = 0xFF30C0F0;
        ++kept;
      }
    }
  }
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(count_not(got, kClear), kept);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"), covered);
  EXPECT_GT(kept, 6000u);
}

// Discard by a varying: u runs from 0 at x = 0 to 1 at x = 256 over a rectangle; the shader writes only where
// u - 0.5 is not negative (flags from the add ALU's fsub): exactly the columns x >= 128 (u at the pixel centres is
// 1/512 or more from 0.5).
TEST(Vc4Scenes, ADiscardingShaderKeepsThePixelsWhoseVaryingPassesItsThreshold) {
  const Rect r{16, 8, 240, 120};
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene s = empty_scene();
    s.vertices = {{16, 8, 0.5F, 1, {16.0F / 256}},
                  {240, 8, 0.5F, 1, {240.0F / 256}},
                  {16, 120, 0.5F, 1, {16.0F / 256}},
                  {240, 120, 0.5F, 1, {240.0F / 256}}};
    s.indices = {0, 2, 1, 1, 2, 3};
    s.varyings = 1;
    s.fragment_shader = assembled(R"(
        mov r0, vary
        fmul r0, r0, ra15
        fadd r0, r0, r5
        fsub.sf nop, r0, 0.5
        load_imm r1, 0xff808080
        mov.nc tlb_color_all, r1
        sig_end nop
        nop
        sig_unlock_score nop
    )");
    d.supply_overspill();
    got = render(d, soc, {s});
  });
  Image want;
  want.fill({128, r.y0, r.x1, r.y1}, 0xFF808080);
  EXPECT_TRUE(same_frame(got, want));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"), static_cast<std::uint64_t>(r.area()));
}

// ---- 5. blending in the fragment shader ----

constexpr std::uint32_t kBlendBase = 0x80C04020, kBlendAdd = 0x60602010, kBlendMultiply = 0x80FF4000;
const Rect kBaseRect{16, 16, 144, 96}, kAddRects[2] = {{80, 48, 208, 112}, {120, 8, 240, 72}},
                                       kMultiplyRect{40, 60, 120, 124};

std::uint32_t per_byte(std::uint32_t a, std::uint32_t b, const std::function<unsigned(unsigned, unsigned)>& f) {
  std::uint32_t out = 0;
  for (unsigned i = 0; i < 32; i += 8) out |= (f((a >> i) & 0xFF, (b >> i) & 0xFF) & 0xFFu) << i;
  return out;
}

// Three draws: an opaque colour; two overlapping rectangles in one draw whose shader adds a colour to the tile
// buffer's (sig_color_load into r4, v8adds: per byte, saturating); a rectangle whose shader multiplies the tile
// buffer's colour by a constant (v8muld: per byte (a * b + 127) / 255, reference-vc4-qpu.md 1.4).
std::vector<Vc4Scene> blend_draws() {
  Vc4Scene base = empty_scene();
  add_rect(base, kBaseRect);
  base.color = kBlendBase;
  Vc4Scene add = empty_scene();
  add_rect(add, kAddRects[0]);
  add_rect(add, kAddRects[1]);
  add.fragment_shader = assembled("sig_color_load nop\nload_imm r1, " + hex(kBlendAdd) +
                                  "\nv8adds tlb_color_all, r4, r1\nsig_end nop\nnop\nsig_unlock_score nop\n");
  Vc4Scene multiply = empty_scene();
  add_rect(multiply, kMultiplyRect);
  multiply.fragment_shader =
      assembled("sig_color_load nop\nload_imm r1, " + hex(kBlendMultiply) +
                "\nnop ; v8muld tlb_color_all, r4, r1\nsig_end nop\nnop\nsig_unlock_score nop\n");
  return {base, add, multiply};
}

Image blend_frame() {
  Image want;
  const auto saturating_add = [](unsigned a, unsigned b) { return std::min(a + b, 255u); };
  const auto multiply = [](unsigned a, unsigned b) { return (a * b + 127) / 255; };
  want.fill(kBaseRect, kBlendBase);
  for (const Rect& r : kAddRects) {
    for (int y = r.y0; y < r.y1; ++y) {
      for (int x = r.x0; x < r.x1; ++x) want.at(x, y) = per_byte(want.at(x, y), kBlendAdd, saturating_add);
    }
  }
  for (int y = kMultiplyRect.y0; y < kMultiplyRect.y1; ++y) {
    for (int x = kMultiplyRect.x0; x < kMultiplyRect.x1; ++x) {
      want.at(x, y) = per_byte(want.at(x, y), kBlendMultiply, multiply);
    }
  }
  return want;
}

// Blending is the shader's on vc4: the tile buffer's colour comes in r4, the result goes back through the TLB. Where
// the two added rectangles overlap (same draw) the source is added twice, in primitive order.
TEST(Vc4Scenes, ShaderBlendingCombinesTheTileBufferColourExactly) {
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill();
    got = render(d, soc, blend_draws());
  });
  const Image want = blend_frame();
  EXPECT_TRUE(same_frame(got, want));
  // Spot values worked by hand: base + add (0x80+0x60, 0xc0+0x60 saturated, 0x40+0x20, 0x20+0x10); clear + add twice
  // (0xff saturated, 0x20+0xc0, 0x40+0x40, 0x80+0x20); base * multiply (0x80*0x80, 0xc0*0xff, 0x40*0x40, 0x20*0).
  EXPECT_EQ(got[100 + 50 * kWidth], 0xE0FF6030u);
  EXPECT_EQ(got[150 + 60 * kWidth], 0xFFE080A0u);
  EXPECT_EQ(got[50 + 62 * kWidth], 0x40C01000u);
}

// ---- 6. block chaining and overspill ----

// 16384 triangles: the 512x256 frame in 4x4-pixel cells of two triangles each, every cell its own four vertices with
// its index as a varying, which the shader writes as the colour (exact: a varying constant over a triangle is its
// C). 512 triangles a tile need many chained blocks; tile allocation memory holds the initial blocks and 16 more, the
// driver's first overspill block 64 (8 KiB), then the binner runs out of memory and the driver's OUTOMEM handler
// supplies a 512 KiB slot. Every pixel shows its cell's index.
TEST(Vc4Scenes, ThousandsOfTrianglesChainBlocksUseOverspillAndDrawEveryCell) {
  constexpr unsigned kW = 512, kH = 256, kCell = 4, kCellsX = kW / kCell, kCellsY = kH / kCell;
  Vc4Scene s = empty_scene(kW, kH);
  for (unsigned cy = 0; cy < kCellsY; ++cy) {
    for (unsigned cx = 0; cx < kCellsX; ++cx) {
      const auto index = static_cast<float>(cy * kCellsX + cx);
      add_rect(s,
               {static_cast<int>(cx * kCell), static_cast<int>(cy * kCell), static_cast<int>((cx + 1) * kCell),
                static_cast<int>((cy + 1) * kCell)},
               0.5F, index);
    }
  }
  s.varyings = 1;
  s.fragment_shader = assembled(kVaryingAsIntegerShader);
  ASSERT_EQ(s.indices.size() / 3, 16384u);
  std::vector<std::uint32_t> got;
  unsigned supplied = 0;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    d.supply_overspill(8192);
    FrameOptions o;
    o.pool_bytes = 16 * 128;
    o.timeout_ns = 200'000'000;
    got = render(d, soc, {s}, o);
    supplied = d.overflow_blocks_supplied();
  });
  Image want(kW, kH);
  for (unsigned y = 0; y < kH; ++y) {
    for (unsigned x = 0; x < kW; ++x) {
      want.at(static_cast<int>(x), static_cast<int>(y)) = 0xFF000000u | ((y / kCell) * kCellsX + x / kCell);
    }
  }
  EXPECT_TRUE(same_frame(got, want));
  const auto counter = [](const char* name) {
    return core::stats().counter_value(std::string("gpuvp.v3d.ptb.") + name);
  };
  EXPECT_EQ(counter("primitives"), 16384u);
  EXPECT_EQ(counter("culled"), 0u);
  EXPECT_GT(counter("blocks"), 16u + 64u);  // past the pool and the first overspill block
  EXPECT_EQ(counter("overspills"), 2u);     // the 8 KiB block, then the handler's slot
  EXPECT_EQ(counter("out_of_memory"), 1u);
  EXPECT_EQ(supplied, 2u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded"), std::uint64_t{kW} * kH);
}

// ---- 7. through the executable ----

// The blending scene (three draws, two shaders reading the tile buffer) recorded as a host script and run by
// `gpuvp run --script`, with a check of every pixel of the frame against the same expectation as the live test.
TEST(Vc4Scenes, TheBlendingFrameIsTheSameThroughAHostScript) {
  host::ScriptHostPort port;
  Vc4Driver d(port);
  d.enable_interrupts();
  d.supply_overspill();  // a script cannot react to OUTOMEM
  const Vc4Driver::Buffer fb = submit_frame(d, blend_draws(), {});
  d.wait_frame(5'000'000, /*service_oom=*/false);
  port.expect32(kV3d + vc4::kV3dBfc, 1);
  port.expect32(kV3d + vc4::kV3dRfc, 1);
  const Image want = blend_frame();
  for (std::size_t i = 0; i < want.px.size(); ++i) port.expect32(fb.addr + 4 * i, want.px[i]);
  EXPECT_EQ(port.unknown_reads(), 0u);
  const std::string path = ::testing::TempDir() + "vc4_scenes_blend.gpuvp";
  std::ofstream(path) << port.script();
  const test::ProcessResult r = test::run_gpuvp("run --quiet --script " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 4000);
  EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out.substr(0, 4000);
}

// ---- sizes beyond the old binner clamp ----

// A point of size 5000 at (0, 32) in a 2560x64 frame: its square [-2500, 2500) x [-2468, 2532) covers the pixels
// x < 2500 of every row (rasteriser.h: any finite positive size is drawn at that size), so the binner must put it
// in the first 40 tiles (the binner clamped sizes to 4096 pixels once: tiles past 2048 pixels got nothing).
TEST(Vc4Scenes, APointWiderThan4096PixelsIsBinnedIntoEveryTileItCovers) {
  constexpr unsigned kW = 2560, kH = 64;
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene point = empty_scene(kW, kH);
    point.vertices = {{0, 32}};
    point.indices = {0};
    point.mode = 0;
    point.point_size = 5000;
    d.supply_overspill();
    got = render(d, soc, {point});
  });
  Image want(kW, kH);
  want.fill({0, 0, 2500, 64}, 0xFFFFFFFF);
  EXPECT_TRUE(same_frame(got, want));
}

// The largest float as POINT_SIZE (a guest's value): the binner's bounds stay defined (clamped before conversion) and
// the point covers the whole frame.
TEST(Vc4Scenes, APointOfTheLargestFloatSizeCoversTheFrame) {
  constexpr unsigned kW = 256, kH = 128;
  std::vector<std::uint32_t> got;
  simulate([&](Vc4Driver& d, platform::Platform& soc) {
    Vc4Scene point = empty_scene(kW, kH);
    point.vertices = {{100, 50}};
    point.indices = {0};
    point.mode = 0;
    point.point_size = std::numeric_limits<float>::max();
    d.supply_overspill();
    got = render(d, soc, {point});
  });
  Image want(kW, kH);
  want.fill({0, 0, static_cast<int>(kW), static_cast<int>(kH)}, 0xFFFFFFFF);
  EXPECT_TRUE(same_frame(got, want));
}

}  // namespace
