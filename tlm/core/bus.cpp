#include "tlm/core/bus.h"

#include <algorithm>
#include <stdexcept>

#include "tlm/core/report.h"

namespace gpuvp::core {

Bus::Bus(sc_core::sc_module_name name, std::uint64_t clock_hz)
    : sc_module(name),
      upstream("upstream"),
      downstream("downstream"),
      clock_(std::string(this->name()) + ".clock", clock_hz),
      stats_(this->name()),
      address_errors_(
          stats_.counter("address_errors", "events", "accesses that hit no target or crossed the end of a window")),
      transactions_(stats_.counter("transactions", "events",
                                   "accesses through b_transport (rejected ones included) and timed DMI")) {
  upstream.bind(*this);
  downstream.register_invalidate_direct_mem_ptr(this, &Bus::invalidate_direct_mem_ptr);
}

void Bus::map(const std::string& name, std::uint64_t base, std::uint64_t size, unsigned port, PortTiming timing,
              std::uint64_t target_offset) {
  if (size == 0 || base + (size - 1) < base || target_offset + (size - 1) < target_offset) {
    throw std::invalid_argument(std::string(this->name()) + ": window '" + name + "' has an invalid size");
  }
  BusMapping m{name, base, size, port, timing, target_offset};
  for (const auto& other : map_) {
    if (other.name == name) {
      throw std::invalid_argument(std::string(this->name()) + ": window name '" + name + "' used twice");
    }
    if (m.base <= other.end() && other.base <= m.end()) {
      throw std::invalid_argument(std::string(this->name()) + ": window '" + name + "' [" + format_hex(m.base) + ", " +
                                  format_hex(m.end()) + "] overlaps '" + other.name + "' [" + format_hex(other.base) +
                                  ", " + format_hex(other.end()) + "]");
    }
  }
  auto pos = std::lower_bound(map_.begin(), map_.end(), m,
                              [](const BusMapping& a, const BusMapping& b) { return a.base < b.base; });
  map_.insert(pos, m);
  last_hit_ = nullptr;
}

void Bus::end_of_elaboration() {
  port_state_.assign(map_.size(), {});
  bookings_.assign(ports_, {});
  window_stages_.clear();
  window_stages_.reserve(map_.size());
  for (std::size_t i = 0; i < map_.size(); ++i) window_stages_.emplace_back(*this, i);
  traced_window_stages_.clear();
  traced_window_stages_.reserve(map_.size());
  for (std::size_t i = 0; i < map_.size(); ++i) traced_window_stages_.emplace_back(*this, i);
  const std::string prefix = std::string(name()) + ".";
  bandwidth_.clear();
  if (timeline().enabled()) {
    for (const std::string& port_name : port_names_) bandwidth_.emplace_back(prefix + port_name);
  }
  for (std::size_t i = 0; i < map_.size(); ++i) {
    // Statistics and bookings are the port's: every window onto it counts there.
    StatsGroup target = stats_.subgroup(port_names_[map_[i].port]);
    PortState& port = port_state_[i];
    port.booking = &bookings_[map_[i].port];
    port.transactions =
        &target.counter("transactions", "events", "accesses routed to the target (b_transport and timed DMI)");
    port.bytes = &target.counter("bytes", "bytes", "bytes of the accesses routed to the target");
    port.wait_ps = &target.counter("contention_wait_ps", "ps", "time accesses queued behind others");
    port.busy = &target.busy_time("busy", "time the target's port was occupied, at the window's bytes_per_cycle");
    port.bandwidth = bandwidth_.empty() ? nullptr : &bandwidth_[map_[i].port];
    port.translation = map_[i].base - map_[i].target_offset;
    port.hop_ps = clock_.cycles(map_[i].timing.hop_latency_cycles);
    port.period_ps = clock_.period_ps();
    port.bytes_per_cycle = map_[i].timing.bytes_per_cycle;
    const std::uint32_t width = port.bytes_per_cycle;
    if (width != 0 && (width & (width - 1)) == 0) port.width_shift = __builtin_ctz(width);
    port.target = downstream[static_cast<int>(map_[i].port)];
  }
}

const BusMapping* Bus::decode_search(std::uint64_t addr) const {
  auto it =
      std::upper_bound(map_.begin(), map_.end(), addr, [](std::uint64_t a, const BusMapping& m) { return a < m.base; });
  if (it == map_.begin()) return nullptr;
  --it;
  if (addr > it->end()) return nullptr;
  last_hit_ = &*it;
  return &*it;
}

const BusMapping* Bus::reject(tlm::tlm_generic_payload& trans, const BusMapping* m) {
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  ++address_errors_;
  trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  report_guest_warning(
      name(), std::string(m ? "access crosses the end of window '" + m->name + "'" : std::string("no target")) +
                  " at " + format_hex(addr) + " (" + std::to_string(len) + " bytes, " +
                  (trans.is_write() ? "write" : "read") + ")");
  return nullptr;
}

void Bus::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  ++transactions_;
  const BusMapping* m = route(trans);
  if (m == nullptr) return;
  PortState& port = port_state_[static_cast<std::size_t>(m - map_.data())];
  const Picoseconds start = account(port, trans.get_data_length(), delay);
  if (port.bandwidth != nullptr) port.bandwidth->add_at(trans.is_write(), trans.get_data_length(), start);
  const std::uint64_t global = trans.get_address();
  trans.set_address(global - port.translation);
  port.target->b_transport(trans, delay);
  trans.set_address(global);
}

