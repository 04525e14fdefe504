#include "tlm/gen/guc.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include <capstone/capstone.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <unicorn/unicorn.h>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "guc_public_key.h"  // generated: kGucTestPublicKeyPem (firmware/keys/guc_test_key.pub.pem)
#include "hw/gen/guc_regs.h"
#include "tlm/core/report.h"

namespace gpuvp::gen {

namespace {

constexpr std::uint32_t kEflagsIf = 1u << 9;
constexpr std::uint64_t kNoStopAddress = 1ULL << 32;
constexpr std::uint32_t kStatusResetValue = GUC_STATUS_MIA_IN_RESET;
// Stack the model gives the boot ROM's jump: below the load address, as i915's comment says the uCode expects.
constexpr std::uint32_t kInitialStack = GUC_WOPCM_LOAD_ADDRESS;

}  // namespace

Guc::Guc(sc_core::sc_module_name name, const GucParams& params, core::RegisterBank& bar, MmioTransport mmio,
         core::Initiator& memory, GttClient& gtt, const std::string& public_key_pem)
    : sc_module(name),
      params_(params),
      clock_("guc", params.clock_hz),
      bar_(bar),
      mmio_(std::move(mmio)),
      memory_(memory),
      gtt_(gtt),
      public_key_pem_(public_key_pem.empty() ? std::string(kGucTestPublicKeyPem) : public_key_pem),
      sram_(params.wopcm_size, 0),
      stats_(this->name()),
      instructions_(stats_.counter("instructions", "events", "firmware instructions executed")),
      mmio_accesses_(stats_.counter("mmio_accesses", "events", "firmware register accesses")),
      memory_accesses_(stats_.counter("memory_accesses", "events", "firmware graphics memory accesses (GGTT)")),
      interrupts_(stats_.counter("interrupts", "events", "interrupts delivered to the firmware")),
      doorbell_rings_(stats_.counter("doorbell_rings", "events", "rings of valid doorbells while the GuC ran")),
      engine_events_(stats_.counter("engine_events", "events", "engine interrupt events steered to the GuC")),
      boots_(stats_.counter("boots", "events", "boot ROM runs (DMA_CTRL start), rejected images included")),
      boot_failures_(stats_.counter("boot_failures", "events", "images the boot ROM rejected")),
      faults_(stats_.counter("faults", "events", "firmware faults (the core stopped)")),
      emulation_starts_(
          stats_.counter("emulation_starts", "events",
                         "slices the core ran (Unicorn starts); instructions / starts is the average slice")),
      busy_(stats_.busy_time("busy", "the core executing, not halted")) {
  if (params_.wopcm_size % 4096 != 0 || params_.wopcm_size <= GUC_UCODE_ENTRY) {
    throw std::invalid_argument("gen.guc.wopcm_size must be a multiple of 4 KiB above the load address");
  }
  declare_registers();
  track_ = core::timeline().track(this->name());
  if (params_.gdb_port != 0) {
    gdb_ = std::make_unique<GucGdbStub>(static_cast<std::uint16_t>(params_.gdb_port), sram_.data(), sram_.size());
    const std::string error = gdb_->listen();
    if (!error.empty()) throw std::runtime_error("gen.guc.gdb_port: " + error);
  }
  SC_THREAD(run);
  // Unicorn's code generator runs on this thread's stack.
  set_stack_size(8 * 1024 * 1024);
}

Guc::~Guc() { close_core(); }

void Guc::declare_registers() {
  using core::Access;
  status_ = &bar_.add({"GUC_STATUS",
                       GUC_REG_STATUS,
                       32,
                       kStatusResetValue,
                       Access::kReadOnly,
                       "GuC status: 0 MIA in reset, 7:1 boot ROM, 15:8 uKernel, 18:16 MIA, 31:30 auth",
                       {{"MIA_IN_RESET", 0, 1, ""},
                        {"BOOTROM", 1, 7, "0x76 jump passed, 0x50 RSA failed"},
                        {"UKERNEL", 8, 8, "0x30 LAPIC done, 0xF0 ready, 0x70 exception"},
                        {"MIA", 16, 3, "1 core state, 2 halt requested, 4 ISR entry"},
                        {"AUTH", 30, 2, "1 bad, 2 good"}}});
  bar_.add({"GUC_WOPCM_SIZE",
            GUC_REG_WOPCM_SIZE,
            32,
            0,
            Access::kReadWrite,
            "WOPCM size for the GuC (31:12), bit 0 locked",
            {}})
      .on_write([](core::Register& r, std::uint64_t old, std::uint64_t) {
        if (old & 1) r.set(old);  // locked until reset
      });
  bar_.add({"GUC_SHIM_CONTROL",
            GUC_REG_SHIM_CONTROL,
            32,
            0,
            Access::kReadWrite,
            "GuC shim control (cache and clock gating)",
            {}});
  for (unsigned n = 0; n < GUC_SOFT_SCRATCH_COUNT; ++n) {
    scratch_[n] = &bar_.add({"SOFT_SCRATCH_" + std::to_string(n),
                             GUC_REG_SOFT_SCRATCH(n),
                             32,
                             0,
                             Access::kReadWrite,
                             n == 0    ? "mailbox action / reply"
                             : n == 15 ? "GuC-to-host events; writing acknowledges"
                                       : "mailbox parameter",
                             {}});
  }
  for (unsigned i = 0; i < GUC_RSA_SCRATCH_COUNT; ++i) {
    bar_.add({"UOS_RSA_SCRATCH_" + std::to_string(i),
              GUC_REG_RSA_SCRATCH(i),
              32,
              0,
              Access::kReadWrite,
              "RSA signature of the image, dword " + std::to_string(i),
              {}});
  }
  bar_.add({"DMA_ADDR_0_LOW", GUC_REG_DMA_ADDR_0_LOW, 32, 0, Access::kReadWrite, "DMA source (GGTT) 31:0", {}});
  bar_.add({"DMA_ADDR_0_HIGH", GUC_REG_DMA_ADDR_0_HIGH, 32, 0, Access::kReadWrite, "DMA source 47:32", {}});
  bar_.add({"DMA_ADDR_1_LOW", GUC_REG_DMA_ADDR_1_LOW, 32, 0, Access::kReadWrite, "DMA destination 31:0", {}});
  bar_.add({"DMA_ADDR_1_HIGH",
            GUC_REG_DMA_ADDR_1_HIGH,
            32,
            0,
            Access::kReadWrite,
            "DMA destination 15:0, address space 19:16 (7 WOPCM)",
            {}});
  bar_.add({"DMA_COPY_SIZE", GUC_REG_DMA_COPY_SIZE, 32, 0, Access::kReadWrite, "DMA bytes (header + uCode)", {}});
  dma_ctrl_ = &bar_.add({"DMA_CTRL",
                         GUC_REG_DMA_CTRL,
                         32,
                         0,
                         Access::kMasked,
                         "0 START_DMA (clears when done), 4 UOS_MOVE, 9 HUC_UKERNEL",
                         {{"START_DMA", 0, 1, ""}, {"UOS_MOVE", 4, 1, ""}, {"HUC_UKERNEL", 9, 1, ""}}});
  dma_ctrl_->on_write([this](core::Register& r, std::uint64_t old, std::uint64_t) {
    if ((r.value() & GUC_DMA_START) && !(old & GUC_DMA_START)) {
      dma_requested_ = true;
      wake_.notify(sc_core::SC_ZERO_TIME);
    }
  });
  bar_.add({"DMA_GUC_WOPCM_OFFSET",
            GUC_REG_DMA_WOPCM_OFFSET,
            32,
            0,
            Access::kReadWrite,
            "GuC WOPCM offset (31:14), bit 0 valid",
            {}});
  bar_.add({"GUC_SEND_INTERRUPT",
            GUC_REG_SEND_INTERRUPT,
            32,
            0,
            Access::kReadWrite,
            "bit 0 GUC_SEND_TRIGGER: host-to-GuC interrupt (self-clearing)",
            {}})
      .on_write([this](core::Register& r, std::uint64_t, std::uint64_t written) {
        r.set(0);
        if (written & GUC_SEND_TRIGGER) {
          host2guc_pending_ = true;
          wake_.notify(sc_core::SC_ZERO_TIME);
        }
      });
  static const char* const ier_names[GUC_IER_COUNT] = {"GUC_BCS_RCS_IER", "GUC_VCS2_VCS1_IER", "GUC_WD_VECS_IER"};
  static const char* const ier_use[GUC_IER_COUNT] = {"RCS 15:0, BCS 31:16", "VCS 15:0, VCS2 31:16", "VECS 15:0"};
  for (unsigned n = 0; n < GUC_IER_COUNT; ++n) {
    ier_[n] = &bar_.add(
        {ier_names[n],
         GUC_REG_BCS_RCS_IER + 4 * n,
         32,
         0,
         Access::kReadWrite,
         std::string("engine events the GuC takes from steered engines (") + ier_use[n] + "; GT interrupt bit layout)",
         {}});
  }
  bar_.add({"GEN9_GT_PM_CONFIG", kGtPmConfig, 32, 0, Access::kReadWrite, "bit 0 doorbell enable", {}});
  for (unsigned d = 0; d < GUC_NUM_DOORBELLS; ++d) {
    bar_.add({"DRBREGL_" + std::to_string(d),
              GUC_REG_DRBREGL(d),
              32,
              0,
              Access::kReadWrite,
              "doorbell " + std::to_string(d) + ": bit 0 valid (GuC-programmed)",
              {}});
    bar_.add({"DRBREGU_" + std::to_string(d),
              GUC_REG_DRBREGU(d),
              32,
              0,
              Access::kReadWrite,
              "doorbell " + std::to_string(d) + " upper dword: the host writes the new cookie to ring it (model)",
              {}})
        .on_write([this, d](core::Register&, std::uint64_t, std::uint64_t) { ring_doorbell(d); });
  }
}

void Guc::ring_doorbell(unsigned doorbell) {
  // Model's choice (firmware/guc/guc_abi.h): the DRBREGU write stands for the doorbell hardware's snoop of the
  // cookie update in the client's doorbell cacheline.
  if (!(bar_.at(GUC_REG_DRBREGL(doorbell)).value() & GUC_DRB_VALID)) {
    core::report_guest_warning(name(),
                               "doorbell " + std::to_string(doorbell) +
                                   " rang while DRBREGL valid is clear (not allocated by the GuC): ring dropped");
    return;
  }
  if (state_ != State::kRunning) {
    core::report_guest_warning(name(),
                               "doorbell " + std::to_string(doorbell) + " rang while the GuC is not running: dropped");
    return;
  }
  ++doorbell_rings_;
  doorbell_rung_[doorbell] = true;
  doorbell_irq_pending_ = true;
  wake_.notify(sc_core::SC_ZERO_TIME);
}

std::uint32_t Guc::next_rung_doorbell() {
  for (unsigned d = 0; d < GUC_NUM_DOORBELLS; ++d) {
    if (doorbell_rung_[d]) {
      doorbell_rung_[d] = false;
      return d;
    }
  }
  return GUC_DOORBELL_NONE;
}

std::uint32_t Guc::status() const { return static_cast<std::uint32_t>(status_->value()); }

void Guc::set_ukernel(std::uint32_t s) {
  status_->set((status_->value() & ~std::uint64_t{GUC_STATUS_UKERNEL_MASK}) |
               ((s & 0xFFu) << GUC_STATUS_UKERNEL_SHIFT));
}

void Guc::set_mia(std::uint32_t bits, bool on) {
  if (on) {
    status_->set_bits(bits);
  } else {
    status_->clear_bits(bits);
  }
}

void Guc::post_host_interrupt() {
  if (raise_host_interrupt_) raise_host_interrupt_();
}

std::uint32_t Guc::take_engine_interrupt(Engine engine, std::uint32_t bits) {
  // GUC_BCS_RCS_IER, GUC_VCS2_VCS1_IER and GUC_WD_VECS_IER mirror GT banks 0, 1 and 3.
  const int bank = GtInterrupts::bank_of(engine);
  const std::size_t n = bank == 3 ? 2 : static_cast<std::size_t>(bank);
  const int shift = GtInterrupts::shift_of(engine);
  const std::uint32_t taken = bits & static_cast<std::uint32_t>(ier_[n]->value() >> shift) & 0xFFFFu;
  if (taken == 0) return 0;
  ++engine_events_;
  engine_iir_[n] |= taken << shift;
  engine_irq_pending_ = true;
  wake_.notify(sc_core::SC_ZERO_TIME);
  return taken;
}

void Guc::reset() {
  ++generation_;
  if (emulating_) {
    // The firmware itself reset the GuC (GDRST through its register window): the core is inside uc_emu_start on
    // this very stack, so stop it and let execute() close it once Unicorn has returned.
    uc_emu_stop(uc_);
  } else {
    close_core();
  }
  end_spans();
  state_ = State::kReset;
  dma_requested_ = false;
  host2guc_pending_ = false;
  doorbell_irq_pending_ = false;
  std::fill(doorbell_rung_.begin(), doorbell_rung_.end(), false);
  in_service_ = false;
  halted_ = false;
  pending_fault_.clear();
  std::memset(sram_.data(), 0, sram_.size());  // (512 KiB: std::fill is a byte loop in unoptimised builds)
  status_->set(kStatusResetValue);
  dma_ctrl_->set(0);
  engine_irq_pending_ = false;
  engine_iir_.fill(0);
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void Guc::run() {
  for (;;) {
    while (!dma_requested_) sc_core::wait(wake_);
    dma_requested_ = false;
    const std::uint64_t generation = generation_;
    state_ = State::kBooting;
    const core::Picoseconds boot_start = local_.now();
    const bool ok = boot_rom();
    local_.sync();
    core::timeline().span(track_, ok ? "boot ROM" : "boot ROM (image rejected)", boot_start, local_.now() - boot_start);
    if (generation != generation_) continue;  // reset while the boot ROM was busy
    dma_ctrl_->clear_bits(GUC_DMA_START);
    if (!ok) {
      state_ = State::kReset;
      continue;
    }
    execute();
  }
}

void Guc::boot_fail(std::uint32_t bootrom_status, const std::string& why, bool auth_bad) {
  status_->set((status_->value() & ~std::uint64_t{GUC_STATUS_BOOTROM_MASK}) |
               (bootrom_status << GUC_STATUS_BOOTROM_SHIFT) | (auth_bad ? GUC_STATUS_AUTH_BAD : 0u));
  ++boot_failures_;
  const std::string msg =
      "boot ROM: " + why + " (boot ROM status " + core::format_hex(bootrom_status, 8) + "); image not started";
  core::keep_incident(incidents_, msg);
  core::report_guest_error(name(), msg);
}

bool Guc::boot_rom() {
  ++boots_;
  status_->set(kStatusResetValue);
  const std::uint64_t src =
      (bar_.at(GUC_REG_DMA_ADDR_0_HIGH).value() & 0xFFFF) << 32 | bar_.at(GUC_REG_DMA_ADDR_0_LOW).value();
  const auto dst_high = static_cast<std::uint32_t>(bar_.at(GUC_REG_DMA_ADDR_1_HIGH).value());
  const auto dst = static_cast<std::uint32_t>(bar_.at(GUC_REG_DMA_ADDR_1_LOW).value());
  const auto size = static_cast<std::uint32_t>(bar_.at(GUC_REG_DMA_COPY_SIZE).value());
  const auto ctrl = static_cast<std::uint32_t>(dma_ctrl_->value());
  const std::uint64_t wopcm_reg = bar_.at(GUC_REG_WOPCM_SIZE).value() & 0xFFFFF000u;

  if (!(ctrl & GUC_DMA_UOS_MOVE)) {
    boot_fail(GUC_BOOTROM_LOADLOC_FAILED, "DMA_CTRL without UOS_MOVE: only GuC uCode loads are modelled");
    return false;
  }
  if ((dst_high & 0xFFFF0000u) != GUC_DMA_ADDRESS_SPACE_WOPCM || dst != GUC_WOPCM_LOAD_ADDRESS) {
    boot_fail(GUC_BOOTROM_LOADLOC_FAILED, "DMA destination " + core::format_hex(dst_high, 8) + ":" +
                                              core::format_hex(dst, 8) + " is not WOPCM " +
                                              core::format_hex(GUC_WOPCM_LOAD_ADDRESS, 8));
    return false;
  }
  if (wopcm_reg == 0 || wopcm_reg > params_.wopcm_size) {
    boot_fail(GUC_BOOTROM_WOPCM_FAILED, "GUC_WOPCM_SIZE " + core::format_hex(wopcm_reg, 8) + " is 0 or beyond the " +
                                            std::to_string(params_.wopcm_size) + "-byte WOPCM");
    return false;
  }
  if (size < GUC_CSS_HEADER_BYTES || std::uint64_t{dst} + size > wopcm_reg) {
    boot_fail(GUC_BOOTROM_WOPCM_FAILED, "DMA_COPY_SIZE " + std::to_string(size) + " does not fit between " +
                                            core::format_hex(dst, 8) + " and WOPCM top " +
                                            core::format_hex(wopcm_reg, 8));
    return false;
  }
  // i915: the GuC cannot address GGTT objects below WOPCM_TOP (its own SRAM answers there).
  if (src < wopcm_reg || src + size > GUC_GGTT_TOP) {
    boot_fail(GUC_BOOTROM_LOADLOC_FAILED,
              "DMA source " + core::format_hex(src, 8) + " is outside the GuC's GGTT range");
    return false;
  }
  if (!dma_from_ggtt(src, dst, size)) {
    boot_fail(GUC_BOOTROM_LOADLOC_FAILED, "DMA source " + core::format_hex(src, 8) + " (+" + std::to_string(size) +
                                              " bytes) is not mapped in the GGTT");
    return false;
  }
  const firmware::CssHeader h = firmware::read_css_header(sram_.data() + dst);
  if (h.key_size_dw != GUC_CSS_KEY_SIZE_DW) {
    boot_fail(GUC_BOOTROM_NO_KEY_FOUND, "CSS header key size " + std::to_string(h.key_size_dw) +
                                            " dwords; the boot ROM holds a 64-dword RSA-2048 key");
    return false;
  }
  const std::uint64_t non_header = std::uint64_t{h.key_size_dw} + h.modulus_size_dw + h.exponent_size_dw;
  if (h.header_size_dw < non_header || (h.header_size_dw - non_header) * 4 != GUC_CSS_HEADER_BYTES ||
      h.size_dw < h.header_size_dw) {
    boot_fail(GUC_BOOTROM_LOADLOC_FAILED, "CSS header definition mismatch");
    return false;
  }
  const std::uint64_t ucode = (std::uint64_t{h.size_dw} - h.header_size_dw) * 4;
  if (ucode + GUC_CSS_HEADER_BYTES != size) {
    boot_fail(GUC_BOOTROM_LOADLOC_FAILED, "CSS header gives " + std::to_string(ucode) +
                                              " uCode bytes but DMA_COPY_SIZE is " + std::to_string(size));
    return false;
  }
  local_.advance(clock_.cycles(params_.rsa_verify_cycles));
  if (!verify_signature(sram_.data() + dst, size)) {
    boot_fail(GUC_BOOTROM_RSA_FAILED, "RSA-2048 signature in UOS_RSA_SCRATCH does not match the image", true);
    return false;
  }
  status_->set((status_->value() & ~std::uint64_t{GUC_STATUS_BOOTROM_MASK}) |
               (GUC_BOOTROM_JUMP_PASSED << GUC_STATUS_BOOTROM_SHIFT) | GUC_STATUS_AUTH_GOOD);
  // The core's map splits at the size the image was checked against: below it the GuC sees its SRAM, above the GGTT.
  wopcm_top_ = static_cast<std::uint32_t>(wopcm_reg);
  return true;
}

bool Guc::dma_from_ggtt(std::uint64_t gfx, std::uint32_t wopcm_offset, std::uint32_t size) {
  sc_core::sc_time& delay = local_.offset();  // the local time, advanced in place
  std::uint32_t done = 0;
  while (done < size) {
    const std::uint64_t va = gfx + done;
    const std::uint32_t chunk = std::min<std::uint64_t>(size - done, 4096 - (va & 0xFFF));
    const Translation t = gtt_.translate(va, AddressSpace::kGgtt, false, delay);
    if (!t.ok) return false;
    if (memory_.read(t.pa, sram_.data() + wopcm_offset + done, chunk, delay) != tlm::TLM_OK_RESPONSE) return false;
    done += chunk;
  }
  delay += core::to_sc_time(clock_.cycles((size + params_.dma_bytes_per_cycle - 1) / params_.dma_bytes_per_cycle));
  return true;
}

bool Guc::verify_signature(const std::uint8_t* data, std::size_t len) {
  std::uint8_t signature[GUC_RSA_SCRATCH_COUNT * 4];
  for (unsigned i = 0; i < GUC_RSA_SCRATCH_COUNT; ++i) {
    const auto v = static_cast<std::uint32_t>(bar_.at(GUC_REG_RSA_SCRATCH(i)).value());
    std::memcpy(signature + 4 * i, &v, 4);  // i915 writes the signature bytes as little-endian dwords
  }
  BIO* bio = BIO_new_mem_buf(public_key_pem_.data(), static_cast<int>(public_key_pem_.size()));
  EVP_PKEY* key = bio ? PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr) : nullptr;
  BIO_free(bio);
  if (key == nullptr) {
    core::report_error(name(), "boot ROM: the platform public key is not a PEM public key");
    return false;
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = ctx && EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
                  EVP_DigestVerify(ctx, signature, sizeof signature, data, len) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  return ok;
}

// ---- the core ----

void Guc::open_core() {
  close_core();
  if (uc_open(UC_ARCH_X86, UC_MODE_32, &uc_) != UC_ERR_OK) {
    uc_ = nullptr;
    throw std::runtime_error("unicorn: cannot create an x86-32 core");
  }
  uc_hook hook;
  bool ok =
      uc_mem_map_ptr(uc_, 0, wopcm_top_, UC_PROT_ALL, sram_.data()) == UC_ERR_OK &&
      uc_mmio_map(uc_, wopcm_top_, GUC_GGTT_TOP - wopcm_top_, &Guc::ggtt_read_cb, this, &Guc::ggtt_write_cb, this) ==
          UC_ERR_OK &&
      uc_mmio_map(uc_, GUC_LAPIC_BASE, GUC_LAPIC_SIZE, &Guc::lapic_read_cb, this, &Guc::lapic_write_cb, this) ==
          UC_ERR_OK &&
      uc_mmio_map(uc_, GUC_MMIO_BASE, GUC_MMIO_SIZE, &Guc::mmio_read_cb, this, &Guc::mmio_write_cb, this) ==
          UC_ERR_OK &&
      uc_hook_add(uc_, &hook, UC_HOOK_CODE, reinterpret_cast<void*>(&Guc::code_cb), this, 1, 0) == UC_ERR_OK &&
      uc_hook_add(uc_, &hook, UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(&Guc::invalid_cb), this, 1, 0) == UC_ERR_OK;
  if (!ok) throw std::runtime_error("unicorn: cannot build the GuC memory map");
}

void Guc::close_core() {
  if (uc_ != nullptr) uc_close(uc_);
  uc_ = nullptr;
}

void Guc::execute() {
  const std::uint64_t generation = generation_;
  open_core();
  std::uint32_t eip = GUC_UCODE_ENTRY;
  std::uint32_t esp = kInitialStack;
  std::uint32_t eflags = 0x2;
  uc_reg_write(uc_, UC_X86_REG_EIP, &eip);
  uc_reg_write(uc_, UC_X86_REG_ESP, &esp);
  uc_reg_write(uc_, UC_X86_REG_EFLAGS, &eflags);
  state_ = State::kRunning;
  halted_ = false;
  set_mia(GUC_STATUS_MIA_CORE_STATE, true);
  boot_cycle_ps_ = local_.now();
  running_span_.begin(track_, "firmware", boot_cycle_ps_);
  busy_.begin(boot_cycle_ps_);
  // Rounded to whole picoseconds, at least one: the time of every instruction is the same, so a run's timing does not
  // depend on where slices start.
  const core::Picoseconds instruction_ps = std::max<core::Picoseconds>(
      1, static_cast<core::Picoseconds>(
             std::llround(params_.cycles_per_instruction * static_cast<double>(clock_.period_ps()))));
  instruction_ps_ = instruction_ps;
  if (gdb_) debugger_stop();  // gdb gets the core before its first instruction

  while (generation == generation_ && state_ == State::kRunning) {
    if (interrupt_pending()) {
      // The host's mailbox first, then doorbells, then engine events (fixed priority, like vectors of an x86 local
      // APIC).
      if (host2guc_pending_) {
        if (deliver_interrupt(GUC_VECTOR_HOST2GUC)) host2guc_pending_ = false;
      } else if (doorbell_irq_pending_) {
        if (deliver_interrupt(GUC_VECTOR_DOORBELL)) doorbell_irq_pending_ = false;
      } else if (deliver_interrupt(GUC_VECTOR_ENGINE)) {
        engine_irq_pending_ = false;
      }
      if (state_ != State::kRunning) break;
    }
    if (halted_) {
      set_mia(GUC_STATUS_MIA_HALT_REQUESTED, true);
      local_.sync();
      if (generation != generation_) return;
      // A halted core wakes for an interrupt it can take: with EFLAGS.IF clear (cli; hlt) it stays halted, as an x86
      // does, until a new event (reset, another interrupt) — never spinning on the pending one.
      if (!interrupt_pending() || !interrupts_enabled()) sc_core::wait(wake_);
      if (generation != generation_) return;
      continue;
    }
    // The slice runs to the end of the quantum, and at least min_slice_instructions: each Unicorn start costs host
    // time (a quantum of 0 would start it per instruction), and running ahead of the kernel changes no modelled time,
    // since register accesses synchronise (mmio_access) and memory writes carry their time, as under any quantum.
    const core::Picoseconds left =
        local_.quantum_ps() > local_.offset_ps() ? local_.quantum_ps() - local_.offset_ps() : 0;
    const std::size_t min_slice = std::max<std::uint32_t>(1, params_.min_slice_instructions);
    std::size_t budget = gdb_step_ ? 1 : std::max<std::size_t>(min_slice, left / instruction_ps);
    if (busy_.open) {
      // The slice ends where the watchdog would expire, so that it expires at the same instruction whatever the
      // quantum.
      const core::Picoseconds expiry = busy_.open_since_ps + params_.hang_timeout_ns * core::kPsPerNs + 1;
      const core::Picoseconds now = local_.now();
      if (expiry > now) {
        budget = std::min<std::size_t>(
            budget, std::max<core::Picoseconds>(1, (expiry - now + instruction_ps - 1) / instruction_ps));
      }
    }
    uc_reg_read(uc_, UC_X86_REG_EIP, &eip);
    slice_instructions_ = 0;
    slice_accounted_ = 0;
    hlt_seen_ = false;
    resume_address_ = eip;
    emulating_ = true;
    ++emulation_starts_;
    // "until" beyond the 32-bit address space: Unicorn stops when the PC reaches it, and address 0 is WOPCM.
    const uc_err err = uc_emu_start(uc_, eip, kNoStopAddress, 0, budget);
    emulating_ = false;
    instructions_ += slice_instructions_;
    catch_up_local_time();
    if (generation != generation_) {
      close_core();
      return;
    }
    if (breakpoint_hit_) {  // stopped before the instruction at the breakpoint executed
      --slice_instructions_;
      --instructions_.value;
      local_.set_offset(local_.offset_ps() - instruction_ps);
    }
    if (!pending_fault_.empty()) {
      fault(pending_fault_);
      break;
    }
    if (err != UC_ERR_OK) {
      fault(std::string("CPU exception: ") + uc_strerror(err));
      break;
    }
    if (hlt_seen_) {
      uc_reg_read(uc_, UC_X86_REG_EIP, &eip);
      std::uint8_t previous = 0;
      if (eip >= 1 && eip - 1 < wopcm_top_) previous = sram_[eip - 1];
      if (previous == 0xF4) {
        halted_ = true;
        running_span_.end(local_.now());
        busy_.end(local_.now());
      }
    }
    if (slice_instructions_ == 0 && !hlt_seen_ && !breakpoint_hit_ && !gdb_step_ && state_ == State::kRunning) {
      // Nothing executed, nothing went wrong: the next slice would do the same forever.
      fault("the core made no progress at EIP " + core::format_hex(eip, 8));
      break;
    }
    // The watchdog: our firmware halts whenever it has nothing to do, so a core that runs on without HLT for the hang
    // timeout spins forever (a loop polling what never comes, code run into zero-filled WOPCM).
    if (busy_.open && local_.now() - busy_.open_since_ps > params_.hang_timeout_ns * core::kPsPerNs) {
      fault("hung: the core ran " + std::to_string(params_.hang_timeout_ns) +
            " ns without halting (the GuC watchdog, gen.guc.hang_timeout_ns)");
      break;
    }
    if (gdb_ && (breakpoint_hit_ || gdb_step_)) {
      breakpoint_hit_ = false;
      debugger_stop();
    }
    local_.sync_if_needed();
  }
}

void Guc::debugger_stop() {
  // The simulation waits while gdb holds the core: synchronise first so that gdb sees a consistent platform.
  local_.sync();
  const GucGdbStub::Resume resume = gdb_->stopped(uc_);
  gdb_step_ = resume == GucGdbStub::Resume::kStep;
}

bool Guc::interrupts_enabled() {
  std::uint32_t eflags = 0;
  uc_reg_read(uc_, UC_X86_REG_EFLAGS, &eflags);
  return (eflags & kEflagsIf) != 0;
}

bool Guc::deliver_interrupt(std::uint32_t vector) {
  std::uint32_t eflags = 0, eip = 0, esp = 0, cs = 0;
  uc_reg_read(uc_, UC_X86_REG_EFLAGS, &eflags);
  if (!(eflags & kEflagsIf)) return false;  // stays pending until the firmware enables interrupts
  uc_x86_mmr idtr{};
  uc_reg_read(uc_, UC_X86_REG_IDTR, &idtr);
  uc_reg_read(uc_, UC_X86_REG_EIP, &eip);
  uc_reg_read(uc_, UC_X86_REG_ESP, &esp);
  uc_reg_read(uc_, UC_X86_REG_CS, &cs);
  const std::uint64_t gate_addr = idtr.base + 8ULL * vector;
  if (8ULL * vector + 7 > idtr.limit || gate_addr + 8 > wopcm_top_) {
    fault("interrupt vector " + core::format_hex(vector, 8) + " beyond the IDT (base " +
          core::format_hex(idtr.base, 8) + ", limit " + core::format_hex(idtr.limit, 8) +
          ") or the IDT outside WOPCM: triple fault");
    return false;
  }
  const std::uint8_t* gate = sram_.data() + gate_addr;
  const std::uint32_t target = gate[0] | gate[1] << 8 | gate[6] << 16 | static_cast<std::uint32_t>(gate[7]) << 24;
  const std::uint32_t selector = gate[2] | gate[3] << 8;
  if (!(gate[5] & 0x80) || selector != cs) {
    fault("IDT gate " + core::format_hex(vector, 8) + " not present or with selector " + core::format_hex(selector, 8) +
          " (CS " + core::format_hex(cs, 8) + "): triple fault");
    return false;
  }
  if (esp < 12 || esp > wopcm_top_) {
    fault("interrupt with the stack pointer " + core::format_hex(esp, 8) + " outside WOPCM: triple fault");
    return false;
  }
  // An interrupt gate: push EFLAGS, CS, EIP, clear IF, enter the handler (the same privilege level, no stack switch).
  const std::uint32_t frame[3] = {eip, cs, eflags};
  esp -= 12;
  std::memcpy(sram_.data() + esp, frame, sizeof frame);
  eflags &= ~kEflagsIf;
  uc_reg_write(uc_, UC_X86_REG_ESP, &esp);
  uc_reg_write(uc_, UC_X86_REG_EFLAGS, &eflags);
  uc_reg_write(uc_, UC_X86_REG_EIP, &target);
  in_service_ = true;
  halted_ = false;
  if (!busy_.open) busy_.begin(local_.now());
  if (core::timeline().enabled()) {
    if (!running_span_.open()) running_span_.begin(track_, "firmware", local_.now());
    isr_span_.begin(track_,
                    vector == GUC_VECTOR_HOST2GUC   ? "host2guc mailbox"
                    : vector == GUC_VECTOR_DOORBELL ? "doorbell"
                    : vector == GUC_VECTOR_ENGINE   ? "engine event"
                                                    : "vector " + core::format_hex(vector, 8),
                    local_.now());
  }
  set_mia(GUC_STATUS_MIA_HALT_REQUESTED, false);
  set_mia(GUC_STATUS_MIA_ISR_ENTRY, true);
  ++interrupts_;
  return true;
}

void Guc::end_spans() {
  isr_span_.end(local_.now());
  running_span_.end(local_.now());
  busy_.end(local_.now());
}

void Guc::fault(const std::string& what) {
  // The fault happens at the faulting instruction's time, not at the start of the core's quantum (README, Timing).
  catch_up_local_time();
  end_spans();
  state_ = State::kFaulted;
  ++faults_;
  std::uint32_t eip = 0;
  if (uc_ != nullptr) uc_reg_read(uc_, UC_X86_REG_EIP, &eip);
  set_ukernel(GUC_UKERNEL_EXCEPTION);
  set_mia(GUC_STATUS_MIA_CORE_STATE | GUC_STATUS_MIA_HALT_REQUESTED | GUC_STATUS_MIA_ISR_ENTRY, false);
  scratch_[GUC_SCRATCH_EXCEPTION_EIP]->set(eip);
  scratch_[15]->set_bits(GUC_EVENT_CRASH_DUMP_POSTED);
  local_.sync();
  post_host_interrupt();
  const std::string msg = "firmware fault: " + what + "\n" + register_dump();
  core::keep_incident(incidents_, "firmware fault at EIP " + core::format_hex(eip, 8) + ": " + what);
  core::report_guest_error(name(), msg);
  close_core();
}

std::string Guc::register_dump() {
  if (uc_ == nullptr) return {};
  static const std::pair<const char*, int> regs[] = {
      {"EAX", UC_X86_REG_EAX}, {"EBX", UC_X86_REG_EBX},       {"ECX", UC_X86_REG_ECX}, {"EDX", UC_X86_REG_EDX},
      {"ESI", UC_X86_REG_ESI}, {"EDI", UC_X86_REG_EDI},       {"EBP", UC_X86_REG_EBP}, {"ESP", UC_X86_REG_ESP},
      {"EIP", UC_X86_REG_EIP}, {"EFLAGS", UC_X86_REG_EFLAGS}, {"CS", UC_X86_REG_CS},   {"SS", UC_X86_REG_SS}};
  std::ostringstream out;
  std::uint32_t eip = 0;
  int column = 0;
  for (const auto& [reg_name, id] : regs) {
    std::uint32_t v = 0;
    uc_reg_read(uc_, id, &v);
    if (id == UC_X86_REG_EIP) eip = v;
    out << "  " << std::left << std::setw(6) << reg_name << " " << core::format_hex(v, 8)
        << (++column % 4 == 0 ? "\n" : "");
  }
  csh handle;
  if (cs_open(CS_ARCH_X86, CS_MODE_32, &handle) != CS_ERR_OK) return out.str();
  if (eip < wopcm_top_) {
    cs_insn* insn = nullptr;
    const std::size_t avail = std::min<std::size_t>(16, wopcm_top_ - eip);
    if (cs_disasm(handle, sram_.data() + eip, avail, eip, 1, &insn) == 1) {
      out << "  faulting instruction: " << core::format_hex(eip, 8) << ": " << insn[0].mnemonic << " "
          << insn[0].op_str;
      cs_free(insn, 1);
    } else {
      out << "  faulting instruction: " << core::format_hex(eip, 8) << ": (bytes do not decode as x86)";
    }
  } else {
    out << "  faulting instruction: " << core::format_hex(eip, 8) << " is outside WOPCM (nothing to fetch)";
  }
  cs_close(&handle);
  return out.str();
}

void Guc::stop_with_fault(const std::string& what) {
  if (pending_fault_.empty()) pending_fault_ = what;
  uc_emu_stop(uc_);
}

std::uint64_t Guc::mmio_access(bool write, std::uint32_t offset, unsigned size, std::uint64_t value) {
  ++mmio_accesses_;
  catch_up_local_time();
  tlm::tlm_generic_payload trans;
  std::uint8_t data[8] = {};
  std::memcpy(data, &value, sizeof value);
  trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  trans.set_address(offset);
  trans.set_data_ptr(data);
  trans.set_data_length(size);
  trans.set_streaming_width(size);
  sc_core::sc_time& delay = local_.offset();  // the local time, advanced in place
  mmio_(trans, delay);  // the register block waits for the GuC's local time: other blocks catch up meanwhile
  // An interrupt that became pending while the rest of the platform caught up is taken at the next instruction, as
  // the core would, not at the end of a slice whose length follows the quantum.
  if (interrupt_pending() && interrupts_enabled()) uc_emu_stop(uc_);
  if (trans.get_response_status() != tlm::TLM_OK_RESPONSE) {
    stop_with_fault(std::string("register ") + (write ? "write" : "read") + " at BAR offset " +
                    core::format_hex(offset, 8) + " failed: " + trans.get_response_string());
    return 0;
  }
  std::uint64_t result = 0;
  std::memcpy(&result, data, size);
  return result;
}

std::uint64_t Guc::ggtt_access(bool write, std::uint32_t address, unsigned size, std::uint64_t value) {
  ++memory_accesses_;
  catch_up_local_time();
  sc_core::sc_time& delay = local_.offset();  // the local time, advanced in place
  std::uint8_t data[8] = {};
  std::memcpy(data, &value, sizeof value);
  for (unsigned done = 0; done < size;) {
    const std::uint32_t va = address + done;
    const unsigned chunk = std::min<unsigned>(size - done, 4096 - (va & 0xFFF));
    const Translation t = gtt_.translate(va, AddressSpace::kGgtt, write, delay);
    const bool ok = t.ok && (write ? memory_.write(t.pa, data + done, chunk, delay)
                                   : memory_.read(t.pa, data + done, chunk, delay)) == tlm::TLM_OK_RESPONSE;
    if (!ok) {
      stop_with_fault(std::string("graphics memory ") + (write ? "write" : "read") + " at GGTT " +
                      core::format_hex(va, 8) +
                      (t.ok ? " failed on the bus" : std::string(" faulted: ") + to_string(t.fault)));
      return 0;
    }
    done += chunk;
  }
  std::uint64_t result = 0;
  std::memcpy(&result, data, size);
  return result;
}

std::uint64_t Guc::lapic_read_cb(uc_struct*, std::uint64_t offset, unsigned, void* self) {
  auto* guc = static_cast<Guc*>(self);
  if (offset == GUC_LAPIC_TIMESTAMP) {
    guc->catch_up_local_time();
    const core::Picoseconds since = guc->local_.now() - guc->boot_cycle_ps_;
    return static_cast<std::uint32_t>(guc->clock_.cycles_in(since));
  }
  if (offset == GUC_LAPIC_DOORBELL_PENDING) return guc->next_rung_doorbell();
  if (offset == GUC_LAPIC_ENGINES) return guc->engines_present_;
  if (offset == GUC_LAPIC_WOPCM_TOP) return guc->wopcm_top_;
  for (unsigned n = 0; n < GUC_IER_COUNT; ++n) {
    if (offset == GUC_LAPIC_ENGINE_IIR(n)) return guc->engine_iir_[n];
  }
  guc->stop_with_fault("read of unmodelled or write-only local register " +
                       core::format_hex(GUC_LAPIC_BASE + offset, 8));
  return 0;
}

void Guc::lapic_write_cb(uc_struct*, std::uint64_t offset, unsigned, std::uint64_t value, void* self) {
  auto* guc = static_cast<Guc*>(self);
  switch (offset) {
    case GUC_LAPIC_EOI:
      if (guc->isr_span_.open()) {
        guc->catch_up_local_time();  // the span ends at this instruction
        guc->isr_span_.end(guc->local_.now());
      }
      guc->in_service_ = false;
      guc->set_mia(GUC_STATUS_MIA_ISR_ENTRY, false);
      break;
    case GUC_LAPIC_UKERNEL_STATUS:
      // GUC_STATUS is host-visible: it changes at the instruction's time, not at the start of a slice run ahead.
      guc->catch_up_local_time();
      guc->local_.sync();
      guc->set_ukernel(static_cast<std::uint32_t>(value));
      break;
    case GUC_LAPIC_HOST_INTERRUPT:
      if (value & 1) {
        // The host sees the interrupt at the instruction's time (what the firmware wrote before it is there too).
        guc->catch_up_local_time();
        guc->local_.sync();
        guc->post_host_interrupt();
      }
      break;
    case GUC_LAPIC_ENGINE_IIR(0):
    case GUC_LAPIC_ENGINE_IIR(1):
    case GUC_LAPIC_ENGINE_IIR(2):
      guc->engine_iir_[(offset - GUC_LAPIC_ENGINE_IIR(0)) / 4] &= ~static_cast<std::uint32_t>(value);
      break;
    default:
      guc->stop_with_fault("write to unmodelled local register " + core::format_hex(GUC_LAPIC_BASE + offset, 8));
  }
}

std::uint64_t Guc::mmio_read_cb(uc_struct*, std::uint64_t offset, unsigned size, void* self) {
  return static_cast<Guc*>(self)->mmio_access(false, static_cast<std::uint32_t>(offset), size, 0);
}

void Guc::mmio_write_cb(uc_struct*, std::uint64_t offset, unsigned size, std::uint64_t value, void* self) {
  static_cast<Guc*>(self)->mmio_access(true, static_cast<std::uint32_t>(offset), size, value);
}

std::uint64_t Guc::ggtt_read_cb(uc_struct*, std::uint64_t offset, unsigned size, void* self) {
  auto* guc = static_cast<Guc*>(self);
  return guc->ggtt_access(false, static_cast<std::uint32_t>(offset + guc->wopcm_top_), size, 0);
}

void Guc::ggtt_write_cb(uc_struct*, std::uint64_t offset, unsigned size, std::uint64_t value, void* self) {
  auto* guc = static_cast<Guc*>(self);
  guc->ggtt_access(true, static_cast<std::uint32_t>(offset + guc->wopcm_top_), size, value);
}

void Guc::code_cb(uc_struct* uc, std::uint64_t address, std::uint32_t, void* self) {
  auto* guc = static_cast<Guc*>(self);
  ++guc->slice_instructions_;
  if (guc->gdb_ && guc->gdb_->attached() && guc->gdb_->has_breakpoint(static_cast<std::uint32_t>(address)) &&
      !(address == guc->resume_address_ && guc->slice_instructions_ == 1)) {
    guc->breakpoint_hit_ = true;
    uc_emu_stop(uc);  // Unicorn checks for a stop right after the code hook: the instruction does not execute
    return;
  }
  if (address < guc->wopcm_top_ && guc->sram_[address] == 0xF4) guc->hlt_seen_ = true;
}

bool Guc::invalid_cb(uc_struct*, int type, std::uint64_t address, int size, std::int64_t, void* self) {
  auto* guc = static_cast<Guc*>(self);
  const char* what = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT   ? "instruction fetch"
                     : type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_WRITE_PROT ? "write"
                                                                                  : "read";
  if (guc->pending_fault_.empty()) {
    guc->pending_fault_ = std::string(what) + " of " + std::to_string(size) + " bytes at " +
                          core::format_hex(address, 8) + ", outside the GuC memory map";
  }
  return false;
}

}  // namespace gpuvp::gen
