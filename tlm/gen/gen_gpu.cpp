#include "tlm/gen/gen_gpu.h"

#include "hw/gen/engine_regs.h"
#include "hw/gen/gpgpu_commands.h"
#include "hw/gen/gtt_regs.h"
#include "hw/gen/guc_regs.h"

namespace gpuvp::gen {

GenGpu::GenGpu(sc_core::sc_module_name name, const GenGpuParams& params, std::uint64_t gsm_base)
    : RegisterBlock(name, kBarSize, core::ClockDomain("gen", params.clock_hz), params.mmio_latency_cycles),
      memory("memory", core::Initiator::Counting::kReadsAndWrites),
      params_(params),
      gtt_("gtt", params.gtt, gsm_base, regs(), memory, clock()),
      irq_(std::string(this->name()) + ".irq"),
      interrupts_(regs(), irq_, this->name()) {
  // The host line irq_ is GtInterrupts' alone: GEN8_MASTER_IRQ enable && a GT bank's (IIR & IER). Every source
  // reaches it through a bank: engine events (CommandStreamer), the GuC-to-host interrupt (bank 2, below). A GTT
  // fault raises nothing by itself (Gtt::record_fault): its engine stops with a CS error.
  params_.cs.gpgpu.dram.gpu_clock_hz = params_.clock_hz;  // the EU array's memory hierarchy counts GPU cycles
  memory.set_mode(core::Initiator::parse_mode(params_.memory_access));
  for (int i = 0; i < kEngineCount; ++i) {
    const EngineInfo& info = engine_info(static_cast<Engine>(i));
    if (!params_.engines.has(info.id)) continue;
    GttClient& client = gtt_.add_client(info.name, info.hw_id, info.hw_id);
    engines_[static_cast<std::size_t>(i)] =
        std::make_unique<CommandStreamer>(info.name, info, params_.cs,
                                          EngineServices{regs(), memory, interrupts_, client, clock(),
                                                         params_.generation, memory_written_, memory_waiters_});
    // gen.ring_model: "rtl" puts the verilated ring_ptr block (registered by rtl/) behind every engine.
    engines_[static_cast<std::size_t>(i)]->attach_ring_model(make_ring_pointer_model(params_.ring_model));
  }
  if (params_.guc.enabled) {
    // The GuC's GTT client: RING_FAULT_REG source 0x20 is the model's choice (no public source lists the GuC's).
    // Its register accesses go through the BAR's own decode (the target socket's forward interface).
    auto* bar = dynamic_cast<tlm::tlm_fw_transport_if<>*>(socket.get_base_export().get_interface());
    guc_ = std::make_unique<Guc>(
        "guc", params_.guc, regs(),
        [bar](tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) { bar->b_transport(trans, delay); }, memory,
        gtt_.add_client("guc", 0x20, 0), std::string());
    guc_->set_host_interrupt([this] { interrupts_.raise_bank(GtInterrupts::kGucBank, GtInterrupts::kGucToHost); });
    std::uint32_t present = 0;
    for (int i = 0; i < kEngineCount; ++i) {
      if (engines_[static_cast<std::size_t>(i)]) present |= 1u << guc_engine_id(static_cast<Engine>(i));
    }
    guc_->set_engines_present(present);
    // Events of an engine with GFX_INTERRUPT_STEERING set are offered to the GuC first.
    interrupts_.set_router([this](Engine engine, std::uint32_t bits) -> std::uint32_t {
      const auto& cs = engines_[static_cast<std::size_t>(engine)];
      if (!cs || !cs->interrupts_steered_to_guc()) return 0;
      return guc_->take_engine_interrupt(engine, bits);
    });
  }
  // GEN6_GDRST: software sets domain bits to reset engines; the hardware clears them when done (at once here).
  regs()
      .add({"GDRST",
            kGdrst,
            32,
            0,
            core::Access::kReadWrite,
            "GEN6_GDRST: bit 0 full reset, 1 render, 2 media, 3 blitter, 4 vebox, 7 media2",
            {}})
      .on_write([this](core::Register& r, std::uint64_t, std::uint64_t written) {
        for (auto& engine : engines_) {
          if (engine && (written & (kGdrstFull | engine->info().reset_domain))) engine->reset();
        }
        if (guc_ && (written & (kGdrstFull | kGdrstGuc))) guc_->reset();
        r.set(0);
      });
  // The GPGPU set-up's GT registers (hw/gen/gpgpu_commands.h). A walker checks L3CNTLREG's partition (SLM enable for
  // a kernel with shared local memory) and the EU array's timing caches data in its data partition; the thread
  // arbitration policy is kept for the EU timing model. L3CNTLREG's reset value is not in the public documents: the
  // model resets it to the partition NEO programs for kernels without SLM (URB 32, all 64 ways), so a driver that
  // never programs it gets the L3 of a compute context.
  regs().add({"L3CNTLREG",
              gpgpu::kL3Cntlreg,
              32,
              gpgpu::kL3CntlregWithoutSlm,
              core::Access::kReadWrite,
              "L3 partition: bit 0 SLM enable, 7:1 URB, 17:11 RO, 24:18 DC, 31:25 all (Mesa genxml)",
              {{"SLM_ENABLE", 0, 1, ""}, {"URB", 1, 7, ""}, {"RO", 11, 7, ""}, {"DC", 18, 7, ""}, {"ALL", 25, 7, ""}}});
  if (params_.generation >= 9) {
    add_mocs_tables();
    regs().add({"DEBUG_CONTROL_REG2",
                gpgpu::kDebugControlReg2,
                32,
                0,
                core::Access::kReadWrite,
                "EU thread arbitration: 0x100 round robin, 0 age-based (NEO gen9 reg_configs.h)",
                {}});
  }
}

void GenGpu::add_mocs_tables() {
  // Storage only: cache and L3 attributes change no result of the functional model (their timing belongs to the
  // memory hierarchy model), but drivers program and read them back (NEO writes the render table at start-up).
  struct Table {
    const char* name;
    std::uint32_t base;
    std::uint32_t count;
  };
  const Table tables[] = {{"GFX_MOCS", kMocsRcs, kMocsEntries},   {"MFX0_MOCS", kMocsVcs0, kMocsEntries},
                          {"MFX1_MOCS", kMocsVcs1, kMocsEntries}, {"VEBOX_MOCS", kMocsVecs, kMocsEntries},
                          {"BLT_MOCS", kMocsBcs, kMocsEntries},   {"LNCFCMOCS", kLncfMocs, kLncfMocsRegisters}};
  for (const Table& t : tables) {
    for (std::uint32_t i = 0; i < t.count; ++i) {
      regs().add({std::string(t.name) + std::to_string(i),
                  t.base + 4 * i,
                  32,
                  0,
                  core::Access::kReadWrite,
                  "memory object control state (cache attributes); stored, no effect on results",
                  {}});
    }
  }
}

bool GenGpu::busy() const {
  for (const auto& engine : engines_) {
    if (engine && engine->busy()) return true;
  }
  return false;
}

std::vector<std::string> GenGpu::incidents() const {
  std::vector<std::string> all;
  for (const auto& engine : engines_) {
    if (engine) all.insert(all.end(), engine->incidents().begin(), engine->incidents().end());
  }
  if (guc_) all.insert(all.end(), guc_->incidents().begin(), guc_->incidents().end());
  return all;
}

bool GenGpu::forward_access(tlm::tlm_generic_payload& trans, sc_core::sc_time* delay) {
  const std::uint64_t addr = trans.get_address();
  if (addr < kGgttPteWindowOffset) return false;
  gtt_.pte_window_access(trans, addr - kGgttPteWindowOffset, delay);
  return true;
}

}  // namespace gpuvp::gen
