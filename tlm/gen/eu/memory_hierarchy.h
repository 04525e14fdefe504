// MemoryHierarchy: when the EU array's data port messages complete, SystemC-free. A message's 64-byte lines (the data
// port's coalesced requests: eu::MemoryLog) go through its subslice's data port (64 B/clk read, 64 B/clk write), then
// the L3 (a set-associative, write-back, write-allocate cache of 64-byte lines with LRU replacement, in banks of
// 64 B/clk each) or the subslice's shared local memory (64 B/clk), and an L3 miss or a dirty victim through the GTI
// (64 B/clk each way) to the DRAM channels (lines interleaved across them, each with its share of the configured
// bandwidth and an overhead per access). Facts: Junkins, "The Compute Architecture of Intel Processor Graphics Gen9"
// (2015), sections 5.4-5.6.2 and figure 9; the latencies and what no source gives are stated in
// docs/gen-eu-timing.md.
//
// Each resource is a SlotCalendar: the array times its EUs one after another within a window, so requests reach a
// resource out of time order, and a calendar gives each the first capacity free at or after its arrival.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "tlm/core/cache_tags.h"
#include "tlm/gen/eu/memory_log.h"

namespace gpuvp::gen::eu {

// A resource that moves bytes_per_cycle bytes per cycle, its time cut into buckets of bucket_cycles.
class SlotCalendar {
 public:
  SlotCalendar(double bytes_per_cycle, unsigned bucket_cycles);
  // A transfer of `bytes` that may start at cycle `at`: takes the first free capacity from there on and returns the
  // cycle the transfer ends.
  std::uint64_t reserve(std::uint64_t at, double bytes);
  // Forgets the buckets before cycle `before` (requests never arrive that early again).
  void retire(std::uint64_t before);
  // Time starts again at 0 with nothing reserved.
  void clear();
  double bytes_per_cycle() const { return bytes_per_cycle_; }

 private:
  double bytes_per_cycle_;
  unsigned bucket_cycles_;
  std::uint64_t capacity_;  // per bucket, in 1/256 bytes
  std::deque<std::uint64_t> used_;
  std::uint64_t base_ = 0;        // the bucket used_[0] stands for
  std::uint64_t first_free_ = 0;  // every bucket before it is full
};

// The L3's partition, from L3CNTLREG (0x7034; fields as Mesa's genxml: bit 0 SLM enable, 7:1 URB, 17:11 RO, 24:18 DC,
// 31:25 all), in ways of the slice's L3. Gen9 has 96 ways per slice and shared local memory, when enabled, takes 32
// of them: every validated Gen9 configuration in Mesa's intel_l3_config.c (chv_l3_configs, used for SKL) adds up to
// 96, e.g. NEO's 0x80000340 (URB 32, all 64) and 0x60000321 (SLM 32, URB 16, all 48). A way is 2 KiB per bank (4
// with one bank: Mesa get_l3_way_size), 8 KiB on GT2's 4 banks: 768 KiB per slice.
struct L3Partition {
  static constexpr unsigned kWays = 96;
  static constexpr unsigned kSlmWays = 32;
  unsigned slm = 0, urb = 0, ro = 0, dc = 0, all = 0;

