// Initiator: a bus master's path to the bus, with the DMI fast path. Every block that reads or writes memory goes
// through one: a host CPU or testbench on the initiator's own local time (temporal decoupling up to the global
// quantum), or a block whose several threads (or sub-blocks) each own their delay (a command streamer, a CLE thread,
// the GTT's walker) with the delay passed in.
//
// An access inside the DMI region the initiator used last for that direction is served inline (copy, latency or
// timing stages, counters); any other goes through DmiCache and else b_transport.
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
#include "tlm/core/stats_group.h"
#include "tlm/core/timing.h"
#include "tlm/core/write_clock.h"

namespace gpuvp::core {

class ParamVisitor;

class Initiator : public sc_core::sc_module {
 public:
  // What the initiator reports in its statistics (besides dmi_accesses and errors): a CPU reports its bus
  // transactions (b_transport calls), a block's memory port its reads and writes (DMI included).
  enum class Counting : std::uint8_t { kTransactions, kReadsAndWrites };

  tlm_utils::simple_initiator_socket<Initiator> socket;

  explicit Initiator(sc_core::sc_module_name name, Counting counting = Counting::kTransactions);

  // ---- timed accesses with the caller's delay (the bus and the target add theirs to delay) ----
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

  // The time and statistics of an access whose data another model moved already (the EU array's DRAM lines, whose
  // data the functional run moved): the bus and the target book it as a read or write of len bytes (contention,
  // latency, statistics, bandwidth traces) and no byte changes hands: TLM-2.0 byte enables all off, which memory
  // honours and a target that takes no byte enables answers with an error. Not stamped in the write clock.
  tlm::tlm_response_status traffic(std::uint64_t addr, unsigned len, bool write, sc_core::sc_time& delay);

  // ---- timed accesses on the initiator's own local time (call from a thread process) ----
  // They synchronise with the kernel once the local time is a quantum ahead.
  tlm::tlm_response_status read(std::uint64_t addr, void* data, unsigned len) {
    const tlm::tlm_response_status status = read(addr, data, len, local_time_.offset());
    local_time_.sync_if_needed();
    return status;
  }
  tlm::tlm_response_status write(std::uint64_t addr, const void* data, unsigned len) {
    const tlm::tlm_response_status status = write(addr, data, len, local_time_.offset());
    local_time_.sync_if_needed();
    return status;
  }
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
  LocalTime& local_time() { return local_time_; }
  // Brings the kernel up to this initiator's local time.
  void sync() { local_time_.sync(); }

  // ---- untimed debug accesses (transport_dbg); they return the bytes transferred ----
  unsigned debug_read(std::uint64_t addr, void* data, unsigned len);
  unsigned debug_write(std::uint64_t addr, const void* data, unsigned len);

  // ---- payloads passed through unchanged (blocks that forward accesses to memory) ----
  void transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans) { return socket->transport_dbg(trans); }

  // How accesses reach targets that grant DMI; kTransport by default, so that every access is a bus transaction.
  void set_mode(AccessMode mode) {
    mode_ = mode;
    dmi_.clear();
    hot_read_.clear();
    hot_write_.clear();
  }
  AccessMode mode() const { return mode_; }
  // Parses a configuration value: "transport", "timed_dmi" or "dmi" (throws std::invalid_argument otherwise).
  static AccessMode parse_mode(const std::string& name) { return parse_access_mode(name); }
  // The configuration key "memory_access" of a block whose memory port this is; who names the block in its doc.
  static void visit_mode_param(ParamVisitor& v, std::string& value, const std::string& who);
  const DmiCache& dmi_cache() const { return dmi_; }
  // Accesses served through a DMI pointer, plain or timed.
  std::uint64_t dmi_accesses() const { return dmi_accesses_.value; }
  std::uint64_t reads() const { return reads_.value; }
  std::uint64_t writes() const { return writes_.value; }
  std::uint64_t transactions() const { return transactions_.value; }

 private:
  tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len,
                                  sc_core::sc_time& delay);
  // b_transport of one access (byte enables: none, or a pattern of be_len bytes), then a DMI grant for the next.
  tlm::tlm_response_status transport_access(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len,
                                            unsigned char* byte_enables, unsigned be_len, sc_core::sc_time& delay);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  void start_of_simulation() override { local_time_.refresh_quantum(); }

  void finish_dmi(const DmiHotRegion& hot, bool write, unsigned len, sc_core::sc_time& delay) {
    if (hot.timed) {
      hot.timing.account(write, len, delay);
    } else {
      delay += write ? hot.write_latency : hot.read_latency;
    }
    ++dmi_accesses_;
  }

  AccessMode mode_ = AccessMode::kTransport;
  TimedDmiRequest timed_request_;
  DmiCache dmi_;
  // The regions of the last DMI read and write: a command streamer reads commands from one page while it writes
  // results to another, so one entry would miss on every access.
  DmiHotRegion hot_read_;
  DmiHotRegion hot_write_;
  LocalTime local_time_;
  // Payloads are reused: constructing a generic payload allocates its extension array, which cost more than the
  // access itself. A pool (not one member) because several threads may share the initiator and a target may wait().
  // spare_payload_ holds one idle payload so that the common case touches no vector.
  std::unique_ptr<tlm::tlm_generic_payload> spare_payload_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> free_payloads_;
  std::vector<unsigned char> traffic_data_;  // what a traffic read's target fills in (zeros), then discarded

  StatsGroup stats_;
  // The counters the initiator does not report (see Counting) still count, into these.
  Counter unreported_transactions_;
  Counter unreported_reads_;
  Counter unreported_writes_;
  Counter& dmi_accesses_;
  Counter& errors_;
  Counter& transactions_;
  Counter& reads_;
  Counter& writes_;
};

}  // namespace gpuvp::core
