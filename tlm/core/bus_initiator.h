// BusInitiator: a bus master that issues timed transactions for a host CPU, a testbench or a benchmark. It keeps its
// own local time (temporal decoupling up to the global quantum) and can use DMI for plain memory.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>

#include <tlm_utils/simple_initiator_socket.h>

#include "tlm/core/dmi_cache.h"
#include "tlm/core/memory.h"
#include "tlm/core/stats.h"
#include "tlm/core/timing.h"
#include "tlm/core/write_clock.h"

namespace gpuvp::core {

class BusInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<BusInitiator> socket;

  explicit BusInitiator(sc_core::sc_module_name name);

  // Timed accesses; call from a thread process. They return the TLM response status (TLM_OK_RESPONSE on success).
  // An access inside the DMI region used last is served inline (copy, latency, counter, quantum check); everything
  // else goes through transport().
  tlm::tlm_response_status read(std::uint64_t addr, void* data, unsigned len) {
    if (hot_.covers(addr, len) && hot_.readable) {
      SparseStore::copy_small(static_cast<unsigned char*>(data), hot_.ptr + (addr - hot_.start), len);
      return finish_dmi(false, len);
    }
    return transport(tlm::TLM_READ_COMMAND, addr, static_cast<unsigned char*>(data), len);
  }
  tlm::tlm_response_status write(std::uint64_t addr, const void* data, unsigned len) {
    tlm::tlm_response_status status;
    if (hot_.covers(addr, len) && hot_.writable) {
      SparseStore::copy_small(hot_.ptr + (addr - hot_.start), static_cast<const unsigned char*>(data), len);
      status = finish_dmi(true, len);
    } else {
      // The payload's data pointer is non-const by TLM's design; targets do not modify write data.
      status = transport(tlm::TLM_WRITE_COMMAND, addr, static_cast<unsigned char*>(const_cast<void*>(data)), len);
    }
    write_clock().record(addr, len, local_time_.now());
    return status;
  }
  // Untimed debug accesses (transport_dbg); return the bytes transferred.
  unsigned debug_read(std::uint64_t addr, void* data, unsigned len);
  unsigned debug_write(std::uint64_t addr, const void* data, unsigned len);

  template <typename T>
  T read_value(std::uint64_t addr, tlm::tlm_response_status* status = nullptr) {
    T v{};
    auto s = read(addr, &v, sizeof v);
    if (status) *status = s;
    return v;
  }
  template <typename T>
  tlm::tlm_response_status write_value(std::uint64_t addr, T v) {
    return write(addr, &v, sizeof v);
  }

  // How accesses reach targets that grant DMI (memory); kTransport by default, so that every access is a bus
  // transaction as a CPU would issue it.
  void set_mode(AccessMode mode) {
    mode_ = mode;
    dmi_.clear();
    hot_.clear();
  }
  AccessMode mode() const { return mode_; }
  // Synchronise after every access regardless of the quantum ("quantum off").
  LocalTime& local_time() { return local_time_; }
  // Brings the kernel up to this initiator's local time.
  void sync() { local_time_.sync(); }
  const DmiCache& dmi_cache() const { return dmi_; }

 private:
  tlm::tlm_response_status transport(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  void start_of_simulation() override { local_time_.refresh_quantum(); }

  tlm::tlm_response_status finish_dmi(bool write, unsigned len) {
    if (hot_.timed) {
      hot_.timing.account(write, len, local_time_.offset());
    } else {
      local_time_.advance(write ? hot_.write_ps : hot_.read_ps);
    }
    ++dmi_accesses_;
    local_time_.sync_if_needed();
    return tlm::TLM_OK_RESPONSE;
  }

  DmiHotRegion hot_;  // the region of the last DMI access
  LocalTime local_time_;
  DmiCache dmi_;
  AccessMode mode_ = AccessMode::kTransport;
  TimedDmiRequest timed_request_;
  tlm::tlm_generic_payload payload_;
  Counter& transactions_;
  Counter& dmi_accesses_;
  Counter& errors_;
};

}  // namespace gpuvp::core
