// Shared pieces of the vc4 binner/renderer tests: a V3D on a bus with DRAM and a host initiator, a control list
// builder, and a decoder of the tile lists the binner writes (following BRANCH between blocks).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tb/host/vc4_driver.h"
#include "tests/support/sc_test.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/compressed_list.h"
#include "tlm/vc4/v3d.h"

namespace gpuvp::test::vc4t {

namespace pk = vc4::packet;

constexpr std::uint64_t kV3d = 0xE100'0000;
constexpr std::uint64_t kDramSize = 16ULL << 20;

inline void le(std::vector<std::uint8_t>& out, std::uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
inline std::uint32_t f32_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// A control list under construction at a fixed address.
struct List {
  std::uint32_t base;
  std::vector<std::uint8_t> bytes;
  std::uint32_t here() const { return base + static_cast<std::uint32_t>(bytes.size()); }
  List& op(std::uint8_t opcode) {
    bytes.push_back(opcode);
    return *this;
  }
  List& u8(std::uint8_t v) {
    bytes.push_back(v);
    return *this;
  }
  List& u16(std::uint16_t v) {
    le(bytes, v, 2);
    return *this;
  }
  List& u32(std::uint32_t v) {
    le(bytes, v, 4);
    return *this;
  }
  // TILE_BINNING_MODE_CONFIG
  List& bin_config(std::uint32_t alloc, std::uint32_t size, std::uint32_t tsda, std::uint8_t w, std::uint8_t h,
                   std::uint8_t flags) {
    return op(pk::kTileBinningModeConfig).u32(alloc).u32(size).u32(tsda).u8(w).u8(h).u8(flags);
  }
  List& clip(std::uint16_t l, std::uint16_t b, std::uint16_t w, std::uint16_t h) {
    return op(pk::kClipWindow).u16(l).u16(b).u16(w).u16(h);
  }
  List& config_bits(std::uint8_t b0, std::uint8_t b1 = 0, std::uint8_t b2 = 0) {
    return op(pk::kConfigurationBits).u8(b0).u8(b1).u8(b2);
  }
  List& viewport(std::int16_t x, std::int16_t y) {
    return op(pk::kViewportOffset).u16(static_cast<std::uint16_t>(x)).u16(static_cast<std::uint16_t>(y));
  }
  List& nv_state(std::uint32_t record) { return op(pk::kNvShaderState).u32(record); }
  List& format(std::uint8_t f) { return op(pk::kPrimitiveListFormat).u8(f); }
  List& array(std::uint8_t mode, std::uint32_t count, std::uint32_t first) {
    return op(pk::kGlArrayPrimitive).u8(mode).u32(count).u32(first);
  }
  List& indexed(std::uint8_t mode_type, std::uint32_t count, std::uint32_t address, std::uint32_t max_index) {
    return op(pk::kGlIndexedPrimitive).u8(mode_type).u32(count).u32(address).u32(max_index);
  }
};

// One decoded tile list.
struct TileList {
  std::vector<std::uint8_t> ops;                    // packets outside compressed runs, in order
  std::vector<std::vector<std::uint16_t>> entries;  // decoded primitives (1, 2 or 3 indices)
  std::vector<std::vector<std::uint8_t>> raw;       // the entries' bytes as written
  std::vector<std::uint32_t> branches;              // BRANCH targets (chained blocks)
  // CLIPPED_COMPRESSED_PRIMITIVE runs: the index in `entries` of the primitive the record applies to, and the word
  // (record address | flags).
  std::vector<std::pair<std::size_t, std::uint32_t>> clipped;
  bool returned = false;  // ended with RETURN_FROM_SUB_LIST
  std::string error;
};

// Decodes a tile list from its first block, following BRANCH (the binner's block chaining), up to its RETURN;
// `read(address, n)` reads memory and `format` is the PRIMITIVE_LIST_FORMAT in effect (updated).
inline TileList decode_tile_list(const std::function<std::vector<std::uint8_t>(std::uint32_t, std::size_t)>& read,
                                 std::uint32_t address, std::uint8_t& format) {
  const auto word = [&](std::uint32_t a) {
    const std::vector<std::uint8_t> b = read(a, 4);
    return static_cast<std::uint32_t>(b[0] | b[1] << 8 | b[2] << 16 | static_cast<std::uint32_t>(b[3]) << 24);
  };
  TileList t;
  std::uint32_t a = address;
  for (int guard = 0; guard < 100000; ++guard) {
    const std::uint8_t op = read(a, 1)[0];
    if (op == pk::kReturnFromSubList) {
      t.returned = true;
      return t;
    }
    if (op == pk::kBranch) {
      const std::uint32_t target = word(a + 1);
      t.branches.push_back(target);
      a = target;
      continue;
    }
    if (op == pk::kCompressedPrimitive || op == pk::kClippedCompressedPrimitive) {
      if (op == pk::kClippedCompressedPrimitive) {
        t.clipped.emplace_back(t.entries.size(), word(a + 1));
        a += 4;
      }
      ++a;
      vc4::compressed::Primitive prev;
      for (;;) {
        const std::uint8_t e = read(a, 1)[0];
        if (e == 0x80) {
          ++a;
          break;
        }
        // Every coding, decoded against the previous primitive of the run (the codec's exact bytes are checked
        // against hand-made vectors in test_tile_binner.cpp).
        const unsigned len = vc4::compressed::entry_length(format, e);
        if (len == 0 || e == vc4::compressed::kRelativeBranch) {
          t.error = "unexpected compressed entry " + std::to_string(e);
          return t;
        }
        const std::vector<std::uint8_t> bytes = read(a, len);
        vc4::compressed::Primitive p;
        if (!vc4::compressed::decode(format, bytes.data(), prev, p, t.error)) return t;
        t.entries.emplace_back(p.index.begin(), p.index.begin() + p.vertices);
        t.raw.push_back(bytes);
        prev = p;
        a += len;
      }
      continue;
    }
    const vc4::PacketInfo* info = vc4::packet_info(op);
    if (!info || info->length == 0) {
      t.error = "unexpected opcode " + std::to_string(op);
      return t;
    }
    if (op == pk::kPrimitiveListFormat) format = read(a + 1, 1)[0];
    t.ops.push_back(op);
    a += info->length;
  }
  t.error = "no RETURN";
  return t;
}

class Vc4Fixture : public ::testing::Test {
 protected:
  static vc4::V3dParams default_params() {
    vc4::V3dParams p;
    p.cle.hang_timeout_ns = 20'000;
    return p;
  }
  explicit Vc4Fixture(vc4::V3dParams params = default_params())
      : bus_("bus"), dram_("dram", dram_params()), host_("host"), v3d_("v3d", params) {
    bus_.attach_initiator(host_.socket, "host");
    bus_.attach_initiator(v3d_.memory.socket, "v3d");
    bus_.attach_target(dram_.socket, "dram", 0, kDramSize, {2, 32});
    bus_.attach_target(v3d_.socket, "v3d", kV3d, vc4::kV3dWindowSize, {2, 4});
    v3d_.set_dram(0, kDramSize);
  }
  static core::MemoryParams dram_params() {
    core::MemoryParams p;
    p.size = kDramSize;
    return p;
  }
  std::uint32_t rd(std::uint32_t offset) {
    tlm::tlm_response_status s;
    const auto v = host_.read_value<std::uint32_t>(kV3d + offset, &s);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    return v;
  }
  void wr(std::uint32_t offset, std::uint32_t v) {
    ASSERT_EQ(host_.write_value<std::uint32_t>(kV3d + offset, v), tlm::TLM_OK_RESPONSE);
  }
  void put(const List& l) { dram_.store().write(l.base, l.bytes.data(), l.bytes.size()); }
  void put(std::uint32_t a, const std::vector<std::uint8_t>& b) { dram_.store().write(a, b.data(), b.size()); }
  std::vector<std::uint8_t> get(std::uint32_t a, std::size_t n) {
    std::vector<std::uint8_t> b(n);
    dram_.store().read(a, b.data(), n);
    return b;
  }
  std::uint32_t word(std::uint32_t a) {
    std::uint32_t v = 0;
    dram_.store().read(a, reinterpret_cast<std::uint8_t*>(&v), 4);
    return v;
  }
  void submit(unsigned n, std::uint32_t ca, std::uint32_t ea) {
    wr(vc4::kV3dCtnCa(n), ca);
    wr(vc4::kV3dCtnEa(n), ea);
  }
  void submit(unsigned n, const List& l) { submit(n, l.base, l.here()); }
  void settle(double us = 20) { sc_core::wait(sc_core::sc_time(us, sc_core::SC_US)); }
  // Puts a list in memory and runs it on CT`thread` for `us`; `after` runs in the simulation once it has settled
  // (register reads need a thread).
  void run_list(unsigned thread, const List& l, double us, const std::function<void()>& after = {}) {
    put(l);
    test::run_thread([&] {
      submit(thread, l);
      settle(us);
      if (after) after();
    });
  }
  std::size_t errors(const std::string& text) { return take_reports(sc_core::SC_ERROR, text).size(); }
  std::size_t warnings(const std::string& text) { return take_reports(sc_core::SC_WARNING, text).size(); }

  // NV shader record at `record` (16 bytes) for vertices at `data` with a 12-byte stride (X, Y 12.4; Z; 1/W).
  // The record, and its flat fragment shader (host::flat_color_fragment_shader, `color`) 32 bytes after it.
  void nv_record(std::uint32_t record, std::uint32_t data, std::uint8_t flags = 0, std::uint8_t stride = 12,
                 std::uint32_t color = 0xFFFFFFFF) {
    std::vector<std::uint8_t> r = {flags, stride, 0, 0};
    le(r, record + 0x20, 4);
    le(r, 0, 4);
    le(r, data, 4);
    put(record, r);
    std::vector<std::uint8_t> code;
    for (const std::uint64_t inst : host::flat_color_fragment_shader(color)) le(code, inst, 8);
    put(record + 0x20, code);
  }
  // Vertices in pixels (converted to 12.4), stride 12.
  void vertices(std::uint32_t data, const std::vector<std::array<int, 2>>& px) {
    std::vector<std::uint8_t> b;
    for (const auto& p : px) {
      le(b, static_cast<std::uint16_t>(p[0] * 16), 2);
      le(b, static_cast<std::uint16_t>(p[1] * 16), 2);
      le(b, f32_bits(0.5f), 4);
      le(b, f32_bits(1.0f), 4);
    }
    put(data, b);
  }

  // Decodes a tile list from its first block (decode_tile_list).
  TileList decode(std::uint32_t address) {
    return decode_tile_list([this](std::uint32_t a, std::size_t n) { return get(a, n); }, address, current_format_);
  }

  core::Bus bus_;
  core::Memory dram_;
  core::Initiator host_;
  vc4::V3d v3d_;
  std::uint8_t current_format_ = 0x12;
};

}  // namespace gpuvp::test::vc4t
