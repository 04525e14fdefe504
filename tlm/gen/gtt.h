// GTT MMU of Gen8/Gen9: turns graphics virtual addresses into physical ones the way the hardware does, for every
// client (engines, EU data port, GuC), each with its own TLB. Facts: docs/gen-gtt.md, i915
// gt/intel_gtt.h, gt/intel_ggtt.c, gt/intel_gt.c (fault registers), GVT-g gvt/gtt.c.
//
// GGTT: 64-bit PTEs (address | bit 0 present) held in graphics stolen memory (GSM) in DRAM; the host writes them
// through the BAR at +8 MiB and the GTT reads them back through the bus on a TLB miss.
// PPGTT: 4 KiB tables of 512 64-bit entries, 3 levels with four PDP registers (legacy 32-bit) or 4 levels with the
// PML4 in PDP0 (48-bit). Walks are real timed bus reads.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <systemc>
#include <vector>

#include "tlm/core/config.h"
#include "tlm/core/initiator.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timing.h"

namespace gpuvp::gen {

enum class AddressSpace : std::uint8_t { kGgtt, kPpgtt };

// Context descriptor addressing modes that select a PPGTT layout (i915 intel_lrc.c: LEGACY_32B_CONTEXT = 1,
// LEGACY_64B_CONTEXT = 3).
enum class PpgttMode : std::uint8_t { kNone, kLegacy32, k48Bit };

// The root of a PPGTT: the four PDP registers of the running context (PDP0 holds the PML4 in 48-bit mode).
struct PpgttRoot {
  PpgttMode mode = PpgttMode::kNone;
  std::array<std::uint64_t, 4> pdp{};
};

// The two-bit fault type written to RING_FAULT_REG. No public source names the hardware's encodings (i915 only
// prints the number), so these are the model's own, listed in the README.
enum class FaultType : std::uint8_t {
  kNotPresent = 0,  // an entry on the walk has bit 0 clear
  kReadOnly = 1,    // a write through an entry without the RW bit
  kOutOfRange = 2,  // beyond the GGTT, beyond 4 GiB in legacy mode, beyond 48 bits, or no PPGTT bound
  kBadEntry = 3,    // reserved bits set, an unsupported page size, or the walk's memory read failed
};
const char* to_string(FaultType type);

struct Translation {
  bool ok = false;
  std::uint64_t pa = 0;
  bool writable = false;
  std::uint8_t pat = 0;         // PAT index from PTE bits 7, 4, 3 (PPGTT); 0 for the GGTT
  std::uint64_t page_size = 0;  // 4 KiB or 2 MiB
  FaultType fault = FaultType::kNotPresent;
  const char* level = "";  // which entry decided: "GGTT PTE", "PML4E", "PDPE", "PDE", "PTE", or a limit
};

struct GttParams {
  std::uint64_t ggtt_size = 4ULL << 30;  // graphics address space of the GGTT; PTEs take ggtt_size / 512 bytes
  std::uint64_t gsm_base = 0;            // physical address of the GGTT PTEs in DRAM; 0 = the top of low DRAM
  std::uint32_t physical_address_bits = 39;
  std::uint32_t tlb_entries = 64;
  std::uint32_t tlb_ways = 4;
  std::uint32_t tlb_hit_cycles = 1;
  std::uint32_t walk_level_cycles = 2;  // per table level on a miss, on top of the memory read

  void visit(core::ParamVisitor& v) {
    v.param("ggtt_size", ggtt_size, "GGTT address space in bytes (power of two, at most 4 GiB)", 2ULL << 20,
            4ULL << 30);
    v.param("gsm_base", gsm_base, "physical address of the GGTT entries in DRAM; 0 = top of low DRAM (below TOLUD)");
    v.param("physical_address_bits", physical_address_bits, "entry address bits above this are reserved", 32, 46);
    v.param("tlb_entries", tlb_entries, "TLB entries per client", 1, 65536);
    v.param("tlb_ways", tlb_ways, "TLB associativity (divides tlb_entries)", 1, 65536);
    v.param("tlb_hit_cycles", tlb_hit_cycles, "cost of a TLB hit in GPU cycles", 0, 1000);
    v.param("walk_level_cycles", walk_level_cycles, "cost per table level of a walk, plus its memory read", 0, 1000);
  }
};

class Gtt;

// One client's view: its TLB, its current PPGTT root and its statistics.
class GttClient {
 public:
  GttClient(Gtt& gtt, std::string name, std::uint8_t source_id, std::uint8_t engine_id);

  // Translates va for a read or write of up to the rest of the page. On a fault the GTT records it (fault registers,
  // warning; no interrupt: see Gtt::record_fault) and the result says why. delay grows by the TLB and walk cost. The
  // TLB-hit path is inline (below the class); misses go to translate_miss().
  inline Translation translate(std::uint64_t va, AddressSpace space, bool write, sc_core::sc_time& delay);

  // The translation the TLB or a walk would give now, leaving no trace: no statistics, no TLB fill or replacement
  // order, no fault recorded, no time. For accesses translated already whose address only is needed again (the EU
  // array's DRAM lines: their data moved through translate()).
  Translation peek(std::uint64_t va, AddressSpace space, bool write);

  // The running context's address space (execlists and ring submission switch it). Drops PPGTT TLB entries.

  void set_ppgtt_root(const PpgttRoot& root);
  const PpgttRoot& ppgtt_root() const { return root_; }
  void invalidate_tlb();       // every entry
  void invalidate_ggtt_tlb();  // GGTT entries only

