#include "tlm/core/dmi_cache.h"

#include <algorithm>

namespace gpuvp::core {

const tlm::tlm_dmi* DmiCache::region_for(std::uint64_t addr) const {
  for (const auto& r : regions_) {
    if (addr >= r.get_start_address() && addr <= r.get_end_address()) return &r;
  }
  return nullptr;
}

void DmiCache::insert(const tlm::tlm_dmi& dmi) {
  // Bounded: when full, forget the oldest region; it is granted again on the next miss.
  if (regions_.size() >= kMaxRegions) regions_.erase(regions_.begin());
  regions_.push_back(dmi);
  last_ = regions_.size() - 1;
}

void DmiCache::invalidate(std::uint64_t start, std::uint64_t end) {
  regions_.erase(std::remove_if(regions_.begin(), regions_.end(),
                                [&](const tlm::tlm_dmi& r) {
                                  return r.get_start_address() <= end && r.get_end_address() >= start;
                                }),
                 regions_.end());
  last_ = 0;
}

}  // namespace gpuvp::core
