// The GL shader path, driven as the vc4 driver drives it (tb/host/vc4_driver): a scene whose vertices the coordinate
// shader positions for the binner and the vertex shader shades for the renderer, both on the QPUs with their
// attributes fetched by the VCD into the VPM (tlm/vc4/vertex_shading.h). The same scene with NV shader state
// (pre-shaded vertices) must give the same frame bit for bit: the shaders compute exactly what the driver's NV
// vertices hold (power-of-two W, positions on the 1/16-pixel grid).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hw/vc4/v3d_regs.h"
#include "platform/platform.h"
#include "tb/host/vc4_driver.h"
#include "tb/host/vc4_shaders.h"
#include "tests/support/sc_test.h"
#include "tests/support/vc4_scene_frame.h"
#include "tests/test_vc4_support.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/control_list_executor.h"
#include "tlm/vc4/qpu/qpu_assembler.h"

using namespace gpuvp;
using host::Vc4Driver;

namespace {

constexpr std::uint32_t kClear = 0xFF204080;
constexpr unsigned kWidth = 256, kHeight = 128;

std::vector<std::uint64_t> assembled(const std::string& source) {
  vc4::qpu::AssembledProgram program;
  std::string error;
  EXPECT_TRUE(vc4::qpu::assemble(source, program, error)) << error;
  return program.code;
}

// The demo's kind of scene: three overlapping triangles with interpolated colours and the depth test, W varying
// between vertices (perspective-correct varyings), the green one nearest.
host::Vc4Scene scene(bool gl) {
  host::Vc4Scene s;
  s.width = kWidth;
  s.height = kHeight;
  const std::array<float, 8> red = {1, 0, 0}, green = {0, 1, 0}, blue = {0, 0, 1};
  s.vertices = {{100, 10, 0.25F, 1, green},      {230, 60, 0.25F, 0.5F, green}, {60, 120, 0.25F, 0.25F, green},
                {20, 10, 0.5F, 1, red},          {150, 20, 0.5F, 0.5F, red},    {40, 110, 0.5F, 1, red},
                {160.5F, 70.25F, 0.75F, 1, red}, {250, 120, 0.75F, 1, green},   {170, 125, 0.75F, 0.5F, blue}};
  s.indices = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  s.fragment_shader = assembled(host::interpolated_color_fragment_shader_source());
  s.varyings = 3;
  s.depth_func = 1;  // less
  s.depth_write = true;
  if (gl) {
    s.coordinate_shader = assembled(host::scene_coordinate_shader_source());
    s.vertex_shader = assembled(host::scene_vertex_shader_source());
  }
  return s;
}

// Bins and renders one frame of `s`; returns its pixels.
std::vector<std::uint32_t> render(Vc4Driver& d, platform::Platform& soc, const host::Vc4Scene& s) {
  const test::SceneFrame f = test::render_scene(d, s, kClear);
  EXPECT_TRUE(f.done);
  return test::frame_pixels(soc, f, s.width, s.height);
}

TEST(Vc4GlShaderPath, CoordinateAndVertexShadersDrawWhatPreShadedVerticesDraw) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  std::vector<std::uint32_t> nv, gl;
  std::uint64_t nv_fragments = 0;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    nv = render(d, soc, scene(false));
    nv_fragments = soc.v3d()->renderer().fragments_shaded();
    gl = render(d, soc, scene(true));
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  ASSERT_EQ(nv.size(), gl.size());
  std::size_t differ = 0, drawn = 0;
  for (std::size_t i = 0; i < nv.size(); ++i) {
    differ += nv[i] != gl[i];
    drawn += nv[i] != kClear;
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(drawn, 8000u);
  EXPECT_EQ(soc.v3d()->renderer().fragments_shaded(), 2 * nv_fragments);
  // Interior points: red alone, green over red (nearer, drawn first), green alone, the clear colour.
  EXPECT_EQ(gl[40 + 30 * kWidth], 0xFFFF0000u);
  EXPECT_EQ(gl[110 + 40 * kWidth], 0xFF00FF00u);
  EXPECT_EQ(gl[240 + 20 * kWidth], kClear);
  // The binner's coordinate shader ran one batch over the draw's nine vertices; the renderer's vertex shader shaded
  // each tile's vertices once (three a triangle in each tile it touches), one batch per tile: a tile's run holds at
  // most the three triangles, nine vertices, which the look-ahead gathers into one batch of at most 16. All eight
  // tiles (4 x 2 of 64 pixels) hold a part of a triangle.
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.vertices_shaded"), 9u);
  const std::uint64_t entries = core::stats().counter_value("gpuvp.v3d.ptb.entries");
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.vertices_shaded"), 3 * (entries / 2));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.vertex_batches"), 1u + 8u);
}