tlm::tlm_sync_enum Bus::nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
  // As with the multi-socket the bus used before: blocking transport only.
  report_error(name(), "nb_transport_fw: the bus supports blocking transport only");
  return tlm::TLM_COMPLETED;
}

unsigned int Bus::transport_dbg(tlm::tlm_generic_payload& trans) {
  const BusMapping* m = route(trans);
  if (m == nullptr) return 0;
  const std::uint64_t global = trans.get_address();
  trans.set_address(global - m->base + m->target_offset);
  unsigned int n = downstream[static_cast<int>(m->port)]->transport_dbg(trans);
  trans.set_address(global);
  return n;
}

bool Bus::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const std::uint64_t global = trans.get_address();
  const BusMapping* m = decode(global);
  if (m == nullptr) return false;
  trans.set_address(global - m->base + m->target_offset);
  bool granted = downstream[static_cast<int>(m->port)]->get_direct_mem_ptr(trans, dmi);
  trans.set_address(global);
  // Back into global addresses, clipped to the window (a target may be larger than its window, or a granted region
  // may begin below the window's start inside the target: then the pointer moves up with the start).
  const std::uint64_t first = m->target_offset;
  const std::uint64_t last = m->target_offset + (m->size - 1);
  std::uint64_t start = dmi.get_start_address();
  std::uint64_t end = std::min<std::uint64_t>(dmi.get_end_address(), last);
  if (start < first) {
    if (granted) dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (first - start));
    start = first;
  }
  if (granted && start > end) return false;
  if (granted) {
    if (auto* timed = trans.get_extension<TimedDmiRequest>(); timed && timed->chain.complete()) {
      const auto index = static_cast<std::size_t>(m - map_.data());
      if (port_state_[index].bandwidth != nullptr) {
        timed->chain.prepend(&traced_window_stages_[index]);
      } else {
        timed->chain.prepend(&window_stages_[index]);
      }
    }
    dmi.set_start_address(m->base + (start - first));
    dmi.set_end_address(m->base + (end - first));
    dmi.set_read_latency(dmi.get_read_latency() + to_sc_time(clock_.cycles(m->timing.hop_latency_cycles)));
    dmi.set_write_latency(dmi.get_write_latency() + to_sc_time(clock_.cycles(m->timing.hop_latency_cycles)));
  } else {
    dmi.set_start_address(m->base + (std::min(start, last) - first));
    dmi.set_end_address(m->base + (std::max(end, start) - first));
  }
  return granted;
}

void Bus::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  // Every window onto this port that overlaps the range, translated back to global addresses.
  for (const auto& m : map_) {
    if (m.port != static_cast<unsigned>(port)) continue;
    const std::uint64_t first = m.target_offset;
    const std::uint64_t last = m.target_offset + (m.size - 1);
    if (start > last || end < first) continue;
    const std::uint64_t g_start = m.base + (std::max<std::uint64_t>(start, first) - first);
    const std::uint64_t g_end = m.base + (std::min<std::uint64_t>(end, last) - first);
    for (int i = 0; i < upstream.size(); ++i) upstream[i]->invalidate_direct_mem_ptr(g_start, g_end);
  }
}

nlohmann::json Bus::describe() const {
  nlohmann::json windows = nlohmann::json::array();
  for (const auto& m : map_) {
    windows.push_back({{"name", m.name},
                       {"base", format_hex(m.base)},
                       {"size", format_hex(m.size)},
                       {"end", format_hex(m.end())},
                       {"target", port_names_[m.port]},
                       {"target_offset", format_hex(m.target_offset)},
                       {"hop_latency_cycles", m.timing.hop_latency_cycles},
                       {"bytes_per_cycle", m.timing.bytes_per_cycle}});
  }
  return {
      {"name", name()}, {"clock_hz", clock_.frequency_hz()}, {"windows", windows}, {"initiators", initiator_names_}};
}

}  // namespace gpuvp::core
