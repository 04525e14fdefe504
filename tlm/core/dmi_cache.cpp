#include "tlm/core/dmi_cache.h"

#include <algorithm>

namespace gpuvp::core {

const tlm::tlm_dmi* DmiCache::region_for(std::uint64_t addr) const {
  for (const auto& e : entries_) {
    if (addr >= e.region.get_start_address() && addr <= e.region.get_end_address()) return &e.region;
  }
  return nullptr;
}

void DmiCache::insert(const tlm::tlm_dmi& dmi, const DmiTimingChain* timing) {
  // Bounded: when full, forget the oldest region; it is granted again on the next miss.
  if (entries_.size() >= kMaxRegions) entries_.erase(entries_.begin());
  Entry e{dmi, timing ? *timing : DmiTimingChain{}, timing != nullptr};
  entries_.push_back(e);
  last_ = entries_.size() - 1;
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