  static L3Partition decode(std::uint32_t l3cntlreg);
  unsigned ways() const { return slm + urb + ro + dc + all; }
  // The data port's lines are cached in the "all" partition, or in the data cache partition when there is none.
  unsigned data_ways() const { return all > 0 ? all : dc; }
  static unsigned way_kib(unsigned banks_per_slice) { return (banks_per_slice == 1 ? 4U : 2U) * banks_per_slice; }
};

struct MemoryHierarchyParams {
  unsigned slices = 1;
  unsigned subslices = 3;                  // in all
  unsigned port_bytes_per_cycle = 64;      // per subslice data port, each way (WP 5.4)
  unsigned l3_kib = 512;                   // per slice, for data (WP 5.5.1: 512 of 768 KiB); 0: lines uncached
  unsigned l3_ways = 16;                   // not published: the stated choice
  unsigned l3_banks = 4;                   // per slice (NEO hw_info_skl: 4 for 1x3x8)
  unsigned l3_bank_bytes_per_cycle = 64;   // WP 5.5.1: 64 B/clk per bank
  unsigned l3_latency_cycles = 100;        // a hit's round trip (Mesa's fitted data-cache send latency)
  unsigned slm_bytes_per_cycle = 64;       // per subslice (WP 5.5.2)
  unsigned slm_latency_cycles = 100;       // "similar to L3" (WP 5.5.2)
  unsigned atomic_cycles = 1;              // per atomic lane at an L3 bank or SLM (the stated choice)
  unsigned gti_bytes_per_cycle = 64;       // each way (WP 5.6.2)
  unsigned dram_channels = 1;              // lines interleave across them
  double dram_bytes_per_cycle = 32;        // all channels, in GPU cycles
  double dram_line_overhead_cycles = 0;    // per 64-byte access of a channel, in GPU cycles
  unsigned dram_read_latency_cycles = 60;  // GPU cycles beyond an L3 hit's
  unsigned bucket_cycles = 4;
};

struct MemoryHierarchyStats {
  std::uint64_t l3_hits = 0;  // lines
  std::uint64_t l3_misses = 0;
  std::uint64_t l3_writebacks = 0;  // dirty lines evicted to DRAM
  std::uint64_t slm_lines = 0;
  std::uint64_t dram_read_lines = 0;
  std::uint64_t dram_written_lines = 0;
};

// Who else sees the lines the hierarchy moves to and from DRAM: the platform, whose GTT, bus and memory book them
// (GpgpuPipe). Told each line once, with the cycle its DRAM channel starts moving it.
class DramTraffic {
 public:
  virtual ~DramTraffic() = default;
  virtual void line(std::uint64_t address, bool write, std::uint64_t cycle) = 0;
};

class MemoryHierarchy {
 public:
  explicit MemoryHierarchy(const MemoryHierarchyParams& params);

  static constexpr unsigned kLineBytes = 64;

  // A message of `subslice` issued at cycle `at`: returns the cycle its last line completes (a read's data is back, a
  // write is in the L3 or SLM). A message without lines completes at `at`.
  std::uint64_t access(unsigned subslice, const MemoryLog& log, const MemoryMessage& message, std::uint64_t at);
  // Requests never arrive before cycle `now` again: old calendar buckets go.
  void retire(std::uint64_t now);
  // A new walker: its time starts at 0 with every resource free; the cache keeps its lines (a kernel after another
  // finds the data its predecessor left in the L3, as on hardware).
  void restart();
  // A new address space or kernel's data: the cache starts empty (the walker's memory is coherent: its writes are in
  // memory already).
  void invalidate();
  // The L3's data partition per slice (L3CNTLREG at a walker's start): a new size starts empty; 0 leaves the data
  // port's lines uncached (each read and write goes to DRAM).
  void resize_l3(unsigned kib);
  unsigned l3_kib() const { return params_.l3_kib; }

  // The lines to and from DRAM go to `traffic` as well (nullptr: to no one).
  void attach_traffic(DramTraffic* traffic) { traffic_ = traffic; }

  const MemoryHierarchyStats& stats() const { return stats_; }

 private:
  std::uint64_t line_of_dram(std::uint64_t line, bool write, std::uint64_t at);

  MemoryHierarchyParams params_;
  core::CacheTags l3_;                                      // lines (address / 64); no sets: no data partition
  std::vector<SlotCalendar> port_read_, port_write_, slm_;  // per subslice
  std::vector<SlotCalendar> banks_;                         // all slices'
  SlotCalendar gti_read_, gti_write_;
  std::vector<SlotCalendar> channels_;
  double dram_line_bytes_;   // what one access costs a channel, in bytes of its bandwidth
  double dram_line_cycles_;  // the same in cycles
  DramTraffic* traffic_ = nullptr;
  MemoryHierarchyStats stats_;
};

}  // namespace gpuvp::gen::eu