// The VCM fills a vertex shader batch from the primitives ahead in the tile's run: a strip of 14 triangles over 16
// vertices inside one tile is shaded as one batch of 16 (without the look-ahead: a batch per triangle that brings new
// vertices, 14), and a strip of 30 triangles over 32 vertices as two.
TEST(Vc4GlShaderPath, TheRenderersVertexBatchesLookAheadInTheTile) {
  const auto strip = [](unsigned triangles) {
    host::Vc4Scene s = scene(true);
    s.vertices.clear();
    s.indices.clear();
    for (unsigned i = 0; i < triangles + 2; ++i) {
      const float x = 2.0F + 3.5F * static_cast<float>(i / 2), y = (i % 2) != 0 ? 60.0F : 4.0F;
      s.vertices.push_back({x, y, 0.5F, 1.0F, {0.5F, 0.5F, 0.5F}});
      s.indices.push_back(static_cast<std::uint16_t>(i));
    }
    s.mode = 5;  // triangle strip
    return s;
  };
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  std::uint64_t batches_14 = 0, batches_30 = 0;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    const auto vertex_batches = [] { return core::stats().counter_value("gpuvp.v3d.qpus.vertex_batches"); };
    std::uint64_t before = vertex_batches();
    render(d, soc, strip(14));
    batches_14 = vertex_batches() - before;
    before = vertex_batches();
    render(d, soc, strip(30));
    batches_30 = vertex_batches() - before;
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  // The binner's coordinate shader batches (16 vertices each, 1 and 2) and the renderer's.
  EXPECT_EQ(batches_14, 1u + 1u);
  EXPECT_EQ(batches_30, 2u + 2u);
}

// A 5x5 grid of vertices (4x4 quads of two triangles each, sharing vertices) over the frame: the binner's coordinate
// shader shades each of the 25 vertices once, in batches of up to 16 it gathers ahead in the index stream, and the
// frame is the NV frame bit for bit.
TEST(Vc4GlShaderPath, SharedVerticesAreShadedOncePerDrawInBatchesOfSixteen) {
  const auto grid = [](bool gl) {
    host::Vc4Scene s = scene(gl);
    s.vertices.clear();
    s.indices.clear();
    for (unsigned j = 0; j < 5; ++j) {
      for (unsigned i = 0; i < 5; ++i) {
        const float x = 8.0F + 60.0F * static_cast<float>(i), y = 4.0F + 30.0F * static_cast<float>(j);
        s.vertices.push_back({x, y, 0.5F, (i + j) % 2 != 0 ? 0.5F : 1.0F, {x / 256, y / 128, 0.5F, 0}});
      }
    }
    for (std::uint16_t j = 0; j < 4; ++j) {
      for (std::uint16_t i = 0; i < 4; ++i) {
        const auto v = static_cast<std::uint16_t>(5 * j + i);
        s.indices.insert(s.indices.end(), {v, static_cast<std::uint16_t>(v + 1), static_cast<std::uint16_t>(v + 5),
                                           static_cast<std::uint16_t>(v + 1), static_cast<std::uint16_t>(v + 6),
                                           static_cast<std::uint16_t>(v + 5)});
      }
    }
    return s;
  };
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  std::vector<std::uint32_t> nv, gl;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    nv = render(d, soc, grid(false));
    gl = render(d, soc, grid(true));
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  std::size_t differ = 0, drawn = 0;
  for (std::size_t i = 0; i < nv.size(); ++i) {
    differ += nv[i] != gl[i];
    drawn += gl[i] != kClear;
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(drawn, 240u * 120u);  // the grid covers [8, 248) x [4, 124) exactly
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.vertices_shaded"), 25u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.primitives"), 2u * 32u);
}

// The clipper (the record's clipping flag): a triangle wholly behind the eye (every W negative) is dropped by the
// binner, and the frame holds the other triangle alone.
TEST(Vc4GlShaderPath, TheClipperDropsPrimitivesBehindTheEye) {
  host::Vc4Scene behind = scene(true);
  behind.indices = {0, 1, 2, 3, 4, 5};
  for (unsigned i = 3; i < 6; ++i) behind.vertices[i].inv_w = -1.0F;
  host::Vc4Scene alone = scene(false);
  alone.indices = {0, 1, 2};
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  std::vector<std::uint32_t> expected, got;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    expected = render(d, soc, alone);
    got = render(d, soc, behind);
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  EXPECT_EQ(got, expected);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.culled"), 1u);
}

