// Guc: the GPU's x86 microcontroller (Gen9 GuC). A 32-bit x86 core emulated with Unicorn runs the firmware built from
// firmware/guc/ in its own SC_THREAD and clock domain, in slices up to the quantum (at least
// gen.guc.min_slice_instructions, so that a quantum of 0 does not start Unicorn per instruction), and sleeps on HLT
// until an interrupt arrives. The boot ROM (modelled in C++) DMAs the signed image from the GGTT into WOPCM, checks the
// CSS header and the RSA-2048 signature and jumps to it. Facts: docs/gen-guc.md; i915 gt/uc/intel_guc_reg.h,
// intel_guc_fw.c, intel_uc_fw.c, abi/guc_errors_abi.h. The GuC's own memory map and local registers are this model's
// choice (firmware/guc/guc_abi.h).
//
// Host side: the GuC registers (GUC_STATUS, SOFT_SCRATCH, UOS_RSA_SCRATCH, DMA_*, GUC_WOPCM_SIZE, SHIM_CONTROL,
// GUC_SEND_INTERRUPT, the doorbell registers) live in the GPU BAR's register table. Firmware side: WOPCM SRAM, the GPU
// registers through the BAR (every access a timed transaction), graphics memory through the GTT and the GPU's memory
// port. Whatever the firmware does, the host is safe: an access outside the map, an invalid instruction or an
// unhandled CPU exception stops the core with uKernel status 0x70, the faulting EIP in SOFT_SCRATCH(13), a crash
// event in SOFT_SCRATCH(15), the GuC-to-host interrupt and a report with the registers and the disassembly.
//
// Interrupts: the host's GUC_SEND_INTERRUPT, doorbell rings and the engine events the host steered to the GuC
// (GFX_INTERRUPT_STEERING + GUC_*_IER, i915 guc_interrupts_capture) reach the firmware through its IDT; the
// firmware's GuC-to-host interrupt is GEN8_GT_IIR(2) bit 31 (GUC_INTR_GUC2HOST), raised through a callback.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "firmware/guc/guc_abi.h"
#include "tlm/core/config.h"
#include "tlm/core/initiator.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timeline.h"
#include "tlm/core/timing.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/gen/gtt.h"
#include "tlm/gen/guc_gdb_stub.h"

struct uc_struct;

namespace gpuvp::gen {

struct GucParams {
  bool enabled = true;
  std::uint64_t clock_hz = 400'000'000;
  std::uint64_t wopcm_size = 512 * 1024;   // i915 GUC_WOPCM_TOP (gen9)
  double cycles_per_instruction = 1.0;     // fractional: an average over the firmware's instruction mix
  std::uint32_t dma_bytes_per_cycle = 16;  // boot ROM copy from graphics memory into WOPCM
  std::uint32_t rsa_verify_cycles = 200'000;
  std::uint32_t gdb_port = 0;  // 0 = no GDB stub
  std::uint64_t hang_timeout_ns = 100'000'000;
  std::uint32_t min_slice_instructions = 256;

