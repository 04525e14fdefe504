// InitiatorPort: a block's path to the bus for accesses that several of its threads (or sub-blocks) issue, each with
// its own delay. Unlike BusInitiator it keeps no local time: the caller owns the delay and its synchronisation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "tlm/core/stats.h"

namespace gpuvp::core {

class InitiatorPort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<InitiatorPort> socket;

  explicit InitiatorPort(sc_core::sc_module_name name);

  // Timed accesses: the bus adds its and the target's latency to delay.
  tlm::tlm_response_status read(std::uint64_t addr, void* data, unsigned len, sc_core::sc_time& delay);
  tlm::tlm_response_status write(std::uint64_t addr, const void* data, unsigned len, sc_core::sc_time& delay);
  // Forwards a payload unchanged (for blocks that pass accesses through to memory).
  void transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);

  std::uint64_t reads() const { return reads_.value; }
  std::uint64_t writes() const { return writes_.value; }

 private:
  tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len,
                                  sc_core::sc_time& delay);

  // Payloads are reused: constructing a generic payload allocates its extension array, which cost more than the
  // access itself. A pool (not one member) because several threads share the port and a target may wait().
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> free_payloads_;
  Counter& reads_;
  Counter& writes_;
  Counter& errors_;
};

}  // namespace gpuvp::core
