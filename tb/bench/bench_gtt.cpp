// bench_gtt: host cost of one GTT translation (gen::GttClient::translate) for a client of a gen::GenGpu whose GTT
// reads its entries from a core::Memory through a core::Bus, as in the platform:
//   hit/...  : a working set of 16 pages that fits the default 64-entry, 4-way TLB (chosen so that no set holds more
//              pages than it has ways), so every timed translation is a TLB hit;
//   walk/... : a working set of 4096 random pages (64 times the TLB), visited in random order, so nearly every
//              translation misses and walks: 1 timed bus read for the GGTT, 4 (PML4E, PDPE, PDE, PTE) for a 48-bit
//              PPGTT.
// Each in the GGTT and in a 4-level 48-bit PPGTT. Pages, their order and the offsets inside them come from a fixed-seed
// std::mt19937_64 (raw output only, no distributions), so every run translates the same addresses. Counters:
// translations per host second, host ns per translation, and for the walks also memory reads per translation and
// simulated ns per host second (simulated time = the delay the GTT annotates). Host time is process CPU time, as in
// bench_bus. Correctness: the untimed warm-up checks every translated address against the expected one, the timed
// batches check one in 16; a mismatch, a fault or (for the hit rows) a TLB miss fails the benchmark. After the run a
// summary prints hit vs walk ratios and the target (>= 100 M hit translations/s), which is reported, not asserted.
//
// As in bench_bus, SystemC elaborates once: the platform is built in sc_main, a worker SC_THREAD runs one batch per
// sc_start() and calls sc_pause().
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include <benchmark/benchmark.h>

#include "hw/gen/gtt_regs.h"
#include "tb/bench/bench_support.h"
#include "tlm/core/bus.h"
#include "tlm/core/memory.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/core/timing.h"
#include "tlm/gen/gen_gpu.h"

using namespace gpuvp;
using gen::AddressSpace;

namespace {

constexpr std::uint64_t kBar = 0xE000'0000;
constexpr std::uint64_t kDramSize = 1ULL << 30;              // 1 GiB
constexpr std::uint64_t kGsm = kDramSize - (8ULL << 20);     // top 8 MiB: the PTEs of a 4 GiB GGTT
constexpr std::uint64_t kDataFrames = (256ULL << 20) >> 12;  // translations land in [0, 256 MiB)
constexpr std::uint64_t kTableBase = 256ULL << 20;           // PPGTT tables are allocated from here up to kGsm
constexpr std::uint64_t kPresent = 1, kRw = 2;
constexpr std::uint64_t kGgttPages = (4ULL << 30) >> 12;  // default GGTT size
constexpr std::uint64_t kPpgttPages = 1ULL << 36;         // 48-bit address space

constexpr unsigned kHitPages = 16;
constexpr unsigned kWalkPages = 4096;
constexpr std::size_t kSequence = 1 << 16;  // translations in one pass of a workload's address sequence
constexpr std::uint64_t kVerifyMask = 15;   // timed batches check the addresses at sequence index % 16 == 0

// The physical frame a virtual page maps to: any fixed scramble, so that a wrong walk gives a wrong address.
std::uint64_t frame_of(std::uint64_t vpn) {
  std::uint64_t x = vpn + 0x9E37'79B9'7F4A'7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58'476D'1CE4'E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D0'49BB'1331'11EBULL;
  return (x ^ (x >> 31)) % kDataFrames;
}

struct Workload {
  gen::GttClient* client = nullptr;
  AddressSpace space = AddressSpace::kGgtt;
  std::vector<std::uint64_t> va;        // kSequence addresses
  std::vector<std::uint64_t> expected;  // their physical addresses
};

// One request to the worker: count translations of w's sequence starting at index pos.
struct Job {
  const Workload* w = nullptr;
  std::size_t pos = 0;
  std::uint64_t count = 0;
  std::uint64_t verify_mask = kVerifyMask;
};

class Worker : public sc_core::sc_module {
 public:
  explicit Worker(sc_core::sc_module_name name) : sc_module(name) {
    SC_HAS_PROCESS(Worker);
    SC_THREAD(run);
  }

  void submit(const Job& job) {
    job_ = job;
    start_.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
  }
  std::uint64_t faults() const { return faults_; }
  std::uint64_t mismatches() const { return mismatches_; }
  std::uint64_t checked() const { return checked_; }
  core::Picoseconds sim_ps() const { return sim_ps_; }
  std::uint64_t sink() const { return sink_; }

