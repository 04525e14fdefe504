// bench_bus: host cost of one bus transaction from a core::Initiator through a core::Bus to a core::Memory (and to
// a core::RegisterBlock), in eight modes side by side:
//   b_transport with a 1 us quantum | b_transport with quantum 0 (sync after every access) | b_transport, 100 us
//   DMI with a 1 us quantum         | DMI with quantum 0                                   | DMI, 100 us
//   timed DMI with a 1 us quantum   |                                                      | timed DMI, 100 us
// (timed DMI: the pointer plus the bus's and the memory's timing stages, so the simulated time, contention and
// statistics are b_transport's; the summary checks that the simulated time per access is the same)
// plus b_transport through a bare router and target that model nothing (bus_bare: the floor under the other rows),
// for 4-byte and 64-byte accesses (alternating write then read-back of the same address, walking a 4 KiB window
// inside one DMI page). Counters: transactions per host second, host ns per transaction, simulated ns per host second,
// and the fraction of accesses served by DMI. Host time is process CPU time (the rates follow the CPU column), so a
// loaded machine skews the numbers less; wall_ns/tx gives the wall-clock view. After the run a summary prints the
// ratios between the modes and the targets (DMI <= 2 ns, b_transport with quantum <= 10 ns per access), which are
// reported, not asserted.
//
// SystemC elaborates once per process and its thread processes only run inside sc_start(): the platform is built once
// in sc_main, a worker SC_THREAD waits for a job, performs it and calls sc_pause(), so every benchmark batch is one
// sc_start() round trip. The round trip itself is measured by the harness/sc_start_round_trip benchmark.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <systemc>
#include <tlm>

#include <benchmark/benchmark.h>

#include "tb/bench/bench_support.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/register_block.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/core/timing.h"

using namespace gpuvp;

namespace {

constexpr std::uint64_t kDramBase = 0x0;
constexpr std::uint64_t kDramWindow = 0x10000;  // accesses walk [kDramWindow, kDramWindow + kWindowBytes)
constexpr std::uint64_t kWindowBytes = 4096;
constexpr std::uint64_t kRegsBase = 0xE100'0000;
constexpr std::uint64_t kRegsSize = 0x1000;
constexpr core::Picoseconds kQuantumPs = core::kPsPerUs;

// One request to the worker: count transactions of len bytes, alternately a write and a read-back of the same address,
// walking [base, base + window) (window a power of two).
struct Job {
  std::uint64_t base = 0;
  std::uint64_t window = kWindowBytes;
  unsigned len = 4;
  std::uint64_t count = 0;
  bool verify = false;  // compare every read with the write before it
  bool sync = false;    // bring the kernel up to the initiator's local time at the end
};

class Worker : public sc_core::sc_module {
 public:
  Worker(sc_core::sc_module_name name, core::Initiator& cpu) : sc_module(name), cpu_(cpu) {
    SC_HAS_PROCESS(Worker);
    SC_THREAD(run);
  }

  // Runs one job to completion (called from the benchmark loop, outside the kernel).
  void submit(const Job& job) {
    job_ = job;
    start_.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
  }
  std::uint64_t errors() const { return errors_; }
  std::uint64_t mismatches() const { return mismatches_; }

 private:
  void run() {
    // Each write takes the next of kBuffers prepared buffers, so consecutive writes store different data without the
    // loop writing the data it is about to copy: a byte stored and then loaded as part of a wider word misses the CPU's
    // store-to-load forwarding, a stall that would be charged to the access.
    constexpr std::uint64_t kBuffers = 16;
    alignas(64) unsigned char wbuf[kBuffers][64];
    for (std::uint64_t b = 0; b < kBuffers; ++b) {
      for (unsigned k = 0; k < 64; ++k) wbuf[b][k] = static_cast<unsigned char>(b * 64 + k);
    }
    alignas(64) unsigned char rbuf[64];
    for (;;) {
      sc_core::wait(start_);
      const Job j = job_;
      const std::uint64_t mask = j.window - 1;
      for (std::uint64_t i = 0; i < j.count; ++i) {
        const std::uint64_t addr = j.base + (((i >> 1) * j.len) & mask);
        const unsigned char* data = wbuf[(i >> 1) % kBuffers];
        tlm::tlm_response_status s;
        if ((i & 1) == 0) {
          s = cpu_.write(addr, data, j.len);
        } else {
          s = cpu_.read(addr, rbuf, j.len);
          if (j.verify && std::memcmp(data, rbuf, j.len) != 0) ++mismatches_;
        }
        if (s != tlm::TLM_OK_RESPONSE) ++errors_;
      }
      if (j.sync) cpu_.sync();
      sc_core::sc_pause();  // sc_start() returns at the end of this delta cycle
    }
  }

