// DMI regions an initiator holds: looked up before every access, dropped on invalidation.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm>

#include "tlm/core/timed_dmi.h"

namespace gpuvp::core {

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
  void insert(const tlm::tlm_dmi& dmi, const DmiTimingChain* timing = nullptr);
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
