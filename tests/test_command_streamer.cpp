// Command streamer: every modelled command with its exact memory and register effect, batch buffers and their
// nesting rules, the ring (wrap, empty, a command straddling TAIL), errors, hangs and i915's engine reset, and the
// Gen8/Gen9 differences. The GPU is driven the way a driver drives it: host::I915Driver over a BusHostPort allocates
// GGTT buffers, builds rings, emits commands with the gen::mi encoders, submits by TAIL writes and waits for the
// breadcrumb; results are read back from DRAM and MMIO. Expected values are worked out by hand in the comments
// (docs/gen-command-streamer.md: i915 gt/intel_engine_regs.h, Mesa genxml, GVT-g gvt/interrupt.c and gvt/cmd_parser.c).
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/core/timing.h"
#include "tlm/gen/gen_gpu.h"
#include "tlm/gen/mi_atomic.h"
#include "tlm/gen/mi_math.h"

using namespace gpuvp;
namespace mi = gen::mi;
namespace er = gen::engine_reg;
using gen::Engine;
using gen::GtInterrupts;
using gen::MiMathAlu;
using Buffer = host::I915Driver::Buffer;
using Ring = host::I915Driver::Ring;
using State = gen::CommandStreamer::State;

namespace {

constexpr std::uint64_t kBar = 0xE000'0000;
constexpr std::uint64_t kDramSize = 1ULL << 30;           // 1 GiB
constexpr std::uint64_t kGsm = kDramSize - (8ULL << 20);  // top 8 MiB: the 4 GiB GGTT's entries
constexpr std::uint64_t kWaitNs = 1'000'000;              // generous: every submission here takes a few us
constexpr std::uint64_t kUnmapped = 0x3000'0000;          // GGTT address no test maps (the driver hands out 1 MiB up)

// GEN8_GT_IIR / IMR / IER of a bank, GEN8_MASTER_IRQ.
constexpr std::uint32_t iir(int bank) { return GtInterrupts::kGtIsrBase + 0x10 * static_cast<std::uint32_t>(bank) + 8; }
constexpr std::uint32_t imr(int bank) { return GtInterrupts::kGtIsrBase + 0x10 * static_cast<std::uint32_t>(bank) + 4; }
constexpr std::uint32_t ier(int bank) {
  return GtInterrupts::kGtIsrBase + 0x10 * static_cast<std::uint32_t>(bank) + 0xC;
}

constexpr std::uint32_t masked_enable(std::uint32_t bits) { return bits << 16 | bits; }
constexpr std::uint32_t masked_disable(std::uint32_t bits) { return bits << 16; }

gen::GenGpuParams gpu_params(std::uint32_t generation = 9, std::uint64_t hang_timeout_ns = 10'000'000) {
  gen::GenGpuParams p;
  p.generation = generation;
  p.cs.hang_timeout_ns = hang_timeout_ns;
  return p;
}

// Host CPU, DRAM and the Gen BAR on one bus; the driver model on the host.
class CommandStreamerTest : public ::testing::Test {
 protected:
  explicit CommandStreamerTest(gen::GenGpuParams params = gpu_params())
      : bus_("bus"), dram_("dram", dram_params()), host_("host"), gpu_("gen", params, kGsm), port_(host_), drv_(port_) {
    bus_.attach_initiator(host_.socket, "host");
    bus_.attach_initiator(gpu_.memory.socket, "gen");
    bus_.attach_target(dram_.socket, "dram", 0, kDramSize, {2, 32});
    bus_.attach_target(gpu_.socket, "bar", kBar, gen::kBarSize, {2, 4});
  }
  void TearDown() override {
    for (const auto& f : port_.failures()) ADD_FAILURE() << "host port: " << f;
  }
  static core::MemoryParams dram_params() {
    core::MemoryParams p;
    p.size = kDramSize;
    return p;
  }