// ---- clipping into new vertices (tlm/vc4/clipper.h) ----

// A Vc4Scene vertex's clip coordinates, computed as the driver model computes them (in float).
std::array<double, 4> clip_of(const host::Vc4Vertex& v) {
  const float w = 1.0F / v.inv_w;
  const float x = v.x / (static_cast<float>(kWidth) / 2) - 1, y = v.y / (static_cast<float>(kHeight) / 2) - 1;
  return {x * w, y * w, v.z * w, w};
}

// The test's own reference for what a triangle given in clip coordinates shows, by homogeneous rasterisation (Olano
// and Greer, "Triangle scan conversion using 2D homogeneous coordinates", 1997): the ray through the screen point
// (x, y) in normalised device coordinates meets the triangle in front of the eye where M l = (x, y, 1), M's columns
// being the vertices' (Xc, Yc, Wc), has every l_i > 0; l / sum(l) are then the point's clip-space barycentric
// coordinates, which weigh the vertices' varyings (perspective-correct). No clipping is involved.
struct HomogeneousTriangle {
  std::array<std::array<double, 4>, 3> v;
  bool covers(double px, double py, std::array<double, 3>& b) const {
    const double x = px / (kWidth / 2.0) - 1, y = py / (kHeight / 2.0) - 1;
    const auto det3 = [](const std::array<std::array<double, 3>, 3>& m) {
      return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
             m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    };
    // Rows X, Y, W; column i vertex i (Cramer's rule).
    std::array<std::array<double, 3>, 3> m{};
    for (unsigned i = 0; i < 3; ++i) {
      m[0][i] = v[i][0];
      m[1][i] = v[i][1];
      m[2][i] = v[i][3];
    }
    const double d = det3(m);
    const std::array<double, 3> rhs{x, y, 1};
    std::array<double, 3> l{};
    double sum = 0;
    for (unsigned i = 0; i < 3; ++i) {
      std::array<std::array<double, 3>, 3> mi = m;
      for (unsigned r = 0; r < 3; ++r) mi[r][i] = rhs[r];
      l[i] = det3(mi) / d;
      sum += l[i];
    }
    for (unsigned i = 0; i < 3; ++i) b[i] = l[i] / sum;
    return l[0] > 0 && l[1] > 0 && l[2] > 0;
  }
};