 private:
  void run() {
    for (;;) {
      sc_core::wait(start_);
      const Job j = job_;
      const Workload& w = *j.w;
      gen::GttClient& client = *w.client;
      const std::uint64_t* va = w.va.data();
      const std::uint64_t* expected = w.expected.data();
      constexpr std::size_t mask = kSequence - 1;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      std::uint64_t faults = 0, mismatches = 0, checked = 0, sink = 0;
      std::size_t idx = j.pos & mask;
      for (std::uint64_t i = 0; i < j.count; ++i) {
        const gen::Translation t = client.translate(va[idx], w.space, false, delay);
        if (!t.ok) {
          ++faults;
        } else if ((idx & j.verify_mask) == 0) {
          ++checked;
          if (t.pa != expected[idx]) ++mismatches;
        }
        sink += t.pa;
        idx = (idx + 1) & mask;
      }
      faults_ += faults;
      mismatches_ += mismatches;
      checked_ += checked;
      sink_ += sink;
      sim_ps_ += core::to_ps(delay);
      // Wait out the annotated time, as a decoupled initiator synchronises at the end of its quantum: the bus keeps
      // absolute port-busy times, so the next batch must start at the kernel time this one reached.
      sc_core::wait(delay);
      sc_core::sc_pause();  // sc_start() returns at the end of this delta cycle
    }
  }

  sc_core::sc_event start_;
  Job job_;
  std::uint64_t faults_ = 0;
  std::uint64_t mismatches_ = 0;
  std::uint64_t checked_ = 0;
  std::uint64_t sink_ = 0;
  core::Picoseconds sim_ps_ = 0;
};

core::MemoryParams dram_params() {
  core::MemoryParams p;
  p.size = kDramSize;
  return p;
}

// The platform under test, built once before the first sc_start(): the GPU's memory port and its BAR on one bus with
// DRAM (default timing: 2-cycle hop, 32-byte port, 60-cycle DRAM read), as in tests/test_gtt.cpp.
struct Platform {
  core::Bus bus{"bus"};
  core::Memory dram{"dram", dram_params()};
  gen::GenGpu gpu{"gen", gen::GenGpuParams{}, kGsm};
  Worker worker{"worker"};
  std::uint64_t next_table = kTableBase;

  Platform() {
    bus.attach_initiator(gpu.memory.socket, "gen");
    bus.attach_target(dram.socket, "dram", 0, kDramSize, {2, 32});
    bus.attach_target(gpu.socket, "bar", kBar, gen::kBarSize, {2, 4});
  }

  std::uint64_t load(std::uint64_t addr) {
    std::uint64_t v = 0;
    dram.store().read(addr, reinterpret_cast<unsigned char*>(&v), 8);
    return v;
  }
  void store(std::uint64_t addr, std::uint64_t v) {
    dram.store().write(addr, reinterpret_cast<const unsigned char*>(&v), 8);
  }
  std::uint64_t new_table() {
    const std::uint64_t t = next_table;
    next_table += 4096;
    if (next_table > kGsm) {
      std::fprintf(stderr, "bench_gtt: out of page table memory\n");
      std::exit(2);
    }
    return t;  // DRAM reads as zero until written: an empty table
  }

  // The GGTT entry of a page sits in stolen memory at GSM + page * 8 (what the BAR's window writes land on; see
  // GgttEntriesWrittenThroughTheBarLandInStolenMemoryAndTranslate in tests/test_gtt.cpp).
  void map_ggtt(std::uint64_t vpn, std::uint64_t frame) { store(kGsm + vpn * 8, (frame << 12) | kPresent); }

