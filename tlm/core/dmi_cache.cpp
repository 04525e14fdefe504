#include "tlm/core/dmi_cache.h"

#include <algorithm>
#include <stdexcept>

namespace gpuvp::core {

AccessMode parse_access_mode(const std::string& name) {
  if (name == "transport") return AccessMode::kTransport;
  if (name == "timed_dmi") return AccessMode::kTimedDmi;
  if (name == "dmi") return AccessMode::kDmi;
  throw std::invalid_argument("unknown memory access mode '" + name + "' (transport, timed_dmi or dmi)");
}

const tlm::tlm_dmi* DmiCache::region_for(std::uint64_t addr) const {
  for (const auto& e : entries_) {
    if (addr >= e.region.get_start_address() && addr <= e.region.get_end_address()) return &e.region;
  }
  return nullptr;
}

const DmiCache::Entry& DmiCache::insert(const tlm::tlm_dmi& dmi, const DmiTimingChain* timing) {
  // Bounded: when full, forget the oldest region; it is granted again on the next miss.
  if (entries_.size() >= kMaxRegions) entries_.erase(entries_.begin());
  Entry e{dmi, timing ? *timing : DmiTimingChain{}, timing != nullptr};
  entries_.push_back(e);
  last_ = entries_.size() - 1;
  return entries_.back();
}

void DmiCache::invalidate(std::uint64_t start, std::uint64_t end) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const Entry& e) {
                                  return e.region.get_start_address() <= end && e.region.get_end_address() >= start;
                                }),
                 entries_.end());
  last_ = 0;
}

}  // namespace gpuvp::core
