// CacheTags: the tags of a set-associative cache with least-recently-used replacement, and no data. The models that
// use it keep memory coherent themselves (they read and write memory directly) and ask the tags only whether an
// access hits, for its time: the L3 of the Gen9 EU array, the V3D's TMU caches. Header-only and SystemC-free, so that
// the SystemC-free execution-unit libraries use it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuvp::core {

class CacheTags {
 public:
  // The line a miss replaced: valid when the set had no free way left, dirty when it was written since its fill.
  struct Victim {
    bool valid = false;
    bool dirty = false;
    std::uint64_t line = 0;
  };

  // `sets` x `ways` lines (0 sets: a cache that holds nothing, where every access misses).
  CacheTags(unsigned sets = 0, unsigned ways = 1)
      : sets_(sets), ways_(std::max(1U, ways)), lines_(static_cast<std::size_t>(sets) * std::max(1U, ways)) {}

  unsigned sets() const { return sets_; }
  unsigned ways() const { return ways_; }
  // Looks `line` (an address / line size) up in set `set` (the caller's index function; taken modulo sets()): a hit
  // makes it the most recently used (and dirty if `write`); a miss allocates it in place of the set's least recently
  // used way, which `victim` describes.
  bool access(std::uint64_t set, std::uint64_t line, bool write, Victim& victim) {
    victim = Victim{};
    if (sets_ == 0) return false;
    Way* ways = &lines_[static_cast<std::size_t>(set % sets_) * ways_];
    ++stamp_;
    Way* lru = ways;
    for (unsigned w = 0; w < ways_; ++w) {
      if (ways[w].line == line) {
        ways[w].used = stamp_;
        ways[w].dirty = ways[w].dirty || write;
        return true;
      }
      if (ways[w].used < lru->used) lru = &ways[w];
    }
    victim = Victim{lru->line != ~0ULL, lru->line != ~0ULL && lru->dirty, lru->line};
    *lru = Way{line, stamp_, write};
    return false;
  }
  bool access(std::uint64_t line, bool write = false) {
    Victim unused;
    return access(line, line, write, unused);
  }
  // Every line goes (a cache clear; the tags' memory is coherent, so nothing is written back).
  void invalidate() { std::fill(lines_.begin(), lines_.end(), Way{}); }

 private:
  struct Way {
    std::uint64_t line = ~0ULL;  // ~0: invalid
    std::uint64_t used = 0;      // LRU stamp
    bool dirty = false;
  };
  unsigned sets_;
  unsigned ways_;
  std::vector<Way> lines_;  // sets_ x ways_
  std::uint64_t stamp_ = 0;
};

}  // namespace gpuvp::core
