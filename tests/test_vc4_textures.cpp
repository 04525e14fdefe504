// Textured scenes driven as the vc4 driver drives them: quads whose fragment shader samples a texture through TMU0
// (tb/host/vc4_shaders.h textured_color_fragment_shader_source, white vertex colours), the textures laid out by the
// driver model as Mesa lays them out (Vc4Driver::upload_texture: LT when a side is at most four micro-tiles, T-format
// otherwise). Each quad maps texels one to one onto pixels, so nearest sampling at pixel centres returns exactly the
// texel under each pixel. Malformed texture parameters stop the render thread with the sampler's modelled error.
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
constexpr unsigned kWidth = 128, kHeight = 64;

// A texture whose every texel is distinct: x in the blue byte, y in the green byte, a side mark in red.
std::vector<std::uint32_t> texels(unsigned w, unsigned h) {
  std::vector<std::uint32_t> t(std::size_t{w} * h);
  for (unsigned y = 0; y < h; ++y) {
    for (unsigned x = 0; x < w; ++x) t[std::size_t{y} * w + x] = 0xFF000000U | (w << 16) | (y << 8) | (x * 4 + 1);
  }
  return t;
}

// A quad of `size` pixels at (x0, y0) as two triangles, (s, t) running 0..1 across it, white.
host::Vc4Scene quad(float x0, float y0, float size, const Vc4Driver::Texture& texture) {
  host::Vc4Scene s;
  s.width = kWidth;
  s.height = kHeight;
  const auto v = [](float x, float y, float u, float t) { return host::Vc4Vertex{x, y, 0.5F, 1, {1, 1, 1, u, t}}; };
  s.vertices = {v(x0, y0, 0, 0), v(x0 + size, y0, 1, 0), v(x0, y0 + size, 0, 1), v(x0 + size, y0 + size, 1, 1)};
  s.indices = {0, 1, 2, 1, 3, 2};
  vc4::qpu::AssembledProgram program;
  std::string error;
  EXPECT_TRUE(vc4::qpu::assemble(host::textured_color_fragment_shader_source(), program, error)) << error;
  s.fragment_shader = program.code;
  s.varyings = 5;
  s.fragment_uniforms = {texture.p0, texture.p1};
  return s;
}

// Bins and renders `s` into a fresh frame; false when the frame did not finish.
bool render(Vc4Driver& d, const host::Vc4Scene& s, Vc4Driver::Buffer& fb) {
  const test::SceneFrame f = test::render_scene(d, s, kClear);
  fb = f.fb;
  return f.done;
}

// A 16x16 texture (LT) and a 32x32 one (T-format), each on a quad of its size straddling tiles: every pixel of the
// quad is its texel, every other pixel the clear colour.
TEST(Vc4Textures, TexturedQuadsShowTheirLtAndTFormatTexelsOneToOne) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  struct Case {
    unsigned side;
    float x0, y0;
    Vc4Driver::Buffer fb;
  };
  std::vector<Case> cases = {{16, 56, 8, {}}, {32, 48, 20, {}}};
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    for (Case& c : cases) {
      const Vc4Driver::Texture texture = d.upload_texture(c.side, c.side, texels(c.side, c.side));
      EXPECT_TRUE(render(d, quad(c.x0, c.y0, static_cast<float>(c.side), texture), c.fb));
    }
  });
  for (const auto& e : port.failures()) ADD_FAILURE() << e;
  for (const Case& c : cases) {
    std::vector<std::uint32_t> fb(kWidth * kHeight);
    soc.dram().store().read(c.fb.addr, reinterpret_cast<std::uint8_t*>(fb.data()), fb.size() * 4);
    const std::vector<std::uint32_t> t = texels(c.side, c.side);
    std::size_t wrong = 0;
    for (unsigned y = 0; y < kHeight; ++y) {
      for (unsigned x = 0; x < kWidth; ++x) {
        const int tx = static_cast<int>(x) - static_cast<int>(c.x0), ty = static_cast<int>(y) - static_cast<int>(c.y0);
        const bool inside = tx >= 0 && ty >= 0 && tx < static_cast<int>(c.side) && ty < static_cast<int>(c.side);
        const std::uint32_t expected = inside ? t[static_cast<std::size_t>(ty) * c.side + tx] : kClear;
        wrong += fb[y * kWidth + x] != expected;
      }
    }
    EXPECT_EQ(wrong, 0u) << c.side << "x" << c.side;
  }
  EXPECT_EQ(soc.v3d()->renderer().fragments_shaded(), 16u * 16u + 32u * 32u);
}

// A texture type the sampler does not model (ETC1) stops the render thread with CTERR and the sampler's error, as a
// fragment shader's error does.
TEST(Vc4Textures, AnUnmodelledTextureTypeStopsTheRenderThread) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  Vc4Driver d(port);
  bool done = true;
  test::run_thread([&] {
    d.enable_interrupts();
    d.supply_overspill();
    Vc4Driver::Texture texture = d.upload_texture(16, 16, texels(16, 16));
    texture.p0 |= 8U << 4;  // TYPE 8: ETC1
    Vc4Driver::Buffer fb;
    done = render(d, quad(8, 8, 16, texture), fb);
    EXPECT_EQ(port.read32(0xE1000000 + vc4::kV3dCtnCs(1)) & vc4::ControlListExecutor::kCtErr,
              vc4::ControlListExecutor::kCtErr);
  });
  EXPECT_FALSE(done);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "CT1 (rendering): fragment shader:").size(), 1u);
  EXPECT_GE(test::take_reports(sc_core::SC_ERROR, "texture type 8 (ETC1) is not modelled").size(), 1u);
}

}  // namespace
