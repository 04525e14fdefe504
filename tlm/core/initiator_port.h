// InitiatorPort: a block's path to the bus for accesses that several of its threads (or sub-blocks) issue, each with
// its own delay. Unlike BusInitiator it keeps no local time: the caller owns the delay and its synchronisation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "tlm/core/dmi_cache.h"
#include "tlm/core/memory.h"
#include "tlm/core/stats.h"
#include "tlm/core/write_clock.h"

namespace gpuvp::core {

class InitiatorPort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<InitiatorPort> socket;

  explicit InitiatorPort(sc_core::sc_module_name name);

  // How accesses reach memory (see AccessMode).
  using Mode = AccessMode;

  // Timed accesses: the bus adds its and the target's latency to delay.
  tlm::tlm_response_status read(std::uint64_t addr, void* data, unsigned len, sc_core::sc_time& delay) {
    if (hot_read_.covers(addr, len) && hot_read_.readable) {
      SparseStore::copy_small(static_cast<unsigned char*>(data), hot_read_.ptr + (addr - hot_read_.start), len);
      finish_dmi(hot_read_, false, len, delay);
      ++reads_;
      return tlm::TLM_OK_RESPONSE;
    }
    return access(tlm::TLM_READ_COMMAND, addr, static_cast<unsigned char*>(data), len, delay);
  }
  // Every write is stamped in the write clock with its local completion time (see write_clock.h).
  tlm::tlm_response_status write(std::uint64_t addr, const void* data, unsigned len, sc_core::sc_time& delay) {
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    if (hot_write_.covers(addr, len) && hot_write_.writable) {
      SparseStore::copy_small(hot_write_.ptr + (addr - hot_write_.start), static_cast<const unsigned char*>(data), len);
      finish_dmi(hot_write_, true, len, delay);
      ++writes_;
    } else {
      // TLM's data pointer is non-const by design; targets do not modify write data.
      status = access(tlm::TLM_WRITE_COMMAND, addr, static_cast<unsigned char*>(const_cast<void*>(data)), len, delay);
    }
    write_clock().record(addr, len, now_ps() + to_ps(delay));
    return status;
  }
  void set_mode(Mode mode) {
    mode_ = mode;
    dmi_.clear();
    hot_read_.clear();
    hot_write_.clear();
  }
  Mode mode() const { return mode_; }
  // Parses a configuration value: "transport", "timed_dmi" or "dmi" (throws std::invalid_argument otherwise).
  static Mode parse_mode(const std::string& name) { return parse_access_mode(name); }
  // Accesses served through a DMI pointer, plain or timed.
  std::uint64_t dmi_accesses() const { return dmi_accesses_.value; }
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
  // spare_payload_ holds one idle payload so that the common case touches no vector.
  std::unique_ptr<tlm::tlm_generic_payload> spare_payload_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> free_payloads_;
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

  void finish_dmi(const DmiHotRegion& hot, bool write, unsigned len, sc_core::sc_time& delay) {
    if (hot.timed) {
      hot.timing.account(write, len, delay);
    } else {
      delay += write ? hot.write_latency : hot.read_latency;
    }
    ++dmi_accesses_;
  }

  Mode mode_ = Mode::kTransport;
  TimedDmiRequest timed_request_;
  DmiCache dmi_;
  // The regions of the last DMI read and write: a command streamer reads commands from one page while it writes
  // results to another, so one entry would miss on every access.
  DmiHotRegion hot_read_;
  DmiHotRegion hot_write_;
  Counter& dmi_accesses_;
  Counter& reads_;
  Counter& writes_;
  Counter& errors_;
};

}  // namespace gpuvp::core
