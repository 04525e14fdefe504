// RegisterBlock: an MMIO target whose behaviour is a register table. GPU blocks derive from it, declare their
// registers in the constructor and attach hooks for side effects.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>

#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timing.h"

namespace gpuvp::core {

// The block implements the forward interface itself behind a plain target socket (as the bus and the memory do): one
// virtual call per access from the bus instead of the convenience socket's functor hops.
class RegisterBlock : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<> socket;

  RegisterBlock(sc_core::sc_module_name name, std::uint64_t size, ClockDomain clock,
                std::uint32_t access_latency_cycles = 1);

  RegisterBank& regs() { return regs_; }
  const RegisterBank& regs() const { return regs_; }
  std::uint64_t size() const { return size_; }
  const ClockDomain& clock() const { return clock_; }

 protected:
  // Lets a block serve part of its window itself (e.g. the GGTT entry window of the Gen BAR) before the register
  // table is consulted. delay is null for debug accesses. Returns true if handled (the response status set).
  virtual bool forward_access(tlm::tlm_generic_payload& trans, sc_core::sc_time* delay) {
    (void)trans;
    (void)delay;
    return false;
  }
  // The block's statistics (its MMIO accesses); a block built on it declares its own here too.
  StatsGroup& stats_group() { return stats_; }

 private:
  // tlm_fw_transport_if.
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  // One access; a blocking one first waits out the initiator's delay (see register_block.cpp), a non-blocking one
  // must not wait and takes effect at once.
  void access(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay, bool blocking);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override;
  // Registers have side effects: no DMI, for the whole block.
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override;
  // A non-blocking request completes at once through access() (TLM_COMPLETED in answer to BEGIN_REQ).
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;

  RegisterBank regs_;
  std::uint64_t size_;
  ClockDomain clock_;
  std::uint32_t access_latency_cycles_;
  StatsGroup stats_;
  Counter& reads_;
  Counter& writes_;
  Counter& unmapped_;
};

}  // namespace gpuvp::core
