// Bus: a TLM-2.0 router between any number of initiators and targets with an explicit address map. It forwards
// b_transport, transport_dbg and DMI (translating addresses both ways), adds a hop latency per mapping, and models
// contention: each target port knows when it is next free and how many bytes per cycle it moves, so initiators that
// hammer the same target queue behind each other. A target may appear through several windows (DRAM below the PCI
// hole and remapped above 4 GiB): each window says where inside the target it starts, and the windows of one port
// share its contention and statistics.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include <nlohmann/json.hpp>
#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "tlm/core/bandwidth_trace.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timed_dmi.h"
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
  std::uint64_t target_offset = 0;                       // the target address that base maps to
  std::uint64_t end() const { return base + size - 1; }  // inclusive
};

// The bus implements the forward interface itself behind a plain target socket that any number of initiators bind to:
// one virtual call per access instead of the multi-socket's binder, functor and member-pointer hops (the bus never
// needed to know which initiator called).
class Bus : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  using TargetSocket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 0>;
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
  // Adds a window [base, base + size) onto port, reaching the target at [target_offset, target_offset + size);
  // overlapping another window, or a name already used, is a configuration error (throws). Statistics are the
  // port's (named after attach_target's name), whichever window an access came through.
  void map(const std::string& name, std::uint64_t base, std::uint64_t size, unsigned port, PortTiming timing,
           std::uint64_t target_offset = 0);

  const std::vector<BusMapping>& mappings() const { return map_; }
  // The window holding addr, or nullptr. Consecutive accesses usually hit the window of the previous one: that check is
  // inline, the binary search is not.
  const BusMapping* decode(std::uint64_t addr) const {
    if (last_hit_ != nullptr && addr >= last_hit_->base && addr <= last_hit_->end()) return last_hit_;
    return decode_search(addr);
  }
  const ClockDomain& clock() const { return clock_; }
  std::uint64_t address_errors() const { return address_errors_.value; }
  nlohmann::json describe() const;

 private:
  // When a target port is busy: shared by every window onto the port.
  struct Booking {
    Picoseconds last_start_ps = 0;  // start of the latest booking
    Picoseconds next_free_ps = 0;
  };
  // Everything an access through one window needs, in one place (b_transport touches this and the payload only).
  struct PortState {
    Booking* booking = nullptr;  // the port's
    Picoseconds hop_ps = 0;      // hop latency
    Picoseconds period_ps = 0;   // one bus cycle of occupancy
    // Window base - target offset (modulo 2^64), subtracted from the address on the way to the target.
    std::uint64_t translation = 0;
    std::uint32_t bytes_per_cycle = 0;  // 0 = no contention modelled
    // Occupancy in cycles of len bytes is ceil(len / bytes_per_cycle): a shift when the width is a power of two (the
    // usual case; a division costs more than the rest of the bookkeeping), else a division.
    int width_shift = -1;
    tlm::tlm_fw_transport_if<>* target = nullptr;  // the downstream port's target, resolved after binding
    Counter* transactions = nullptr;
    Counter* bytes = nullptr;
    Counter* wait_ps = nullptr;
    BusyTime* busy = nullptr;
    BandwidthTrace* bandwidth = nullptr;  // the port's, only while tracing
  };
  // The window's stage in timed DMI grants: what b_transport does for an access that hits the window.
  class WindowStage : public DmiTimingStage {
   public:
    WindowStage(Bus& bus, std::size_t index) : bus_(bus), index_(index) {}
    void account(bool, unsigned len, sc_core::sc_time& delay) override {
      ++bus_.transactions_;
      bus_.account(bus_.port_state_[index_], len, delay);
    }

   protected:
    Bus& bus_;
    std::size_t index_;
  };
  // The same while tracing: the bytes also go to the port's bandwidth counters. A separate stage, so that an untraced
  // timed DMI access pays nothing for it.
  class TracedWindowStage : public WindowStage {
   public:
    using WindowStage::WindowStage;
    void account(bool write, unsigned len, sc_core::sc_time& delay) override {
      ++bus_.transactions_;
      PortState& port = bus_.port_state_[index_];
      port.bandwidth->add_at(write, len, bus_.account(port, len, delay));
    }
  };

  // tlm_fw_transport_if, for the initiators bound to upstream.
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override;
  // Blocking transport only: a non-blocking call is an error (as with the multi-socket the bus had before).
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);
  void end_of_elaboration() override;
  // Decodes and checks that the whole access fits in one window; on failure sets the response and counts it.
  const BusMapping* route(tlm::tlm_generic_payload& trans) {
    const std::uint64_t addr = trans.get_address();
    const unsigned len = trans.get_data_length();
    const BusMapping* m = decode(addr);
    if (m == nullptr || len == 0 || len - 1 > m->end() - addr) return reject(trans, m);
    return m;
  }
  // The error half of route(), out of line: counts, answers TLM_ADDRESS_ERROR_RESPONSE and warns. Returns nullptr.
  const BusMapping* reject(tlm::tlm_generic_payload& trans, const BusMapping* m);
  const BusMapping* decode_search(std::uint64_t addr) const;
  // Contention, hop latency and statistics of an access of len bytes through window index (b_transport and timed DMI).
  // Inline in both: a call would cost a fifth of the access.
  // Contention: the access starts when the port is free, occupies it for len / width cycles, and the initiator sees
  // queueing + hop latency + occupancy on top of what the target adds.
  // Under temporal decoupling an initiator may arrive "in the past" of a booking another initiator made from further
  // ahead in its quantum; queueing it behind that booking would charge a wait that never happens, so only arrivals
  // inside the current booking [last_start, next_free) queue.
  // Returns when the port starts moving the bytes.
  [[gnu::always_inline]] Picoseconds account(PortState& port, unsigned len, sc_core::sc_time& delay) {
    const Picoseconds arrival = now_ps() + to_ps(delay);
    Booking& booking = *port.booking;
    Picoseconds start = arrival;
    if (arrival >= booking.last_start_ps && arrival < booking.next_free_ps) start = booking.next_free_ps;
    Picoseconds occupancy = 0;
    if (port.bytes_per_cycle) {
      const std::uint32_t bytes = len + port.bytes_per_cycle - 1;
      occupancy = port.period_ps * (port.width_shift >= 0 ? bytes >> port.width_shift : bytes / port.bytes_per_cycle);
      if (start + occupancy > booking.next_free_ps) {
        booking.last_start_ps = start;
        booking.next_free_ps = start + occupancy;
      }
    }
    const Picoseconds wait = start - arrival;
    *port.wait_ps += wait;
    ++*port.transactions;
    *port.bytes += len;
    port.busy->add(occupancy);
    delay = to_sc_time(to_ps(delay) + wait + port.hop_ps + occupancy);
    return start;
  }
  ClockDomain clock_;
  std::vector<BusMapping> map_;                   // sorted by base
  mutable const BusMapping* last_hit_ = nullptr;  // into map_; reset whenever map_ changes
  unsigned ports_ = 0;
  std::vector<std::string> port_names_;
  std::vector<std::string> initiator_names_;
  std::vector<PortState> port_state_;       // per mapping
  std::vector<Booking> bookings_;           // per port
  std::deque<BandwidthTrace> bandwidth_;    // per port, only when the timeline was open at the end of elaboration
  std::vector<WindowStage> window_stages_;  // per mapping; their addresses go into timed DMI grants
  std::vector<TracedWindowStage> traced_window_stages_;  // the same while tracing
  // Per target port ("bus.dram.*", registered at the end of elaboration when the windows are known) and the bus's own.
  StatsGroup stats_;
  Counter& address_errors_;
  Counter& transactions_;
};

}  // namespace gpuvp::core
