#include "tlm/vc4/v3d.h"

namespace gpuvp::vc4 {

using core::Access;

std::uint32_t V3d::ident1_for(const V3dParams& p) {
  const std::uint32_t vpm = p.vpm_kib == 16 ? 0 : p.vpm_kib;
  return (p.revision & 0xF) | (p.slices & 0xF) << 4 | (p.qpus_per_slice & 0xF) << 8 | (p.tmus_per_slice & 0xF) << 12 |
         (p.semaphores & 0xFF) << 16 | (vpm & 0xF) << 28;
}

std::uint32_t V3d::ident2_for(const V3dParams& p) { return (p.tlb_size & 0xF) << 4; }

V3d::V3d(sc_core::sc_module_name name, const V3dParams& params)
    : RegisterBlock(name, kV3dWindowSize, core::ClockDomain("v3d", params.clock_hz), params.mmio_latency_cycles),
      memory("memory", core::Initiator::Counting::kReadsAndWrites),
      params_(params),
      irq_(std::string(this->name()) + ".irq"),
      l2_clears_(stats_group().counter("l2_cache_clears", "events", "L2CACTL writes with L2CCLR set")),
      slice_cache_clears_(
          stats_group().counter("slice_cache_clears", "events", "SLCACTL writes clearing at least one slice cache")) {
  memory.set_mode(core::Initiator::parse_mode(params_.memory_access));
  auto add = [&](const char* reg, std::uint32_t offset, Access access, const char* desc,
                 std::vector<core::RegisterField> fields = {}, std::uint64_t reset = 0,
                 std::uint64_t writable = ~0ULL) -> core::Register& {
    core::RegisterDef def{reg, offset, 32, reset, access, desc, std::move(fields)};
    def.writable_mask = writable;
    return regs().add(std::move(def));
  };

  add("IDENT0", kV3dIdent0, Access::kReadOnly, "'V' '3' 'D' and tech version",
      {{"ID", 0, 24, "ASCII V3D"}, {"TVER", 24, 8, "technology version"}}, kV3dExpectedIdent0);
  add("IDENT1", kV3dIdent1, Access::kReadOnly, "configuration",
      {{"REV", 0, 4, ""},
       {"NSLC", 4, 4, "slices"},
       {"QUPS", 8, 4, "QPUs per slice"},
       {"TUPS", 12, 4, "TMUs per slice"},
       {"NSEM", 16, 8, "semaphores"},
       {"HDRT", 24, 4, "HDR support"},
       {"VPMSZ", 28, 4, "VPM size in KiB, 0 = 16"}},
      ident1_for(params_));
  add("IDENT2", kV3dIdent2, Access::kReadOnly, "tile buffer",
      {{"VRISZ", 0, 4, ""}, {"TLBSZ", 4, 4, "tile buffer size"}, {"TLBDB", 8, 4, "double buffer"}},
      ident2_for(params_));
  add("SCRATCH", kV3dScratch, Access::kReadWrite, "software scratch");

  // L2CACTL (vc4_regs.h; the driver writes L2CCLR before every job, vc4_gem.c vc4_flush_caches): write 1 to L2CENA
  // enables, to L2CDIS disables, to L2CCLR clears the cache; bit 0 reads the enable state. There is no cache model
  // yet, so a clear is only counted. The reset state (disabled) is the model's choice.
  add("L2CACTL", kV3dL2cactl, Access::kReadWrite, "L2 cache control",
      {{"L2CENA", 0, 1, "write 1: enable; reads the enable state"},
       {"L2CDIS", 1, 1, "write 1: disable"},
       {"L2CCLR", 2, 1, "write 1: clear"}},
      0, 0)
      .on_write([this](core::Register& r, std::uint64_t old, std::uint64_t written) {
        std::uint64_t v = old & kV3dL2cEna;
        if (written & kV3dL2cEna) v = kV3dL2cEna;
        if (written & kV3dL2cDis) v = 0;
        if (written & kV3dL2cClr) ++l2_clears_;
        r.set(v);
      });
  // SLCACTL: write 1 clears the slices' instruction, uniforms and TMU0/1 caches (vc4_gem.c vc4_flush_caches writes
  // 0xF to each field); reads 0.
  add("SLCACTL", kV3dSlcactl, Access::kReadWrite, "slice cache control (write 1 to clear)",
      {{"ICCS", 0, 4, "instruction caches"},
       {"UCCS", 8, 4, "uniforms caches"},
       {"T0CCS", 16, 4, "TMU0 caches"},
       {"T1CCS", 24, 4, "TMU1 caches"}},
      0, 0)
      .on_write([this](core::Register&, std::uint64_t, std::uint64_t written) {
        if (written & 0x0F0F0F0F) ++slice_cache_clears_;
        qpus_->clear_tmu_caches(static_cast<std::uint32_t>(written));
      });

  // Interrupts (vc4_irq.c, DOC comment): "We have an interrupt status register (V3D_INTCTL) which reports
  // interrupts, and where writing 1 bits clears those interrupts. There are also a pair of interrupt registers
  // (V3D_INTENA/V3D_INTDIS) where writing a 1 to their bits enables or disables that specific interrupt, and 0s
  // written are ignored (reading either one returns the set of enabled interrupts)."
  const std::vector<core::RegisterField> int_fields = {{"FRDONE", 0, 1, "render frame done"},
                                                       {"FLDONE", 1, 1, "binning flush done"},
                                                       {"OUTOMEM", 2, 1, "binner out of memory"},
                                                       {"SPILLUSE", 3, 1, "binner uses the overspill block"}};
  intctl_ = &add("INTCTL", kV3dIntctl, Access::kWriteOneToClear, "interrupt status, write 1 to clear", int_fields, 0,
                 kV3dIntAll);
  intctl_->on_write([this](core::Register& r, std::uint64_t, std::uint64_t) {
    // OUTOMEM "will stay high until the underlying cause is cleared" (vc4_irq.c): clearing it while the binner still
    // waits for memory leaves it set.
    if (binner_ && binner_->out_of_memory()) r.set_bits(kV3dIntOutomem);
    update_irq();
  });
  intena_ =
      &add("INTENA", kV3dIntena, Access::kReadWrite, "write 1 to enable; reads the enabled set", int_fields, 0, 0);
  intena_->on_write([this](core::Register&, std::uint64_t old, std::uint64_t written) {
    set_enabled_interrupts(static_cast<std::uint32_t>(old | (written & kV3dIntAll)));
  });
  intdis_ =
      &add("INTDIS", kV3dIntdis, Access::kReadWrite, "write 1 to disable; reads the enabled set", int_fields, 0, 0);
  intdis_->on_write([this](core::Register&, std::uint64_t old, std::uint64_t written) {
    set_enabled_interrupts(static_cast<std::uint32_t>(old & ~written & kV3dIntAll));
  });

  // The two CLE threads declare CTnCS, CTnEA, CTnCA, CTnRA0, CTnLC and CTnPC in this bank.
  for (unsigned n = 0; n < 2; ++n) {
    ControlListServices services{
        regs(),
        memory,
        clock(),
        semaphore_,
        [this](std::uint64_t a, std::uint64_t len) { return in_dram(a, len); },
        {},
        {},
        [this, n] { return ct_[1 - n] && ct_[1 - n]->state() == ControlListExecutor::State::kRunning; },
        [this, n] { return ct_[1 - n] && ct_[1 - n]->waiting_on_semaphore(); }};
    if (n == 0) {
      services.flush_done = [this] {
        bfc_->set((bfc_->value() + 1) & 0xFF);
        raise_interrupt(kV3dIntFldone);
      };
    } else {
      services.frame_done = [this] {
        rfc_->set((rfc_->value() + 1) & 0xFF);
        raise_interrupt(kV3dIntFrdone);
      };
    }
    ct_[n] = std::make_unique<ControlListExecutor>(n == 0 ? "ct0" : "ct1", n, params_.cle, services);
  }

  add("PCS", kV3dPcs, Access::kReadOnly, "pipeline control and status",
      {{"BMACTIVE", 0, 1, "binning mode active"},
       {"BMBUSY", 1, 1, "binning mode busy"},
       {"RMACTIVE", 2, 1, "rendering mode active"},
       {"RMBUSY", 3, 1, "rendering mode busy"},
       {"BMOOM", 8, 1, "binner out of memory"}})
      .on_read([this](core::Register&, std::uint64_t) -> std::uint64_t {
        std::uint64_t v = 0;
        if (ct_[0]->run_bit()) v |= kV3dPcsBmActive | kV3dPcsBmBusy;
        if (ct_[1]->run_bit()) v |= kV3dPcsRmActive | kV3dPcsRmBusy;
        if (binner_->out_of_memory()) v |= kV3dPcsBmOom;
        return v;
      });
  // BFC / RFC write semantics. The Linux driver (torvalds/linux drivers/gpu/drm/vc4) never writes them: it waits for
  // FLDONE/FRDONE interrupts (vc4_irq.c) and only dumps them in debugfs (vc4_v3d.c v3d_regs[]). Software that does
  // write them resets the count by writing 1 and then polls for a non-zero count: the ucore port of vc4_gem.c
  // (vc4_submit_next_bin_job: "V3D_WRITE(V3D_BFC, 1); // reset binning frame count ... while (V3D_READ(V3D_BFC) ==
  // 0);", same for RFC), PeterLemon/RaspberryPi V3D/ControlList/*/kernel.asm "Reset Flush Count", LdB-ECM rpi-GLES.c
  // "v3d[V3D_BFC] = 1; // reset". So: a write with bit 0 set clears the 8-bit count (the whole count, not bitwise:
  // a bitwise W1C would leave e.g. 2 in place and break those polls); other writes are ignored.
  auto counter_write = [](core::Register& r, std::uint64_t old, std::uint64_t written) {
    r.set((written & 1) ? 0 : old);
  };
  bfc_ = &add("BFC", kV3dBfc, Access::kReadWrite, "binning mode flush count (write 1 to clear)",
              {{"BMFCT", 0, 8, "flushes completed"}}, 0, 0);
  bfc_->on_write(counter_write);
  rfc_ = &add("RFC", kV3dRfc, Access::kReadWrite, "rendering mode frame count (write 1 to clear)",
              {{"RMFCT", 0, 8, "frames completed"}}, 0, 0);
  rfc_->on_write(counter_write);

  // Binner pool (docs/vc4-v3d.md): current pointer and remaining size are the binner's; the overspill block is
  // software's (vc4_irq.c writes BPOA, then BPOS, on OUTOMEM; vc4_gem.c zeroes them before a job): the binner takes a
  // new overspill block when BPOS is written.
  core::Register& bpca = add("BPCA", kV3dBpca, Access::kReadOnly, "current binning memory pool address");
  core::Register& bpcs = add("BPCS", kV3dBpcs, Access::kReadOnly, "bytes remaining in the binning memory pool");
  core::Register& bpoa = add("BPOA", kV3dBpoa, Access::kReadWrite, "overspill binning memory block address");
  core::Register& bpos = add("BPOS", kV3dBpos, Access::kReadWrite, "overspill binning memory block size");
  bpos.on_write([this](core::Register&, std::uint64_t, std::uint64_t) { binner_->overspill_written(); });

  binner_ = std::make_unique<TileBinner>(
      "ptb", params_.binner,
      TileBinnerServices{memory, clock(), [this](std::uint64_t a, std::uint64_t len) { return in_dram(a, len); },
                         [this](std::uint32_t bits) { raise_interrupt(bits); }, bpca, bpcs, bpoa, bpos,
                         [this](std::uint32_t n) { ct_[0]->set_primitives_remaining(n); },
                         [this] { return qpus_.get(); }});
  renderer_ = std::make_unique<TileRenderer>(
      "renderer", params_.renderer,
      TileRendererServices{memory, clock(), [this](std::uint64_t a, std::uint64_t len) { return in_dram(a, len); },
                           [this] { return qpus_.get(); }});
  ct_[0]->set_unit(binner_.get());
  ct_[1]->set_unit(renderer_.get());

  // The QPUs and the user-program queue (../shared/docs/reference-vc4-qpu.md section 3; vc4_regs.h offsets).
  if (params_.slices * params_.qpus_per_slice > 16) {
    throw core::ConfigError("config keys 'vc4.v3d.slices' x 'vc4.v3d.qpus_per_slice': " +
                            std::to_string(params_.slices * params_.qpus_per_slice) +
                            " QPUs, more than the 16 that SQRSV0/1 and DBQITE/DBQITC have fields for");
  }
  qpus_ = std::make_unique<QpuScheduler>(
      "qpus", params_.slices, params_.qpus_per_slice, params_.qpu,
      QpuSchedulerServices{memory, clock(), [this](std::uint64_t a, std::uint64_t len) { return in_dram(a, len); },
                           [this](unsigned qpu) {
                             dbqitc_->set_bits(1ULL << qpu);
                             update_irq();
                           }});
  for (unsigned i = 0; i < 2; ++i) {
    sqrsv_[i] = &add(i == 0 ? "SQRSV0" : "SQRSV1", i == 0 ? kV3dSqrsv0 : kV3dSqrsv1, Access::kReadWrite,
                     i == 0 ? "QPU 0-7 reservations (4 bits each; bit 0 keeps user programs off the QPU)"
                            : "QPU 8-15 reservations (4 bits each; bit 0 keeps user programs off the QPU)");
    sqrsv_[i]->on_write([this](core::Register&, std::uint64_t, std::uint64_t) {
      qpus_->set_reservations(static_cast<std::uint32_t>(sqrsv_[0]->value()),
                              static_cast<std::uint32_t>(sqrsv_[1]->value()));
    });
  }
  // Scheduler bypass limits and the VPM allocator: stored for software; they change nothing a user program sees.
  add("SQCNTL", kV3dSqcntl, Access::kReadWrite, "scheduler control (VS/CS bypass limits)",
      {{"VSRBL", 0, 2, ""}, {"CSRBL", 2, 2, ""}});
  add("VPACNTL", kV3dVpacntl, Access::kReadWrite, "VPM allocator control");
  add("VPMBASE", kV3dVpmbase, Access::kReadWrite, "VPM reserved for user programs, in 256-byte units",
      {{"VPMURSV", 0, 5, ""}});
  add("SRQPC", kV3dSrqpc, Access::kReadWrite, "user program request: writing the code address queues the program")
      .on_write([this](core::Register&, std::uint64_t, std::uint64_t written) {
        qpus_->request(static_cast<std::uint32_t>(written), static_cast<std::uint32_t>(srqua_->value()),
                       static_cast<std::uint32_t>(srqul_->value()));
      });
  srqua_ = &add("SRQUA", kV3dSrqua, Access::kReadWrite, "uniforms address of the next user program request");
  srqul_ = &add("SRQUL", kV3dSrqul, Access::kReadWrite, "uniforms length of the next user program request",
                {{"QPURQUL", 0, 12, ""}}, 0, 0xFFF);
  add("SRQCS", kV3dSrqcs, Access::kReadWrite, "user program request control and status",
      {{"QPURQL", 0, 6, "queue length"},
       {"QPURQERR", 7, 1, "a request found the queue full; write 1 to clear"},
       {"QPURQCM", 8, 8, "requests made (mod 256); write 1 to bit 8 to clear"},
       {"QPURQCC", 16, 8, "programs completed (mod 256); write 1 to bit 16 to clear"}})
      .on_read([this](core::Register&, std::uint64_t) -> std::uint64_t { return qpus_->srqcs(); })
      .on_write([this](core::Register& r, std::uint64_t, std::uint64_t written) {
        qpus_->write_srqcs(static_cast<std::uint32_t>(written));
        r.set(0);
      });
  // DBCFG: gpu_fft writes 0 ("Disallow IRQ"), Broadcom's driver 1 ("global debug enable"); no public source says
  // what it gates, so it is stored and the host interrupts follow DBQITE alone.
  add("DBCFG", kV3dDbcfg, Access::kReadWrite, "debug configuration");
  dbqite_ =
      &add("DBQITE", kV3dDbqite, Access::kReadWrite, "QPU host interrupt enables, one bit per QPU", {}, 0, 0xFFFF);
  dbqite_->on_write([this](core::Register&, std::uint64_t, std::uint64_t) { update_irq(); });
  dbqitc_ = &add("DBQITC", kV3dDbqitc, Access::kWriteOneToClear,
                 "QPU host interrupts latched, one bit per QPU; write 1 to clear", {}, 0, 0xFFFF);
  dbqitc_->on_write([this](core::Register&, std::uint64_t, std::uint64_t) { update_irq(); });

  // Error and debug registers: vc4_gem.c vc4_save_hang_state reads them into the hang state; no public source
  // documents their bits for the events modelled so far, so they read 0.
  add("DBGE", kV3dDbge, Access::kReadOnly, "PSE error signals");
  add("FDBGO", kV3dFdbgo, Access::kReadOnly, "FEP overrun error signals");
  add("FDBGB", kV3dFdbgb, Access::kReadOnly, "FEP interface ready and stall signals, FEP busy signals");
  add("FDBGR", kV3dFdbgr, Access::kReadOnly, "FEP internal ready signals");
  add("FDBGS", kV3dFdbgs, Access::kReadOnly, "FEP internal stall input signals");
  add("ERRSTAT", kV3dErrstat, Access::kReadOnly, "miscellaneous error signals");
}

void V3d::set_dram(std::uint64_t base, std::uint64_t size) {
  dram_base_ = base;
  dram_size_ = size;
}

bool V3d::in_dram(std::uint64_t address, std::uint64_t length) const {
  // Bus addresses of the V3D are 32 bits.
  if (length == 0 || address >= (1ULL << 32) || length > (1ULL << 32) - address) return false;
  return address >= dram_base_ && address - dram_base_ < dram_size_ && length <= dram_size_ - (address - dram_base_);
}

void V3d::set_enabled_interrupts(std::uint32_t mask) {
  intena_->set(mask);
  intdis_->set(mask);
  update_irq();
}

void V3d::raise_interrupt(std::uint32_t bits) {
  intctl_->set_bits(bits & kV3dIntAll);
  update_irq();
}

void V3d::update_irq() {
  const bool qpu = dbqitc_ != nullptr && (dbqitc_->value() & dbqite_->value()) != 0;
  irq_.set((intctl_->value() & intena_->value()) != 0 || qpu);
}

std::vector<std::string> V3d::incidents() const {
  std::vector<std::string> all;
  for (const auto& t : ct_) all.insert(all.end(), t->incidents().begin(), t->incidents().end());
  all.insert(all.end(), qpus_->incidents().begin(), qpus_->incidents().end());
  return all;
}

}  // namespace gpuvp::vc4
