// RegisterBlock: an MMIO target whose behaviour is a register table. GPU blocks derive from it, declare their
// registers in the constructor and attach hooks for side effects.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/timing.h"

namespace gpuvp::core {

class RegisterBlock : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<RegisterBlock> socket;

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

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);

  RegisterBank regs_;
  std::uint64_t size_;
  ClockDomain clock_;
  std::uint32_t access_latency_cycles_;
  Counter& reads_;
  Counter& writes_;
  Counter& unmapped_;
};

}  // namespace gpuvp::core
