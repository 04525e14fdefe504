// DMI regions an initiator holds: looked up before every access, dropped on invalidation.
#pragma once

#include <cstdint>
#include <string>
#include <tlm>
#include <vector>

#include "tlm/core/timed_dmi.h"

namespace gpuvp::core {

// How an initiator reaches targets that grant DMI. kTransport: every access is a b_transport. kTimedDmi: accesses
// inside a timed DMI grant copy through the pointer and run the grant's timing stages, which charge the latency,
// contention and statistics b_transport would (tlm/core/timed_dmi.h): the same simulated time and statistics, without
// the transaction. kDmi: plain DMI, a copy plus the granted latency (no bus contention, no target statistics: the
// price of speed). Targets that grant no DMI are always reached through b_transport.
enum class AccessMode { kTransport, kTimedDmi, kDmi };
// "transport", "timed_dmi" or "dmi"; throws std::invalid_argument otherwise.
AccessMode parse_access_mode(const std::string& name);

// The DMI region an initiator used last, with its latencies ready to add: the inline fast path of an access checks
// only this. Empty (start > end) when DMI is off or after an invalidation.
struct DmiHotRegion {
  std::uint64_t start = 1;
  std::uint64_t end = 0;
  unsigned char* ptr = nullptr;
  std::uint64_t read_ps = 0;
  std::uint64_t write_ps = 0;
  sc_core::sc_time read_latency;
  sc_core::sc_time write_latency;
  bool readable = false;
  bool writable = false;
  bool timed = false;  // a timed grant: run timing instead of adding the fixed latencies
  DmiTimingChain timing;

  bool covers(std::uint64_t addr, unsigned len) const {
    return addr >= start && addr <= end && len != 0 && len - 1 <= end - addr;
  }
  void set(const tlm::tlm_dmi& region, const DmiTimingChain* timed_chain = nullptr) {
    start = region.get_start_address();
    end = region.get_end_address();
    ptr = region.get_dmi_ptr();
    read_latency = region.get_read_latency();
    write_latency = region.get_write_latency();
    read_ps = read_latency.value();
    write_ps = write_latency.value();
    readable = region.is_read_allowed();
    writable = region.is_write_allowed();
    timed = timed_chain != nullptr;
    if (timed_chain) {
      timing = *timed_chain;
    } else {
      timing.clear();
    }
  }
  void clear() { *this = DmiHotRegion{}; }
};

class DmiCache {
 public:
  struct Entry {
    tlm::tlm_dmi region;
    DmiTimingChain timing;  // complete for a timed grant, empty for a plain one
    bool timed = false;
  };

  // Pointer to [addr, addr+len) if one region covers it with the wanted access, else nullptr. When entry is given,
  // it receives the entry that served the access (saves a second search for its latencies).
  unsigned char* lookup(std::uint64_t addr, unsigned len, bool write, const Entry** entry = nullptr) {
    if (last_ < entries_.size()) {
      if (unsigned char* p = try_region(entries_[last_].region, addr, len, write)) {
        if (entry) *entry = &entries_[last_];
        return p;
      }
    }
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (unsigned char* p = try_region(entries_[i].region, addr, len, write)) {
        last_ = i;
        if (entry) *entry = &entries_[i];
        return p;
      }
    }
    return nullptr;
  }
  const tlm::tlm_dmi* region_for(std::uint64_t addr) const;
  // A plain grant (timing == nullptr) or a timed one with its complete chain.
  const Entry& insert(const tlm::tlm_dmi& dmi, const DmiTimingChain* timing = nullptr);
  // Asks the target behind socket for the region of trans's address (a timed grant in kTimedDmi, through request) and
  // keeps it. Returns the new entry, or nullptr when nothing usable was granted: a timed grant whose chain a block on
  // the path did not complete would lose that block's timing, so that region stays on b_transport.
  template <typename Socket>
  const Entry* request(Socket& socket, tlm::tlm_generic_payload& trans, AccessMode mode,
                       TimedDmiRequest& timed_request) {
    tlm::tlm_dmi region;
    const bool timed = mode == AccessMode::kTimedDmi;
    if (timed) {
      timed_request.chain.clear();
      trans.set_extension(&timed_request);
    }
    const bool granted = socket->get_direct_mem_ptr(trans, region);
    if (timed) trans.clear_extension(&timed_request);
    if (!granted || (timed && !timed_request.chain.complete())) return nullptr;
    return &insert(region, timed ? &timed_request.chain : nullptr);
  }
  // Drops every region overlapping [start, end].
  void invalidate(std::uint64_t start, std::uint64_t end);
  void clear() { entries_.clear(); }
  std::size_t size() const { return entries_.size(); }

 private:
  static unsigned char* try_region(const tlm::tlm_dmi& r, std::uint64_t addr, unsigned len, bool write) {
    if (addr < r.get_start_address() || addr + len - 1 > r.get_end_address() || len == 0) return nullptr;
    if (write ? !r.is_write_allowed() : !r.is_read_allowed()) return nullptr;
    return r.get_dmi_ptr() + (addr - r.get_start_address());
  }

  static constexpr std::size_t kMaxRegions = 64;
  std::vector<Entry> entries_;
  std::size_t last_ = 0;
};

}  // namespace gpuvp::core