// Compares a frame of one triangle with interpolated colours (varyings 0-2 red, green, blue) against the
// reference: every pixel whose centre and eight neighbours one pixel away agree (the fill rule's unknowns stay out)
// must be covered with the reference colour (each channel within 2 of 255 x the weighted sum) or keep the clear colour.
// Returns how many covered pixels were compared.
std::size_t expect_reference_frame(const std::vector<std::uint32_t>& got, const host::Vc4Scene& s) {
  const HomogeneousTriangle tri{
      {clip_of(s.vertices[s.indices[0]]), clip_of(s.vertices[s.indices[1]]), clip_of(s.vertices[s.indices[2]])}};
  std::size_t inside_compared = 0, mismatches = 0;
  for (unsigned py = 0; py < kHeight; ++py) {
    for (unsigned px = 0; px < kWidth; ++px) {
      unsigned in = 0;
      std::array<double, 3> b{}, centre{};
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) in += tri.covers(px + 0.5 + dx, py + 0.5 + dy, b) ? 1 : 0;
      }
      if (in != 0 && in != 9) continue;
      const std::uint32_t pixel = got[px + std::size_t{py} * kWidth];
      if (in == 0) {
        if (pixel != kClear && ++mismatches <= 5) ADD_FAILURE() << "pixel " << px << "," << py << " drawn: " << pixel;
        continue;
      }
      tri.covers(px + 0.5, py + 0.5, centre);
      ++inside_compared;
      bool ok = (pixel >> 24) == 0xFF;
      for (unsigned c = 0; c < 3; ++c) {
        double value = 0;
        for (unsigned i = 0; i < 3; ++i) value += centre[i] * s.vertices[s.indices[i]].varyings[c];
        const int want = static_cast<int>(std::lround(255 * value));
        const int have = static_cast<int>((pixel >> (16 - 8 * c)) & 0xFF);
        ok = ok && std::abs(have - want) <= 2;
      }
      if (!ok && ++mismatches <= 5) {
        ADD_FAILURE() << "pixel " << px << "," << py << " is " << std::hex << pixel << std::dec
                      << ", reference weights " << centre[0] << " " << centre[1] << " " << centre[2];
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
  return inside_compared;
}

// Every CLIPPED_COMPRESSED_PRIMITIVE in the frame's tile lists: its record's entries (XS, YS, ZS, 1/WC and three
// coefficients, 32 bytes each: Table 44) describe the point the coefficients weigh the original vertices' clip
// coordinates into: on screen where it projects (1/16 pixel, truncated), with its Zs and 1/W. Returns how many.
std::size_t expect_consistent_records(platform::Platform& soc, const test::SceneFrame& f, const host::Vc4Scene& s) {
  std::size_t records = 0;
  std::uint8_t format = 0x12;
  const auto read = [&](std::uint32_t a, std::size_t n) {
    std::vector<std::uint8_t> b(n);
    soc.dram().store().read(a, b.data(), n);
    return b;
  };
  for (unsigned t = 0; t < f.bin.tiles_x * f.bin.tiles_y; ++t) {
    // The kernel's 32-byte initial blocks, one per tile from the tile allocation memory's start.
    const test::vc4t::TileList list = test::vc4t::decode_tile_list(read, f.bin.tile_alloc + 32 * t, format);
    EXPECT_EQ(list.error, "") << "tile " << t;
    for (const auto& [entry, word] : list.clipped) {
      ++records;
      if (entry >= list.entries.size()) {
        ADD_FAILURE() << "a CLIPPED_COMPRESSED_PRIMITIVE run without a primitive in tile " << t;
        continue;
      }
      const std::vector<std::uint16_t>& idx = list.entries[entry];
      EXPECT_NE(word & 7U, 0u);
      unsigned k = 0;
      for (unsigned j = 0; j < idx.size(); ++j) {
        if (((word >> j) & 1U) == 0) continue;
        const std::vector<std::uint8_t> r = read((word & ~7U) + 32 * k++, 32);
        const auto f32 = [&](unsigned o) {
          float v;
          std::memcpy(&v, &r[o], 4);
          return static_cast<double>(v);
        };
        std::array<double, 4> p{};
        double weight_sum = 0;
        for (unsigned i = 0; i < idx.size(); ++i) {
          const double wi = f32(12 + 4 * i);
          EXPECT_GE(wi, -1e-6);
          weight_sum += wi;
          const std::array<double, 4> c = clip_of(s.vertices[idx[i]]);
          for (unsigned q = 0; q < 4; ++q) p[q] += wi * c[q];
        }
        EXPECT_NEAR(weight_sum, 1.0, 1e-5);
        EXPECT_GT(p[3], 0.0);
        const auto xs = static_cast<std::int16_t>(r[0] | r[1] << 8), ys = static_cast<std::int16_t>(r[2] | r[3] << 8);
        EXPECT_NEAR(xs, std::trunc(p[0] / p[3] * kWidth * 8), 1.0);
        EXPECT_NEAR(ys, std::trunc(p[1] / p[3] * kHeight * 8), 1.0);
        EXPECT_NEAR(f32(4), p[2] / p[3], 1e-4);
        EXPECT_NEAR(f32(8) * p[3], 1.0, 1e-4);
        EXPECT_EQ(r[28] | r[29] | r[30] | r[31], 0);  // the unused bytes
      }
    }
  }
  return records;
}

host::Vc4Scene clipped_scene(std::vector<host::Vc4Vertex> vertices) {
  host::Vc4Scene s = scene(true);
  s.vertices = std::move(vertices);
  s.indices = {0, 1, 2};
  s.depth_func = 7;  // always
  s.depth_write = false;
  return s;
}

// Renders `s` on a fresh platform and checks its frame against the reference and its records against the
// coefficients; returns how many covered pixels and record references (one per tile naming a record) were checked.
struct ClippedFrameChecks {
  std::size_t compared = 0, records = 0;
};
ClippedFrameChecks render_and_check_clipped(const host::Vc4Scene& s) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  std::vector<std::uint32_t> got;
  test::SceneFrame f;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    f = test::render_scene(d, s, kClear);
    got = test::frame_pixels(soc, f, s.width, s.height);
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  EXPECT_TRUE(f.done);
  if (!f.done) return {};
  return {expect_reference_frame(got, s), expect_consistent_records(soc, f, s)};
}