  static std::uint32_t base(Engine e) { return gen::engine_info(e).mmio_base; }
  static std::uint32_t gpr(Engine e, unsigned n) { return base(e) + er::kGpr0 + 8 * n; }
  std::uint32_t mmio(std::uint32_t offset) { return drv_.mmio_read(offset); }
  // An interrupt follows the store that precedes it by a few cycles: a driver that saw the store polls for it.
  bool wait_mmio(std::uint32_t offset, std::uint32_t value, std::uint32_t mask = ~0u) {
    return port_.wait_for32(kBar + offset, value, mask, 1'000);
  }
  void mmio_write(std::uint32_t offset, std::uint32_t value) { drv_.mmio_write(offset, value); }
  std::uint32_t reg(Engine e, std::uint32_t offset) { return mmio(base(e) + offset); }
  gen::CommandStreamer& cs(Engine e) { return *gpu_.engine(e); }

  // Results as the host reads them back from DRAM.
  std::uint32_t mem32(std::uint64_t phys) { return port_.read32(phys); }
  std::uint64_t mem64(std::uint64_t phys) { return std::uint64_t{mem32(phys + 4)} << 32 | mem32(phys); }
  void put32(std::uint64_t phys, std::uint32_t v) { port_.write32(phys, v); }

  // One ring per engine, created on first use (16 KiB, as i915's legacy rings).
  Ring& ring(Engine e, std::uint32_t size = 16 * 1024) {
    Ring*& r = rings_[static_cast<int>(e)];
    if (!r) r = &drv_.create_ring(e, size);
    return *r;
  }
  Buffer buffer(std::uint64_t size = 4096) {
    const Buffer b = drv_.alloc(size);
    drv_.fill(b, 0);
    return b;
  }
  // A GGTT batch holding cmds (no MI_BATCH_BUFFER_END is added).
  Buffer batch(const std::vector<std::uint32_t>& cmds) {
    const Buffer b = drv_.alloc((cmds.size() * 4 + 4095) & ~std::size_t{4095});
    drv_.upload(b, 0, cmds);
    return b;
  }
  void emit(Engine e, const std::vector<std::uint32_t>& cmd) { drv_.emit(ring(e), cmd); }
  // Emits cmds, a breadcrumb, submits and waits for it.
  bool run_ring(Engine e, const std::vector<std::uint32_t>& cmds) {
    Ring& r = ring(e);
    if (!cmds.empty()) drv_.emit(r, cmds);
    const std::uint32_t seqno = drv_.emit_breadcrumb(r);
    drv_.submit(r);
    bool done = drv_.wait_seqno(r, seqno, kWaitNs);
    EXPECT_TRUE(done) << gen::engine_info(e).name << " did not reach seqno " << seqno;
    // The seqno lands before the breadcrumb's MI_USER_INTERRUPT runs: wait for the engine to go idle (MI_MODE bit
    // 9) as well, so that every effect of the submission is visible.
    done = done && wait_reg(r.mmio_base + er::kMiMode, er::kModeIdle, er::kModeIdle);
    EXPECT_TRUE(done) << gen::engine_info(e).name << " did not go idle";
    return done;
  }
  // cmds + MI_BATCH_BUFFER_END in a GGTT batch, started from the ring.
  bool run_batch(Engine e, std::vector<std::uint32_t> cmds) {
    mi::emit(cmds, mi::batch_buffer_end());
    const Buffer b = batch(cmds);
    return run_ring(e, mi::batch_buffer_start(b.gfx, false));
  }
  // i915's legacy ring (re)initialisation after a reset: CTL 0, HEAD 0, TAIL 0, START, HWS_PGA, CTL = size | valid.
  void reinit_ring(Ring& r) {
    const std::uint32_t b = r.mmio_base;
    mmio_write(b + er::kCtl, 0);
    mmio_write(b + er::kHead, 0);
    mmio_write(b + er::kTail, 0);
    mmio_write(b + er::kStart, static_cast<std::uint32_t>(r.buffer.gfx));
    mmio_write(b + er::kHwsPga, static_cast<std::uint32_t>(r.status_page.gfx));
    mmio_write(b + er::kCtl, (r.size - 4096) | 1);
    r.tail = 0;
  }
  // i915 gen8 engine reset: RING_RESET_CTL REQUEST_RESET, wait READY_TO_RESET, GDRST domain bit, wait for it to
  // clear, cancel the request.
  void reset_engine(Engine e) {
    const std::uint32_t ctl = base(e) + er::kResetCtl;
    mmio_write(ctl, masked_enable(er::kRequestReset));
    EXPECT_EQ(mmio(ctl), er::kRequestReset | er::kReadyToReset);  // 0x3: requested and ready
    mmio_write(gen::kGdrst, gen::engine_info(e).reset_domain);
    EXPECT_EQ(mmio(gen::kGdrst), 0u);  // the model resets at once
    mmio_write(ctl, masked_disable(er::kRequestReset));
    EXPECT_EQ(mmio(ctl), 0u);
    EXPECT_EQ(cs(e).state(), State::kIdle);
  }
  void wait_ns(std::uint64_t ns) {
    host_.sync();
    sc_core::wait(core::to_sc_time(ns * core::kPsPerNs));
  }
  core::Picoseconds host_now() {
    host_.sync();
    return core::now_ps();
  }
  // Waits for an MMIO register to read value under mask.
  bool wait_reg(std::uint32_t offset, std::uint32_t value, std::uint32_t mask = ~0u) {
    return port_.wait_for32(kBar + offset, value, mask, kWaitNs);
  }
  std::size_t take_errors(const std::string& text) { return test::take_reports(sc_core::SC_ERROR, text).size(); }
  std::size_t take_warnings(const std::string& text) { return test::take_reports(sc_core::SC_WARNING, text).size(); }
  static std::uint64_t counter(const std::string& path) { return core::stats().counter_value(path); }

  core::Bus bus_;
  core::Memory dram_;
  core::Initiator host_;
  gen::GenGpu gpu_;
  host::BusHostPort port_;
  host::I915Driver drv_;
  std::array<Ring*, gen::kEngineCount> rings_{};
};

class CommandStreamerGen8Test : public CommandStreamerTest {
 protected:
  CommandStreamerGen8Test() : CommandStreamerTest(gpu_params(8)) {}
};

// A short hang time-out: 20 us.
class CommandStreamerHangTest : public CommandStreamerTest {
 protected:
  CommandStreamerHangTest() : CommandStreamerTest(gpu_params(9, 20'000)) {}
};

// The platform's default temporal decoupling (1 us quantum), set before the engines read it.
struct QuantumSetter {
  explicit QuantumSetter(core::Picoseconds ps) { core::set_global_quantum(ps); }
};
class CommandStreamerQuantumTest : public QuantumSetter, public CommandStreamerTest {
 protected:
  CommandStreamerQuantumTest() : QuantumSetter(1000 * core::kPsPerNs), CommandStreamerTest() {}
};

std::uint64_t ticks_gen9(core::Picoseconds ps) { return ps * 12 / 1'000'000; }  // 12 MHz: 12e6 / 1e12 per ps
std::uint64_t ticks_gen8(core::Picoseconds ps) { return ps / 80'000; }          // 12.5 MHz: one tick per 80 ns

}  // namespace

// ---- single commands ----

TEST_F(CommandStreamerTest, NoopWithIdentificationWritesNopid) {
  test::run_thread([&] {
    // DW0 = bit 22 (identification write enable) | 0x3ABCDE in bits 21:0 = 0x007ABCDE; NOPID gets bits 21:0.
    ASSERT_TRUE(run_ring(Engine::kRcs, {mi::kNoopIdentify | 0x3ABCDE}));
    EXPECT_EQ(reg(Engine::kRcs, er::kNopid), 0x3ABCDEu);
    // A plain MI_NOOP (bit 22 clear, ID bits set) leaves NOPID alone.
    ASSERT_TRUE(run_ring(Engine::kRcs, {0x00012345}));
    EXPECT_EQ(reg(Engine::kRcs, er::kNopid), 0x3ABCDEu);
    // Another engine's NOPID is its own: BCS at 0x22094 is still 0.
    EXPECT_EQ(reg(Engine::kBcs, er::kNopid), 0u);
  });
}

TEST_F(CommandStreamerTest, UserInterruptLatchesTheEnginesIirBitAndRaisesTheHostLine) {
  struct Case {
    Engine engine;
    int bank;
    std::uint32_t iir_bit;     // GT_RENDER_USER_INTERRUPT (bit 0) at the engine's shift
    std::uint32_t master_bit;  // GEN8_MASTER_IRQ source bit
  };
  // i915: RCS bank 0 shift 0, BCS bank 0 shift 16, VCS0 bank 1 shift 0, VCS1 bank 1 shift 16, VECS bank 3 shift 0;
  // master bits GEN8_GT_RCS_IRQ 0, BCS 1, VCS0 2, VCS1 3, VECS 6.
  const Case cases[] = {{Engine::kRcs, 0, 1u << 0, 1u << 0},
                        {Engine::kBcs, 0, 1u << 16, 1u << 1},
                        {Engine::kVcs0, 1, 1u << 0, 1u << 2},
                        {Engine::kVcs1, 1, 1u << 16, 1u << 3},
                        {Engine::kVecs, 3, 1u << 0, 1u << 6}};
  test::run_thread([&] {
    for (const Case& c : cases) {
      SCOPED_TRACE(gen::engine_info(c.engine).name);
      drv_.enable_interrupts(c.engine);
      EXPECT_FALSE(gpu_.irq().level());
      ASSERT_TRUE(run_ring(c.engine, mi::user_interrupt()));
      EXPECT_EQ(mmio(iir(c.bank)), c.iir_bit);
      EXPECT_EQ(mmio(GtInterrupts::kMasterIrq), GtInterrupts::kMasterEnable | c.master_bit);
      EXPECT_TRUE(gpu_.irq().level());
      // i915's handler writes the IIR value back (write one to clear): the line drops.
      mmio_write(iir(c.bank), c.iir_bit);
      EXPECT_EQ(mmio(iir(c.bank)), 0u);
      EXPECT_EQ(mmio(GtInterrupts::kMasterIrq), GtInterrupts::kMasterEnable);
      EXPECT_FALSE(gpu_.irq().level());
    }
  });
  // Two user interrupts per engine: the command and the breadcrumb's.
  EXPECT_EQ(cs(Engine::kVecs).commands_executed(), 5u);  // UI, SDI, UI, NOOP, NOOP (4 + 28 = 32 bytes, no pad)
  EXPECT_EQ(counter("gen.vecs.user_interrupts"), 2u);
}

TEST_F(CommandStreamerTest, MaskedUserInterruptIsNotLatchedAndTheMasterEnableGatesTheLine) {
  test::run_thread([&] {
    // Reset state: IMR all ones. Enable RCS user interrupts in IER only.
    mmio_write(ier(0), 1);
    ASSERT_TRUE(run_ring(Engine::kRcs, mi::user_interrupt()));
    EXPECT_EQ(mmio(iir(0)), 0u);  // masked: not latched (GVT propagate_event)
    EXPECT_EQ(mmio(GtInterrupts::kMasterIrq), 0u);
    // Unmask bit 0: the next one latches, the master reports RCS pending (bit 0) but the line stays low while the
    // master enable (bit 31) is clear.
    mmio_write(imr(0), ~1u);
    ASSERT_TRUE(run_ring(Engine::kRcs, mi::user_interrupt()));
    EXPECT_EQ(mmio(iir(0)), 1u);
    EXPECT_EQ(mmio(GtInterrupts::kMasterIrq), 1u);
    EXPECT_FALSE(gpu_.irq().level());
    mmio_write(GtInterrupts::kMasterIrq, GtInterrupts::kMasterEnable);
    EXPECT_EQ(mmio(GtInterrupts::kMasterIrq), 0x8000'0001u);
    EXPECT_TRUE(gpu_.irq().level());
    mmio_write(GtInterrupts::kMasterIrq, 0);
    EXPECT_FALSE(gpu_.irq().level());
  });
  // Four events reported by RCS (two runs of UI + breadcrumb UI), whether masked or not.
  EXPECT_EQ(counter("gen.rcs.events"), 4u);
}

TEST_F(CommandStreamerTest, StoreDataImmWritesADwordAndAQwordThroughTheGgtt) {
  test::run_thread([&] {
    const Buffer b = drv_.alloc(4096);
    drv_.fill(b, 0xAA);
    ASSERT_TRUE(run_ring(Engine::kBcs, mi::store_data_imm(b.gfx + 0x10, 0xDEADBEEF)));
    std::vector<std::uint32_t> cmds = mi::store_qword_imm(b.gfx + 0x18, 0x0123'4567'89AB'CDEFull);
    ASSERT_EQ(cmds[0], 0x10600003u);  // opcode 0x20 << 23 | GGTT bit 22 | qword bit 21 | length 3
    ASSERT_TRUE(run_ring(Engine::kBcs, cmds));
    EXPECT_EQ(mem32(b.phys + 0x0C), 0xAAAAAAAAu);  // neighbours untouched
    EXPECT_EQ(mem32(b.phys + 0x10), 0xDEADBEEFu);
    EXPECT_EQ(mem32(b.phys + 0x14), 0xAAAAAAAAu);
    EXPECT_EQ(mem32(b.phys + 0x18), 0x89ABCDEFu);  // low dword first (little endian)
    EXPECT_EQ(mem32(b.phys + 0x1C), 0x01234567u);
    EXPECT_EQ(mem32(b.phys + 0x20), 0xAAAAAAAAu);
  });
}

TEST_F(CommandStreamerTest, StoreDataIndexWritesIntoTheStatusPage) {
  test::run_thread([&] {
    Ring& r = ring(Engine::kVcs0);
    // Dword index 0x30: byte offset 0xC0 of the status page (HWS_PGA).
    std::vector<std::uint32_t> cmds = mi::store_data_index(0x30, 0xCAFE0030);
    // Qword form: length 2, offset 0xE0, two data dwords.
    mi::emit(cmds, {mi::instr(mi::kStoreDataIndex, 2) | mi::kStoreQword, 0xE0, 0x11110000, 0x22220000});
    ASSERT_TRUE(run_ring(Engine::kVcs0, cmds));
    EXPECT_EQ(reg(Engine::kVcs0, er::kHwsPga), static_cast<std::uint32_t>(r.status_page.gfx));
    EXPECT_EQ(mem32(r.status_page.phys + 0xC0), 0xCAFE0030u);
    EXPECT_EQ(mem32(r.status_page.phys + 0xE0), 0x11110000u);
    EXPECT_EQ(mem32(r.status_page.phys + 0xE4), 0x22220000u);
    EXPECT_EQ(mem32(r.status_page.phys + 0xBC), 0u);
  });
}

TEST_F(CommandStreamerTest, LoadRegisterImmWritesSeveralPairsAndHonoursByteWriteDisables) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    std::vector<std::uint32_t> cmds =
        mi::load_register_imm({{gpr(e, 0), 0x11223344}, {gpr(e, 0) + 4, 0x55667788}, {gpr(e, 1), 0xA5A5A5A5}});
    ASSERT_EQ(cmds[0], 0x11000005u);  // 0x22 << 23, length 2 * 3 - 1 = 5
    // Disables 0b0101 keep bytes 0 and 2: of 0x01020304 only byte 1 (0x03) and byte 3 (0x01) land, so
    // 0xA5A5A5A5 becomes 0x01A503A5.
    mi::emit(cmds, mi::load_register_imm({{gpr(e, 1), 0x01020304}}, 0b0101));
    ASSERT_EQ(cmds[7], 0x11000501u);
    ASSERT_TRUE(run_ring(e, cmds));
    EXPECT_EQ(mmio(gpr(e, 0)), 0x11223344u);
    EXPECT_EQ(mmio(gpr(e, 0) + 4), 0x55667788u);
    EXPECT_EQ(mmio(gpr(e, 1)), 0x01A503A5u);
    EXPECT_EQ(mmio(gpr(e, 1) + 4), 0u);
  });
}

TEST_F(CommandStreamerTest, StoreRegisterMemAndLoadRegisterMemRoundTrip) {
  const Engine e = Engine::kVecs;
  test::run_thread([&] {
    const Buffer b = buffer();
    put32(b.phys + 4, 0x13579BDF);
    std::vector<std::uint32_t> cmds = mi::load_register_imm({{gpr(e, 3), 0xFEEDC0DE}});
    mi::emit(cmds, mi::store_register_mem(gpr(e, 3), b.gfx + 0));     // GPR3 -> memory
    mi::emit(cmds, mi::load_register_mem(gpr(e, 5), b.gfx + 4));      // memory -> GPR5
    mi::emit(cmds, mi::store_register_mem(gpr(e, 5), b.gfx + 8));     // GPR5 -> memory
    mi::emit(cmds, mi::load_register_mem(gpr(e, 6) + 4, b.gfx + 0));  // memory -> GPR6 high dword
    ASSERT_TRUE(run_batch(e, cmds));
    EXPECT_EQ(mem32(b.phys + 0), 0xFEEDC0DEu);
    EXPECT_EQ(mem32(b.phys + 8), 0x13579BDFu);
    EXPECT_EQ(mmio(gpr(e, 5)), 0x13579BDFu);
    EXPECT_EQ(mmio(gpr(e, 6)), 0u);
    EXPECT_EQ(mmio(gpr(e, 6) + 4), 0xFEEDC0DEu);
  });
}

TEST_F(CommandStreamerTest, MiMathAddsSubtractsAndAndsTheCsGprs) {
  const Engine e = Engine::kRcs;
  using A = MiMathAlu;
  test::run_thread([&] {
    const Buffer b = buffer();
    // R0 = 0x1_FFFFFFF0, R1 = 0x30.
    std::vector<std::uint32_t> cmds =
        mi::load_register_imm({{gpr(e, 0), 0xFFFFFFF0}, {gpr(e, 0) + 4, 1}, {gpr(e, 1), 0x30}, {gpr(e, 1) + 4, 0}});
    mi::emit(cmds, mi::math({A::encode(A::kLoad, A::kSrcA, 0), A::encode(A::kLoad, A::kSrcB, 1),
                             A::encode(A::kAdd, 0, 0), A::encode(A::kStore, 2, A::kAccu),  // R2 = R0 + R1
                             A::encode(A::kLoad, A::kSrcA, 0), A::encode(A::kLoad, A::kSrcB, 1),
                             A::encode(A::kSub, 0, 0), A::encode(A::kStore, 3, A::kAccu),  // R3 = R0 - R1
                             A::encode(A::kLoad, A::kSrcA, 0), A::encode(A::kLoad, A::kSrcB, 1),
                             A::encode(A::kAnd, 0, 0), A::encode(A::kStore, 4, A::kAccu)}));  // R4 = R0 & R1
    ASSERT_EQ(cmds[9], 0x0D00000Bu);  // MI_MATH, 12 ALU dwords: length 11
    mi::emit(cmds, mi::store_register_mem(gpr(e, 2), b.gfx + 0));
    mi::emit(cmds, mi::store_register_mem(gpr(e, 2) + 4, b.gfx + 4));
    ASSERT_TRUE(run_batch(e, cmds));
    // 0x1_FFFFFFF0 + 0x30 = 0x2_00000020 (carry into the high dword).
    EXPECT_EQ(mmio(gpr(e, 2)), 0x00000020u);
    EXPECT_EQ(mmio(gpr(e, 2) + 4), 2u);
    EXPECT_EQ(mem64(b.phys), 0x2'0000'0020ull);
    // 0x1_FFFFFFF0 - 0x30 = 0x1_FFFFFFC0.
    EXPECT_EQ(mmio(gpr(e, 3)), 0xFFFFFFC0u);
    EXPECT_EQ(mmio(gpr(e, 3) + 4), 1u);
    // 0x1_FFFFFFF0 & 0x30 = 0x30.
    EXPECT_EQ(mmio(gpr(e, 4)), 0x30u);
    EXPECT_EQ(mmio(gpr(e, 4) + 4), 0u);
  });
}

TEST_F(CommandStreamerTest, MiAtomicAddIncAndCompareWriteWithInlineDataAndGprOperands) {
  const Engine e = Engine::kRcs;
  namespace op = gen::atomic_op;
  test::run_thread([&] {
    const Buffer b = buffer();
    put32(b.phys + 0x00, 100);
    put32(b.phys + 0x04, 7);
    put32(b.phys + 0x08, 0x55);
    put32(b.phys + 0x0C, 5);
    put32(b.phys + 0x10, 0xFFFFFFFF);  // qword 0x00000000_FFFFFFFF
    std::vector<std::uint32_t> cmds = mi::load_register_imm({{gpr(e, 4), 0}, {gpr(e, 4) + 4, 0xDDDDDDDD}});
    // ADD 23 with return data: memory 100 -> 123, CS_GPR4[31:0] = 100 (the old value); Gen9 keeps GPR4[63:32].
    std::vector<std::uint32_t> add = mi::atomic(op::kAdd, b.gfx + 0x00, true, false, true, 23, 0, true);
    EXPECT_EQ(add[0], 0x17C50703u);  // 0x2F << 23 | GGTT | inline | return | ADD << 8 | length 3
    mi::emit(cmds, add);
    mi::emit(cmds, mi::store_register_mem(gpr(e, 4), b.gfx + 0x40));
    // INC (no operands): 7 -> 8.
    mi::emit(cmds, mi::atomic(op::kInc, b.gfx + 0x04, true, false));
    // CMP_WR inline: memory 0x55 == operand1 0x55 -> operand2 0xAA; again: 0xAA != 0x55 -> unchanged, returns 0xAA.
    mi::emit(cmds, mi::atomic(op::kCmpWr, b.gfx + 0x08, true, false, true, 0x55, 0xAA));
    mi::emit(cmds, mi::atomic(op::kCmpWr, b.gfx + 0x08, true, false, true, 0x55, 0xBB, true));
    mi::emit(cmds, mi::store_register_mem(gpr(e, 4), b.gfx + 0x44));
    // CMP_WR with GPR operands: operand1 = CS_GPR0 = 5 (compare), operand2 = CS_GPR2 = 9 (new): memory 5 -> 9,
    // return data 5.
    mi::emit(cmds, mi::load_register_imm({{gpr(e, 0), 5}, {gpr(e, 2), 9}}));
    mi::emit(cmds, mi::atomic(op::kCmpWr, b.gfx + 0x0C, true, false, false, 0, 0, true));
    // ADD8B qword: 0xFFFFFFFF + 1 = 0x1_00000000 (carry into the high dword).
    mi::emit(cmds, mi::atomic(op::kAdd | op::k8B, b.gfx + 0x10, true, true, true, 1, 0));
    ASSERT_TRUE(run_batch(e, cmds));
    EXPECT_EQ(mem32(b.phys + 0x00), 123u);
    EXPECT_EQ(mem32(b.phys + 0x40), 100u);
    EXPECT_EQ(mem32(b.phys + 0x04), 8u);
    EXPECT_EQ(mem32(b.phys + 0x08), 0xAAu);
    EXPECT_EQ(mem32(b.phys + 0x44), 0xAAu);
    EXPECT_EQ(mem32(b.phys + 0x0C), 9u);
    EXPECT_EQ(mem64(b.phys + 0x10), 0x1'0000'0000ull);
    EXPECT_EQ(mmio(gpr(e, 4)), 5u);
    EXPECT_EQ(mmio(gpr(e, 4) + 4), 0xDDDDDDDDu);  // Gen9: dword return data leaves the high dword
  });
}

TEST_F(CommandStreamerTest, SemaphoreWaitWithEverySatisfiedCompareOperationGoesOnAtOnce) {
  const Engine e = Engine::kVcs1;
  test::run_thread([&] {
    const Buffer sem = buffer();
    const Buffer out = buffer();
    put32(sem.phys, 10);
    // Memory 10: 10 > 9, 10 >= 10, 10 < 11, 10 <= 10, 10 == 10, 10 != 11.
    const std::pair<mi::Compare, std::uint32_t> ops[] = {{mi::Compare::kGreater, 9}, {mi::Compare::kGreaterEqual, 10},
                                                         {mi::Compare::kLess, 11},   {mi::Compare::kLessEqual, 10},
                                                         {mi::Compare::kEqual, 10},  {mi::Compare::kNotEqual, 11}};
    std::vector<std::uint32_t> cmds;
    std::uint32_t i = 0;
    for (const auto& [op, data] : ops) {
      mi::emit(cmds, mi::semaphore_wait(sem.gfx, data, op));
      mi::emit(cmds, mi::store_data_imm(out.gfx + 4 * i, 0x100 + i));
      ++i;
    }
    // DW0 of the last: 0x1C << 23 | GGTT | poll bit 15 | op 5 << 12 | length 2 = 0x0E40D002.
    EXPECT_EQ(cmds[8 * 5], 0x0E40D002u);
    ASSERT_TRUE(run_batch(e, cmds));
    for (std::uint32_t k = 0; k < 6; ++k) EXPECT_EQ(mem32(out.phys + 4 * k), 0x100 + k);
    // Every wait was satisfied at its first read: six polls for six waits.
    EXPECT_EQ(counter("gen.vcs1.semaphore_polls"), 6u);
    EXPECT_EQ(reg(e, er::kCtl) & er::kCtlWaitSemaphore, 0u);
  });
}

TEST_F(CommandStreamerTest, SemaphoreReleasedByAnotherEnginesStoreLetsTheWaiterFinishOnlyAfterIt) {
  test::run_thread([&] {
    const Buffer sem = buffer();
    const Buffer out = buffer();
    // VCS0 waits for sem == 1, then takes a timestamp (MI_FLUSH_DW post-sync 3) and stores a marker.
    std::vector<std::uint32_t> waiter = mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual);
    mi::emit(waiter, {mi::instr(mi::kFlushDw, 2) | mi::kFlushPostSyncTimestamp,
                      static_cast<std::uint32_t>(out.gfx + 0x10) | mi::kFlushDestGgtt, 0, 0});
    mi::emit(waiter, mi::store_data_imm(out.gfx, 0x600D));
    Ring& vcs = ring(Engine::kVcs0);
    drv_.emit(vcs, waiter);
    const std::uint32_t seqno = drv_.emit_breadcrumb(vcs);
    drv_.submit(vcs);
    wait_ns(5'000);
    // Still waiting: RING_CTL = 16 KiB (0x3000) | valid | bit 10 waiting on a semaphore = 0x3401; HEAD still at
    // the semaphore (0); MI_MODE not idle; nothing written.
    EXPECT_EQ(reg(Engine::kVcs0, er::kCtl), 0x3401u);
    EXPECT_EQ(reg(Engine::kVcs0, er::kHead), 0u);
    EXPECT_EQ(reg(Engine::kVcs0, er::kMiMode) & er::kModeIdle, 0u);
    EXPECT_EQ(mem32(out.phys), 0u);
    EXPECT_EQ(mem32(drv_.seqno_address(vcs)), 0u);
    // RCS releases it.
    const core::Picoseconds release = host_now();
    ASSERT_TRUE(run_ring(Engine::kRcs, mi::store_data_imm(sem.gfx, 1)));
    ASSERT_TRUE(drv_.wait_seqno(vcs, seqno, kWaitNs));
    EXPECT_EQ(mem32(out.phys), 0x600Du);
    // The waiter's timestamp is at or after the release submission: ticks of 83.3 ns at 12 MHz.
    const std::uint64_t done_ts = mem64(out.phys + 0x10);
    EXPECT_GE(done_ts, ticks_gen9(release));
    EXPECT_EQ(reg(Engine::kVcs0, er::kCtl), 0x3001u);  // no longer waiting
    // It polled more than once while it waited (every 256 cycles = 256 ns over >= 5 us).
    EXPECT_GT(counter("gen.vcs0.semaphore_polls"), 10u);
  });
}

TEST_F(CommandStreamerTest, SignalModeSemaphoreWakesOnAnotherEnginesWriteNotOnlyAtItsFallbackPoll) {
  // Signal mode (DW0 bit 15 clear): the waiter sleeps until an engine writes memory, with 16 poll intervals
  // (16 x 256 cycles = 4096 ns) as the fallback for writes it cannot see. Released by RCS's store, it must finish
  // well inside one fallback interval; it re-read the semaphore only a few times while it waited 20 us.
  test::run_thread([&] {
    const Buffer sem = buffer();
    const Buffer out = buffer();
    std::vector<std::uint32_t> waiter = mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual, false);
    EXPECT_EQ(waiter[0] & mi::kSemaphorePoll, 0u);
    mi::emit(waiter, {mi::instr(mi::kFlushDw, 2) | mi::kFlushPostSyncTimestamp,
                      static_cast<std::uint32_t>(out.gfx + 0x10) | mi::kFlushDestGgtt, 0, 0});
    Ring& vcs = ring(Engine::kVcs0);
    drv_.emit(vcs, waiter);
    const std::uint32_t seqno = drv_.emit_breadcrumb(vcs);
    drv_.submit(vcs);
    wait_ns(20'000);
    EXPECT_EQ(mem32(drv_.seqno_address(vcs)), 0u);
    EXPECT_LE(counter("gen.vcs0.semaphore_polls"), 8u);  // about one per 4 us fallback, not one per 256 ns
    const core::Picoseconds release = host_now();
    ASSERT_TRUE(run_ring(Engine::kRcs, mi::store_data_imm(sem.gfx, 1)));
    ASSERT_TRUE(drv_.wait_seqno(vcs, seqno, kWaitNs));
    // The RCS store lands within a few hundred ns of the release submission; the waiter's timestamp follows within
    // far less than the 4096 ns fallback (ticks of 83.3 ns).
    const std::uint64_t done_ts = mem64(out.phys + 0x10);
    EXPECT_GE(done_ts, ticks_gen9(release));
    EXPECT_LT(done_ts, ticks_gen9(release + 2'000'000));
  });
}

TEST_F(CommandStreamerTest, FlushDwPostSyncWritesAndNotifiesOnNonRenderEngines) {
  test::run_thread([&] {
    const Buffer b = buffer();
    // Unmask and enable bit 4 of the BCS (bank 0 bits 31:16) and VECS (bank 3) fields: the MI_FLUSH_DW notify
    // event (GVT gen8_init_irq: BCS_MI_FLUSH_DW bit 20, VECS_MI_FLUSH_DW bit 4).
    mmio_write(imr(0), ~(1u << 20));
    mmio_write(ier(0), 1u << 20);
    mmio_write(imr(3), ~(1u << 4));
    mmio_write(ier(3), 1u << 4);
    mmio_write(GtInterrupts::kMasterIrq, GtInterrupts::kMasterEnable);
    // BCS: dword post-sync write, notify. DW0 = 0x26 << 23 | post-sync 1 << 14 | notify bit 8 | length 2.
    const std::vector<std::uint32_t> flush = mi::flush_dw(b.gfx + 0x20, 0x0F1A5D00, true, true);
    EXPECT_EQ(flush[0], 0x13004102u);
    EXPECT_EQ(flush[1], static_cast<std::uint32_t>(b.gfx + 0x20) | 4u);  // DW1 bit 2: GGTT
    emit(Engine::kBcs, flush);
    drv_.submit(ring(Engine::kBcs));
    ASSERT_TRUE(port_.wait_for32(b.phys + 0x20, 0x0F1A5D00, ~0u, kWaitNs));
    EXPECT_TRUE(wait_mmio(iir(0), 1u << 20));
    EXPECT_EQ(mmio(GtInterrupts::kMasterIrq), GtInterrupts::kMasterEnable | (1u << 1));
    EXPECT_TRUE(gpu_.irq().level());
    mmio_write(iir(0), 1u << 20);
    // VECS: qword post-sync (length 3), notify.
    emit(Engine::kVecs, {mi::instr(mi::kFlushDw, 3) | mi::kFlushPostSyncImm | mi::kFlushNotify,
                         static_cast<std::uint32_t>(b.gfx + 0x28) | mi::kFlushDestGgtt, 0, 0x89ABCDEF, 0x01234567});
    drv_.submit(ring(Engine::kVecs));
    ASSERT_TRUE(port_.wait_for32(b.phys + 0x2C, 0x01234567, ~0u, kWaitNs));
    EXPECT_EQ(mem64(b.phys + 0x28), 0x0123'4567'89AB'CDEFull);
    EXPECT_TRUE(wait_mmio(iir(3), 1u << 4));
    EXPECT_EQ(mmio(GtInterrupts::kMasterIrq), GtInterrupts::kMasterEnable | (1u << 6));
    // A flush without post-sync writes nothing and raises nothing.
    mmio_write(iir(3), 1u << 4);
    ASSERT_TRUE(run_ring(Engine::kVecs, mi::flush_dw(b.gfx + 0x30, 0x77, false, false)));
    EXPECT_EQ(mem32(b.phys + 0x30), 0u);
    EXPECT_EQ(mmio(iir(3)), 0u);
  });
}

TEST_F(CommandStreamerTest, PipeControlPostSyncImmediateQwordAndNotifyOnRcs) {
  test::run_thread([&] {
    const Buffer b = buffer();
    // PIPE_CONTROL notify is bit 4 of the RCS field (GVT: RCS_PIPE_CONTROL; i915 GT_RENDER_PIPECTL_NOTIFY).
    mmio_write(imr(0), ~(1u << 4));
    mmio_write(ier(0), 1u << 4);
    mmio_write(GtInterrupts::kMasterIrq, GtInterrupts::kMasterEnable);
    const std::vector<std::uint32_t> pc = mi::pipe_control(
        mi::kPcCsStall | mi::kPcPostSyncImm | mi::kPcDestGgtt | mi::kPcNotify, b.gfx + 8, 0x1122'3344'5566'7788ull);
    EXPECT_EQ(pc[0], 0x7A000004u);
    EXPECT_EQ(pc[1], (1u << 20) | (1u << 14) | (1u << 24) | (1u << 8));  // 0x01104100
    emit(Engine::kRcs, pc);
    drv_.submit(ring(Engine::kRcs));
    ASSERT_TRUE(port_.wait_for32(b.phys + 12, 0x11223344, ~0u, kWaitNs));
    EXPECT_EQ(mem32(b.phys + 8), 0x55667788u);
    EXPECT_EQ(mem32(b.phys + 4), 0u);
    EXPECT_EQ(mem32(b.phys + 16), 0u);
    EXPECT_EQ(mmio(iir(0)), 1u << 4);
    EXPECT_TRUE(gpu_.irq().level());
    EXPECT_EQ(counter("gen.rcs.user_interrupts"), 0u);  // a notify is not MI_USER_INTERRUPT
  });
}

TEST_F(CommandStreamerTest, TimestampPostSyncAndTheTimestampRegisterFollowSimulatedTimeAt12MHz) {
  test::run_thread([&] {
    const Buffer b = buffer();
    // At exactly 2 ms: 2e9 ps * 12e6 / 1e12 = 24000 ticks.
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_MS) - sc_core::sc_time_stamp());
    EXPECT_EQ(reg(Engine::kRcs, er::kTimestamp), 24000u);
    EXPECT_EQ(reg(Engine::kRcs, er::kTimestampUdw), 0u);
    wait_ns(1'000'000);  // 3 ms and a little
    const core::Picoseconds before = host_now();
    ASSERT_TRUE(run_ring(Engine::kRcs, mi::pipe_control(mi::kPcPostSyncTimestamp | mi::kPcDestGgtt, b.gfx)));
    ASSERT_TRUE(run_ring(Engine::kBcs, {mi::instr(mi::kFlushDw, 2) | mi::kFlushPostSyncTimestamp,
                                        static_cast<std::uint32_t>(b.gfx + 8) | mi::kFlushDestGgtt, 0, 0}));
    const core::Picoseconds after = host_now();
    const std::uint64_t pc_ts = mem64(b.phys);
    const std::uint64_t flush_ts = mem64(b.phys + 8);
    // Both fall between the submission and the end; about 36000 ticks (3 ms), and the flush after the PIPE_CONTROL.
    EXPECT_GE(pc_ts, ticks_gen9(before));
    EXPECT_LE(flush_ts, ticks_gen9(after));
    EXPECT_LE(pc_ts, flush_ts);
    EXPECT_GE(pc_ts, 36000u);
    EXPECT_LT(flush_ts, 36100u);
  });
}

TEST_F(CommandStreamerTest, ConditionalBatchBufferEndEndsTheBatchWhenMemoryIsAtMostTheData) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer flag = buffer();
    const Buffer out = buffer();
    put32(flag.phys + 0, 5);
    put32(flag.phys + 4, 6);
    // Batch A: memory 5 <= 5: the batch ends; the SDI after it never runs; the ring goes on after the BB_START.
    std::vector<std::uint32_t> a = mi::conditional_batch_buffer_end(flag.gfx + 0, 5);
    EXPECT_EQ(a[0], 0x1B600002u);  // 0x36 << 23 | GGTT | compare semaphore bit 21 | length 2
    mi::emit(a, mi::store_data_imm(out.gfx + 0, 0xA));
    ASSERT_TRUE(run_batch(e, a));
    // Batch B: memory 6 > 5: the batch goes on.
    std::vector<std::uint32_t> b = mi::conditional_batch_buffer_end(flag.gfx + 4, 5);
    mi::emit(b, mi::store_data_imm(out.gfx + 4, 0xB));
    ASSERT_TRUE(run_batch(e, b));
    EXPECT_EQ(mem32(out.phys + 0), 0u);
    EXPECT_EQ(mem32(out.phys + 4), 0xBu);
  });
}

