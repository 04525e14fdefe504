// The EU timing model, SystemC-free: the timing properties of each instruction class (tlm/gen/eu/timing_op), computed
// at decode from kernels that iga64 assembled (tests/eu/timing/*.asm). Expected values are the rules of
// docs/gen-eu-timing.md worked by hand: SIMD-4 FPU passes for 32-bit types, SIMD-8 for 16-bit, SIMD-2 on FPU0 for
// 64-bit; Mesa's latencies; the registers each region covers.
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/gen/eu/eu_array.h"
#include "tlm/gen/eu/eu_core.h"
#include "tlm/gen/eu/executor.h"
#include "tlm/gen/eu/program.h"
#include "tlm/gen/eu/timing_op.h"

namespace eu = gpuvp::gen::eu;
using eu::GrfRange;
using eu::TimingClass;
using eu::TimingPipe;

namespace {

std::vector<std::uint8_t> kernel_bytes(const std::string& name) {
  const std::string path = std::string(GPUVP_EU_KERNEL_DIR) + "/" + name + ".bin";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "kernel " << path << " (built by iga64 from tests/eu/timing/" << name << ".asm)";
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every instruction of a kernel through Program, as the executor fetches them.
std::vector<eu::TimingOp> timings(const std::string& name) {
  eu::BufferInstructionMemory memory(0x10000, kernel_bytes(name));
  eu::Program program(memory, 0x10000, eu::Generation::kGen9);
  std::vector<eu::TimingOp> out;
  const std::size_t size = kernel_bytes(name).size();
  for (std::uint32_t pc = 0; pc < size;) {
    const eu::ExecInstruction& x = program.at(pc);
    EXPECT_TRUE(x.ok()) << x.error;
    if (!x.ok()) break;
    out.push_back(x.timing);
    pc += x.length;
  }
  return out;
}

struct Expected {
  const char* text;  // the instruction, for failure messages
  TimingPipe pipe;
  TimingClass cls;
  unsigned occupancy, front_end, latency;
  std::vector<GrfRange> reads;  // in operand order; {0, 0} where a source reads no GRF
  GrfRange writes;
  std::uint8_t reads_arf = 0, writes_arf = 0;
  bool indirect = false;
  unsigned flops32 = 0;
};

void expect(const eu::TimingOp& t, const Expected& e) {
  SCOPED_TRACE(e.text);
  EXPECT_EQ(t.pipe, e.pipe);
  EXPECT_EQ(t.cls, e.cls);
  EXPECT_EQ(t.occupancy, e.occupancy);
  EXPECT_EQ(t.front_end, e.front_end);
  EXPECT_EQ(t.latency, e.latency);
  for (std::size_t i = 0; i < t.reads.size(); ++i) {
    const GrfRange want = i < e.reads.size() ? e.reads[i] : GrfRange{};
    EXPECT_EQ(t.reads[i].first, want.first) << "source " << i;
    EXPECT_EQ(t.reads[i].count, want.count) << "source " << i;
  }
  EXPECT_EQ(t.writes.first, e.writes.first);
  EXPECT_EQ(t.writes.count, e.writes.count);
  EXPECT_EQ(t.reads_arf, e.reads_arf);
  EXPECT_EQ(t.writes_arf, e.writes_arf);
  EXPECT_EQ(t.indirect, e.indirect);
  EXPECT_EQ(t.flops32, e.flops32);
}

constexpr TimingPipe kAny = TimingPipe::kFpuAny;
constexpr TimingPipe kFpu0 = TimingPipe::kFpu0;

}  // namespace

TEST(EuTiming, EachInstructionClassGetsItsUnitOccupancyLatencyAndRegisters) {
  const std::vector<eu::TimingOp> ops = timings("timing_ops");
  using eu::arf::kA0;
  using eu::arf::kAcc;
  using eu::arf::kF0;
  using eu::arf::kF1;
  const TimingClass fpu = TimingClass::kFpu;
  const TimingClass em = TimingClass::kExtendedMath;
  const std::vector<Expected> expected{
      // SIMD16 FP32: four SIMD-4 passes on either FPU; 8 cycles to the result (Mesa); 16 flops.
      {"add (16) f", kAny, fpu, 4, 4, 8, {{11, 2}, {13, 2}}, {10, 2}, 0, 0, false, 16},
      {"add (8) f imm", kAny, fpu, 2, 2, 8, {{11, 1}}, {10, 1}, 0, 0, false, 8},
      // mad: two flops per channel; the replicated scalar r8.4 is one register.
      {"mad (16) f", kAny, fpu, 4, 4, 8, {{21, 2}, {23, 2}, {8, 1}}, {20, 2}, 0, 0, false, 32},
      {"mov (1) imm", kAny, fpu, 1, 1, 8, {}, {30, 1}},
      // FP64 on FPU0 only, two lanes per pass, 12 cycles (Mesa's 64-bit row).
      {"add (8) df", kFpu0, TimingClass::kFpu0Only, 4, 4, 12, {{42, 2}, {44, 2}}, {40, 2}},
      // 16-bit types: SIMD-8 passes.
      {"add (16) hf", kAny, fpu, 2, 2, 8, {{51, 1}, {52, 1}}, {50, 1}},
      // 32 x 32-bit integer multiply at half rate (Mesa models it as 64-bit: 12 cycles); D x W is full rate.
      {"mul (16) d*d", kAny, fpu, 8, 8, 12, {{62, 2}, {64, 2}}, {60, 2}},
      {"mul (16) d*w", kAny, fpu, 4, 4, 8, {{62, 2}, {66, 1}}, {60, 2}},
      // Extended math on FPU0: 16 cycles (inv), 24 (fdiv, pow); integer division 26 busy, 2 front end, 28 latency,
      // and idiv's remainder lands in the register after the quotient.
      {"math.inv (16)", kFpu0, em, 8, 8, 16, {{72, 2}}, {70, 2}},
      {"math.fdiv (16)", kFpu0, em, 16, 16, 24, {{72, 2}, {74, 2}}, {70, 2}},
      {"math.idiv (8)", kFpu0, em, 26, 2, 28, {{77, 1}, {78, 1}}, {76, 2}},
      // Flags: cmp writes f0; a predicate reads its flag; sel's condition picks min/max and writes no flag.
      {"cmp (16) (lt)f0.0 null", kAny, fpu, 4, 4, 8, {{80, 2}}, {}, 0, kF0},
      {"(f1.0) sel (16)", kAny, fpu, 4, 4, 8, {{83, 2}, {85, 2}}, {82, 2}, kF1, 0},
      {"sel (16) (ge)f0.0", kAny, fpu, 4, 4, 8, {{83, 2}}, {82, 2}},
      // An indirect source depends on a0 and on every write in flight.
      {"mov (8) indirect", kAny, fpu, 2, 2, 8, {}, {90, 1}, kA0, 0, true},
      // The accumulator: written as a destination, read and written by mach; mach is a D x D multiply.
      {"mul (8) acc0 d*uw", kAny, fpu, 2, 2, 8, {{2, 1}, {6, 1}}, {}, 0, kAcc},
      {"mach (8)", kAny, fpu, 4, 4, 12, {{2, 1}, {6, 1}}, {24, 1}, kAcc, kAcc},
      // Regions: r21.4<4;4,1> over 8 channels ends in r22; a scalar reads one register.
      {"mov (8) r21.4<4;4,1>", kAny, fpu, 2, 2, 8, {{21, 2}}, {20, 1}},
      {"add (16) scalar", kAny, fpu, 4, 4, 8, {{31, 1}, {32, 2}}, {30, 2}, 0, 0, false, 16},
      {"add (16|M16)", kAny, fpu, 4, 4, 8, {{36, 2}, {38, 2}}, {34, 2}, 0, 0, false, 16},
      // Sends: the payload (mlen) and response (rlen) registers; split sends' second part from ex_desc 9:6;
      // a descriptor in a0.0 leaves the lengths to the message.
      {"send (16) read", TimingPipe::kSend, TimingClass::kSend, 1, 2, 0, {{102, 2}}, {100, 2}},
      {"sends (16) write", TimingPipe::kSend, TimingClass::kSend, 1, 2, 0, {{110, 2}, {112, 2}}, {}},
      {"send (8) a0.0", TimingPipe::kSend, TimingClass::kSend, 1, 2, 0, {}, {}, kA0},
      // Control flow: the front end is busy 8 cycles (Mesa); a predicated if reads its flag.
      {"(f0.0) if", TimingPipe::kControl, TimingClass::kControl, 1, 8, 0, {}, {}, kF0},
      {"endif", TimingPipe::kControl, TimingClass::kControl, 1, 8, 0, {}, {}},
      {"nop", TimingPipe::kNone, TimingClass::kOther, 0, 1, 0, {}, {}},
      {"send EOT", TimingPipe::kSend, TimingClass::kSend, 1, 2, 0, {{127, 1}}, {}},
  };
  ASSERT_EQ(ops.size(), expected.size());
  for (std::size_t i = 0; i < ops.size(); ++i) expect(ops[i], expected[i]);
  EXPECT_TRUE(ops[22].dynamic_descriptor);
  EXPECT_FALSE(ops[20].dynamic_descriptor);
  EXPECT_TRUE(ops.back().eot);
  EXPECT_FALSE(ops[20].eot);
  EXPECT_EQ(ops[4].flops64, 8u);   // add (8) df
  EXPECT_EQ(ops[5].flops16, 16u);  // add (16) hf
  EXPECT_EQ(ops[0].exec_size, 16u);
}

// The compacted encodings of the same instructions give the same timing.
TEST(EuTiming, CompactedInstructionsTimeLikeTheirNativeForms) {
  const std::vector<eu::TimingOp> native = timings("timing_ops");
  const std::vector<eu::TimingOp> compacted = timings("timing_ops_compacted");
  ASSERT_EQ(native.size(), compacted.size());
  for (std::size_t i = 0; i < native.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(native[i].pipe, compacted[i].pipe);
    EXPECT_EQ(native[i].occupancy, compacted[i].occupancy);
    EXPECT_EQ(native[i].latency, compacted[i].latency);
    EXPECT_EQ(native[i].reads, compacted[i].reads);
    EXPECT_EQ(native[i].writes, compacted[i].writes);
    EXPECT_EQ(native[i].reads_arf, compacted[i].reads_arf);
    EXPECT_EQ(native[i].writes_arf, compacted[i].writes_arf);
  }
}

// ---- one EU's issue model (eu::EuCore), on instruction streams built from the decoded instructions above ----

namespace {

// Threads of TimingOps, each ended by the end-of-thread send, all started at cycle 0 on one EU; the cycle the last
// one ended.
std::uint64_t run_threads(const std::vector<std::vector<eu::TimingOp>>& threads, eu::EuCoreStats* stats = nullptr) {
  static const std::vector<eu::TimingOp> ops = timings("timing_ops");
  eu::EuCoreParams params;
  params.eot_cycles = 0;
  eu::EuCore core(params);
  std::vector<unsigned> slots;
  for (const auto& t : threads) {
    const unsigned slot = core.start(0);
    for (const eu::TimingOp& op : t) core.append(slot, op);
    core.append(slot, ops.back());  // send EOT
    slots.push_back(slot);
  }
  EXPECT_FALSE(core.issue().has_value());
  std::uint64_t end = 0;
  for (unsigned s : slots) {
    EXPECT_TRUE(core.ended(s));
    end = std::max(end, core.ended_at(s));
  }
  if (stats) *stats = core.stats();
  return end;
}

// n copies of `op`; with `rotate`, each writes the next of eight register pairs from r10 and reads r100 up, so that
// none depends on another; without, each reads and writes r10-r11 (a dependent chain).
std::vector<eu::TimingOp> stream(eu::TimingOp op, unsigned n, bool rotate) {
  std::vector<eu::TimingOp> out(n, op);
  for (unsigned i = 0; i < n; ++i) {
    eu::TimingOp& o = out[i];
    const auto width = std::max<std::uint8_t>(o.writes.count, 1);
    o.reads = {};
    if (rotate) {
      o.writes = {static_cast<std::uint8_t>(10 + 2 * (i % 8)), width};
      o.reads[0] = {100, width};
    } else {
      o.writes = {10, width};
      o.reads[0] = {10, width};
    }
  }
  return out;
}

// Cycles N more instructions per thread take: T(2N) - T(N), so that start and end constants cancel.
std::uint64_t per_n(const eu::TimingOp& op, unsigned threads, unsigned n, bool rotate) {
  const auto run = [&](unsigned count) {
    return run_threads(std::vector<std::vector<eu::TimingOp>>(threads, stream(op, count, rotate)));
  };
  return run(2 * n) - run(n);
}

const eu::TimingOp& op(std::size_t i) {
  static const std::vector<eu::TimingOp> ops = timings("timing_ops");
  return ops.at(i);
}
const eu::TimingOp& add16() { return op(0); }
const eu::TimingOp& add8() { return op(1); }
const eu::TimingOp& mad16() { return op(2); }
const eu::TimingOp& add8_df() { return op(4); }
const eu::TimingOp& mul16_dd() { return op(6); }
const eu::TimingOp& inv16() { return op(8); }

}  // namespace

// T1: one thread waits for its own results: a dependent SIMD16 chain takes the 8-cycle latency per instruction; an
// independent stream is bound by the thread's front end, 4 cycles per SIMD16 instruction (four SIMD-4 passes), 2 per
// SIMD8.
TEST(EuCore, OneThreadIsLatencyBoundOnADependentChainAndPassBoundOtherwise) {
  constexpr unsigned kN = 50;
  EXPECT_EQ(per_n(add16(), 1, kN, false), 8u * kN);
  EXPECT_EQ(per_n(add16(), 1, kN, true), 4u * kN);
  EXPECT_EQ(per_n(add8(), 1, kN, true), 2u * kN);
}

// T2: k threads of dependent chains interleave on one EU until the two FPUs are full: N x max(8, 2k) cycles
// (k SIMD16 instructions need 4k FPU cycles over two FPUs per round).
TEST(EuCore, ThreadsInterleaveToHideLatencyUntilTheFpusAreFull) {
  constexpr unsigned kN = 50;
  for (unsigned k : {1U, 2U, 4U, 5U, 7U}) {
    SCOPED_TRACE(k);
    EXPECT_EQ(per_n(add16(), k, kN, false), kN * std::max(8U, 2 * k));
  }
  // T2b: independent streams: one thread is front-end bound (4N), two fill both FPUs (4N), three are FPU bound (6N).
  EXPECT_EQ(per_n(add16(), 1, kN, true), 4u * kN);
  EXPECT_EQ(per_n(add16(), 2, kN, true), 4u * kN);
  EXPECT_EQ(per_n(add16(), 3, kN, true), 6u * kN);
}

// Activity statistics: a dependent chain of 50 SIMD16 adds issues in 51 distinct cycles (every 8 cycles, then the end
// of thread) and its thread is resident until it ends; two such chains issue together, one to each FPU, in the same
// 50 cycles, and their ends take the send unit one after the other: 52 cycles, 2 x (their end) thread-cycles.
TEST(EuCore, CountsIssueActiveAndResidentThreadCycles) {
  eu::EuCoreStats one, two;
  const std::uint64_t end1 = run_threads({stream(add16(), 50, false)}, &one);
  EXPECT_EQ(one.issue_cycles, 51u);
  // Active: each add keeps an FPU busy 4 cycles, the end of thread the send unit 1.
  EXPECT_EQ(one.busy_cycles, 50u * 4 + 1);
  EXPECT_EQ(one.thread_cycles, end1);
  const std::uint64_t end2 = run_threads({stream(add16(), 50, false), stream(add16(), 50, false)}, &two);
  EXPECT_EQ(two.issue_cycles, 52u);
  EXPECT_EQ(two.busy_cycles, 50u * 4 + 2);  // the two chains' adds overlap on the two FPUs
  EXPECT_GE(two.thread_cycles, 2 * end2 - 8);
  EXPECT_LE(two.thread_cycles, 2 * end2);
}

// Stall reasons: a thread's time is its instructions' front ends plus its waits. A dependent chain of 50 SIMD16 adds
// waits 8 - 4 = 4 cycles of latency beyond each add's 4-cycle front end: 49 x 4 dependency cycles. Three threads of
// independent adds share two FPUs: they wait only for a unit.
TEST(EuCore, StallsAreAttributedToDependenciesAndUnits) {
  using R = eu::StallReason;
  const auto at = [](const eu::EuCoreStats& s, R r) { return s.thread_stalls[static_cast<unsigned>(r)]; };
  eu::EuCoreStats chain, three;
  run_threads({stream(add16(), 50, false)}, &chain);
  EXPECT_EQ(at(chain, R::kDependency), 49u * 4);
  EXPECT_EQ(at(chain, R::kMemory) + at(chain, R::kBarrier) + at(chain, R::kUnit), 0u);
  EXPECT_EQ(chain.thread_cycles, 50u * 4 + 49 * 4);
  run_threads(std::vector<std::vector<eu::TimingOp>>(3, stream(add16(), 50, true)), &three);
  EXPECT_EQ(at(three, R::kDependency) + at(three, R::kMemory) + at(three, R::kBarrier), 0u);
  EXPECT_GT(at(three, R::kUnit), 0u);
  // Thread-cycles are the 3 x 50 front ends of 4 cycles and the waits (the end of thread ends its thread as it issues).
  EXPECT_EQ(three.thread_cycles, 3u * 50 * 4 + at(three, R::kUnit));
}

// A read of a send's destination waits for the send's response (100 cycles without a memory hierarchy): a memory
// stall of 100 cycles less the send's front end.
TEST(EuCore, AReadOfASendsResultIsAMemoryStall) {
  const eu::TimingOp& load = op(20);  // send (16) r100, untyped surface read: writes r100-r101
  ASSERT_EQ(load.pipe, TimingPipe::kSend);
  ASSERT_EQ(load.writes.first, 100);
  eu::TimingOp use = add16();
  use.reads = {};
  use.reads[0] = {100, 2};
  use.writes = {10, 2};
  eu::EuCoreStats stats;
  run_threads({{load, use}}, &stats);
  EXPECT_EQ(stats.thread_stalls[static_cast<unsigned>(eu::StallReason::kMemory)], 100u - load.front_end);
  EXPECT_EQ(stats.thread_stalls[static_cast<unsigned>(eu::StallReason::kDependency)], 0u);
}

// T3a: seven threads of independent SIMD16 mads keep both FPUs busy: 14N cycles, 16 flops per cycle.
TEST(EuCore, AFullEuOfMadsIssuesSixteenFlopsPerCycle) {
  constexpr unsigned kN = 100;
  EXPECT_EQ(per_n(mad16(), 7, kN, true), 14u * kN);
  eu::EuCoreStats stats;
  const std::uint64_t cycles =
      run_threads(std::vector<std::vector<eu::TimingOp>>(7, stream(mad16(), kN, true)), &stats);
  EXPECT_EQ(stats.fpu_busy[0] + stats.fpu_busy[1], 28u * kN);
  EXPECT_EQ(stats.flops32, 7u * kN * 32);
  EXPECT_EQ(stats.instructions[static_cast<unsigned>(TimingClass::kFpu)], 7u * kN);
  EXPECT_EQ(stats.threads, 7u);
  // The FPUs are busy all but the start-up cycles.
  EXPECT_LE(cycles, 14u * kN + 8);
}

// T7: extended math runs on FPU0 only: an inv stream alone takes 8 cycles per SIMD16 instruction, and a thread of adds
// beside it goes to FPU1 for free; two inv streams share FPU0 (16N).
TEST(EuCore, ExtendedMathOccupiesFpu0AndAddsUseFpu1) {
  constexpr unsigned kN = 50;
  const auto mixed = [&](unsigned n) { return run_threads({stream(inv16(), n, true), stream(add16(), n, true)}); };
  EXPECT_EQ(mixed(2 * kN) - mixed(kN), 8u * kN);
  EXPECT_EQ(per_n(inv16(), 1, kN, true), 8u * kN);
  EXPECT_EQ(per_n(inv16(), 2, kN, true), 16u * kN);
}

// T8: 64-bit floats run on FPU0 only, two lanes per pass (a SIMD8 DF add is 4 cycles): two threads take 8N. A 32 x
// 32-bit integer multiply is half rate on either FPU (8 cycles for SIMD16): two threads take 8N, four 16N.
TEST(EuCore, DoublesUseFpu0AndIntegerMultipliesRunAtHalfRate) {
  constexpr unsigned kN = 50;
  EXPECT_EQ(per_n(add8_df(), 2, kN, true), 8u * kN);
  EXPECT_EQ(per_n(mul16_dd(), 2, kN, true), 8u * kN);
  EXPECT_EQ(per_n(mul16_dd(), 4, kN, true), 16u * kN);
}

// A thread's instructions arrive in runs (the functional executor runs ahead in chunks): the core stops at the first
// thread whose next instruction is unknown and goes on when it comes, with the same times as one long trace.
TEST(EuCore, InstructionsArrivingInRunsTimeAsOneTrace) {
  const std::vector<eu::TimingOp> chain = stream(add16(), 40, false);
  const std::uint64_t whole = run_threads({chain, stream(add16(), 40, true)});
  eu::EuCoreParams params;
  params.eot_cycles = 0;
  eu::EuCore core(params);
  const unsigned a = core.start(0), b = core.start(0);
  const std::vector<eu::TimingOp> other = stream(add16(), 40, true);
  std::size_t next_a = 0, next_b = 0;
  const auto feed = [&](unsigned slot, std::size_t& next, const std::vector<eu::TimingOp>& ops) {
    for (std::size_t k = 0; k < 7 && next <= ops.size(); ++k, ++next) {
      core.append(slot, next < ops.size() ? ops[next] : op(26));  // then the end-of-thread send
    }
  };
  feed(a, next_a, chain);
  feed(b, next_b, other);
  unsigned refills = 0;
  while (const auto dry = core.issue()) {
    ++refills;
    if (*dry == a) feed(a, next_a, chain);
    if (*dry == b) feed(b, next_b, other);
  }
  EXPECT_GT(refills, 8u);
  EXPECT_EQ(std::max(core.ended_at(a), core.ended_at(b)), whole);
}

// ---- the functional executor and the issue model together ----

namespace {

class EndOfThread : public eu::SharedFunctions {
 public:
  eu::MessageResult send(const eu::Message& m, eu::ThreadState&) override {
    return m.eot ? eu::MessageResult{} : eu::MessageResult{eu::MessageStatus::kError, "not an EOT"};
  }
};

struct TimedRun {
  std::uint64_t cycles = 0;
  std::uint64_t instructions = 0;
  float r10 = 0;  // lane 0 of the first chain
};

// `threads` threads run tests/eu/timing/mad_loop.asm for `iterations` on one EU: functionally in chunks of 64
// instructions, each chunk's instructions handed to the issue model when it asks for them.
TimedRun run_mad_loop(unsigned threads, unsigned iterations) {
  eu::BufferInstructionMemory memory(0x10000, kernel_bytes("mad_loop"));
  eu::Program program(memory, 0x10000, eu::Generation::kGen9);
  EndOfThread shared;
  eu::Executor executor(program, shared);
  eu::EuCore core(eu::EuCoreParams{});
  std::vector<eu::ThreadState> state(threads);
  std::vector<unsigned> slot_thread(eu::EuCoreParams{}.threads);
  for (unsigned t = 0; t < threads; ++t) {
    eu::ThreadState& s = state[t];
    for (unsigned lane = 0; lane < 16; ++lane) {
      s.grf_write<float>(60 * 32 + 4 * lane, 0.5F);
      s.grf_write<std::uint32_t>(102 * 32 + 4 * lane, iterations);
    }
    s.grf_write<float>(62 * 32, 0.25F);
    s.reset_control_flow(0, 0xFFFF);
    slot_thread[core.start(0)] = t;
  }
  TimedRun run;
  std::vector<const eu::TimingOp*> trace;
  while (const auto slot = core.issue()) {
    trace.clear();
    const eu::RunResult r = executor.run(state[slot_thread[*slot]], 64, &trace);
    EXPECT_TRUE(r.reason == eu::StopReason::kBudget || r.reason == eu::StopReason::kEndOfThread) << r.fault;
    run.instructions += r.instructions;
    for (const eu::TimingOp* x : trace) core.append(*slot, *x);
  }
  run.cycles = core.last_cycle();
  run.r10 = state[0].grf_read<float>(10 * 32);
  return run;
}

}  // namespace

// A real kernel, executed by the functional executor and timed by the issue model as it runs: one thread's loop
// iteration takes 32 cycles (see the kernel), and results are the functional executor's.
TEST(EuCore, AKernelRunsFunctionallyAndIsTimedAsItRuns) {
  const TimedRun a = run_mad_loop(1, 50), b = run_mad_loop(1, 100);
  EXPECT_EQ(b.cycles - a.cycles, 32u * 50);
  EXPECT_EQ(a.instructions, 50u * 5 + 1);
  EXPECT_EQ(a.r10, 0.125F * 50);
  // Seven threads: each iteration needs 4 x 4 FPU cycles (two mads, add, cmp) of the two FPUs' 2 x 32 per thread's
  // 32-cycle iteration, so seven threads are still latency bound at 32 cycles per iteration, plus the arbitration
  // of the branch unit and FPUs between them: at most 7 x 16 / 2 = 56 cycles.
  const TimedRun c = run_mad_loop(7, 50), d = run_mad_loop(7, 100);
  EXPECT_GE(d.cycles - c.cycles, 32u * 50);
  EXPECT_LE(d.cycles - c.cycles, 56u * 50);
}

// ---- the array: dispatch to subslices, barriers, scaling ----

namespace {

const eu::TimingOp& barrier_send() {
  static const std::vector<eu::TimingOp> ops = timings("barrier_ops");
  return ops.at(0);
}
const eu::TimingOp& barrier_wait() {
  static const std::vector<eu::TimingOp> ops = timings("barrier_ops");
  return ops.at(1);
}
const eu::TimingOp& eot() { return op(26); }

// A trace of pointers to `ops` (kept alive by the caller) and the end-of-thread send.
eu::EuArray::Trace trace_of(const std::vector<eu::TimingOp>& ops) {
  eu::EuArray::Trace t;
  for (const eu::TimingOp& o : ops) t.push_back(&o);
  t.push_back(&eot());
  return t;
}

eu::EuArrayParams one_eu() {
  eu::EuArrayParams p;
  p.subslices_per_slice = 1;
  p.eus_per_subslice = 1;
  p.dispatch_cycles = 0;
  p.core.eot_cycles = 0;
  return p;
}

}  // namespace

// T4: a group of two threads on one EU, each a dependent chain of N_t adds, then the barrier (message, wait), one add
// and the end. The waits are released barrier_cycles after the later arrival: the group ends 8 x max(N0, N1) + 90 +
// a constant; lengthening the longer chain by 50 adds 400 cycles, lengthening the shorter one adds none.
TEST(EuArray, ABarrierReleasesTheGroupAfterItsLastArrival) {
  // Returns the group's cycles and its barrier stall cycles.
  const auto group = [](unsigned n0, unsigned n1) {
    std::vector<std::vector<eu::TimingOp>> ops;
    for (unsigned n : {n0, n1}) {
      std::vector<eu::TimingOp> t = stream(add16(), n, false);
      t.push_back(barrier_send());
      t.push_back(barrier_wait());
      t.push_back(add16());
      ops.push_back(t);
    }
    eu::EuArray array(one_eu());
    array.add({{trace_of(ops[0]), trace_of(ops[1])}, {}});
    const std::uint64_t cycles = array.run();
    return std::pair{cycles, array.eu(0).stats().thread_stalls[static_cast<unsigned>(eu::StallReason::kBarrier)]};
  };
  const auto [base, barrier_stalls] = group(100, 60);
  EXPECT_EQ(group(150, 60).first - base, 400u);
  EXPECT_EQ(group(100, 90).first, base);
  // The release is the later arrival plus 90: the chain's 100 x 8 cycles (the last add issues at 792), its barrier
  // message when the front end allows (796), released at 886; the waits issue then, the adds 1 cycle later (the
  // wait's front end), the ends of thread 4 cycles after the adds, one per cycle on the send unit.
  EXPECT_EQ(base, 796u + 90 + 1 + 4 + 1);
  // Both waits stall until the release at 886: the longer chain from its message at 796, the shorter from its message
  // at 59 x 8 + 4 = 476, each plus the message's front end.
  const unsigned fe = barrier_send().front_end;
  EXPECT_EQ(barrier_stalls, (886u - 796 - fe) + (886u - 476 - fe));
}

// A walker gives the array each group's instructions in parts as its threads run out (EuArray::Refill), so that a
// long kernel's traces stay short: the same group given in parts of 7 instructions times exactly as given whole.
// Two threads of dependent chains meet at a barrier; the refill is asked only for the group it placed.
TEST(EuArray, AGroupGivenInPartsTimesAsAGroupGivenWhole) {
  std::vector<std::vector<eu::TimingOp>> ops;
  for (unsigned n : {40U, 25U}) {
    std::vector<eu::TimingOp> t = stream(add16(), n, false);
    t.push_back(barrier_send());
    t.push_back(barrier_wait());
    for (const eu::TimingOp& o : stream(mad16(), 30, true)) t.push_back(o);
    ops.push_back(t);
  }
  eu::EuArray whole(one_eu());
  whole.add({{trace_of(ops[0]), trace_of(ops[1])}, {}});
  const std::uint64_t expected = whole.run();

  const std::vector<eu::EuArray::Trace> full = {trace_of(ops[0]), trace_of(ops[1])};
  std::vector<std::size_t> given(2, 0);
  unsigned refills = 0;
  const auto part = [&](eu::EuArray::Group& g) {
    g.threads.resize(2);
    for (std::size_t t = 0; t < 2; ++t) {
      const std::size_t n = std::min<std::size_t>(7, full[t].size() - given[t]);
      g.threads[t].assign(full[t].begin() + static_cast<std::ptrdiff_t>(given[t]),
                          full[t].begin() + static_cast<std::ptrdiff_t>(given[t] + n));
      given[t] += n;
    }
  };
  bool pulled = false;
  eu::EuArray parts(one_eu());
  const std::uint64_t cycles = parts.run(
      [&](eu::EuArray::Group& g) {
        if (pulled) return false;
        pulled = true;
        part(g);
        return true;
      },
      [&](std::size_t group, eu::EuArray::Group& more) {
        EXPECT_EQ(group, 0u);
        ++refills;
        part(more);
        return true;
      });
  EXPECT_EQ(cycles, expected);
  EXPECT_FALSE(parts.aborted());
  EXPECT_GE(refills, (full[0].size() + 6) / 7 - 1);
  const eu::EuCoreStats &a = whole.eu(0).stats(), &b = parts.eu(0).stats();
  EXPECT_EQ(a.thread_stalls, b.thread_stalls);
  EXPECT_EQ(a.busy_cycles, b.busy_cycles);
  EXPECT_EQ(a.occupied_cycles, b.occupied_cycles);

  // As a walker gives them: a thread gets nothing past its barrier's wait until every thread of its group has been
  // given its barrier message (the functional wait completes then); a thread given nothing is held meanwhile, and
  // the timing is still the whole group's.
  const std::size_t wait_at[2] = {ops[0].size() - 30 - 1, ops[1].size() - 30 - 1};  // index of each thread's wait
  given.assign(2, 0);
  pulled = false;
  const auto gated = [&](eu::EuArray::Group& g) {
    g.threads.resize(2);
    const bool released = given[0] >= wait_at[0] && given[1] >= wait_at[1];
    for (std::size_t t = 0; t < 2; ++t) {
      const std::size_t limit = released ? full[t].size() : wait_at[t];
      const std::size_t n = std::min<std::size_t>(given[t] < limit ? limit - given[t] : 0, t == 0 ? 5 : 50);
      g.threads[t].assign(full[t].begin() + static_cast<std::ptrdiff_t>(given[t]),
                          full[t].begin() + static_cast<std::ptrdiff_t>(given[t] + n));
      given[t] += n;
    }
  };
  eu::EuArray held(one_eu());
  const std::uint64_t held_cycles = held.run(
      [&](eu::EuArray::Group& g) {
        if (pulled) return false;
        pulled = true;
        gated(g);
        return true;
      },
      [&](std::size_t, eu::EuArray::Group& more) {
        gated(more);
        return true;
      });
  EXPECT_EQ(held_cycles, expected);
  EXPECT_EQ(held.eu(0).stats().thread_stalls, a.thread_stalls);

  // A refill that fails (the walker's functional run faulted) stops the run.
  given.assign(2, 0);
  pulled = false;
  eu::EuArray stopped(one_eu());
  stopped.run(
      [&](eu::EuArray::Group& g) {
        if (pulled) return false;
        pulled = true;
        part(g);
        return true;
      },
      [&](std::size_t, eu::EuArray::Group&) { return false; });
  EXPECT_TRUE(stopped.aborted());
  EXPECT_EQ(stopped.eu(0).stats().threads, 0u);
}

// Instructions appended to a thread that has issued part of what it was given: the issued ones are dropped (a long
// thread's trace stays as short as what it has not issued), and the timing is that of the whole stream.
TEST(EuCore, AppendingDropsWhatAThreadHasIssued) {
  const std::vector<eu::TimingOp> chain = stream(add16(), 40, false);
  static const std::vector<eu::TimingOp> ops = timings("timing_ops");
  const auto run = [&](bool in_parts) {
    eu::EuCore core(eu::EuCoreParams{});
    const unsigned slot = core.start(0);
    std::vector<const eu::TimingOp*> first, second;
    for (std::size_t i = 0; i < chain.size(); ++i) (i < 30 || !in_parts ? first : second).push_back(&chain[i]);
    core.append(slot, std::move(first));
    if (in_parts) {
      EXPECT_FALSE(core.issue(8 * 10).has_value());  // ten adds issue before cycle 80
      EXPECT_EQ(core.backlog(slot), 20u);
      core.append(slot, std::move(second));
      EXPECT_EQ(core.backlog(slot), 30u);
    }
    core.append(slot, ops.back());  // the end of thread
    EXPECT_FALSE(core.issue().has_value());
    return core.ended_at(slot);
  };
  EXPECT_EQ(run(true), run(false));
}

// Ties go round robin from the thread after the one that issued last. Three threads of one SIMD16 add and the end of
// thread, all ready at cycle 0 (slot 0 counts as the last to issue): slots 1 and 2 take the two FPUs at 0 and slot 0
// the first FPU free, at 4. At 4 slot 0 (after slot 2) goes first, then slot 1's end of thread takes the send unit at
// 4 and slot 2's at 5; slot 0's at 8. A slot ends 2 cycles after its end of thread.
TEST(EuCore, TiesGoRoundRobinFromTheThreadAfterTheLastToIssue) {
  static const std::vector<eu::TimingOp> ops = timings("timing_ops");
  eu::EuCore core(eu::EuCoreParams{});
  for (unsigned t = 0; t < 3; ++t) {
    const unsigned slot = core.start(0);
    core.append(slot, add16());
    core.append(slot, ops.back());
  }
  EXPECT_FALSE(core.issue().has_value());
  EXPECT_EQ(core.ended_at(0), 10u);
  EXPECT_EQ(core.ended_at(1), 6u);
  EXPECT_EQ(core.ended_at(2), 7u);
}

// The core keeps its threads as bits of a word: more than 32 threads, or none, is refused by name.
TEST(EuCore, RefusesAThreadCountOutsideOneToThirtyTwo) {
  eu::EuCoreParams params;
  params.threads = 16;
  EXPECT_NO_THROW(eu::EuCore{params});
  for (unsigned threads : {0U, 33U}) {
    params.threads = threads;
    try {
      eu::EuCore core(params);
      ADD_FAILURE() << threads << " threads accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "EuCore: " + std::to_string(threads) + " threads per EU (1 to 32)");
    }
  }
}

// Intel's EU active / stall / idle: an EU is occupied while a thread is resident. One thread, then (after run()
// returns, from the array's next window) another: the EU is occupied for their two lifetimes and idle between.
TEST(EuArray, AnEuIsOccupiedWhileAThreadIsResidentAndIdleOtherwise) {
  const std::vector<eu::TimingOp> chain = stream(add16(), 20, false);
  eu::EuArray array(one_eu());
  array.add({{trace_of(chain)}, {}});
  const std::uint64_t first_end = array.run();
  const std::uint64_t second_start = array.now();
  ASSERT_GT(second_start, first_end);
  array.add({{trace_of(chain)}, {}});
  const std::uint64_t second_end = array.run();
  const eu::EuCoreStats& s = array.eu(0).stats();
  EXPECT_EQ(s.occupied_cycles, first_end + (second_end - second_start));
  EXPECT_EQ(s.occupied_cycles, s.thread_cycles);  // one thread at a time
  EXPECT_EQ(s.issue_cycles, 2u * 21);
}

// T9: twice the EUs halve an ALU-bound kernel: 1,680 threads (210 groups of 8) of 1,000 independent SIMD16 mads on
// GT2 (24 EUs: 70 threads per EU x 2,000 FPU cycles = 140,000 cycles) and GT3 (48 EUs: 70,000), within 2 %.
TEST(EuArray, TwiceTheEusHalveAnAluBoundKernel) {
  const std::vector<eu::TimingOp> mads = stream(mad16(), 1000, true);
  const auto kernel_cycles = [&](unsigned slices) {
    eu::EuArrayParams p;
    p.slices = slices;
    eu::EuArray array(p);
    for (unsigned g = 0; g < 210; ++g) array.add({std::vector<eu::EuArray::Trace>(8, trace_of(mads)), {}});
    return array.run();
  };
  const double gt2 = static_cast<double>(kernel_cycles(1));
  const double gt3 = static_cast<double>(kernel_cycles(2));
  EXPECT_NEAR(gt2, 140'000, 140'000 * 0.02);
  EXPECT_NEAR(gt3, 70'000, 70'000 * 0.02);
  EXPECT_NEAR(gt2 / gt3, 2.0, 0.04);
}

// A group never splits across subslices, and a subslice takes as many groups as its slots hold: 3 groups of 56
// threads (a full subslice each) on GT2 run side by side; a fourth waits for one to end.
TEST(EuArray, GroupsFillWholeSubslicesAndWaitForRoom) {
  const std::vector<eu::TimingOp> mads = stream(mad16(), 100, true);
  const auto cycles = [&](unsigned groups) {
    eu::EuArray array(eu::EuArrayParams{});
    for (unsigned g = 0; g < groups; ++g) array.add({std::vector<eu::EuArray::Trace>(56, trace_of(mads)), {}});
    return array.run();
  };
  const std::uint64_t three = cycles(3), four = cycles(4);
  // 7 threads per EU of 100 mads: 1,400 cycles FPU bound. Each subslice launches a thread every 2 cycles, round robin
  // over its EUs, so the last EU's first thread starts at cycle 14: 1,414, plus a tail where its last threads run
  // alone (a thread alone issues a SIMD16 mad every 4 cycles, half what two FPUs take).
  EXPECT_NEAR(static_cast<double>(three), 1414, 28);
  EXPECT_GE(four, 2 * 1400u);
  EXPECT_THROW(eu::EuArray(eu::EuArrayParams{}).add({std::vector<eu::EuArray::Trace>(57, trace_of(mads)), {}}),
               std::invalid_argument);
}