  const std::string& name() const { return name_; }
  std::uint8_t source_id() const { return source_id_; }
  std::uint8_t engine_id() const { return engine_id_; }
  std::uint64_t hits() const { return hits_.value; }
  std::uint64_t misses() const { return misses_.value; }
  std::uint64_t walk_reads() const { return walk_reads_.value; }
  std::uint64_t faults() const { return faults_.value; }

 private:
  friend class Gtt;
  struct TlbEntry {
    bool valid = false;
    bool ppgtt = false;
    bool writable = false;
    std::uint8_t pat = 0;
    std::uint64_t vpn = 0;    // va >> 12
    std::uint64_t frame = 0;  // pa >> 12
    std::uint64_t last_use = 0;
    // What the entry translates va (in its page) to.
    Translation translation(std::uint64_t va) const {
      Translation t;
      t.ok = true;
      t.pa = (frame << 12) | (va & 0xFFF);
      t.writable = writable;
      t.pat = pat;
      t.page_size = 4096;
      return t;
    }
  };
  TlbEntry* lookup(std::uint64_t vpn, bool ppgtt) {
    // Power-of-two set counts (the usual case) index with a mask instead of a division.
    const std::size_t set =
        static_cast<std::size_t>(set_mask_ != 0 || sets_ == 1 ? vpn & set_mask_ : vpn % sets_) * ways_;
    TlbEntry* e = tlb_.data() + set;
    for (std::uint32_t w = 0; w < ways_; ++w, ++e) {
      if (e->valid && e->vpn == vpn && e->ppgtt == ppgtt) return e;
    }
    return nullptr;
  }
  void insert(std::uint64_t vpn, bool ppgtt, const Translation& t);
  Translation translate_miss(std::uint64_t va, AddressSpace space, bool write, sc_core::sc_time& delay);

  Gtt& gtt_;
  std::string name_;
  core::StatsGroup stats_;  // the GTT's subgroup for this client: gpuvp.gen.gtt.rcs
  std::uint8_t source_id_;
  std::uint8_t engine_id_;
  PpgttRoot root_;
  std::vector<TlbEntry> tlb_;
  std::uint32_t sets_;
  std::uint32_t ways_;
  std::uint64_t set_mask_;     // sets_ - 1 when sets_ is a power of two, else 0
  sc_core::sc_time hit_time_;  // tlb_hit_cycles of the GTT's clock, charged on every lookup
  std::uint64_t use_clock_ = 0;
  // The entry lookup() returned last, or nullptr. While it is valid and its vpn matches it is still the first match in
  // its set (what lookup() would return): invalidation only clears entries, and insert(), the only writer of vpns,
  // resets it.
  TlbEntry* last_hit_ = nullptr;
  core::Counter& lookups_;
  core::Counter& hits_;
  core::Counter& misses_;
  core::Counter& walk_reads_;
  core::Counter& faults_;
};

Translation GttClient::translate(std::uint64_t va, AddressSpace space, bool write, sc_core::sc_time& delay) {
  ++lookups_;
  const bool ppgtt = space == AddressSpace::kPpgtt;
  const std::uint64_t vpn = va >> 12;
  delay += hit_time_;
  // Consecutive accesses usually hit the entry the previous hit returned: check it before searching its set.
  TlbEntry* e = last_hit_;
  if (e == nullptr || !e->valid || e->vpn != vpn || e->ppgtt != ppgtt) {
    e = lookup(vpn, ppgtt);
    last_hit_ = e;
  }
  // A cached read-only entry still faults on a write: permissions are part of what the TLB holds.
  if (e == nullptr || (write && !e->writable)) return translate_miss(va, space, write, delay);
  ++hits_;
  e->last_use = ++use_clock_;
  return e->translation(va);
}

class Gtt : public sc_core::sc_module {
 public:
  // Registers its registers in the BAR's bank; reads and writes entries through memory.
  Gtt(sc_core::sc_module_name name, const GttParams& params, std::uint64_t gsm_base, core::RegisterBank& bar,
      core::Initiator& memory, const core::ClockDomain& clock);

  // Clients are created at elaboration; source_id and engine_id are what RING_FAULT_REG reports for them.
  GttClient& add_client(const std::string& name, std::uint8_t source_id, std::uint8_t engine_id);
  GttClient* find_client(const std::string& name);

  // Host access to the GGTT PTE window; offset is relative to BAR + 8 MiB. delay == nullptr for debug access.
  void pte_window_access(tlm::tlm_generic_payload& trans, std::uint64_t offset, sc_core::sc_time* delay);

  std::uint64_t gsm_base() const { return gsm_base_; }
  std::uint64_t pte_bytes() const { return params_.ggtt_size / 4096 * 8; }
  void invalidate_all_ggtt_tlbs();

 private:
  friend class GttClient;
  // delay == nullptr: a walk that leaves no trace (debug reads of the entries, nothing counted).
  Translation walk(GttClient& client, std::uint64_t va, AddressSpace space, sc_core::sc_time* delay);
  Translation walk_ppgtt(GttClient& client, std::uint64_t va, sc_core::sc_time* delay);
  // Reads one 64-bit entry; false on a bus error.
  bool read_entry(GttClient& client, std::uint64_t addr, std::uint64_t& entry, sc_core::sc_time* delay);
  void record_fault(GttClient& client, std::uint64_t va, AddressSpace space, bool write, const Translation& t);

  GttParams params_;
  std::uint64_t gsm_base_;
  std::uint64_t reserved_mask_;  // entry bits 62:physical_address_bits
  core::Initiator& memory_;
  core::ClockDomain clock_;
  std::deque<GttClient> clients_;
  core::Register* fault_reg_;
  core::Register* fault_data0_;
  core::Register* fault_data1_;
  core::StatsGroup stats_;
  core::Counter& faults_;
  core::Counter& ggtt_flushes_;
};

}  // namespace gpuvp::gen
