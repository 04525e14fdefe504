// Renders a host::Vc4Scene as the vc4 driver model does for a frame (tb/host/vc4_driver.h): its binning list with
// the kernel's bin memory set-up, the kernel's render list over every binned tile into a fresh RGBA8888 frame cleared
// to `clear` (Z `clear_z`), submitted and waited for; then the frame's pixels. For scene tests on a live platform
// (call inside test::run_thread).
#pragma once

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "platform/platform.h"
#include "tb/host/vc4_driver.h"

namespace gpuvp::test {

struct SceneFrame {
  host::Vc4Driver::Buffer fb;
  host::Vc4Driver::BinSetup bin;  // where the binner's tile lists went
  bool done = false;              // FRDONE came within the time-out
};

inline SceneFrame render_scene(host::Vc4Driver& d, const host::Vc4Scene& s, std::uint32_t clear,
                               std::uint32_t clear_z = 0xFFFFFF, std::uint64_t timeout_ns = 2'000'000) {
  SceneFrame f;
  f.fb = d.alloc(s.width * s.height * 4);
  std::vector<std::uint8_t> bin = d.build_bin_cl(s);
  const host::Vc4Driver::BinSetup setup = d.bin_setup(bin);
  f.bin = setup;
  host::Vc4RenderSetup r;
  r.color_address = f.fb.addr;
  r.width = s.width;
  r.height = s.height;
  r.use_clear_color = true;
  r.clear_color[0] = r.clear_color[1] = clear;
  r.clear_z = clear_z;
  r.has_bin = true;
  r.tile_alloc = setup.tile_alloc;
  r.bin_tiles_x = setup.tiles_x;
  r.bin_tiles_y = setup.tiles_y;
  r.max_x_tile = setup.tiles_x - 1;
  r.max_y_tile = setup.tiles_y - 1;
  EXPECT_EQ(host::Vc4Driver::validate_render_setup(r), "");
  d.submit(bin, host::Vc4Driver::build_render_cl(r));
  f.done = d.wait_frame(timeout_ns);
  return f;
}

// The frame's pixels as the platform's DRAM holds them (0xAARRGGBB words, row 0 first).
inline std::vector<std::uint32_t> frame_pixels(platform::Platform& soc, const SceneFrame& f, unsigned width,
                                               unsigned height) {
  std::vector<std::uint32_t> pixels(std::size_t{width} * height);
  soc.dram().store().read(f.fb.addr, reinterpret_cast<std::uint8_t*>(pixels.data()), pixels.size() * 4);
  return pixels;
}

}  // namespace gpuvp::test