TEST_F(CommandStreamerTest, ArbCheckIsAnArbitrationPointWithoutEffect) {
  const Engine e = Engine::kVcs0;
  test::run_thread([&] {
    const Buffer out = buffer();
    std::vector<std::uint32_t> cmds = mi::arb_check();
    EXPECT_EQ(cmds[0], 0x02800000u);
    mi::emit(cmds, mi::store_data_imm(out.gfx, 1));
    ASSERT_TRUE(run_ring(e, cmds));
    ASSERT_TRUE(run_batch(e, mi::arb_check()));
    EXPECT_EQ(mem32(out.phys), 1u);
  });
  // Ring 1: ARB_CHECK, SDI, SDI, UI, NOOP, NOOP (4 + 16 + 28 = 48 bytes) = 6 commands. Ring 2: BB_START,
  // [ARB_CHECK, BB_END], SDI, UI, NOOP, NOOP (12 + 28 = 40 bytes) = 7 commands.
  EXPECT_EQ(cs(e).commands_executed(), 13u);
  EXPECT_EQ(counter("gen.vcs0.batches"), 1u);
}

// ---- batch buffers ----

TEST_F(CommandStreamerTest, FirstLevelBatchFromTheRingMovesHeadPastTheStartAndShowsInBbaddr) {
  const Engine e = Engine::kBcs;
  test::run_thread([&] {
    const Buffer out = buffer();
    std::vector<std::uint32_t> cmds = mi::store_register_mem(base(e) + er::kHead, out.gfx + 0);  // batch + 0
    mi::emit(cmds, mi::store_register_mem(base(e) + er::kBbAddr, out.gfx + 4));                  // batch + 16
    mi::emit(cmds, mi::store_register_mem(base(e) + er::kActhd, out.gfx + 8));                   // batch + 32
    mi::emit(cmds, mi::store_register_mem(base(e) + er::kBbState, out.gfx + 12));                // batch + 48
    mi::emit(cmds, mi::batch_buffer_end());
    const Buffer bb = batch(cmds);
    Ring& r = ring(e);
    const std::vector<std::uint32_t> start = mi::batch_buffer_start(bb.gfx, false);
    EXPECT_EQ(start[0], 0x18800001u);
    ASSERT_TRUE(run_ring(e, start));
    EXPECT_EQ(mem32(out.phys + 0), 12u);  // HEAD moved past the 3-dword BB_START before the batch ran
    EXPECT_EQ(mem32(out.phys + 4), static_cast<std::uint32_t>(bb.gfx));
    EXPECT_EQ(mem32(out.phys + 8), static_cast<std::uint32_t>(bb.gfx + 32));  // ACTHD: the SRM itself
    EXPECT_EQ(mem32(out.phys + 12), 0u);                                      // BBSTATE: GGTT batch
    EXPECT_EQ(reg(e, er::kBbAddr), static_cast<std::uint32_t>(bb.gfx));
    EXPECT_EQ(reg(e, er::kBbAddrUdw), 0u);
    // Ring: BB_START 12 + breadcrumb 28 = 40 bytes: HEAD == TAIL == 0x28.
    EXPECT_EQ(reg(e, er::kHead), 0x28u);
    EXPECT_EQ(reg(e, er::kTail), 0x28u);
    EXPECT_EQ(r.tail, 0x28u);
    EXPECT_EQ(reg(e, er::kMiMode) & er::kModeIdle, er::kModeIdle);
  });
}