  // A 4-level PPGTT: tables below the PML4 are allocated on first use.
  void map_ppgtt(std::uint64_t pml4, std::uint64_t vpn, std::uint64_t frame) {
    const std::uint64_t va = vpn << 12;
    std::uint64_t table = pml4;
    for (unsigned shift : {39u, 30u, 21u}) {
      const std::uint64_t slot = table + ((va >> shift) & 511) * 8;
      std::uint64_t entry = load(slot);
      if (!(entry & kPresent)) {
        entry = new_table() | kPresent | kRw;
        store(slot, entry);
      }
      table = entry & ~0xFFFULL;
    }
    store(table + ((va >> 12) & 511) * 8, (frame << 12) | kPresent | kRw);
  }
};

Platform* g_platform = nullptr;

enum class Kind { kHit, kWalk };

struct Spec {
  std::string name;
  Kind kind;
  AddressSpace space;
  std::uint64_t seed;
};

std::map<std::string, Workload> g_workloads;

// Picks the working set, writes its entries and draws the address sequence.
Workload& build_workload(const Spec& s) {
  Platform& p = *g_platform;
  Workload& w = g_workloads[s.name];
  std::mt19937_64 rng(s.seed);
  const bool ppgtt = s.space == AddressSpace::kPpgtt;
  const std::uint64_t space_pages = ppgtt ? kPpgttPages : kGgttPages;
  const unsigned pages = s.kind == Kind::kHit ? kHitPages : kWalkPages;
  const gen::GttParams gtt_params;  // the GenGpu above uses the defaults
  const std::uint64_t sets = gtt_params.tlb_entries / gtt_params.tlb_ways;

  // Distinct random pages; for the hit set also at most tlb_ways per TLB set so that all of them stay resident.
  std::vector<std::uint64_t> set_pages;
  std::map<std::uint64_t, unsigned> per_set;
  std::map<std::uint64_t, bool> taken;
  while (set_pages.size() < pages) {
    const std::uint64_t vpn = rng() % space_pages;
    if (taken.count(vpn)) continue;
    if (s.kind == Kind::kHit && per_set[vpn % sets] >= gtt_params.tlb_ways) continue;
    taken[vpn] = true;
    ++per_set[vpn % sets];
    set_pages.push_back(vpn);
  }

  std::uint8_t source = static_cast<std::uint8_t>(0x40 + g_workloads.size());
  w.client = &p.gpu.gtt().add_client(s.name, source, 0);
  w.space = s.space;
  if (ppgtt) {
    gen::PpgttRoot root;
    root.mode = gen::PpgttMode::k48Bit;
    root.pdp[0] = p.new_table();
    for (std::uint64_t vpn : set_pages) p.map_ppgtt(root.pdp[0], vpn, frame_of(vpn));
    w.client->set_ppgtt_root(root);
  } else {
    for (std::uint64_t vpn : set_pages) p.map_ggtt(vpn, frame_of(vpn));
  }

  w.va.resize(kSequence);
  w.expected.resize(kSequence);
  for (std::size_t i = 0; i < kSequence; ++i) {
    const std::uint64_t r = rng();
    const std::uint64_t vpn = set_pages[r % pages];
    const std::uint64_t offset = (r >> 40) & 0xFF8;  // an 8-byte aligned offset in the page
    w.va[i] = (vpn << 12) | offset;
    w.expected[i] = (frame_of(vpn) << 12) | offset;
  }
  return w;
}

struct Result {
  double ns_per_tr = 0;
  double tr_per_s = 0;
};
std::map<std::string, Result> g_results;  // by benchmark name; the last (measured) run of each wins

double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void run_gtt(benchmark::State& state, const Spec& spec) {
  Platform& p = *g_platform;
  const Workload& w = g_workloads.at(spec.name);
  Worker& worker = p.worker;
  gen::GttClient& c = *w.client;

  // Warm-up (untimed): one pass over the whole sequence with every address checked; it also fills the TLB.
  const std::uint64_t faults0 = worker.faults(), mism0 = worker.mismatches();
  worker.submit({&w, 0, kSequence, 0});
  if (worker.faults() != faults0 || c.faults() != 0) {
    state.SkipWithError("warm-up: translation faults");
    return;
  }
  if (worker.mismatches() != mism0) {
    state.SkipWithError("warm-up: translated address differs from the expected one");
    return;
  }

  Job job{&w, 0, spec.kind == Kind::kHit ? kSequence : 1 << 12, kVerifyMask};
  const std::uint64_t hits0 = c.hits(), misses0 = c.misses(), reads0 = c.walk_reads();
  const std::uint64_t checked0 = worker.checked();
  const core::Picoseconds sim0 = worker.sim_ps();
  const double cpu0 = cpu_ns();
  const auto host0 = std::chrono::steady_clock::now();
  while (state.KeepRunningBatch(static_cast<benchmark::IterationCount>(job.count))) {
    worker.submit(job);
    job.pos = (job.pos + job.count) % kSequence;
  }
  const auto host1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_ns();
  const double host_ns = cpu1 - cpu0;
  const double wall_ns = std::chrono::duration<double, std::nano>(host1 - host0).count();
  const double sim_ns = static_cast<double>(worker.sim_ps() - sim0) / 1000.0;
  const std::uint64_t hits = c.hits() - hits0, misses = c.misses() - misses0, reads = c.walk_reads() - reads0;
  const std::uint64_t checked = worker.checked() - checked0;
  const double tr = static_cast<double>(state.iterations());

  if (worker.faults() != faults0 || c.faults() != 0) {
    state.SkipWithError("translation faults during the run");
    return;
  }
  if (worker.mismatches() != mism0) {
    state.SkipWithError("translated address differs from the expected one");
    return;
  }
  if (hits + misses != static_cast<std::uint64_t>(state.iterations()) || checked == 0) {
    state.SkipWithError("translation count does not match the client's lookups");
    return;
  }
  if (spec.kind == Kind::kHit && misses != 0) {
    state.SkipWithError("TLB misses in the hit benchmark: the working set does not fit");
    return;
  }
  state.counters["tr/s"] = benchmark::Counter(tr, benchmark::Counter::kIsRate);
  state.counters["ns/tr"] = benchmark::Counter(host_ns / tr);
  state.counters["wall_ns/tr"] = benchmark::Counter(wall_ns / tr);
  state.counters["hit_frac"] = benchmark::Counter(static_cast<double>(hits) / tr);
  state.counters["checked"] = benchmark::Counter(static_cast<double>(checked));
  if (spec.kind == Kind::kWalk) {
    state.counters["reads/tr"] = benchmark::Counter(static_cast<double>(reads) / tr);
    state.counters["sim_ns/host_s"] = benchmark::Counter(sim_ns, benchmark::Counter::kIsRate);
  }
  g_results[spec.name] = {host_ns / tr, tr / (host_ns * 1e-9)};
}

const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = {
      {"gtt_hit/ggtt", Kind::kHit, AddressSpace::kGgtt, 1},
      {"gtt_hit/ppgtt48", Kind::kHit, AddressSpace::kPpgtt, 2},
      {"gtt_walk/ggtt", Kind::kWalk, AddressSpace::kGgtt, 3},
      {"gtt_walk/ppgtt48", Kind::kWalk, AddressSpace::kPpgtt, 4},
  };
  return s;
}

