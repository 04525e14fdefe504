#include "tlm/gen/eu/memory_hierarchy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpuvp::gen::eu {

namespace {

constexpr double kFixed = 256.0;  // calendar capacity in 1/256 bytes

// Spreads lines whose addresses differ by large powers of two (a strided walk) over sets and banks, as hashed
// hardware indexing does (the hash is the model's: Intel publishes none for Gen9's L3).
std::uint64_t fold(std::uint64_t line) { return line ^ (line >> 7) ^ (line >> 13) ^ (line >> 19); }

}  // namespace

SlotCalendar::SlotCalendar(double bytes_per_cycle, unsigned bucket_cycles)
    : bytes_per_cycle_(bytes_per_cycle),
      bucket_cycles_(std::max(1U, bucket_cycles)),
      capacity_(static_cast<std::uint64_t>(std::llround(bytes_per_cycle * bucket_cycles_ * kFixed))) {}

std::uint64_t SlotCalendar::reserve(std::uint64_t at, double bytes) {
  auto need = static_cast<std::uint64_t>(std::llround(bytes * kFixed));
  if (need == 0 || capacity_ == 0) return at;
  std::uint64_t bucket = std::max({at / bucket_cycles_, base_, first_free_});
  for (;;) {
    while (bucket - base_ >= used_.size()) used_.push_back(0);
    std::uint64_t& used = used_[bucket - base_];
    const std::uint64_t take = std::min(capacity_ - used, need);
    used += take;
    need -= take;
    if (need == 0) {
      // Ends when the bucket's capacity up to this transfer's last byte has passed, and no sooner than the transfer
      // alone would take from its arrival.
      const std::uint64_t in_bucket = (used * bucket_cycles_ + capacity_ - 1) / capacity_;
      const auto alone = static_cast<std::uint64_t>(std::ceil(bytes / bytes_per_cycle_));
      while (first_free_ - base_ < used_.size() && used_[first_free_ - base_] == capacity_) ++first_free_;
      return std::max(bucket * bucket_cycles_ + in_bucket, at + alone);
    }
    ++bucket;
  }
}

void SlotCalendar::retire(std::uint64_t before) {
  const std::uint64_t bucket = before / bucket_cycles_;
  while (base_ < bucket && !used_.empty()) {
    used_.pop_front();
    ++base_;
  }
  if (used_.empty()) base_ = std::max(base_, bucket);
  first_free_ = std::max(first_free_, base_);
}

void SlotCalendar::clear() {
  used_.clear();
  base_ = 0;
  first_free_ = 0;
}

MemoryHierarchy::MemoryHierarchy(const MemoryHierarchyParams& params)
    : params_(params),
      gti_read_(params.gti_bytes_per_cycle, params.bucket_cycles),
      gti_write_(params.gti_bytes_per_cycle, params.bucket_cycles) {
  if (params.subslices == 0 || params.dram_channels == 0 || params.l3_banks == 0) {
    throw std::invalid_argument("memory hierarchy: subslices, L3 banks and DRAM channels must not be 0");
  }
  for (unsigned i = 0; i < params.subslices; ++i) {
    port_read_.emplace_back(params.port_bytes_per_cycle, params.bucket_cycles);
    port_write_.emplace_back(params.port_bytes_per_cycle, params.bucket_cycles);
    slm_.emplace_back(params.slm_bytes_per_cycle, params.bucket_cycles);
  }
  for (unsigned i = 0; i < params.slices * params.l3_banks; ++i) {
    banks_.emplace_back(params.l3_bank_bytes_per_cycle, params.bucket_cycles);
  }
  const double per_channel = params.dram_bytes_per_cycle / params.dram_channels;
  for (unsigned i = 0; i < params.dram_channels; ++i) channels_.emplace_back(per_channel, params.bucket_cycles);
  dram_line_bytes_ = kLineBytes + params.dram_line_overhead_cycles * per_channel;
  dram_line_cycles_ = dram_line_bytes_ / per_channel;
  params_.l3_kib = ~0U;
  resize_l3(params.l3_kib);
}

L3Partition L3Partition::decode(std::uint32_t l3cntlreg) {
  L3Partition p;
  p.slm = (l3cntlreg & 1U) != 0 ? kSlmWays : 0;
  p.urb = (l3cntlreg >> 1) & 0x7FU;
  p.ro = (l3cntlreg >> 11) & 0x7FU;
  p.dc = (l3cntlreg >> 18) & 0x7FU;
  p.all = (l3cntlreg >> 25) & 0x7FU;
  return p;
}

void MemoryHierarchy::resize_l3(unsigned kib) {
  if (kib == params_.l3_kib) return;
  params_.l3_kib = kib;
  const std::uint64_t lines = std::uint64_t{params_.slices} * kib * 1024U / kLineBytes;
  const unsigned ways = std::max(1U, params_.l3_ways);
  auto sets = static_cast<unsigned>(lines / ways);
  if (lines > 0 && sets == 0) sets = 1;  // smaller than one set: one set of all the ways
  l3_ = core::CacheTags(sets, ways);
}