TEST_F(CommandStreamerTest, FirstLevelBatchChainsToAnotherBatch) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer out = buffer();
    std::vector<std::uint32_t> second = mi::store_data_imm(out.gfx + 4, 0xB);
    mi::emit(second, mi::store_register_mem(base(e) + er::kBbAddr, out.gfx + 8));
    mi::emit(second, mi::batch_buffer_end());
    const Buffer b = batch(second);
    std::vector<std::uint32_t> first = mi::store_data_imm(out.gfx + 0, 0xA);
    mi::emit(first, mi::batch_buffer_start(b.gfx, false));  // chain: no return
    mi::emit(first, mi::store_data_imm(out.gfx + 12, 0xBAD));
    mi::emit(first, mi::batch_buffer_end());
    const Buffer a = batch(first);
    std::vector<std::uint32_t> ring_cmds = mi::batch_buffer_start(a.gfx, false);
    mi::emit(ring_cmds, mi::store_data_imm(out.gfx + 16, 0xC));
    ASSERT_TRUE(run_ring(e, ring_cmds));
    EXPECT_EQ(mem32(out.phys + 0), 0xAu);
    EXPECT_EQ(mem32(out.phys + 4), 0xBu);
    EXPECT_EQ(mem32(out.phys + 8), static_cast<std::uint32_t>(b.gfx));  // BBADDR follows the chain
    EXPECT_EQ(mem32(out.phys + 12), 0u);                                // after the chaining BB_START: never
    EXPECT_EQ(mem32(out.phys + 16), 0xCu);                              // back in the ring
  });
  EXPECT_EQ(counter("gen.rcs.batches"), 2u);
}

