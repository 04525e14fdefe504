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

#include "tlm/core/dmi_cache.h"
#include "tlm/core/memory.h"
#include "tlm/core/stats.h"

namespace gpuvp::core {

class InitiatorPort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<InitiatorPort> socket;

  explicit InitiatorPort(sc_core::sc_module_name name);

  // Timed accesses: the bus adds its and the target's latency to delay. With DMI on, an access inside the region
  // used last is a copy plus the region's latency (no bus contention, no target statistics: the price of speed).
  tlm::tlm_response_status read(std::uint64_t addr, void* data, unsigned len, sc_core::sc_time& delay) {
    if (hot_read_.covers(addr, len) && hot_read_.readable) {
      SparseStore::copy_small(static_cast<unsigned char*>(data), hot_read_.ptr + (addr - hot_read_.start), len);
      delay += hot_read_.read_latency;
      ++reads_;
      ++dmi_accesses_;
      return tlm::TLM_OK_RESPONSE;
    }
    return access(tlm::TLM_READ_COMMAND, addr, static_cast<unsigned char*>(data), len, delay);
  }
  tlm::tlm_response_status write(std::uint64_t addr, const void* data, unsigned len, sc_core::sc_time& delay) {
    if (hot_write_.covers(addr, len) && hot_write_.writable) {
      SparseStore::copy_small(hot_write_.ptr + (addr - hot_write_.start), static_cast<const unsigned char*>(data),
                              len);
      delay += hot_write_.write_latency;
      ++writes_;
      ++dmi_accesses_;
      return tlm::TLM_OK_RESPONSE;
    }
    // TLM's data pointer is non-const by design; targets do not modify write data.
    return access(tlm::TLM_WRITE_COMMAND, addr, static_cast<unsigned char*>(const_cast<void*>(data)), len, delay);
  }
  // Direct memory access for targets that grant it (off by default).
  void set_use_dmi(bool use) {
    use_dmi_ = use;
    hot_read_.clear();
    hot_write_.clear();
  }
  bool use_dmi() const { return use_dmi_; }
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

  bool use_dmi_ = false;
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
