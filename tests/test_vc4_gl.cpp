// The GL shader path, driven as the vc4 driver drives it (tb/host/vc4_driver): a scene whose vertices the coordinate
// shader positions for the binner and the vertex shader shades for the renderer, both on the QPUs with their
// attributes fetched by the VCD into the VPM (tlm/vc4/vertex_shading.h). The same scene with NV shader state
// (pre-shaded vertices) must give the same frame bit for bit: the shaders compute exactly what the driver's NV
// vertices hold (power-of-two W, positions on the 1/16-pixel grid).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hw/vc4/v3d_regs.h"
#include "platform/platform.h"
#include "tb/host/vc4_driver.h"
#include "tb/host/vc4_shaders.h"
#include "tests/support/sc_test.h"
#include "tests/support/vc4_scene_frame.h"
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
  // each tile's vertices once (three a triangle in each tile it touches).
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.ptb.vertices_shaded"), 9u);
  const std::uint64_t entries = core::stats().counter_value("gpuvp.v3d.ptb.entries");
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.renderer.vertices_shaded"), 3 * (entries / 2));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.vertex_batches"), 1 + entries / 2);
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
// binner, and the frame holds the other triangle alone; one with a vertex behind the eye and the others in front
// would need new vertices: the binning thread stops with a modelled error naming it.
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

TEST(Vc4GlShaderPath, APrimitiveCrossingTheEyePlaneIsAModelledError) {
  host::Vc4Scene crossing = scene(true);
  crossing.indices = {0, 1, 2};
  crossing.vertices[1].inv_w = -1.0F;
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  bool done = true;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    std::vector<std::uint8_t> bin = d.build_bin_cl(crossing);
    d.bin_setup(bin);
    d.submit(bin, {});
    done = d.wait_frame(200'000);
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dCtnCs(0)) & vc4::ControlListExecutor::kCtErr,
              vc4::ControlListExecutor::kCtErr);
  });
  EXPECT_FALSE(done);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR,
                               "GL_INDEXED_PRIMITIVE: primitive 0 crosses the eye plane (vertex 1 has Wc -1")
                .size(),
            1u);
}

}  // namespace