TEST_F(CommandStreamerTest, SecondLevelBatchReturnsToTheFirstLevelAfterItsStart) {
  const Engine e = Engine::kVcs1;
  namespace op = gen::atomic_op;
  test::run_thread([&] {
    const Buffer out = buffer();
    // stamp(slot): counter++ with the old value into CS_GPR4, stored at slot: records the execution order.
    auto stamp = [&](std::vector<std::uint32_t>& cmds, std::uint32_t slot) {
      mi::emit(cmds, mi::atomic(op::kInc, out.gfx + 0x100, true, false, false, 0, 0, true));
      mi::emit(cmds, mi::store_register_mem(gpr(e, 4), out.gfx + slot));
    };
    std::vector<std::uint32_t> second;
    stamp(second, 4);
    mi::emit(second, mi::store_register_mem(base(e) + er::kBbAddr, out.gfx + 0x10));
    mi::emit(second, mi::store_register_mem(base(e) + er::kSbbAddr, out.gfx + 0x14));
    mi::emit(second, mi::batch_buffer_end());
    const Buffer c = batch(second);
    std::vector<std::uint32_t> first;
    stamp(first, 0);
    const std::vector<std::uint32_t> call = mi::batch_buffer_start(c.gfx, false, true);
    EXPECT_EQ(call[0], 0x18C00001u);  // bit 22: second level
    mi::emit(first, call);
    stamp(first, 8);
    mi::emit(first, mi::batch_buffer_end());
    const Buffer a = batch(first);
    std::vector<std::uint32_t> ring_cmds = mi::batch_buffer_start(a.gfx, false);
    stamp(ring_cmds, 12);
    ASSERT_TRUE(run_ring(e, ring_cmds));
    // Order: first level (0), second level (1), first level after the call (2), ring (3).
    EXPECT_EQ(mem32(out.phys + 0), 0u);
    EXPECT_EQ(mem32(out.phys + 4), 1u);
    EXPECT_EQ(mem32(out.phys + 8), 2u);
    EXPECT_EQ(mem32(out.phys + 12), 3u);
    EXPECT_EQ(mem32(out.phys + 0x100), 4u);
    EXPECT_EQ(mem32(out.phys + 0x10), static_cast<std::uint32_t>(a.gfx));  // BBADDR: still the first level
    EXPECT_EQ(mem32(out.phys + 0x14), static_cast<std::uint32_t>(c.gfx));  // SBBADDR: the second level
    EXPECT_EQ(reg(e, er::kSbbAddr), static_cast<std::uint32_t>(c.gfx));
  });
}

TEST_F(CommandStreamerTest, PpgttBatchRunsThroughFourLevelTablesSetUpByMmio) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    constexpr std::uint64_t kRw = 3;  // present | writable
    const Buffer pml4 = buffer(), pdp = buffer(), pd = buffer(), pt = buffer();
    const Buffer code = buffer(), data = buffer(), out = buffer();
    // va = PML4 1 (47:39), PDP 2 (38:30), PD 3 (29:21), PT 4 (20:12) = 0x80_8060_4000; data one page up.
    constexpr std::uint64_t kVa = 1ULL << 39 | 2ULL << 30 | 3ULL << 21 | 4ULL << 12;
    static_assert(kVa == 0x80'8060'4000ULL);
    port_.write64(pml4.phys + 1 * 8, pdp.phys | kRw);
    port_.write64(pdp.phys + 2 * 8, pd.phys | kRw);
    port_.write64(pd.phys + 3 * 8, pt.phys | kRw);
    port_.write64(pt.phys + 4 * 8, code.phys | kRw);
    port_.write64(pt.phys + 5 * 8, data.phys | kRw);
    // The engine's PDP0 holds the PML4 (48-bit mode); GFX_MODE: PPGTT enable (9) | 48-bit (7), masked.
    mmio_write(base(e) + er::kPdp0Ldw, static_cast<std::uint32_t>(pml4.phys));
    mmio_write(base(e) + er::kPdp0Ldw + 4, static_cast<std::uint32_t>(pml4.phys >> 32));
    mmio_write(base(e) + er::kGfxMode, masked_enable(er::kGfxPpgttEnable | er::kGfxPpgtt48b));
    EXPECT_EQ(reg(e, er::kGfxMode), 0x280u);
    std::vector<std::uint32_t> cmds = mi::store_data_imm(kVa + 0x1010, 0xABCD1234, false);  // PPGTT write
    EXPECT_EQ(cmds[0], 0x10000002u);                                                        // bit 22 clear
    mi::emit(cmds, mi::store_register_mem(base(e) + er::kBbState, out.gfx + 0));
    mi::emit(cmds, mi::store_register_mem(base(e) + er::kBbAddr, out.gfx + 4));
    mi::emit(cmds, mi::store_register_mem(base(e) + er::kBbAddrUdw, out.gfx + 8));
    mi::emit(cmds, mi::batch_buffer_end());
    drv_.upload(code, 0, cmds);
    const std::vector<std::uint32_t> start = mi::batch_buffer_start(kVa, true);
    EXPECT_EQ(start[0], 0x18800101u);  // bit 8: PPGTT
    ASSERT_TRUE(run_ring(e, start));
    EXPECT_EQ(mem32(data.phys + 0x10), 0xABCD1234u);
    EXPECT_EQ(mem32(out.phys + 0), er::kBbStatePpgtt);  // 0x20
    EXPECT_EQ(mem32(out.phys + 4), 0x80604000u);
    EXPECT_EQ(mem32(out.phys + 8), 0x80u);
  });
}