void print_summary(std::FILE* out) {
  auto get = [](const std::string& name) -> const Result* {
    auto it = g_results.find(name);
    return it == g_results.end() ? nullptr : &it->second;
  };
  std::fprintf(out, "\nHit vs walk (host CPU time per translation):\n");
  for (const char* space : {"ggtt", "ppgtt48"}) {
    const Result* hit = get(std::string("gtt_hit/") + space);
    const Result* walk = get(std::string("gtt_walk/") + space);
    if (hit && walk) {
      std::fprintf(out, "  %-8s walk costs %8.1fx a hit  (%.2f ns vs %.2f ns)\n", space,
                   walk->ns_per_tr / hit->ns_per_tr, hit->ns_per_tr, walk->ns_per_tr);
    }
  }
  std::fprintf(out, "\nTarget (reported, not asserted): >= 100 M TLB-hit translations/s on this machine\n");
  for (const char* name : {"gtt_hit/ggtt", "gtt_hit/ppgtt48"}) {
    if (const Result* r = get(name)) {
      std::fprintf(out, "  %-18s %8.1f M/s  %s\n", name, r->tr_per_s / 1e6, r->tr_per_s >= 100e6 ? "MET" : "MISSED");
    }
  }
}

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;
  core::set_global_quantum(core::kPsPerUs);

  Platform platform;
  g_platform = &platform;
  for (const Spec& s : specs()) build_workload(s);  // clients are added at elaboration
  sc_core::sc_start(sc_core::SC_ZERO_TIME);         // elaboration and initialisation: the worker waits for a job

  for (const Spec& s : specs()) {
    benchmark::RegisterBenchmark(s.name.c_str(), [s](benchmark::State& st) {
      run_gtt(st, s);
    })->Unit(benchmark::kNanosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  std::FILE* out = console ? stdout : stderr;
  print_summary(out);
  std::fprintf(out, "\nPage tables: %llu KiB of PPGTT tables, %llu KiB of DRAM allocated\n",
               static_cast<unsigned long long>((platform.next_table - kTableBase) >> 10),
               static_cast<unsigned long long>(
                   platform.dram.store().pages_allocated() * platform.dram.store().page_size() >> 10));
  g_platform = nullptr;
  g_workloads.clear();
  return bench::finish(out);
}

int main(int argc, char** argv) { return bench::run(argc, argv); }