std::uint64_t MemoryHierarchy::line_of_dram(std::uint64_t line, bool write, std::uint64_t at) {
  (write ? stats_.dram_written_lines : stats_.dram_read_lines)++;
  const std::uint64_t gti = (write ? gti_write_ : gti_read_).reserve(at, kLineBytes);
  const std::uint64_t channel = channels_[fold(line) % channels_.size()].reserve(at, dram_line_bytes_);
  if (traffic_ != nullptr) {
    const auto start = static_cast<std::uint64_t>(std::max(0.0, static_cast<double>(channel) - dram_line_cycles_));
    traffic_->line(line * kLineBytes, write, std::max(at, start));
  }
  return std::max(gti, channel);
}

std::uint64_t MemoryHierarchy::access(unsigned subslice, const MemoryLog& log, const MemoryMessage& message,
                                      std::uint64_t at) {
  if (message.line_count == 0) return at;
  if (subslice >= port_read_.size())
    throw std::out_of_range("memory hierarchy: no subslice " + std::to_string(subslice));
  const MemoryLine* lines = log.lines.data() + message.first_line;
  unsigned reads = 0, writes = 0;
  for (unsigned i = 0; i < message.line_count; ++i) {
    if ((lines[i].flags & MemoryLine::kRead) != 0) ++reads;
    if ((lines[i].flags & MemoryLine::kWrite) != 0) ++writes;
  }
  // The message's lines cross its subslice's data port; each line's data is ready once both the port and its bank
  // (or the SLM) have moved it, then after the latency.
  std::uint64_t port = at;
  if (reads > 0) port = std::max(port, port_read_[subslice].reserve(at, double{kLineBytes} * reads));
  if (writes > 0) port = std::max(port, port_write_[subslice].reserve(at, double{kLineBytes} * writes));
  std::uint64_t done = port;
  // Atomic lanes are done one per atomic_cycles at the line's bank (or the SLM), spread over the message's lines.
  const double atomic_bytes = static_cast<double>(message.atomics) * params_.atomic_cycles / message.line_count;
  for (unsigned i = 0; i < message.line_count; ++i) {
    const MemoryLine& l = lines[i];
    const bool read = (l.flags & MemoryLine::kRead) != 0;
    const bool write = (l.flags & MemoryLine::kWrite) != 0;
    if ((l.flags & MemoryLine::kSlm) != 0) {
      ++stats_.slm_lines;
      const double cost = kLineBytes + atomic_bytes * slm_[subslice].bytes_per_cycle();
      done = std::max(done, std::max(port, slm_[subslice].reserve(at, cost)) + params_.slm_latency_cycles);
      continue;
    }
    const std::uint64_t line = l.address / kLineBytes;
    SlotCalendar& bank = banks_[fold(line) % banks_.size()];
    const std::uint64_t at_bank = bank.reserve(at, kLineBytes + atomic_bytes * bank.bytes_per_cycle());
    std::uint64_t end = std::max(port, at_bank) + params_.l3_latency_cycles;
    core::CacheTags::Victim victim;
    if (l3_.sets() == 0) {
      // No data partition: the line goes to memory and stays nowhere.
      ++stats_.l3_misses;
      if (write) end = std::max(end, line_of_dram(line, true, at_bank));
      if (read) {
        end = std::max(
            end, line_of_dram(line, false, at_bank) + params_.dram_read_latency_cycles + params_.l3_latency_cycles);
      }
    } else if (l3_.access(fold(line), line, write, victim)) {
      ++stats_.l3_hits;
    } else {
      ++stats_.l3_misses;
      // The line's way is free once its dirty victim is on its way to memory; a line only written needs no fill (the
      // L3 keeps byte masks).
      if (victim.dirty) {
        ++stats_.l3_writebacks;
        end = std::max(end, line_of_dram(victim.line, true, at_bank));
      }
      if (read) {
        end = std::max(
            end, line_of_dram(line, false, at_bank) + params_.dram_read_latency_cycles + params_.l3_latency_cycles);
      }
    }
    done = std::max(done, end);
  }
  return done;
}

void MemoryHierarchy::retire(std::uint64_t now) {
  for (auto* calendars : {&port_read_, &port_write_, &slm_, &banks_, &channels_}) {
    for (SlotCalendar& c : *calendars) c.retire(now);
  }
  gti_read_.retire(now);
  gti_write_.retire(now);
}

void MemoryHierarchy::restart() {
  for (auto* calendars : {&port_read_, &port_write_, &slm_, &banks_, &channels_}) {
    for (SlotCalendar& c : *calendars) c.clear();
  }
  gti_read_.clear();
  gti_write_.clear();
}

void MemoryHierarchy::invalidate() { l3_.invalidate(); }

}  // namespace gpuvp::gen::eu
