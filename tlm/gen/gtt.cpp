#include "tlm/gen/gtt.h"

#include <cstring>
#include <stdexcept>

#include "hw/gen/gtt_regs.h"
#include "tlm/core/report.h"

namespace gpuvp::gen {

namespace {
constexpr std::uint64_t k4K = 4096;
constexpr std::uint64_t k2M = 2ULL << 20;

std::uint8_t pat_index(std::uint64_t pte) {
  return static_cast<std::uint8_t>(((pte & kPtePwt) ? 1 : 0) | ((pte & kPtePcd) ? 2 : 0) | ((pte & kPtePat) ? 4 : 0));
}
}  // namespace

const char* to_string(FaultType type) {
  switch (type) {
    case FaultType::kNotPresent:
      return "not present";
    case FaultType::kReadOnly:
      return "write to read-only page";
    case FaultType::kOutOfRange:
      return "out of range";
    case FaultType::kBadEntry:
      return "bad entry";
  }
  return "?";
}

// ---- GttClient ----

GttClient::GttClient(Gtt& gtt, std::string name, std::uint8_t source_id, std::uint8_t engine_id)
    : gtt_(gtt),
      name_(std::move(name)),
      stats_(gtt.stats_.subgroup(name_)),
      source_id_(source_id),
      engine_id_(engine_id),
      tlb_(gtt.params_.tlb_entries),
      sets_(gtt.params_.tlb_entries / gtt.params_.tlb_ways),
      ways_(gtt.params_.tlb_ways),
      set_mask_((sets_ & (sets_ - 1)) == 0 ? sets_ - 1 : 0),
      hit_time_(core::to_sc_time(gtt.clock_.cycles(gtt.params_.tlb_hit_cycles))),
      lookups_(stats_.counter("lookups", "events", "translations asked for")),
      hits_(stats_.counter("hits", "events", "translations the TLB answered")),
      misses_(stats_.counter("misses", "events",
                             "translations that walked the tables (not in the TLB, or cached read-only for a write)")),
      walk_reads_(stats_.counter("walk_reads", "events", "page table entries read from memory by walks")),
      faults_(stats_.counter("faults", "events", "translations that faulted")) {}

void GttClient::insert(std::uint64_t vpn, bool ppgtt, const Translation& t) {
  const std::size_t set = static_cast<std::size_t>(vpn % sets_) * ways_;
  // Least recently used way (an invalid way first); deterministic.
  TlbEntry* victim = &tlb_[set];
  for (std::uint32_t w = 0; w < ways_; ++w) {
    TlbEntry& e = tlb_[set + w];
    if (!e.valid) {
      victim = &e;
      break;
    }
    if (e.last_use < victim->last_use) victim = &e;
  }
  *victim = TlbEntry{true, ppgtt, t.writable, t.pat, vpn, t.pa >> 12, ++use_clock_};
  last_hit_ = nullptr;  // the new entry may duplicate a read-only one earlier in the set
}

// The TLB missed (or held the page read-only for a write): walk, check the permission, fill the TLB.
Translation GttClient::translate_miss(std::uint64_t va, AddressSpace space, bool write, sc_core::sc_time& delay) {
  ++misses_;
  Translation t = gtt_.walk(*this, va, space, &delay);
  if (t.ok && write && !t.writable) {
    t.ok = false;
    t.fault = FaultType::kReadOnly;
  }
  if (!t.ok) {
    ++faults_;
    gtt_.record_fault(*this, va, space, write, t);
    return t;
  }
  insert(va >> 12, space == AddressSpace::kPpgtt, t);
  return t;
}

Translation GttClient::peek(std::uint64_t va, AddressSpace space, bool write) {
  if (const TlbEntry* e = lookup(va >> 12, space == AddressSpace::kPpgtt); e != nullptr && (!write || e->writable)) {
    return e->translation(va);
  }
  Translation t = gtt_.walk(*this, va, space, nullptr);
  if (t.ok && write && !t.writable) {
    t.ok = false;
    t.fault = FaultType::kReadOnly;
  }
  return t;
}

void GttClient::set_ppgtt_root(const PpgttRoot& root) {
  root_ = root;
  for (auto& e : tlb_) {
    if (e.ppgtt) e.valid = false;
  }
}

void GttClient::invalidate_tlb() {
  for (auto& e : tlb_) e.valid = false;
}

void GttClient::invalidate_ggtt_tlb() {
  for (auto& e : tlb_) {
    if (!e.ppgtt) e.valid = false;
  }
}

// ---- Gtt ----

Gtt::Gtt(sc_core::sc_module_name name, const GttParams& params, std::uint64_t gsm_base, core::RegisterBank& bar,
         core::Initiator& memory, const core::ClockDomain& clock)
    : sc_module(name),
      params_(params),
      gsm_base_(gsm_base),
      reserved_mask_(((1ULL << 63) - 1) & ~((1ULL << params.physical_address_bits) - 1)),
      memory_(memory),
      clock_(clock),
      stats_(this->name()),
      faults_(stats_.counter("faults", "events", "translation faults of every client")),
      ggtt_flushes_(stats_.counter("ggtt_tlb_flushes", "events",
                                   "GFX_FLSH_CNTL writes that invalidated every client's GGTT TLB entries")) {
  if ((params_.ggtt_size & (params_.ggtt_size - 1)) != 0) {
    throw core::ConfigError("config key 'gen.gtt.ggtt_size': must be a power of two");
  }
  if (params_.tlb_ways == 0 || params_.tlb_entries % params_.tlb_ways != 0) {
    throw core::ConfigError("config key 'gen.gtt.tlb_ways': must divide gen.gtt.tlb_entries");
  }
  using core::Access;
  fault_reg_ = &bar.add({"RING_FAULT_REG",
                         kRingFaultReg,
                         32,
                         0,
                         Access::kReadWrite,
                         "GEN8_RING_FAULT_REG: first translation fault since software cleared VALID",
                         {{"VALID", 0, 1, ""},
                          {"FAULT_TYPE", 1, 2, "0 not present, 1 read-only, 2 out of range, 3 bad entry (model)"},
                          {"SRCID", 3, 8, "requesting client"},
                          {"ENGINE_ID", 12, 3, ""}}});
  // Software clears VALID with a read-modify-write (i915 gt/intel_gt.c intel_gt_clear_error_registers); until then
  // the first fault stays.
  fault_data0_ = &bar.add({"FAULT_TLB_DATA0",
                           kFaultTlbData0,
                           32,
                           0,
                           Access::kReadOnly,
                           "GEN8_FAULT_TLB_DATA0: faulting VA bits 43:12",
                           {{"VA_43_12", 0, 32, ""}}});
  fault_data1_ = &bar.add({"FAULT_TLB_DATA1",
                           kFaultTlbData1,
                           32,
                           0,
                           Access::kReadOnly,
                           "GEN8_FAULT_TLB_DATA1: VA bits 47:44 and address space",
                           {{"VA_47_44", 0, 4, ""}, {"GTT_SEL", 4, 1, "1 = GGTT"}}});
  bar.add({"GFX_FLSH_CNTL",
           kGfxFlushControl,
           32,
           0,
           Access::kReadWrite,
           "GFX_FLSH_CNTL_GEN6: writing EN (bit 0) invalidates the GGTT TLBs",
           {{"EN", 0, 1, ""}}})
      .on_write([this](core::Register& r, std::uint64_t, std::uint64_t written) {
        if (written & 1) invalidate_all_ggtt_tlbs();
        r.set(0);  // the flush completes at once in the model
      });
  bar.add({"GTCR",
           kGtcr,
           32,
           0,
           Access::kReadWrite,
           "GEN8_GTCR: writing INVALIDATE (bit 0) flushes the GuC's TLB",
           {{"INVALIDATE", 0, 1, ""}}})
      .on_write([this](core::Register& r, std::uint64_t, std::uint64_t written) {
        if (written & 1) {
          if (GttClient* guc = find_client("guc")) guc->invalidate_ggtt_tlb();
        }
        r.set(0);
      });
  bar.add({"PRIVATE_PAT_LO", kPrivatePatLo, 32, 0, Access::kReadWrite, "GEN8_PRIVATE_PAT_LO: PPAT entries 0-3", {}});
  bar.add({"PRIVATE_PAT_HI", kPrivatePatHi, 32, 0, Access::kReadWrite, "GEN8_PRIVATE_PAT_HI: PPAT entries 4-7", {}});
}

GttClient& Gtt::add_client(const std::string& name, std::uint8_t source_id, std::uint8_t engine_id) {
  if (find_client(name)) throw std::logic_error(std::string(this->name()) + ": client " + name + " added twice");
  return clients_.emplace_back(*this, name, source_id, engine_id);
}

GttClient* Gtt::find_client(const std::string& name) {
  for (auto& c : clients_) {
    if (c.name() == name) return &c;
  }
  return nullptr;
}

void Gtt::invalidate_all_ggtt_tlbs() {
  ++ggtt_flushes_;
  for (auto& c : clients_) c.invalidate_ggtt_tlb();
}

bool Gtt::read_entry(GttClient& client, std::uint64_t addr, std::uint64_t& entry, sc_core::sc_time* delay) {
  if (delay == nullptr) return memory_.debug_read(addr, &entry, 8) == 8;
  ++client.walk_reads_;
  *delay += core::to_sc_time(clock_.cycles(params_.walk_level_cycles));
  return memory_.read(addr, &entry, 8, *delay) == tlm::TLM_OK_RESPONSE;
}

Translation Gtt::walk(GttClient& client, std::uint64_t va, AddressSpace space, sc_core::sc_time* delay) {
  if (space == AddressSpace::kPpgtt) return walk_ppgtt(client, va, delay);
  Translation t;
  t.level = "GGTT PTE";
  if (va >= params_.ggtt_size) {
    t.fault = FaultType::kOutOfRange;
    t.level = "GGTT limit";
    return t;
  }
  std::uint64_t pte;
  if (!read_entry(client, gsm_base_ + (va >> 12) * 8, pte, delay)) {
    t.fault = FaultType::kBadEntry;
    return t;
  }
  if (!(pte & kPtePresent)) {
    t.fault = FaultType::kNotPresent;
    return t;
  }
  if (pte & reserved_mask_) {
    t.fault = FaultType::kBadEntry;
    return t;
  }
  // Gen8 GGTT entries have no RW bit (i915: "gen8+ do not support RO in the GGTT").
  t.ok = true;
  t.writable = true;
  t.pa = (pte & ~reserved_mask_ & ~0xFFFULL & ((1ULL << 63) - 1)) | (va & 0xFFF);
  t.page_size = k4K;
  return t;
}

Translation Gtt::walk_ppgtt(GttClient& client, std::uint64_t va, sc_core::sc_time* delay) {
  Translation t;
  const PpgttRoot& root = client.ppgtt_root();
  // Levels still to walk, top first: shift of the index and the entry's name.
  struct Level {
    unsigned shift;
    const char* name;
  };
  static constexpr Level k4Level[] = {{39, "PML4E"}, {30, "PDPE"}, {21, "PDE"}, {12, "PTE"}};
  const Level* level;
  const Level* end = k4Level + 4;
  std::uint64_t table;
  if (root.mode == PpgttMode::k48Bit) {
    if (va >> 48) {
      t.fault = FaultType::kOutOfRange;
      t.level = "48-bit limit";
      return t;
    }
    table = root.pdp[0];
    level = k4Level;
  } else if (root.mode == PpgttMode::kLegacy32) {
    if (va >> 32) {
      t.fault = FaultType::kOutOfRange;
      t.level = "4 GiB limit";
      return t;
    }
    // The PDP register is the first level: bits 31:30 pick one of four.
    table = root.pdp[(va >> 30) & 3];
    level = k4Level + 2;
  } else {
    t.fault = FaultType::kOutOfRange;
    t.level = "no PPGTT bound";
    return t;
  }
  // The root pointers carry no present bit (GVT-g treats any non-zero PDP as present).
  if (table == 0) {
    t.fault = FaultType::kNotPresent;
    t.level = root.mode == PpgttMode::k48Bit ? "PDP0 (PML4 pointer)" : "PDP";
    return t;
  }
  if (table & reserved_mask_) {
    t.fault = FaultType::kBadEntry;
    t.level = "PDP";
    return t;
  }
  bool writable = true;
  for (; level != end; ++level) {
    t.level = level->name;
    std::uint64_t entry;
    const std::uint64_t index = (va >> level->shift) & 511;
    if (!read_entry(client, (table & ~0xFFFULL) + index * 8, entry, delay)) {
      t.fault = FaultType::kBadEntry;
      return t;
    }
    if (!(entry & kPtePresent)) {
      t.fault = FaultType::kNotPresent;
      return t;
    }
    if (entry & reserved_mask_) {
      t.fault = FaultType::kBadEntry;
      return t;
    }
    writable = writable && (entry & kPteWritable);
    const std::uint64_t address = entry & ~reserved_mask_ & ~0xFFFULL & ((1ULL << 63) - 1);
    if (level->shift == 12) {
      t.ok = true;
      t.pa = address | (va & 0xFFF);
      t.writable = writable;
      t.pat = pat_index(entry);
      t.page_size = k4K;
      return t;
    }
    if (entry & kPdePageSize) {
      if (level->shift != 21) {
        // PML4E bit 7 is reserved; a 1 GiB PDPE page is not supported on Gen8/9 (GVT-g rejects it too).
        t.fault = FaultType::kBadEntry;
        return t;
      }
      if (address & (k2M - 1)) {
        // Bits 20:13 of a 2 MiB PDE are reserved (bit 12 would be its PAT bit).
        if (address & (k2M - 1) & ~0x1000ULL) {
          t.fault = FaultType::kBadEntry;
          return t;
        }
      }
      t.ok = true;
      t.pa = (address & ~(k2M - 1)) | (va & (k2M - 1));
      t.writable = writable;
      t.pat = static_cast<std::uint8_t>(((entry & kPtePwt) ? 1 : 0) | ((entry & kPtePcd) ? 2 : 0) |
                                        ((entry & 0x1000) ? 4 : 0));
      t.page_size = k2M;
      return t;
    }
    table = address;
  }
  return t;  // not reached: the PTE level always returns
}

void Gtt::record_fault(GttClient& client, std::uint64_t va, AddressSpace space, bool write, const Translation& t) {
  ++faults_;
  const bool ggtt = space == AddressSpace::kGgtt;
  core::report_guest_warning(name(), "translation fault: client " + client.name() + ", " + (ggtt ? "GGTT" : "PPGTT") +
                                         " address " + core::format_hex(va) + (write ? " (write)" : " (read)") + ", " +
                                         t.level + ": " + to_string(t.fault));
  // The registers hold the first fault until software clears VALID.
  if (fault_reg_->value() & kFaultValid) return;
  fault_reg_->set(kFaultValid | static_cast<std::uint64_t>(t.fault) << 1 |
                  static_cast<std::uint64_t>(client.source_id()) << 3 |
                  static_cast<std::uint64_t>(client.engine_id() & 7) << 12);
  fault_data0_->set((va >> 12) & 0xFFFFFFFFULL);
  // Gen8+ reports the address space in FAULT_TLB_DATA1 bit 4, not in RING_FAULT_REG bit 11 (docs/gen-gtt.md):
  // i915 gt/intel_gt.c marks RING_FAULT_GTTSEL_MASK "pre-bdw" and gen8_check_faults reads FAULT_GTT_SEL from DATA1.
  fault_data1_->set(((va >> 44) & 0xF) | (ggtt ? kFaultGttSel : 0));
  // No interrupt: Gen8/9 has no GT interrupt for a GTT fault (i915 gt/intel_gt_irq.c gen8_gt_irq_handler serves
  // only the engine, PM and GuC bits of the GT banks). i915 learns of a fault by reading RING_FAULT_REG (gt/intel_gt.c
  // intel_gt_check_and_clear_faults -> gen8_check_faults, "Unexpected fault"); what reaches the host at once is the
  // faulting engine's own CS error, through its GT bank, if its EMR lets it (command_streamer.cpp fail()).
}

void Gtt::pte_window_access(tlm::tlm_generic_payload& trans, std::uint64_t offset, sc_core::sc_time* delay) {
  const unsigned len = trans.get_data_length();
  if (offset + len > pte_bytes()) {
    // Beyond the configured GGTT: no entries there.
    if (trans.is_read()) std::memset(trans.get_data_ptr(), 0, len);
    if (delay) {
      core::report_guest_warning(name(), std::string(trans.is_read() ? "read" : "write") +
                                             " of GGTT entry window offset " + core::format_hex(offset) +
                                             " beyond the " + core::format_hex(params_.ggtt_size) + " byte GGTT " +
                                             (trans.is_read() ? "returns 0" : "ignored"));
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const std::uint64_t global = trans.get_address();
  trans.set_address(gsm_base_ + offset);
  if (delay) {
    memory_.transport(trans, *delay);
  } else {
    trans.set_response_status(memory_.transport_dbg(trans) == len ? tlm::TLM_OK_RESPONSE
                                                                  : tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  trans.set_address(global);
}

}  // namespace gpuvp::gen
