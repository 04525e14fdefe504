#include "tlm/gen/execlists.h"

namespace gpuvp::gen {

using core::Access;

Execlists::Execlists(core::RegisterBank& bar, std::uint32_t engine_base, const std::string& reg_prefix,
                     core::StatsGroup& stats, Hooks hooks)
    : bar_(bar),
      hooks_(std::move(hooks)),
      submissions_(stats.counter("elsp_submissions", "events", "ELSP submissions (every fourth ELSP write)")),
      csb_writes_(stats.counter("csb_entries", "events", "context status buffer entries written")) {
  bar_.add({reg_prefix + "ELSP",
            engine_base + kElsp,
            32,
            0,
            Access::kWriteOnly,
            "ExecList Submit Port: element 1 high, element 1 low, element 0 high, element 0 low; the 4th write submits",
            {}})
      .on_write([this](core::Register&, std::uint64_t, std::uint64_t written) {
        // GVT elsp_mmio_write: data[3 - index] = value.
        elsp_data_[3 - elsp_index_] = static_cast<std::uint32_t>(written);
        elsp_index_ = (elsp_index_ + 1) % 4;
        if (elsp_index_ != 0) return;
        ++submissions_;
        ContextDescriptor e0{std::uint64_t{elsp_data_[1]} << 32 | elsp_data_[0]};
        ContextDescriptor e1{std::uint64_t{elsp_data_[3]} << 32 | elsp_data_[2]};
        if (hooks_.submitted) hooks_.submitted(e0, e1);
      });
  status_lo_ = &bar_.add({reg_prefix + "EXECLIST_STATUS",
                          engine_base + kExeclistStatusLo,
                          32,
                          0,
                          Access::kReadOnly,
                          "execlist status",
                          {{"CURRENT_POINTER", 0, 1, ""},
                           {"WRITE_POINTER", 1, 1, ""},
                           {"QUEUE_FULL", 2, 1, ""},
                           {"EL1_VALID", 3, 1, ""},
                           {"EL0_VALID", 4, 1, ""},
                           {"LAST_CTX_SWITCH_REASON", 5, 9, ""},
                           {"ARBITRATION_ENABLE", 16, 1, ""},
                           {"EL1_ACTIVE", 17, 1, ""},
                           {"EL0_ACTIVE", 18, 1, ""}}});
  status_hi_ = &bar_.add({reg_prefix + "EXECLIST_STATUS_HI",
                          engine_base + kExeclistStatusHi,
                          32,
                          0,
                          Access::kReadOnly,
                          "context ID of the running context",
                          {}});
  for (unsigned i = 0; i < kCsbEntries; ++i) {
    csb_[2 * i] = &bar_.add({reg_prefix + "CSB" + std::to_string(i) + "_STATUS",
                             engine_base + kCsbBase + 8 * i,
                             32,
                             0,
                             Access::kReadOnly,
                             "context status buffer entry: status",
                             {}});
    csb_[2 * i + 1] = &bar_.add({reg_prefix + "CSB" + std::to_string(i) + "_CONTEXT_ID",
                                 engine_base + kCsbBase + 8 * i + 4,
                                 32,
                                 0,
                                 Access::kReadOnly,
                                 "context status buffer entry: context ID",
                                 {}});
  }
  // The pointer logic lives in CsbPointer (the reference of rtl/csb_ptr.sv); the register mirrors its value.
  csb_pointer_ = &bar_.add({reg_prefix + "CONTEXT_STATUS_PTR",
                            engine_base + kCsbPointer,
                            32,
                            CsbPointer::kResetValue,
                            Access::kMasked,
                            "CSB pointers: write 2:0 (hardware), read 10:8 (software); masked",
                            {{"WRITE_POINTER", 0, 3, ""}, {"READ_POINTER", 8, 3, ""}},
                            CsbPointer::kWritePointerMask | CsbPointer::kReadPointerMask});
  csb_pointer_->on_write([this](core::Register& r, std::uint64_t, std::uint64_t) {
    // The register policy has applied the mask bits and the access's byte enables to the stored value; pass that on
    // as a write enabling both fields.
    csb_ptr_.write(0xFFFF0000u | static_cast<std::uint32_t>(r.value()));
    r.set(csb_ptr_.value());
  });
}

void Execlists::write_status(std::uint32_t status, std::uint32_t context_id) {
  // EXECLIST_STATUS 13:5 keeps the reason of the last switch, the CSB status's low nine bits (GVT-g
  // execlist_status_format last_ctx_switch_reason); NEO's AUB completion poll waits for its active-to-idle bit.
  last_switch_reason_ = status & kLastSwitchReasonMask;
  status_lo_->set((status_lo_->value() & ~(kLastSwitchReasonMask << kLastSwitchReasonShift)) |
                  last_switch_reason_ << kLastSwitchReasonShift);
  const std::uint32_t next = csb_ptr_.advance();
  csb_[2 * next]->set(status);
  csb_[2 * next + 1]->set(context_id);
  csb_pointer_->set(csb_ptr_.value());
  ++csb_writes_;
  if (hooks_.mirror) {
    hooks_.mirror(kHwspCsbDword + 2 * next, status);
    hooks_.mirror(kHwspCsbDword + 2 * next + 1, context_id);
    hooks_.mirror(kHwspCsbWriteDword, next);
  }
  if (hooks_.interrupt) hooks_.interrupt();
}

void Execlists::set_status(bool el0_valid, bool el1_valid, bool el0_active, bool el1_active,
                           std::uint32_t current_context_id) {
  status_lo_->set((el1_valid ? 1u << 3 : 0) | (el0_valid ? 1u << 4 : 0) | (el1_active ? 1u << 17 : 0) |
                  (el0_active ? 1u << 18 : 0) | (el1_active ? 1u : 0) | last_switch_reason_ << kLastSwitchReasonShift);
  status_hi_->set(current_context_id);
}

void Execlists::reset() {
  elsp_index_ = 0;
  last_switch_reason_ = 0;
  status_lo_->reset();
  status_hi_->reset();
  for (auto* r : csb_) r->reset();
  csb_ptr_.reset();
  csb_pointer_->reset();
}

}  // namespace gpuvp::gen