  void visit(core::ParamVisitor& v) {
    v.param("enabled", enabled, "model the GuC microcontroller");
    v.param("clock_hz", clock_hz, "GuC core clock in Hz", 1'000'000, 10'000'000'000ULL);
    v.param("wopcm_size", wopcm_size, "WOPCM SRAM of the GuC in bytes (multiple of 4 KiB)", 64 * 1024, 8 * 1024 * 1024);
    v.param("cycles_per_instruction", cycles_per_instruction,
            "GuC cycles per x86 instruction, on average (fractional: 1.5 is one instruction per 1.5 cycles)", 0.25,
            1000.0);
    v.param("dma_bytes_per_cycle", dma_bytes_per_cycle, "boot ROM DMA bytes per GuC cycle", 1, 4096);
    v.param("rsa_verify_cycles", rsa_verify_cycles, "GuC cycles the boot ROM spends on the RSA check", 0,
            1'000'000'000);
    v.param("gdb_port", gdb_port,
            "TCP port (127.0.0.1) of a GDB remote stub for the firmware; the core waits for gdb at its first "
            "instruction; 0 = off",
            0, 65535);
    v.param("hang_timeout_ns", hang_timeout_ns,
            "simulated time the core may run without halting (HLT) before the watchdog stops it as hung", 1000,
            1'000'000'000'000ULL);
    v.param("min_slice_instructions", min_slice_instructions,
            "instructions the core may run ahead of the kernel per emulation start even when the quantum is used up "
            "(sim.quantum_ns=0): register accesses still synchronise; host speed only, modelled times do not change",
            1, 1'000'000);
  }
};

class Guc : public sc_core::sc_module {
 public:
  // How the GuC reaches the GPU registers: a timed access through the BAR's own decode.
  using MmioTransport = std::function<void(tlm::tlm_generic_payload&, sc_core::sc_time&)>;

  // public_key_pem: the platform's RSA public key the boot ROM checks signatures with.
  Guc(sc_core::sc_module_name name, const GucParams& params, core::RegisterBank& bar, MmioTransport mmio,
      core::Initiator& memory, GttClient& gtt, const std::string& public_key_pem);
  ~Guc() override;
  Guc(const Guc&) = delete;
  Guc& operator=(const Guc&) = delete;

  // The GuC-to-host interrupt: called for every event the firmware (or a fault) posts to the host.
  void set_host_interrupt(std::function<void()> raise) { raise_host_interrupt_ = std::move(raise); }
  // The engines the firmware may schedule (bit per GuC engine id), what the firmware reads in GUC_LAPIC_ENGINES.
  void set_engines_present(std::uint32_t guc_engine_mask) { engines_present_ = guc_engine_mask; }
  // An event of an engine whose interrupts are steered to the GuC: the bits enabled in the GuC's IER register for
  // that engine are latched for the firmware (GUC_VECTOR_ENGINE); returns them (they do not reach the host).
  std::uint32_t take_engine_interrupt(Engine engine, std::uint32_t bits);
  // GDRST GuC domain: stops the core, puts it back in reset and forgets the loaded image.
  void reset();

  std::uint32_t status() const;
  std::uint64_t instructions() const { return instructions_.value; }
  bool running() const { return state_ == State::kRunning; }
  // When the boot ROM jumped to the image (simulated time): the firmware's time 0.
  core::Picoseconds started_ps() const { return boot_cycle_ps_; }
  bool halted() const { return halted_; }
  // Boot failures and firmware faults so far, for the run summary.
  const std::vector<std::string>& incidents() const { return incidents_; }
  const core::ClockDomain& clock() const { return clock_; }
  // The GuC's SRAM (tests check that nothing the host does reaches it).
  const std::vector<std::uint8_t>& wopcm() const { return sram_; }

 private:
  enum class State { kReset, kBooting, kRunning, kFaulted };
  SC_HAS_PROCESS(Guc);

  void declare_registers();
  void run();
  bool boot_rom();
  void boot_fail(std::uint32_t bootrom_status, const std::string& why, bool auth_bad = false);
  bool dma_from_ggtt(std::uint64_t gfx, std::uint32_t wopcm_offset, std::uint32_t size);
  bool verify_signature(const std::uint8_t* data, std::size_t len);
  void execute();
  bool deliver_interrupt(std::uint32_t vector);
  // An interrupt waits and the core is not serving one.
  bool interrupt_pending() const {
    return (host2guc_pending_ || doorbell_irq_pending_ || engine_irq_pending_) && !in_service_;
  }
  bool interrupts_enabled();  // EFLAGS.IF of the core
  void ring_doorbell(unsigned doorbell);
  std::uint32_t next_rung_doorbell();
  void fault(const std::string& what);
  std::string register_dump();
  void set_ukernel(std::uint32_t status);
  void set_mia(std::uint32_t bits, bool on);
  void post_host_interrupt();
  void open_core();
  // Hands the stopped core to gdb; returns false when the core must not run on (reset meanwhile).
  void debugger_stop();
  void close_core();

  // Unicorn callbacks.
  static std::uint64_t lapic_read_cb(uc_struct* uc, std::uint64_t offset, unsigned size, void* self);
  static void lapic_write_cb(uc_struct* uc, std::uint64_t offset, unsigned size, std::uint64_t value, void* self);
  static std::uint64_t mmio_read_cb(uc_struct* uc, std::uint64_t offset, unsigned size, void* self);
  static void mmio_write_cb(uc_struct* uc, std::uint64_t offset, unsigned size, std::uint64_t value, void* self);
  static std::uint64_t ggtt_read_cb(uc_struct* uc, std::uint64_t offset, unsigned size, void* self);
  static void ggtt_write_cb(uc_struct* uc, std::uint64_t offset, unsigned size, std::uint64_t value, void* self);
  static void code_cb(uc_struct* uc, std::uint64_t address, std::uint32_t size, void* self);
  static bool invalid_cb(uc_struct* uc, int type, std::uint64_t address, int size, std::int64_t value, void* self);

  std::uint64_t mmio_access(bool write, std::uint32_t offset, unsigned size, std::uint64_t value);
  std::uint64_t ggtt_access(bool write, std::uint32_t address, unsigned size, std::uint64_t value);
  void stop_with_fault(const std::string& what);

  GucParams params_;
  core::ClockDomain clock_;
  core::RegisterBank& bar_;
  MmioTransport mmio_;
  core::Initiator& memory_;
  GttClient& gtt_;
  std::string public_key_pem_;
  std::function<void()> raise_host_interrupt_;
  std::uint32_t engines_present_ = 0;
  core::LocalTime local_;
  // Brings the local time up to the instruction executing now (a slice adds its time as it goes, at every access that
  // leaves the core, not only at its end), so that accesses and interrupts happen at the instruction's own time.
  void catch_up_local_time() {
    local_.advance((slice_instructions_ - slice_accounted_) * instruction_ps_);
    slice_accounted_ = slice_instructions_;
  }

  std::vector<std::uint8_t> sram_;
  // The first GuC address that reaches the GGTT: the GUC_WOPCM_SIZE the boot ROM accepted (<= gen.guc.wopcm_size).
  std::uint32_t wopcm_top_ = 0;
  uc_struct* uc_ = nullptr;
  State state_ = State::kReset;
  std::uint64_t generation_ = 0;  // bumped by reset(); a thread that sees it change abandons what it was doing
  bool dma_requested_ = false;
  bool host2guc_pending_ = false;
  bool doorbell_irq_pending_ = false;  // a valid doorbell rang since the last doorbell interrupt
  std::vector<bool> doorbell_rung_ = std::vector<bool>(GUC_NUM_DOORBELLS);  // read by GUC_LAPIC_DOORBELL_PENDING
  bool in_service_ = false;
  bool halted_ = false;
  bool hlt_seen_ = false;
  bool emulating_ = false;                                 // inside uc_emu_start (callbacks run on this stack)
  bool engine_irq_pending_ = false;                        // an engine event arrived since the last delivery
  std::array<std::uint32_t, GUC_IER_COUNT> engine_iir_{};  // GUC_LAPIC_ENGINE_IIR(n)
  std::string pending_fault_;
  std::uint64_t slice_instructions_ = 0;
  std::uint64_t slice_accounted_ = 0;  // instructions of the slice already added to the local time
  core::Picoseconds instruction_ps_ = 0;
  std::uint64_t boot_cycle_ps_ = 0;  // time of the jump, for the local timestamp
  sc_core::sc_event wake_;
  std::vector<std::string> incidents_;
  // The core's timeline track: "boot ROM", "firmware" while the core executes (from its jump or an interrupt to HLT;
  // a halted core shows no span) and one span per interrupt served, delivery to EOI, named after its vector.
  int track_ = -1;
  core::OpenSpan running_span_;
  core::OpenSpan isr_span_;
  void end_spans();
  std::unique_ptr<GucGdbStub> gdb_;
  bool gdb_step_ = false;
  bool breakpoint_hit_ = false;
  std::uint64_t resume_address_ = ~0ULL;  // the breakpoint the core resumes from is not hit again at once

  core::Register* status_ = nullptr;
  core::Register* scratch_[16] = {};
  core::Register* dma_ctrl_ = nullptr;
  std::array<core::Register*, GUC_IER_COUNT> ier_{};

  core::StatsGroup stats_;
  core::Counter& instructions_;
  core::Counter& mmio_accesses_;
  core::Counter& memory_accesses_;
  core::Counter& interrupts_;
  core::Counter& doorbell_rings_;
  core::Counter& engine_events_;
  core::Counter& boots_;
  core::Counter& boot_failures_;
  core::Counter& faults_;
  core::Counter& emulation_starts_;
  core::BusyTime& busy_;  // the core executing (from the jump or an interrupt to HLT, a fault or a reset)
};

}  // namespace gpuvp::gen
