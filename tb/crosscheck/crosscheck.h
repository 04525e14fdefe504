// Cross-check of the RTL pointer blocks against their C++ models: the verilated rtl/ring_ptr.sv against
// gen::RingPointer and rtl/csb_ptr.sv against gen::CsbPointer, driven with the same stimulus cycle by cycle and every
// output compared after every cycle. Directed cases and constrained-random operations (a seeded generator, so a
// seed reproduces a run exactly). A mismatch stops the run and its report names the seed, the cycle, the inputs of
// that cycle and both sets of outputs.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "rtl/rtl_csb_pointer.h"
#include "rtl/rtl_ring_pointer.h"
#include "tlm/gen/csb_pointer.h"
#include "tlm/gen/ring_pointer.h"

namespace gpuvp::crosscheck {

class RingCrossCheck {
 public:
  explicit RingCrossCheck(std::uint64_t seed) : seed_(seed), rng_(seed) {}

  // VCD of the RTL block for every following cycle.
  bool trace_to(const std::string& path) { return rtl_.trace_to(path); }
  // One cycle on both models; false on a mismatch (failure() then says what differed).
  bool step(const rtl::RingInputs& in);
  // Directed cases: reset, a wrap at every ring size 4 KiB .. 2 MiB (every page count), full and empty, TAIL written
  // while consuming, HEAD written while consuming.
  bool run_directed();
  // Constrained-random cycles from the seed.
  bool run_random(std::uint64_t ops);

  std::uint64_t cycles() const { return cycles_; }
  std::uint64_t wraps() const { return wraps_; }
  // What the run covered (wraps, resets, cycles in which the ring was empty).
  std::string summary() const;
  const std::string& failure() const { return failure_; }
  // For tests of the checker itself (a reference that diverges must be reported).
  gen::RingPointer& reference() { return ref_; }
  rtl::RtlRingPointer& rtl() { return rtl_; }

 private:
  rtl::RingInputs random_inputs();
  std::uint32_t random_ctl();

  std::uint64_t seed_;
  std::mt19937_64 rng_;
  gen::RingPointer ref_;
  rtl::RtlRingPointer rtl_;
  std::uint64_t cycles_ = 0;
  std::uint64_t wraps_ = 0;
  std::uint64_t resets_ = 0;
  std::uint64_t empty_cycles_ = 0;
  std::string failure_;
};

class CsbCrossCheck {
 public:
  explicit CsbCrossCheck(std::uint64_t seed) : seed_(seed), rng_(seed) {}

  bool trace_to(const std::string& path) { return rtl_.trace_to(path); }
  bool step(const rtl::CsbInputs& in);
  // Reset value, the 0..5 sequence and its wrap, software writes of both fields through the mask, invalid write
  // pointers (6, 7), a software write in the same cycle as an advance.
  bool run_directed();
  bool run_random(std::uint64_t ops);

  std::uint64_t cycles() const { return cycles_; }
  const std::string& failure() const { return failure_; }
  std::string summary() const { return ", " + std::to_string(advances_) + " entries written"; }
  gen::CsbPointer& reference() { return ref_; }

 private:
  std::uint64_t seed_;
  std::mt19937_64 rng_;
  gen::CsbPointer ref_;
  rtl::RtlCsbPointer rtl_;
  std::uint64_t cycles_ = 0;
  std::uint64_t advances_ = 0;
  std::string failure_;
};

rtl::CsbOutputs outputs_of(const gen::CsbPointer& csb);

}  // namespace gpuvp::crosscheck
