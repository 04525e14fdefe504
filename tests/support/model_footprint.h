// What a long run of guest work must not grow (issue 23: no guest-driven structure grows without a bound), as the
// model lets a test count it: the tests submit the same work 200 and 2000 times and compare. tb/bench/bench_soak
// measures the process's RSS over 10^6 submissions.
#pragma once

#include <cstdint>
#include <ostream>
#include <systemc>

#include "platform/platform.h"
#include "tlm/core/stats.h"
#include "tlm/gen/gen_gpu.h"

namespace gpuvp::test {

struct ModelFootprint {
  std::size_t incidents = 0;     // the Gen engines' and the GuC's incident lists (hangs, faults)
  std::uint64_t dram_pages = 0;  // backing pages of the sparse DRAM: guest writes that march through memory
  std::size_t statistics = 0;    // registered statistics: one per label a block makes up at run time would grow
  std::size_t sc_objects = 0;    // SystemC objects, dynamic processes included
  bool operator==(const ModelFootprint& o) const {
    return incidents == o.incidents && dram_pages == o.dram_pages && statistics == o.statistics &&
           sc_objects == o.sc_objects;
  }
};

inline std::ostream& operator<<(std::ostream& out, const ModelFootprint& f) {
  return out << "{incidents " << f.incidents << ", DRAM pages " << f.dram_pages << ", statistics " << f.statistics
             << ", SystemC objects " << f.sc_objects << "}";
}

inline std::size_t count_objects(const std::vector<sc_core::sc_object*>& objects) {
  std::size_t n = objects.size();
  for (const sc_core::sc_object* o : objects) n += count_objects(o->get_child_objects());
  return n;
}

inline ModelFootprint footprint(platform::Platform& soc) {
  ModelFootprint f;
  f.incidents = soc.gen()->incidents().size();
  f.dram_pages = soc.dram().store().pages_allocated();
  f.statistics = core::stats().metrics_json().size();
  f.sc_objects = count_objects(sc_core::sc_get_top_level_objects());
  return f;
}

}  // namespace gpuvp::test