TEST_F(CommandStreamerTest, SecondLevelBatchStartFromTheRingStopsTheEngine) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    Ring& r = ring(e);  // the first buffer: GGTT 0x100000
    const Buffer out = buffer();
    const Buffer bb = batch({mi::instr(mi::kBatchBufferEnd, 0)});
    std::vector<std::uint32_t> cmds = mi::batch_buffer_start(bb.gfx, false, true);
    mi::emit(cmds, mi::store_data_imm(out.gfx, 1));
    drv_.emit(r, cmds);
    drv_.submit(r);
    ASSERT_TRUE(wait_reg(iir(0), GtInterrupts::kCsError, GtInterrupts::kCsError));
    EXPECT_EQ(mmio(iir(0)), 0x8u);  // CS master error, bit 3 of the RCS field
    EXPECT_TRUE(gpu_.irq().level());
    EXPECT_EQ(reg(e, er::kIpehr), 0x18C00001u);
    EXPECT_EQ(reg(e, er::kEir), er::kErrorInstruction);
    EXPECT_EQ(reg(e, er::kEsr), er::kErrorInstruction);
    EXPECT_EQ(reg(e, er::kActhd), static_cast<std::uint32_t>(r.buffer.gfx));
    EXPECT_EQ(reg(e, er::kHead), 0u);  // not consumed
    EXPECT_EQ(reg(e, er::kMiMode) & er::kModeIdle, er::kModeIdle);
    wait_ns(2'000);
    EXPECT_EQ(mem32(out.phys), 0u);
    EXPECT_EQ(cs(e).state(), State::kError);
    // i915 clears EIR by writing the bits back.
    mmio_write(base(e) + er::kEir, er::kErrorInstruction);
    EXPECT_EQ(reg(e, er::kEir), 0u);
  });
  EXPECT_EQ(take_errors("rcs: second-level MI_BATCH_BUFFER_START from the ring; stopped at GGTT 0x100000 (ring), "
                        "command dword 0x18c00001"),
            1u);
  ASSERT_EQ(gpu_.incidents().size(), 1u);
  EXPECT_EQ(gpu_.incidents()[0].rfind("error: rcs: second-level", 0), 0u);
}

TEST_F(CommandStreamerTest, BatchStartFromASecondLevelBatchStopsTheEngine) {
  const Engine e = Engine::kBcs;
  std::uint64_t second_gfx = 0;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    const Buffer out = buffer();
    const Buffer d = batch({mi::instr(mi::kBatchBufferEnd, 0)});
    std::vector<std::uint32_t> second = mi::store_data_imm(out.gfx + 0, 1);
    mi::emit(second, mi::batch_buffer_start(d.gfx, false));  // at second + 16: illegal
    mi::emit(second, mi::batch_buffer_end());
    const Buffer c = batch(second);
    second_gfx = c.gfx;
    std::vector<std::uint32_t> first = mi::batch_buffer_start(c.gfx, false, true);
    mi::emit(first, mi::store_data_imm(out.gfx + 4, 2));
    mi::emit(first, mi::batch_buffer_end());
    const Buffer a = batch(first);
    Ring& r = ring(e);
    drv_.emit(r, mi::batch_buffer_start(a.gfx, false));
    const std::uint32_t seqno = drv_.emit_breadcrumb(r);
    drv_.submit(r);
    // BCS: CS error bit 3 of bank 0 bits 31:16 = 0x80000.
    ASSERT_TRUE(wait_reg(iir(0), 0x80000, 0x80000));
    EXPECT_EQ(mmio(iir(0)), 0x80000u);
    EXPECT_EQ(reg(e, er::kIpehr), 0x18800001u);
    EXPECT_EQ(reg(e, er::kEir), er::kErrorInstruction);
    EXPECT_EQ(reg(e, er::kActhd), static_cast<std::uint32_t>(c.gfx + 16));
    EXPECT_EQ(reg(e, er::kSbbAddr), static_cast<std::uint32_t>(c.gfx));
    EXPECT_EQ(mem32(out.phys + 0), 1u);  // the second level ran up to the illegal start
    wait_ns(2'000);
    EXPECT_EQ(mem32(out.phys + 4), 0u);  // and nothing ran after it
    EXPECT_EQ(mem32(drv_.seqno_address(r)), 0u);
    EXPECT_NE(seqno, 0u);
  });
  EXPECT_EQ(take_errors("bcs: MI_BATCH_BUFFER_START from a second-level batch (nesting deeper than allowed); "
                        "stopped at GGTT " +
                        core::format_hex(second_gfx + 16) + " (second-level batch), command dword 0x18800001"),
            1u);
}

// ---- ring ----

TEST_F(CommandStreamerTest, RingWrapsWithDriverPaddingAndCountsWrapsInHead) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer out = buffer();
    Ring& r = ring(e, 4096);
    EXPECT_EQ(reg(e, er::kCtl), 1u);  // 4 KiB: pages - 1 = 0, valid
    // One round: a qword SDI (20 bytes) + breadcrumb (28) = 48 bytes, qword aligned, no submit padding.
    // Rounds 1..85 end at 48 * k, round 85 at 4080. Round 86: 4080 + 20 > 4096, so the driver pads 16 bytes (4
    // MI_NOOPs) and wraps; it ends at 48 with one wrap: HEAD = 1 << 21 | 0x30. Round 171 wraps the second time.
    for (std::uint32_t round = 1; round <= 171; ++round) {
      ASSERT_TRUE(run_ring(e, mi::store_qword_imm(out.gfx + 8 * (round % 64), round)));
      if (round == 85) {
        EXPECT_EQ(r.tail, 4080u);
        EXPECT_EQ(reg(e, er::kHead), 0xFF0u);
      }
      if (round == 86) {
        EXPECT_EQ(r.tail, 48u);
        EXPECT_EQ(reg(e, er::kHead), 0x0020'0030u);
        EXPECT_EQ(mem32(r.buffer.phys + 4080), 0u);  // the padding MI_NOOPs
        EXPECT_EQ(mem32(r.buffer.phys + 4092), 0u);
      }
    }
    EXPECT_EQ(reg(e, er::kHead), 0x0040'0030u);  // wrap count 2, offset 0x30
    EXPECT_EQ(reg(e, er::kTail), 0x30u);
    EXPECT_EQ(mem64(out.phys + 8 * (171 % 64)), 171u);
    EXPECT_EQ(mem32(drv_.seqno_address(r)), 171u);
  });
}

TEST_F(CommandStreamerTest, EmptyRingWithHeadEqualToTailDoesNothing) {
  const Engine e = Engine::kVecs;
  test::run_thread([&] {
    const Buffer out = buffer();
    Ring& r = ring(e);
    // A command sits in the ring memory, but TAIL is written equal to HEAD (0).
    drv_.emit(r, mi::store_data_imm(out.gfx, 1));
    mmio_write(r.mmio_base + er::kTail, 0);
    wait_ns(2'000);
    EXPECT_EQ(mem32(out.phys), 0u);
    EXPECT_EQ(cs(e).commands_executed(), 0u);
    EXPECT_EQ(reg(e, er::kHead), 0u);
    EXPECT_EQ(reg(e, er::kMiMode) & er::kModeIdle, er::kModeIdle);
    // Now TAIL = 16: it runs. Writing the same TAIL again runs nothing more.
    mmio_write(r.mmio_base + er::kTail, 16);
    ASSERT_TRUE(port_.wait_for32(out.phys, 1, ~0u, kWaitNs));
    wait_ns(1'000);
    mmio_write(r.mmio_base + er::kTail, 16);
    wait_ns(2'000);
    EXPECT_EQ(cs(e).commands_executed(), 1u);
    EXPECT_EQ(reg(e, er::kHead), 16u);
  });
}

TEST_F(CommandStreamerTest, CommandStraddlingTailWaitsUntilTailAdvances) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer out = buffer();
    Ring& r = ring(e);
    drv_.emit(r, mi::store_data_imm(out.gfx, 0x5A5A));  // 16 bytes at 0
    // TAIL = 8: only the first two dwords of the SDI are below TAIL.
    mmio_write(r.mmio_base + er::kTail, 8);
    wait_ns(3'000);
    EXPECT_EQ(mem32(out.phys), 0u);
    EXPECT_EQ(reg(e, er::kHead), 0u);
    EXPECT_EQ(cs(e).commands_executed(), 0u);
    EXPECT_EQ(reg(e, er::kMiMode) & er::kModeIdle, er::kModeIdle);  // idle, waiting for TAIL
    mmio_write(r.mmio_base + er::kTail, 16);
    ASSERT_TRUE(port_.wait_for32(out.phys, 0x5A5A, ~0u, kWaitNs));
    EXPECT_EQ(reg(e, er::kHead), 16u);
  });
}

TEST_F(CommandStreamerTest, TailAdvancedRightAfterAStraddlingSubmissionIsNotLost) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer out = buffer();
    Ring& r = ring(e);
    drv_.emit(r, mi::store_data_imm(out.gfx, 0x5A5A));
    // The second TAIL write follows the first by one MMIO write (a few ns), while the engine has just fetched the
    // incomplete command.
    mmio_write(r.mmio_base + er::kTail, 8);
    mmio_write(r.mmio_base + er::kTail, 16);
    EXPECT_TRUE(port_.wait_for32(out.phys, 0x5A5A, ~0u, 10'000));
  });
}

TEST_F(CommandStreamerQuantumTest, SubmissionWhileTheEngineCatchesUpWithItsQuantumIsNotLost) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer out = buffer();
    Ring& r = ring(e);
    // Eight SDIs (about 0.5 us) run ahead of the kernel inside the engine's 1 us quantum; the next submission
    // arrives 50 ns later, while the engine, out of work, is still catching up with its local time.
    std::vector<std::uint32_t> cmds;
    for (std::uint32_t i = 0; i < 8; ++i) mi::emit(cmds, mi::store_data_imm(out.gfx + 4 * i, i + 1));
    drv_.emit(r, cmds);
    drv_.submit(r);
    wait_ns(50);
    const std::uint32_t seqno = drv_.emit_breadcrumb(r);
    drv_.submit(r);
    EXPECT_TRUE(drv_.wait_seqno(r, seqno, 100'000));
    EXPECT_EQ(mem32(out.phys + 4 * 7), 8u);
  });
}

// ---- command errors ----