  core::Initiator& cpu_;
  sc_core::sc_event start_;
  Job job_;
  std::uint64_t errors_ = 0;
  std::uint64_t mismatches_ = 0;
};

// The floor under every b_transport row: the same initiator and payload through a router and a target that model
// nothing (one window, no contention, no statistics, no checks beyond the window; the target copies into a flat array
// and adds a constant delay). Its cost is what TLM-2.0 blocking transport itself costs here: the payload, two calls
// through the interfaces' virtual bases, the delay passed by reference from block to block.
class BareTarget : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<> socket{"socket"};
  explicit BareTarget(sc_core::sc_module_name name) : sc_module(name) { socket.bind(*this); }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override {
    const std::uint64_t addr = trans.get_address() & (kWindowBytes - 1);
    const unsigned len = trans.get_data_length();
    if (len > kWindowBytes - addr) {
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (trans.is_write()) {
      std::memcpy(bytes_ + addr, trans.get_data_ptr(), len);
    } else {
      std::memcpy(trans.get_data_ptr(), bytes_ + addr, len);
    }
    delay = core::to_sc_time(core::to_ps(delay) + kLatencyPs);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }

  static constexpr core::Picoseconds kLatencyPs = 50 * core::kPsPerNs;  // as an integer: no sc_time built per access
  unsigned char bytes_[kWindowBytes] = {};
};

// Answers the router's backward calls (none are made; the socket must be bound).
struct NoBackwardCalls : tlm::tlm_bw_transport_if<> {
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

class BareRouter : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 0> upstream{"upstream"};
  tlm::tlm_initiator_socket<> downstream{"downstream"};
  BareRouter(sc_core::sc_module_name name, std::uint64_t base, std::uint64_t size)
      : sc_module(name), base_(base), size_(size) {
    upstream.bind(*this);
    downstream.bind(backward_);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override {
    const std::uint64_t global = trans.get_address();
    if (global - base_ >= size_) {
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    trans.set_address(global - base_);
    downstream->b_transport(trans, delay);
    trans.set_address(global);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }

  std::uint64_t base_, size_;
  NoBackwardCalls backward_;
};

// The platform under test, built once before the first sc_start().
struct Platform {
  core::Bus bus{"bus"};
  core::Initiator cpu{"cpu"};
  core::Memory dram{"dram", core::MemoryParams{}};  // defaults: 60/40 cycle read/write latency at 1 GHz, 64 KiB pages
  core::RegisterBlock regs{"regs", kRegsSize, core::ClockDomain("regs.clock", 1'000'000'000), 2};
  Worker worker{"worker", cpu};
  core::Initiator bare_cpu{"bare_cpu"};
  BareRouter bare_router{"bare_router", kDramBase, kDramWindow + kWindowBytes};
  BareTarget bare_target{"bare_target"};
  Worker bare_worker{"bare_worker", bare_cpu};

  Platform() {
    bare_cpu.socket.bind(bare_router.upstream);
    bare_router.downstream.bind(bare_target.socket);
    // platform/configs/default.yaml: 2-cycle hop, 32-byte DRAM port, 1 us quantum.
    bus.attach_initiator(cpu.socket, "cpu");
    bus.attach_target(dram.socket, "dram", kDramBase, dram.params().size, {2, 32});
    bus.attach_target(regs.socket, "regs", kRegsBase, kRegsSize, {2, 16});
    regs.regs().add({"SCRATCH", 0x0, 32, 0, core::Access::kReadWrite, "scratch register", {}, ~0ULL});
  }
};

Platform* g_platform = nullptr;

// The 100 us modes show the access path alone: at 1 us every ~16 accesses (60-cycle DRAM latency) end the quantum and
// the kernel round trip of the sync (~100 ns) is shared by those few accesses.
enum class Mode {
  kBtQuantum,
  kBtNoQuantum,
  kDmiQuantum,
  kDmiNoQuantum,
  kBtLongQuantum,
  kDmiLongQuantum,
  kTimedDmiQuantum,
  kTimedDmiLongQuantum
};
const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kBtQuantum:
      return "b_transport_q1us";
    case Mode::kBtNoQuantum:
      return "b_transport_q0";
    case Mode::kDmiQuantum:
      return "dmi_q1us";
    case Mode::kDmiNoQuantum:
      return "dmi_q0";
    case Mode::kBtLongQuantum:
      return "b_transport_q100us";
    case Mode::kDmiLongQuantum:
      return "dmi_q100us";
    case Mode::kTimedDmiQuantum:
      return "timed_dmi_q1us";
    case Mode::kTimedDmiLongQuantum:
      return "timed_dmi_q100us";
  }
  return "?";
}
core::AccessMode access_mode(Mode m) {
  switch (m) {
    case Mode::kDmiQuantum:
    case Mode::kDmiNoQuantum:
    case Mode::kDmiLongQuantum:
      return core::AccessMode::kDmi;
    case Mode::kTimedDmiQuantum:
    case Mode::kTimedDmiLongQuantum:
      return core::AccessMode::kTimedDmi;
    default:
      return core::AccessMode::kTransport;
  }
}
bool mode_dmi(Mode m) { return access_mode(m) != core::AccessMode::kTransport; }
core::Picoseconds mode_quantum_ps(Mode m) {
  switch (m) {
    case Mode::kBtQuantum:
    case Mode::kDmiQuantum:
    case Mode::kTimedDmiQuantum:
      return kQuantumPs;
    case Mode::kBtLongQuantum:
    case Mode::kDmiLongQuantum:
    case Mode::kTimedDmiLongQuantum:
      return 100 * kQuantumPs;
    default:
      return 0;
  }
}
// Transactions per sc_start() round trip: large enough that the round trip is a small share of the batch.
std::uint64_t batch_for(Mode m) {
  switch (m) {
    case Mode::kDmiQuantum:
    case Mode::kDmiLongQuantum:
    case Mode::kTimedDmiQuantum:
    case Mode::kTimedDmiLongQuantum:
      return 1 << 16;
    case Mode::kBtQuantum:
    case Mode::kBtLongQuantum:
      return 1 << 14;
    default:
      return 1 << 12;
  }
}

struct Result {
  double ns_per_tx = 0;
  double sim_ns_per_tx = 0;
  double tx_per_s = 0;
  double sim_ns_per_host_s = 0;
};
std::map<std::string, Result> g_results;  // by benchmark name; the last (measured) run of each wins

std::uint64_t counter(const std::string& path) { return core::stats().counter_value(path); }

double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void configure(core::Initiator& cpu, Mode mode) {
  core::set_global_quantum(mode_quantum_ps(mode));
  cpu.local_time().refresh_quantum();
  cpu.set_mode(access_mode(mode));
}

// bare: through the bare router and target instead of the bus and the memory.
void run_bus(benchmark::State& state, const std::string& name, Mode mode, std::uint64_t base, std::uint64_t window,
             unsigned len, bool expect_dmi, bool bare = false) {
  Platform& p = *g_platform;
  core::Initiator& cpu = bare ? p.bare_cpu : p.cpu;
  Worker& worker = bare ? p.bare_worker : p.worker;
  const std::string prefix = std::string(cpu.name()) + ".";
  configure(cpu, mode);
  Job job;
  job.base = base;
  job.window = window;
  job.len = len;
  // Warm-up (untimed): obtains the DMI region, checks the data path, then synchronises so the run starts at offset 0.
  job.count = 256;
  job.verify = true;
  job.sync = true;
  worker.submit(job);
  if (worker.errors() != 0 || worker.mismatches() != 0) {
    state.SkipWithError("warm-up: error responses or read-back mismatches");
    return;
  }
  job.verify = false;
  job.sync = false;
  job.count = batch_for(mode);

  const std::uint64_t dmi0 = counter(prefix + "dmi_accesses");
  const std::uint64_t bt0 = counter(prefix + "transactions");
  const core::Picoseconds sim0 = cpu.local_time().now();
  const double cpu0 = cpu_ns();
  const auto host0 = std::chrono::steady_clock::now();
  while (state.KeepRunningBatch(static_cast<benchmark::IterationCount>(job.count))) worker.submit(job);
  const auto host1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_ns();
  const core::Picoseconds sim1 = cpu.local_time().now();
  const std::uint64_t dmi = counter(prefix + "dmi_accesses") - dmi0;
  const std::uint64_t bt = counter(prefix + "transactions") - bt0;

  const double tx = static_cast<double>(state.iterations());
  const double wall_ns = std::chrono::duration<double, std::nano>(host1 - host0).count();
  const double host_ns = cpu1 - cpu0;
  const double sim_ns = static_cast<double>(sim1 - sim0) / 1000.0;
  if (worker.errors() != 0) {
    state.SkipWithError("error responses during the run");
    return;
  }
  const auto n = static_cast<std::uint64_t>(state.iterations());
  if (expect_dmi ? dmi != n : (dmi != 0 || bt != n)) {
    state.SkipWithError(expect_dmi ? "not every access took the DMI path" : "an access bypassed b_transport");
    return;
  }
  state.counters["tx/s"] = benchmark::Counter(tx, benchmark::Counter::kIsRate);
  state.counters["ns/tx"] = benchmark::Counter(host_ns / tx);
  state.counters["sim_ns/host_s"] = benchmark::Counter(sim_ns, benchmark::Counter::kIsRate);
  state.counters["wall_ns/tx"] = benchmark::Counter(wall_ns / tx);
  state.counters["dmi_frac"] = benchmark::Counter(static_cast<double>(dmi) / tx);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * len);
  g_results[name] = {host_ns / tx, sim_ns / tx, tx / (host_ns * 1e-9), sim_ns / (host_ns * 1e-9)};
}

// Cost of one sc_start()/sc_pause() round trip with an empty job: the per-batch overhead included in the other rows.
void run_round_trip(benchmark::State& state) {
  Job job;
  job.count = 0;
  for (auto _ : state) g_platform->worker.submit(job);
}

void register_benchmarks() {
  const Mode modes[] = {Mode::kBtQuantum,       Mode::kBtNoQuantum,        Mode::kDmiQuantum,
                        Mode::kDmiNoQuantum,    Mode::kBtLongQuantum,      Mode::kDmiLongQuantum,
                        Mode::kTimedDmiQuantum, Mode::kTimedDmiLongQuantum};
  for (unsigned len : {4u, 64u}) {
    for (Mode m : modes) {
      const std::string name = std::string("bus_mem/") + mode_name(m) + "/" + std::to_string(len) + "B";
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
        run_bus(s, name, m, kDramBase + kDramWindow, kWindowBytes, len, mode_dmi(m));
      })->Unit(benchmark::kNanosecond);
    }
  }
  // The floor: b_transport through a router and a target that model nothing.
  for (Mode m : {Mode::kBtQuantum, Mode::kBtLongQuantum}) {
    const std::string name = std::string("bus_bare/") + mode_name(m) + "/4B";
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
      run_bus(s, name, m, kDramBase + kDramWindow, kWindowBytes, 4, false, true);
    })->Unit(benchmark::kNanosecond);
  }
  // One 32-bit register behind the bus: always b_transport (register blocks grant no DMI).
  for (Mode m : {Mode::kBtQuantum, Mode::kBtNoQuantum}) {
    const std::string name = std::string("bus_reg/") + mode_name(m) + "/4B";
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
      run_bus(s, name, m, kRegsBase, 4, 4, false);  // a 4-byte window: every access hits the register
    })->Unit(benchmark::kNanosecond);
  }
  benchmark::RegisterBenchmark("harness/sc_start_round_trip", run_round_trip)->Unit(benchmark::kNanosecond);
}

