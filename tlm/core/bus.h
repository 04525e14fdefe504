// Bus: a TLM-2.0 router between any number of initiators and targets with an explicit address map. It forwards
// b_transport, transport_dbg and DMI (translating addresses both ways), adds a hop latency per mapping, and models
// contention: each target port knows when it is next free and how many bytes per cycle it moves, so initiators that
// hammer the same target queue behind each other.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "tlm/core/stats.h"
#include "tlm/core/timing.h"

namespace gpuvp::core {

// Timing of one target port as seen from the bus.
struct PortTiming {
  std::uint32_t hop_latency_cycles = 2;  // added to every access through this mapping
  std::uint32_t bytes_per_cycle = 16;    // port width; 0 = no contention modelled
};

struct BusMapping {
  std::string name;
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  unsigned port = 0;  // index of the target on the bus's initiator-side socket
  PortTiming timing;
  std::uint64_t end() const { return base + size - 1; }  // inclusive
};

class Bus : public sc_core::sc_module {
 public:
  using TargetSocket = tlm_utils::multi_passthrough_target_socket<Bus>;
  using InitiatorSocket = tlm_utils::multi_passthrough_initiator_socket<Bus>;

  // Initiators bind their sockets here.
  TargetSocket upstream;
  // Targets are bound here, one port each.
  InitiatorSocket downstream;

  Bus(sc_core::sc_module_name name, std::uint64_t clock_hz = 1'000'000'000);

  // Binds a target socket to a new downstream port and maps it at [base, base + size). Further windows onto the same
  // target go through map(). Returns the port.
  template <typename Socket>
  unsigned attach_target(Socket& target, const std::string& name, std::uint64_t base, std::uint64_t size,
                         PortTiming timing = {}) {
    downstream.bind(target);
    unsigned port = ports_++;
    port_names_.push_back(name);
    map(name, base, size, port, timing);
    return port;
  }
  template <typename Socket>
  void attach_initiator(Socket& initiator, const std::string& name) {
    initiator.bind(upstream);
    initiator_names_.push_back(name);
  }
  // Adds a window [base, base + size) onto port; overlapping another window is a configuration error (throws).
  void map(const std::string& name, std::uint64_t base, std::uint64_t size, unsigned port, PortTiming timing);

  const std::vector<BusMapping>& mappings() const { return map_; }
  const BusMapping* decode(std::uint64_t addr) const;
  const ClockDomain& clock() const { return clock_; }
  std::uint64_t address_errors() const { return address_errors_.value; }
  nlohmann::json describe() const;

 private:
  struct PortState {
    Picoseconds last_start_ps = 0;  // start of the latest booking
    Picoseconds next_free_ps = 0;
    Counter* transactions = nullptr;
    Counter* bytes = nullptr;
    Counter* wait_ps = nullptr;
    BusyTime* busy = nullptr;
    // hop latency + occupancy as an sc_time, by occupancy cycles, for short accesses (no sc_time built per access)
    static constexpr std::size_t kDelayTableCycles = 8;
    std::array<sc_core::sc_time, kDelayTableCycles + 1> hop_and_occupancy{};
  };

  void b_transport(int initiator, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(int initiator, tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(int initiator, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);
  void end_of_elaboration() override;
  // Decodes and checks that the whole access fits in one window; on failure sets the response and counts it.
  const BusMapping* route(tlm::tlm_generic_payload& trans);

  ClockDomain clock_;
  std::vector<BusMapping> map_;  // sorted by base
  mutable std::size_t last_hit_ = 0;
  unsigned ports_ = 0;
  std::vector<std::string> port_names_;
  std::vector<std::string> initiator_names_;
  std::vector<PortState> port_state_;  // per mapping
  Counter& address_errors_;
  Counter& transactions_;
};

}  // namespace gpuvp::core