TEST_F(CommandStreamerTest, UnknownMiOpcodeStopsTheEngineAndResetBringsItBack) {
  const Engine e = Engine::kVcs0;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    Ring& r = ring(e);
    drv_.emit(r, {mi::instr(0x3E, 0), 0});  // opcode 0x3E: 0x1F000000
    drv_.submit(r);
    ASSERT_TRUE(wait_reg(iir(1), GtInterrupts::kCsError, GtInterrupts::kCsError));  // VCS0: bank 1 bit 3
    EXPECT_EQ(reg(e, er::kIpehr), 0x1F000000u);
    EXPECT_EQ(reg(e, er::kEir), er::kErrorInstruction);
    EXPECT_EQ(reg(e, er::kActhd), static_cast<std::uint32_t>(r.buffer.gfx));
    EXPECT_EQ(cs(e).state(), State::kError);
    reset_engine(e);
    EXPECT_EQ(reg(e, er::kEir), 0u);
    EXPECT_EQ(reg(e, er::kIpehr), 0u);
    reinit_ring(r);
    const Buffer out = buffer();
    ASSERT_TRUE(run_ring(e, mi::store_data_imm(out.gfx, 0x0C0FFEE)));
    EXPECT_EQ(mem32(out.phys), 0x0C0FFEEu);
  });
  EXPECT_EQ(take_errors("vcs0: unknown MI opcode 0x3e; stopped at GGTT 0x100000 (ring), command dword 0x1f000000"), 1u);
}

TEST_F(CommandStreamerTest, StoreDataImmWithLengthFiveIsABadLength) {
  const Engine e = Engine::kVecs;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    // SDI dword (bit 21 clear) with length 5 (7 dwords); only 2 (dword) or 3 (qword) are valid.
    emit(e, {mi::instr(mi::kStoreDataImm, 5) | mi::kUseGgtt, 0x100000, 0, 1, 2, 3, 4, 0});
    drv_.submit(ring(e));
    ASSERT_TRUE(wait_reg(iir(3), GtInterrupts::kCsError, GtInterrupts::kCsError));  // VECS: bank 3 bit 3
    EXPECT_EQ(reg(e, er::kIpehr), 0x10400005u);
    EXPECT_EQ(reg(e, er::kEir), er::kErrorInstruction);
  });
  EXPECT_EQ(take_errors("vecs: bad length 5 for MI_STORE_DATA_IMM; stopped at GGTT 0x100000 (ring)"), 1u);
}

TEST_F(CommandStreamerTest, PipeControlOnTheBlitterIsAnError) {
  const Engine e = Engine::kBcs;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    emit(e, mi::pipe_control(mi::kPcCsStall));
    drv_.submit(ring(e));
    ASSERT_TRUE(wait_reg(iir(0), 0x80000, 0x80000));
    EXPECT_EQ(reg(e, er::kIpehr), 0x7A000004u);
    EXPECT_EQ(reg(e, er::kEir), er::kErrorInstruction);
  });
  EXPECT_EQ(take_errors("bcs: PIPE_CONTROL is a render-engine command; stopped at GGTT 0x100000 (ring), command "
                        "dword 0x7a000004"),
            1u);
}

TEST_F(CommandStreamerTest, FlushDwOnTheRenderEngineIsAnError) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    emit(e, mi::flush_dw(0, 0, false, false));
    drv_.submit(ring(e));
    ASSERT_TRUE(wait_reg(iir(0), 0x8, 0x8));
    EXPECT_EQ(reg(e, er::kIpehr), 0x13000002u);
    EXPECT_EQ(reg(e, er::kEir), er::kErrorInstruction);
  });
  EXPECT_EQ(take_errors("rcs: MI_FLUSH_DW is not a render-engine command; stopped at GGTT 0x100000 (ring), command "
                        "dword 0x13000002"),
            1u);
}

TEST_F(CommandStreamerTest, StoreToAnUnmappedGgttAddressIsAPageTableErrorWithFaultRegisters) {
  const Engine e = Engine::kBcs;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    Ring& r = ring(e);
    drv_.emit(r, mi::store_data_imm(kUnmapped + 0x124, 0x1));
    drv_.submit(r);
    ASSERT_TRUE(wait_reg(iir(0), 0x80000, 0x80000));
    EXPECT_EQ(reg(e, er::kEir), er::kErrorPageTable);  // bit 4
    EXPECT_EQ(reg(e, er::kIpehr), 0x10400002u);
    EXPECT_EQ(reg(e, er::kActhd), static_cast<std::uint32_t>(r.buffer.gfx));
    // RING_FAULT_REG: VALID | not present (0) << 1 | SRCID 2 (BCS hw id) << 3 | ENGINE_ID 2 << 12 = 0x2011.
    EXPECT_EQ(mmio(gen::kRingFaultReg), 0x2011u);
    EXPECT_EQ(mmio(gen::kFaultTlbData0), 0x30000u);  // VA bits 43:12
    EXPECT_EQ(mmio(gen::kFaultTlbData1), 0x10u);     // GGTT select
    EXPECT_TRUE(gpu_.irq().level());
  });
  EXPECT_EQ(take_warnings("translation fault: client bcs, GGTT address 0x30000124 (write), GGTT PTE: not present"), 1u);
  EXPECT_EQ(take_errors("bcs: GTT fault on write to GGTT 0x30000124 (GGTT PTE: not present); stopped at GGTT 0x100000 "
                        "(ring), command dword 0x10400002"),
            1u);
}

TEST_F(CommandStreamerTest, BatchAtAnUnmappedGgttAddressFailsTheFetch) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    emit(e, mi::batch_buffer_start(kUnmapped, false));
    drv_.submit(ring(e));
    ASSERT_TRUE(wait_reg(iir(0), 0x8, 0x8));
    EXPECT_EQ(reg(e, er::kEir), er::kErrorPageTable);
    EXPECT_EQ(reg(e, er::kHead), 12u);  // the BB_START was consumed
    EXPECT_EQ(reg(e, er::kBbAddr), kUnmapped);
    EXPECT_EQ(reg(e, er::kActhd), kUnmapped);
    EXPECT_EQ(reg(e, er::kIpehr), 0u);          // the failing command's header was never fetched
    EXPECT_EQ(mmio(gen::kRingFaultReg), 0x1u);  // RCS: SRCID 0, ENGINE_ID 0
    EXPECT_EQ(mmio(gen::kFaultTlbData0), 0x30000u);
  });
  EXPECT_EQ(take_warnings("translation fault: client rcs, GGTT address 0x30000000 (read), GGTT PTE: not present"), 1u);
  EXPECT_EQ(take_errors("rcs: command fetch at 0x30000000 failed (GTT fault or bus error); stopped at GGTT "
                        "0x30000000 (batch)"),
            1u);
}