void print_summary(std::FILE* out) {
  auto ns = [](const std::string& name) -> double {
    auto it = g_results.find(name);
    return it == g_results.end() ? 0.0 : it->second.ns_per_tx;
  };
  auto ratio = [&](const char* label, const std::string& slow, const std::string& fast) {
    const double a = ns(slow), b = ns(fast);
    if (a > 0 && b > 0) std::fprintf(out, "  %-44s %8.2fx  (%.2f ns vs %.2f ns)\n", label, a / b, b, a);
  };
  std::fprintf(out, "\nRatios (speed-up of the first mode over the second, host CPU time per transaction):\n");
  for (const char* len : {"4B", "64B"}) {
    const std::string bq = std::string("bus_mem/b_transport_q1us/") + len;
    const std::string b0 = std::string("bus_mem/b_transport_q0/") + len;
    const std::string dq = std::string("bus_mem/dmi_q1us/") + len;
    const std::string d0 = std::string("bus_mem/dmi_q0/") + len;
    std::fprintf(out, " %s accesses:\n", len);
    ratio("DMI vs b_transport, quantum 1 us", bq, dq);
    ratio("DMI vs b_transport, quantum 0", b0, d0);
    ratio("quantum 1 us vs 0, b_transport", b0, bq);
    ratio("quantum 1 us vs 0, DMI", d0, dq);
    ratio("DMI quantum 1 us vs b_transport quantum 0", b0, dq);
    ratio("quantum 100 us vs 1 us, b_transport", bq, std::string("bus_mem/b_transport_q100us/") + len);
    ratio("quantum 100 us vs 1 us, DMI", dq, std::string("bus_mem/dmi_q100us/") + len);
    ratio("timed DMI vs b_transport, quantum 1 us", bq, std::string("bus_mem/timed_dmi_q1us/") + len);
    ratio("timed DMI vs b_transport, quantum 100 us", std::string("bus_mem/b_transport_q100us/") + len,
          std::string("bus_mem/timed_dmi_q100us/") + len);
  }
  std::fprintf(out, " register block (4B):\n");
  ratio("quantum 1 us vs 0, register b_transport", "bus_reg/b_transport_q0/4B", "bus_reg/b_transport_q1us/4B");
  ratio("memory vs register b_transport, quantum 1 us", "bus_reg/b_transport_q1us/4B", "bus_mem/b_transport_q1us/4B");

  std::fprintf(out, "\nSimulated ns per access, b_transport vs timed DMI (must be the same):\n");
  for (const char* q : {"q1us", "q100us"}) {
    for (const char* len : {"4B", "64B"}) {
      auto a = g_results.find(std::string("bus_mem/b_transport_") + q + "/" + len);
      auto b = g_results.find(std::string("bus_mem/timed_dmi_") + q + "/" + len);
      if (a == g_results.end() || b == g_results.end()) continue;
      std::fprintf(out, "  %-6s %-4s %10.4f vs %10.4f  %s\n", q, len, a->second.sim_ns_per_tx, b->second.sim_ns_per_tx,
                   a->second.sim_ns_per_tx == b->second.sim_ns_per_tx ? "same" : "DIFFERENT");
    }
  }
  std::fprintf(out, "\nTargets (reported, not asserted):\n");
  auto target = [&](const std::string& name, double limit) {
    const double v = ns(name);
    if (v > 0)
      std::fprintf(out, "  %-32s %8.2f ns  target <= %4.1f ns  %s\n", name.c_str(), v, limit,
                   v <= limit ? "met" : "MISSED");
  };
  for (const char* len : {"4B", "64B"}) {
    target(std::string("bus_mem/dmi_q1us/") + len, 2.0);
    target(std::string("bus_mem/b_transport_q1us/") + len, 10.0);
  }
  std::fprintf(out, " the same accesses with the sync share removed (quantum 100 us):\n");
  for (const char* len : {"4B", "64B"}) {
    target(std::string("bus_mem/dmi_q100us/") + len, 2.0);
    target(std::string("bus_mem/b_transport_q100us/") + len, 10.0);
  }
  std::fprintf(out, " b_transport through a router and a target that model nothing (the floor under the above):\n");
  target("bus_bare/b_transport_q1us/4B", 10.0);
  target("bus_bare/b_transport_q100us/4B", 10.0);
  std::fprintf(out, " b_transport's timing and statistics through timed DMI:\n");
  for (const char* len : {"4B", "64B"}) {
    target(std::string("bus_mem/timed_dmi_q1us/") + len, 10.0);
    target(std::string("bus_mem/timed_dmi_q100us/") + len, 10.0);
  }
  std::fprintf(out, "\nInitiator counters: cpu.dmi_accesses=%llu cpu.transactions=%llu dram.dmi_grants=%llu\n",
               static_cast<unsigned long long>(counter("cpu.dmi_accesses")),
               static_cast<unsigned long long>(counter("cpu.transactions")),
               static_cast<unsigned long long>(counter("dram.dmi_grants")));
}

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;
  core::set_global_quantum(kQuantumPs);

  Platform platform;
  g_platform = &platform;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration and initialisation: the worker waits for its first job

  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  std::FILE* out = console ? stdout : stderr;
  print_summary(out);
  g_platform = nullptr;
  return bench::finish(out);
}

int main(int argc, char** argv) { return bench::run(argc, argv); }