// A triangle with a vertex behind the eye: its two other vertices on row 100 and the third's projection far below,
// so that what lies in front of the eye flares upwards off the frame. The binner clips it against the eye plane and
// the guard band into new vertices; the renderer shades the original vertices and takes the new ones' varyings from
// the record's coefficients. The frame is the reference's, pixel by pixel (coverage and perspective-correct colour):
// above row 100 only.
TEST(Vc4GlClipper, ATriangleWithAVertexBehindTheEyeDrawsWhatLiesInFrontOfIt) {
  const std::array<float, 8> red = {1, 0, 0}, green = {0, 1, 0}, blue = {0, 0, 1};
  const ClippedFrameChecks checked = render_and_check_clipped(
      clipped_scene({{60, 100, 0.5F, 1, red}, {196, 100, 0.5F, 0.5F, green}, {128, 1000, 0.5F, -1, blue}}));
  EXPECT_GT(checked.compared, 10000u);
  EXPECT_GT(checked.records, 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.clipped"), 1u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.culled"), 0u);
  // Records are shared by the tiles a part touches: the tile lists name each at least once.
  EXPECT_GT(core::stats().counter_value("gpuvp.v3d.ptb.clip_records"), 0u);
  EXPECT_LE(core::stats().counter_value("gpuvp.v3d.ptb.clip_records"), checked.records);
  EXPECT_GT(core::stats().counter_value("gpuvp.v3d.renderer.clipped"), 0u);
}

// NV shader state with the clipping flag and the clip header clips as the GL path does: the binner takes each
// vertex's clip coordinates from the header ahead of its shaded data (the triangles of the GL tests).
host::Vc4Scene as_nv_with_clip_header(host::Vc4Scene s) {
  s.coordinate_shader.clear();
  s.vertex_shader.clear();
  s.nv_clip_header = true;
  return s;
}

TEST(Vc4GlClipper, NvVerticesWithAClipHeaderBehindTheEyeAreClippedToo) {
  const std::array<float, 8> red = {1, 0, 0}, green = {0, 1, 0}, blue = {0, 0, 1};
  const ClippedFrameChecks checked = render_and_check_clipped(as_nv_with_clip_header(
      clipped_scene({{60, 100, 0.5F, 1, red}, {196, 100, 0.5F, 0.5F, green}, {128, 1000, 0.5F, -1, blue}})));
  EXPECT_GT(checked.compared, 10000u);
  EXPECT_GT(checked.records, 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.clipped"), 1u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.vertices_shaded"), 0u);  // no coordinate shader ran
}