TEST_F(CommandStreamerTest, BatchInAPageWithoutMemoryBehindItFailsTheFetch) {
  const Engine e = Engine::kVcs1;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    // GGTT page 0x20000000 -> physical 0x70000000: beyond the 1 GiB of DRAM, nothing decodes it on the bus.
    port_.write64(kBar + gen::kGgttPteWindowOffset + (0x2000'0000 >> 12) * 8, 0x7000'0000 | 1);
    mmio_write(gen::kGfxFlushControl, 1);
    emit(e, mi::batch_buffer_start(0x2000'0000, false));
    drv_.submit(ring(e));
    ASSERT_TRUE(wait_reg(iir(1), 0x80000, 0x80000));  // VCS1: bank 1 bits 31:16
    EXPECT_EQ(reg(e, er::kEir), er::kErrorPageTable);
    EXPECT_EQ(reg(e, er::kIpehr), 0u);        // as for a fault: no header was fetched
    EXPECT_EQ(mmio(gen::kRingFaultReg), 0u);  // the translation itself succeeded
  });
  EXPECT_EQ(take_warnings("no target at 0x70000000 (64 bytes, read)"), 1u);
  EXPECT_EQ(take_errors("vcs1: command fetch at 0x20000000 failed (GTT fault or bus error); stopped at GGTT "
                        "0x20000000 (batch), command dword 0x00000000"),
            1u);
}

// ---- hangs and reset ----

TEST_F(CommandStreamerHangTest, SemaphoreThatNeverSignalsHangsTheEngineAndResetRecoversIt) {
  const Engine e = Engine::kVcs1;
  std::uint64_t ring_gfx = 0;
  test::run_thread([&] {
    const Buffer sem = buffer();
    Ring& r = ring(e);
    ring_gfx = r.buffer.gfx;
    drv_.emit(r, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));  // DW0 0x0E40C002
    drv_.emit_breadcrumb(r);
    const core::Picoseconds submitted = host_now();
    drv_.submit(r);
    wait_ns(10'000);
    EXPECT_EQ(reg(e, er::kCtl), 0x3401u);  // waiting on the semaphore
    EXPECT_EQ(cs(e).state(), State::kRunning);
    while (cs(e).state() == State::kRunning && host_now() - submitted < 100'000 * core::kPsPerNs) wait_ns(100);
    const core::Picoseconds hung_after = host_now() - submitted;
    EXPECT_EQ(cs(e).state(), State::kHung);
    // 20 us without progress, detected at the next poll (256 ns apart) and seen by the host within its 100 ns step.
    EXPECT_GT(hung_after, 20'000 * core::kPsPerNs);
    EXPECT_LT(hung_after, 21'000 * core::kPsPerNs);
    EXPECT_EQ(reg(e, er::kMiMode) & er::kModeIdle, er::kModeIdle);
    reset_engine(e);
    EXPECT_EQ(reg(e, er::kCtl), 0u);  // ring registers to reset values, waiting bit gone
    EXPECT_EQ(reg(e, er::kHead), 0u);
    reinit_ring(r);
    const Buffer out = buffer();
    ASSERT_TRUE(run_ring(e, mi::store_data_imm(out.gfx, 0xA11FE)));
    EXPECT_EQ(mem32(out.phys), 0xA11FEu);
    EXPECT_EQ(mem32(drv_.seqno_address(r)), 2u);
  });
  ASSERT_EQ(gpu_.incidents().size(), 1u);
  const std::string report = gpu_.incidents()[0];
  EXPECT_EQ(report.rfind("hang: vcs1 hung: no progress for 20000 ns (waiting on a semaphore)", 0), 0u) << report;
  // Registers: 16 bytes of semaphore + 28 of breadcrumb + 4 of submit padding: TAIL 0x30; CTL 0x3001.
  char regs[128];
  std::snprintf(regs, sizeof regs, "HEAD 0x00000000 TAIL 0x00000030 START 0x%08x CTL 0x00003001",
                static_cast<unsigned>(ring_gfx));
  EXPECT_NE(report.find(regs), std::string::npos) << report;
  EXPECT_NE(report.find("last commands:\n      " + core::format_hex(ring_gfx) + ": 0x0e40c002 0x00000001"),
            std::string::npos)
      << report;
  EXPECT_EQ(take_errors("vcs1 hung: no progress for 20000 ns (waiting on a semaphore)"), 1u);
  EXPECT_EQ(counter("gen.vcs1.hangs"), 1u);
}

TEST_F(CommandStreamerHangTest, BatchThatJumpsToItselfHangsTheEngineAndResetRecoversIt) {
  const Engine e = Engine::kRcs;
  std::uint64_t batch_gfx = 0;
  test::run_thread([&] {
    const Buffer bb = drv_.alloc(4096);
    batch_gfx = bb.gfx;
    drv_.upload(bb, 0, mi::batch_buffer_start(bb.gfx, false));  // chains to itself forever
    Ring& r = ring(e);
    drv_.emit(r, mi::batch_buffer_start(bb.gfx, false));
    drv_.emit_breadcrumb(r);
    const core::Picoseconds submitted = host_now();
    drv_.submit(r);
    while (cs(e).state() != State::kHung && host_now() - submitted < 100'000 * core::kPsPerNs) wait_ns(100);
    EXPECT_EQ(cs(e).state(), State::kHung);
    EXPECT_GT(host_now() - submitted, 20'000 * core::kPsPerNs);
    EXPECT_EQ(reg(e, er::kBbAddr), static_cast<std::uint32_t>(bb.gfx));
    EXPECT_EQ(mem32(drv_.seqno_address(r)), 0u);
    reset_engine(e);
    reinit_ring(r);
    const Buffer out = buffer();
    ASSERT_TRUE(run_batch(e, mi::store_data_imm(out.gfx, 0xBACC)));
    EXPECT_EQ(mem32(out.phys), 0xBACCu);
  });
  ASSERT_EQ(gpu_.incidents().size(), 1u);
  const std::string report = gpu_.incidents()[0];
  EXPECT_EQ(report.rfind("hang: rcs hung: no progress for 20000 ns\n", 0), 0u) << report;
  // HEAD moved past the 12-byte BB_START; BBADDR is the batch; the history is the jump, again and again.
  char regs[160];
  std::snprintf(regs, sizeof regs, "HEAD 0x0000000c TAIL 0x00000028");
  EXPECT_NE(report.find(regs), std::string::npos) << report;
  std::snprintf(regs, sizeof regs, "BBADDR 0x00000000_%08x", static_cast<unsigned>(batch_gfx));
  EXPECT_NE(report.find(regs), std::string::npos) << report;
  char jump[96];
  std::snprintf(jump, sizeof jump, "%s: 0x18800001 0x%08x 0x00000000", core::format_hex(batch_gfx).c_str(),
                static_cast<unsigned>(batch_gfx));
  std::size_t jumps = 0;
  for (std::size_t at = report.find(jump); at != std::string::npos; at = report.find(jump, at + 1)) ++jumps;
  EXPECT_EQ(jumps, 16u);  // hang_history commands, all the same jump
  EXPECT_EQ(take_errors("rcs hung: no progress for 20000 ns"), 1u);
}

// ---- Gen8 vs Gen9 ----

TEST_F(CommandStreamerGen8Test, BatchBufferStartKeepsOnlyBits15To0OfDw2) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer out = buffer();
    std::vector<std::uint32_t> cmds = mi::store_data_imm(out.gfx, 8);
    mi::emit(cmds, mi::batch_buffer_end());
    const Buffer bb = batch(cmds);
    // DW2 = 0xABCD0000: Gen8 addresses are 48 bits, so bits 31:16 of DW2 are dropped and the batch is at bb.gfx.
    ASSERT_TRUE(run_ring(e, {0x18800001, static_cast<std::uint32_t>(bb.gfx), 0xABCD0000}));
    EXPECT_EQ(mem32(out.phys), 8u);
    EXPECT_EQ(reg(e, er::kBbAddr), static_cast<std::uint32_t>(bb.gfx));
    EXPECT_EQ(reg(e, er::kBbAddrUdw), 0u);
  });
}

TEST_F(CommandStreamerTest, Gen9BatchBufferStartUsesAllOfDw2) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    drv_.enable_interrupts(e);
    const Buffer bb = batch({mi::instr(mi::kBatchBufferEnd, 0)});
    // The same command on Gen9 targets 0xABCD0000_00xxxxxx: far beyond the 4 GiB GGTT.
    emit(e, {0x18800001, static_cast<std::uint32_t>(bb.gfx), 0xABCD0000});
    drv_.submit(ring(e));
    ASSERT_TRUE(wait_reg(iir(0), 0x8, 0x8));
    EXPECT_EQ(reg(e, er::kBbAddrUdw), 0xABCD0000u);
    EXPECT_EQ(reg(e, er::kEir), er::kErrorPageTable);
  });
  EXPECT_EQ(take_warnings("GGTT limit: out of range"), 1u);
  EXPECT_EQ(take_errors("rcs: command fetch at 0xabcd0000"), 1u);
}

TEST_F(CommandStreamerGen8Test, AtomicReturnDataFillsAllOfGpr4) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer b = buffer();
    put32(b.phys, 41);
    std::vector<std::uint32_t> cmds = mi::load_register_imm({{gpr(e, 4), 0}, {gpr(e, 4) + 4, 0xDDDDDDDD}});
    mi::emit(cmds, mi::atomic(gen::atomic_op::kInc, b.gfx, true, false, false, 0, 0, true));
    ASSERT_TRUE(run_batch(e, cmds));
    EXPECT_EQ(mem32(b.phys), 42u);
    EXPECT_EQ(mmio(gpr(e, 4)), 41u);
    EXPECT_EQ(mmio(gpr(e, 4) + 4), 0u);  // Gen8: the whole GPR4 (zero-extended old value)
  });
}

TEST_F(CommandStreamerGen8Test, TimestampTicksAt12Point5MHz) {
  test::run_thread([&] {
    const Buffer b = buffer();
    // At exactly 2 ms: 2e9 ps / 80000 ps per tick = 25000.
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_MS) - sc_core::sc_time_stamp());
    EXPECT_EQ(reg(Engine::kVcs0, er::kTimestamp), 25000u);
    const core::Picoseconds before = host_now();
    ASSERT_TRUE(run_ring(Engine::kVcs0, {mi::instr(mi::kFlushDw, 2) | mi::kFlushPostSyncTimestamp,
                                         static_cast<std::uint32_t>(b.gfx) | mi::kFlushDestGgtt, 0, 0}));
    const core::Picoseconds after = host_now();
    EXPECT_GE(mem64(b.phys), ticks_gen8(before));
    EXPECT_LE(mem64(b.phys), ticks_gen8(after));
  });
}

TEST_F(CommandStreamerGen8Test, ConditionalBatchBufferEndTakesTheThreeDwordForm) {
  const Engine e = Engine::kRcs;
  test::run_thread([&] {
    const Buffer flag = buffer();
    const Buffer out = buffer();
    put32(flag.phys, 3);
    // Gen8 genxml: 3 dwords (length 1), address in DW2 only. Memory 3 <= 4: the batch ends.
    std::vector<std::uint32_t> cmds = {
        mi::instr(mi::kConditionalBatchBufferEnd, 1) | mi::kUseGgtt | mi::kCondCompareSemaphore, 4,
        static_cast<std::uint32_t>(flag.gfx)};
    mi::emit(cmds, mi::store_data_imm(out.gfx, 1));
    ASSERT_TRUE(run_batch(e, cmds));
    EXPECT_EQ(mem32(out.phys), 0u);
  });
}

TEST_F(CommandStreamerHangTest, ALongLinearBatchIsProgressNotAHang) {
  // 32768 MI_NOOPs take about 200 us at 2 cycles each plus the fetch lines, ten times the 20 us hang timeout; the
  // batch keeps reaching new addresses, so it is progress.
  const Engine e = Engine::kBcs;
  test::run_thread([&] {
    const Buffer bb = drv_.alloc(32768 * 4 + 4096);
    std::vector<std::uint32_t> cmds(32768, 0);
    mi::emit(cmds, mi::batch_buffer_end());
    drv_.upload(bb, 0, cmds);
    Ring& r = ring(e);
    drv_.emit(r, mi::batch_buffer_start(bb.gfx, false));
    const std::uint32_t seqno = drv_.emit_breadcrumb(r);
    const core::Picoseconds submitted = host_now();
    drv_.submit(r);
    EXPECT_TRUE(drv_.wait_seqno(r, seqno, 1'000'000));
    EXPECT_GT(host_now() - submitted, 100'000 * core::kPsPerNs);
    EXPECT_NE(cs(e).state(), State::kHung);
  });
  EXPECT_TRUE(gpu_.incidents().empty());
}

// Gen9's MOCS tables (i915 intel_mocs.c: GEN9_GFX_MOCS(i) at 0xC800, the other engines' and LNCFCMOCS) and the render
// engine's CS_DEBUG_MODE2 (0x20D8, masked) are storage NEO programs at start-up: they read back what was written.
TEST_F(CommandStreamerTest, MocsTablesAndCsDebugMode2ReadBackWhatWasWritten) {
  test::run_thread([&] {
    for (const std::uint32_t offset : {0xC800u, 0xC8FCu, 0xC900u, 0xCA00u, 0xCB00u, 0xCCFCu, 0xB020u, 0xB09Cu}) {
      mmio_write(offset, 0x0030'0000u | offset);
      EXPECT_EQ(mmio(offset), 0x0030'0000u | offset) << std::hex << offset;
    }
    mmio_write(0x20D8, 0x0020'0020u);  // masked: set bit 5
    mmio_write(0x20D8, 0x0002'0000u);  // masked: clear bit 1 (already clear)
    EXPECT_EQ(mmio(0x20D8), 0x20u);
  });
}

// Broadwell has no MOCS registers (i915 sets them up from Gen9): 0xC800 is an unmapped register there.
TEST_F(CommandStreamerGen8Test, HasNoMocsTables) {
  test::run_thread([&] { EXPECT_EQ(mmio(0xC800), 0u); });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read of unmapped register offset 0xc800").size(), 1u);
}