TEST(Vc4GlClipper, NvVerticesWithAClipHeaderBeyondTheGuardBandAreClippedToo) {
  const std::array<float, 8> red = {1, 0, 0}, green = {0, 1, 0}, blue = {0, 0, 1};
  const ClippedFrameChecks checked = render_and_check_clipped(as_nv_with_clip_header(
      clipped_scene({{20, 20, 0.5F, 1, red}, {5000, 64, 0.5F, 1, green}, {20, 110, 0.5F, 1, blue}})));
  EXPECT_GT(checked.compared, 15000u);
  EXPECT_GT(checked.records, 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.clipped"), 1u);
}

// A triangle in front of the eye with a vertex 5000 pixels to the right: its 16-bit screen X would wrap, so the
// clipper cuts it at the guard band; what shows on the frame is the reference's.
TEST(Vc4GlClipper, ATriangleBeyondTheGuardBandIsClippedToIt) {
  const std::array<float, 8> red = {1, 0, 0}, green = {0, 1, 0}, blue = {0, 0, 1};
  const ClippedFrameChecks checked = render_and_check_clipped(
      clipped_scene({{20, 20, 0.5F, 1, red}, {5000, 64, 0.5F, 1, green}, {20, 110, 0.5F, 1, blue}}));
  EXPECT_GT(checked.compared, 15000u);
  EXPECT_GT(checked.records, 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.clipped"), 1u);
}

// A line from a vertex in front of the eye to one behind it (whose projection lies 1000 pixels to the left) shows
// from the front vertex rightwards off the frame: row 64 from x = 20 on, with the perspective-correct colour.
TEST(Vc4GlClipper, ALineWithAnEndBehindTheEyeShowsItsPartInFront) {
  const std::array<float, 8> red = {1, 0, 0}, blue = {0, 0, 1};
  host::Vc4Scene s = clipped_scene({{20, 64.5F, 0.5F, 1, red}, {-1000, 64.5F, 0.5F, -0.5F, blue}});
  s.indices = {0, 1};
  s.mode = 1;
  s.fragment_shader = assembled("mov r3, vary\n" + host::interpolated_color_fragment_shader_source());
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  std::vector<std::uint32_t> got;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    got = render(d, soc, s);
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  const std::array<double, 4> a = clip_of(s.vertices[0]), c = clip_of(s.vertices[1]);
  for (unsigned x = 0; x < kWidth; ++x) {
    EXPECT_EQ(got[x + 63 * kWidth], kClear) << x;
    EXPECT_EQ(got[x + 65 * kWidth], kClear) << x;
    const std::uint32_t pixel = got[x + 64 * kWidth];
    if (x < 19) {
      EXPECT_EQ(pixel, kClear) << x;
    }
    if (x < 22) continue;
    // The point of the segment (1 - t) a + t c that projects to the pixel centre.
    const double ndc = (x + 0.5) / (kWidth / 2.0) - 1;
    const double t = (a[0] - ndc * a[3]) / (ndc * (c[3] - a[3]) - (c[0] - a[0]));
    ASSERT_GE(t, 0.0);
    const int red_want = static_cast<int>(std::lround(255 * (1 - t))),
              blue_want = static_cast<int>(std::lround(255 * t));
    EXPECT_NEAR(static_cast<int>((pixel >> 16) & 0xFF), red_want, 2) << x;
    EXPECT_NEAR(static_cast<int>(pixel & 0xFF), blue_want, 2) << x;
    EXPECT_EQ(pixel >> 24, 0xFFu) << x;
  }
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.clipped"), 1u);
  EXPECT_GT(core::stats().counter_value("gpuvp.v3d.renderer.clipped"), 0u);
}

// Bins a scene whose one triangle needs clipping, its binning list changed by `edit` after the kernel's set-up: the
// binning thread must stop with CTERR and an error report containing `report`.
void expect_clipping_error(const std::function<void(std::vector<std::uint8_t>&)>& edit, const char* report) {
  const std::array<float, 8> red = {1, 0, 0};
  const host::Vc4Scene s =
      clipped_scene({{60, 100, 0.5F, 1, red}, {196, 100, 0.5F, 1, red}, {128, 1000, 0.5F, -1, red}});
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  bool done = true;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    std::vector<std::uint8_t> bin = d.build_bin_cl(s);
    d.bin_setup(bin);
    edit(bin);
    d.submit(bin, {});
    done = d.wait_frame(200'000);
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dCtnCs(0)) & vc4::ControlListExecutor::kCtErr,
              vc4::ControlListExecutor::kCtErr);
  });
  EXPECT_FALSE(done);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, report).size(), 1u);
}

// The record's address shares its word with the flags (bits 2:0): tile allocation memory that is not 8-byte aligned
// leaves the clipper no address for it.
TEST(Vc4GlClipper, AClipRecordWithoutAnAlignedAddressIsAModelledError) {
  expect_clipping_error(
      [](std::vector<std::uint8_t>& bin) {
        // TILE_BINNING_MODE_CONFIG opens the list: its tile allocation address (bytes 1-4) moved by 4.
        ASSERT_EQ(bin[0], vc4::packet::kTileBinningModeConfig);
        bin[1] = static_cast<std::uint8_t>(bin[1] + 4);
      },
      "is not 8-byte aligned (tile allocation or overspill memory is not)");
}

// Clipping needs the clipper's viewport: a binning list without CLIPPER_XY_SCALING stops when a primitive must be
// clipped.
TEST(Vc4GlClipper, ClippingWithoutTheClipperViewportIsAModelledError) {
  expect_clipping_error(
      [](std::vector<std::uint8_t>& bin) {
        // CLIPPER_XY_SCALING (9 bytes, just before CLIPPER_Z_SCALE_AND_OFFSET) becomes NOPs.
        for (std::size_t i = 0; i + 9 < bin.size(); ++i) {
          if (bin[i] == vc4::packet::kClipperXyScaling && bin[i + 9] == vc4::packet::kClipperZScaleAndOffset) {
            std::fill_n(bin.begin() + static_cast<std::ptrdiff_t>(i), 9, vc4::packet::kNop);
            return;
          }
        }
        ADD_FAILURE() << "no CLIPPER_XY_SCALING in the binning list";
      },
      "GL_INDEXED_PRIMITIVE: a primitive to clip into new vertices and no CLIPPER_XY_SCALING in the binning list");
}

}  // namespace
