#include "tlm/gen/gpgpu_pipe.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "hw/gen/gpgpu_commands.h"
#include "tlm/core/format_hex.h"
#include "tlm/core/timeline.h"
#include "tlm/gen/command_table.h"
#include "tlm/gen/eu/eu_array.h"
#include "tlm/gen/eu/thread_group.h"

namespace gpuvp::gen {

namespace {

using namespace gpgpu;  // the command opcodes (hw/gen/gpgpu_commands.h)

// A 64-bit base address field of STATE_BASE_ADDRESS (bits 63:12, bit 0 = modify enable) or any graphics address:
// the GPU uses 48 bits (NEO programs canonical addresses such as 0xFFFF8001'00000000).
std::uint64_t address48(std::uint32_t lo, std::uint32_t hi) {
  return (std::uint64_t{hi} << 32 | lo) & 0xFFFF'FFFF'FFFFULL;
}

std::string& default_timing() {
  static std::string timing = "array";
  return timing;
}

}  // namespace

const std::string& default_gpgpu_timing() { return default_timing(); }
void set_default_gpgpu_timing(const std::string& timing) { default_timing() = timing; }

// The GPU's memory as the EU and the pipe see it: the engine's address space (PPGTT when bound, else GGTT).
class GpgpuPipe::Memory final : public eu::GpuMemory, public eu::InstructionMemory {
 public:
  void bind(EngineContext* engine) { engine_ = engine; }
  // Untimed: another model (the EU array) gives these accesses their time.
  void set_timed(bool timed) { timed_ = timed; }
  bool read(std::uint64_t address, void* data, unsigned bytes) override { return access(address, data, bytes, false); }
  bool write(std::uint64_t address, const void* data, unsigned bytes) override {
    return access(address, const_cast<void*>(data), bytes, true);
  }
  bool read(std::uint64_t address, std::uint8_t* out, std::size_t bytes) override {
    return read(address, static_cast<void*>(out), static_cast<unsigned>(bytes));
  }

 private:
  bool access(std::uint64_t address, void* data, unsigned bytes, bool write) {
    if (engine_ == nullptr) return false;
    return timed_ ? engine_->access(address, space(), data, bytes, write)
                  : engine_->access_untimed(address, space(), data, bytes, write);
  }
  AddressSpace space() const { return engine_->ppgtt_bound() ? AddressSpace::kPpgtt : AddressSpace::kGgtt; }
  EngineContext* engine_ = nullptr;
  bool timed_ = true;
};

// The EU array's DRAM lines, handed to the engine at their times: its GTT translates them and the platform's bus and
// DRAM book them (contention, statistics, bandwidth traces) as the array runs. Attached to the hierarchy while it
// lives (a walker).
class GpgpuPipe::DramLines final : public eu::DramTraffic {
 public:
  DramLines(eu::MemoryHierarchy& hierarchy, EngineContext& engine, core::Picoseconds walker_start,
            std::uint64_t gpu_clock_hz, core::Counter& unbooked)
      : hierarchy_(hierarchy),
        engine_(engine),
        walker_start_(walker_start),
        clock_("gen", gpu_clock_hz),
        unbooked_(unbooked) {
    hierarchy_.attach_traffic(this);
  }
  ~DramLines() override { hierarchy_.attach_traffic(nullptr); }
  DramLines(const DramLines&) = delete;
  DramLines& operator=(const DramLines&) = delete;
  void line(std::uint64_t address, bool write, std::uint64_t cycle) override {
    // The address space as the data's accesses see it (the host may bind another between two steps).
    const AddressSpace space = engine_.ppgtt_bound() ? AddressSpace::kPpgtt : AddressSpace::kGgtt;
    if (!engine_.account_traffic(address, space, eu::MemoryHierarchy::kLineBytes, write,
                                 walker_start_ + clock_.cycles(cycle))) {
      ++unbooked_.value;
    }
  }

 private:
  eu::MemoryHierarchy& hierarchy_;
  EngineContext& engine_;
  core::Picoseconds walker_start_;
  core::ClockDomain clock_;
  core::Counter& unbooked_;
};

GpgpuPipe::GpgpuPipe(const GpgpuParams& params, const core::StatsGroup& stats)
    : params_(params),
      stats_(stats.subgroup("gpgpu")),
      walkers_(stats_.counter("walkers", "commands", "GPGPU_WALKER commands executed")),
      thread_groups_(stats_.counter("thread_groups", "events", "thread groups (work-groups) run")),
      threads_(stats_.counter("threads", "events", "EU threads dispatched")),
      instructions_(stats_.counter("eu_instructions", "instructions", "EU instructions executed")),
      barriers_(stats_.counter("barriers", "events", "thread group barriers completed")),
      messages_(stats_.counter("data_port_messages", "messages", "data port messages (DC0/DC1)")),
      bytes_read_(stats_.counter("data_port_read_bytes", "bytes", "bytes the data port read from memory")),
      bytes_written_(stats_.counter("data_port_written_bytes", "bytes", "bytes the data port wrote to memory")),
      lines_read_(stats_.counter("data_port_read_lines", "events",
                                 "64-byte lines the data port read from memory (one request per distinct line of a "
                                 "message)")),
      lines_written_(
          stats_.counter("data_port_written_lines", "events",
                         "64-byte lines the data port wrote to memory (the runs of bytes a message wrote in each)")),
      atomics_(stats_.counter("atomics", "events", "atomic operations (per lane)")),
      out_of_bounds_(stats_.counter("out_of_bounds", "events",
                                    "surface accesses outside their buffer (reads return 0, writes dropped)")),
      array_cycles_(
          stats_.counter("array_cycles", "cycles", "GPU cycles walkers took on the EU array (gen.gpgpu.timing=array)")),
      l3_hits_(stats_.counter("l3_hits", "events", "array timing: data port lines the L3 held")),
      l3_misses_(stats_.counter("l3_misses", "events", "array timing: data port lines the L3 fetched or allocated")),
      l3_writebacks_(stats_.counter("l3_writebacks", "events", "array timing: dirty L3 lines evicted to memory")),
      slm_lines_(stats_.counter("slm_lines", "events", "array timing: 64-byte lines of shared local memory accessed")),
      l3_data_kib_(stats_.counter("l3_data_kib", "KiB",
                                  "array timing: the L3's data partition per slice at the last walker (L3CNTLREG)")),
      dram_read_lines_(stats_.counter("dram_read_lines", "events", "array timing: 64-byte lines read from DRAM")),
      dram_written_lines_(
          stats_.counter("dram_written_lines", "events", "array timing: 64-byte lines written back to DRAM")),
      dram_lines_unbooked_(stats_.counter(
          "dram_lines_unbooked", "events",
          "array timing: DRAM lines the platform could not book, their data moved already (their page was unmapped or "
          "made read-only since, or their address is not memory)")),
      memory_(std::make_unique<Memory>()),
      data_port_memory_(std::make_unique<Memory>()),
      decode_cache_(std::make_unique<eu::DecodeCache>(*memory_)),
      data_port_(std::make_unique<eu::DataPort>(*data_port_memory_)) {
  data_port_memory_->set_timed(params_.timing != "array");
  if (params_.timing == "array") {
    const std::uint32_t eus = params_.eus_per_subslice;
    for (std::uint32_t i = 0; i < params_.slices * params_.subslices_per_slice; ++i) {
      core::StatsGroup g = stats_.subgroup("subslice" + std::to_string(i));
      SubsliceStats ss{g.vector("instructions", {"fpu", "fpu0_only", "extended_math", "send", "control", "other"},
                                "instructions", "EU instructions issued, by class (docs/gen-eu-timing.md)"),
                       g.vector("instructions_by_width", {"simd1", "simd2", "simd4", "simd8", "simd16", "simd32"},
                                "instructions", "EU instructions issued, by execution size"),
                       &g.counter("flops16", "flops", "half-precision floating-point operations (mad: 2)"),
                       g.vector("fpu_busy", {"fpu0", "fpu1"}, "cycles", "cycles the EUs' FPU0 and FPU1 were occupied"),
                       &g.counter("threads", "events", "EU threads that ended"),
                       &g.counter("active_cycles", "cycles",
                                  "cycles a unit of an EU executed an instruction, summed over the subslice's EUs"),
                       &g.counter("thread_cycles", "cycles", "cycles EU threads were resident, summed over threads"),
                       &g.counter("flops32", "flops", "single-precision floating-point operations (mad: 2)"),
                       &g.counter("flops64", "flops", "double-precision floating-point operations (mad: 2)"),
                       &g.counter("stalled_cycles", "cycles",
                                  "cycles an EU had resident threads but issued none, summed over the subslice's EUs"),
                       &g.counter("idle_cycles", "cycles",
                                  "cycles an EU had no resident thread while walkers ran on the array, summed over "
                                  "the subslice's EUs"),
                       g.vector("thread_stall_cycles", {"dependency", "memory", "barrier", "unit"}, "cycles",
                                "thread-cycles an instruction waited after the thread's front end let it go, by "
                                "reason (docs/gen-eu-timing.md)")};
      subslice_stats_.push_back(ss);
      const std::size_t index = subslice_stats_.size() - 1;
      for (std::uint32_t e = 0; e < eus; ++e) {
        core::StatsGroup eg = g.subgroup("eu" + std::to_string(e));
        eu_stats_.push_back(
            {&eg.counter("active_cycles", "cycles",
                         "cycles a unit of the EU (an FPU, send or branch) executed an instruction"),
             &eg.counter("stalled_cycles", "cycles", "cycles the EU had resident threads, none issuing"),
             &eg.counter("idle_cycles", "cycles",
                         "cycles the EU had no resident thread while walkers ran on the array"),
             &eg.counter("instructions", "instructions", "instructions the EU issued")});
      }
      g.formula("fpu_utilisation", "ratio", "FPU busy cycles over the FPUs' cycles while walkers ran on the array",
                [this, index, eus](core::Picoseconds) {
                  const SubsliceStats& st = subslice_stats_[index];
                  const double cycles = 2.0 * eus * static_cast<double>(array_cycles_.value);
                  return cycles > 0 ? static_cast<double>(st.fpu_busy.value(0) + st.fpu_busy.value(1)) / cycles : 0.0;
                });
      g.formula("occupancy", "ratio",
                "resident threads over the subslice's thread slots while walkers ran on the array",
                [this, index, eus, threads = params_.threads_per_eu](core::Picoseconds) {
                  const double slots = static_cast<double>(eus) * threads * static_cast<double>(array_cycles_.value);
                  return slots > 0 ? static_cast<double>(subslice_stats_[index].thread_cycles->value) / slots : 0.0;
                });
      g.formula("active", "ratio",
                "EU cycles in which a unit executed over the subslice's EU cycles while walkers ran on the array",
                [this, index, eus](core::Picoseconds) {
                  const double cycles = static_cast<double>(eus) * static_cast<double>(array_cycles_.value);
                  return cycles > 0 ? static_cast<double>(subslice_stats_[index].active_cycles->value) / cycles : 0.0;
                });
      g.formula("stalled", "ratio",
                "EU cycles with resident threads but no issue over the subslice's EU cycles while walkers ran",
                [this, index, eus](core::Picoseconds) {
                  const double cycles = static_cast<double>(eus) * static_cast<double>(array_cycles_.value);
                  return cycles > 0 ? static_cast<double>(subslice_stats_[index].stalled_cycles->value) / cycles : 0.0;
                });
    }
    // The hierarchy's traffic (its DRAM lines also reach the platform's bus and DRAM statistics): rates over the
    // walkers' array time.
    const auto array_seconds = [this] {
      return static_cast<double>(array_cycles_.value) / static_cast<double>(params_.dram.gpu_clock_hz);
    };
    stats_.formula("l3_hit_rate", "ratio", "array timing: data port lines the L3 held over all it was asked for",
                   [this](core::Picoseconds) {
                     const double asked = static_cast<double>(l3_hits_.value + l3_misses_.value);
                     return asked > 0 ? static_cast<double>(l3_hits_.value) / asked : 0.0;
                   });
    stats_.formula("dram_bandwidth", "bytes/s",
                   "array timing: bytes the EU array's lines moved to and from DRAM per second of array time",
                   [this, array_seconds](core::Picoseconds) {
                     const double t = array_seconds();
                     return t > 0 ? 64.0 * static_cast<double>(dram_read_lines_.value + dram_written_lines_.value) / t
                                  : 0.0;
                   });
    eu::MemoryHierarchyParams m;
    m.slices = params_.slices;
    m.subslices = params_.slices * params_.subslices_per_slice;
    m.port_bytes_per_cycle = params_.data_port_bytes_per_cycle;
    m.l3_kib =
        eu::L3Partition::decode(gpgpu::kL3CntlregWithoutSlm).data_ways() * eu::L3Partition::way_kib(params_.l3_banks);
    m.l3_ways = params_.l3_ways;
    m.l3_banks = params_.l3_banks;
    m.l3_bank_bytes_per_cycle = params_.l3_bank_bytes_per_cycle;
    m.l3_latency_cycles = params_.l3_latency_cycles;
    m.slm_bytes_per_cycle = params_.slm_bytes_per_cycle;
    m.slm_latency_cycles = params_.slm_latency_cycles;
    m.atomic_cycles = params_.atomic_cycles;
    m.gti_bytes_per_cycle = params_.gti_bytes_per_cycle;
    // DRAM figures in GPU cycles.
    const GpgpuParams::Dram& d = params_.dram;
    const double gpu_per_dram = static_cast<double>(d.gpu_clock_hz) / static_cast<double>(d.clock_hz);
    m.dram_channels = d.channels;
    m.dram_bytes_per_cycle = d.bytes_per_cycle / gpu_per_dram;
    m.dram_line_overhead_cycles =
        static_cast<double>(d.access_overhead_ps) * static_cast<double>(d.gpu_clock_hz) / 1e12;
    m.dram_read_latency_cycles = static_cast<unsigned>(std::lround(d.read_latency_cycles * gpu_per_dram));
    hierarchy_ = std::make_unique<eu::MemoryHierarchy>(m);
  }
}

GpgpuPipe::~GpgpuPipe() = default;

void GpgpuPipe::add_array_stats(const eu::EuArray& array, std::uint64_t cycles) {
  for (unsigned e = 0; e < array.eu_count(); ++e) {
    const eu::EuCoreStats& c = array.eu(e).stats();
    const std::uint64_t occupied = std::min(c.occupied_cycles, cycles);
    const std::uint64_t active = std::min(c.busy_cycles, occupied);
    EuStats& es = eu_stats_.at(e);
    es.active_cycles->value += active;
    es.stalled_cycles->value += occupied - active;
    es.idle_cycles->value += cycles - occupied;
    es.instructions->value += std::accumulate(c.instructions.begin(), c.instructions.end(), std::uint64_t{0});
    SubsliceStats& st = subslice_stats_.at(e / params_.eus_per_subslice);
    for (std::size_t k = 0; k < c.instructions.size(); ++k) st.instructions[k].value += c.instructions[k];
    for (std::size_t k = 0; k < c.by_width.size(); ++k) st.by_width[k].value += c.by_width[k];
    st.flops16->value += c.flops16;
    st.fpu_busy[0].value += c.fpu_busy[0];
    st.fpu_busy[1].value += c.fpu_busy[1];
    st.threads->value += c.threads;
    st.active_cycles->value += active;
    st.thread_cycles->value += c.thread_cycles;
    st.flops32->value += c.flops32;
    st.flops64->value += c.flops64;
    st.stalled_cycles->value += occupied - active;
    st.idle_cycles->value += cycles - occupied;
    for (unsigned r = 0; r < eu::kStallReasons; ++r) st.thread_stalls[r].value += c.thread_stalls[r];
  }
}

// The timeline: a span per kernel on the pipe's track, and per subslice the share of its EU cycles that issued
// during the walker (a counter track).
void GpgpuPipe::timeline_walker(const eu::EuArray& array, std::uint64_t kernel, core::Picoseconds start,
                                core::Picoseconds end) {
  core::Timeline& timeline = core::timeline();
  if (!timeline.enabled()) return;
  if (kernel_track_ < 0) {
    kernel_track_ = timeline.track("gen.gpgpu");
    for (std::size_t i = 0; i < subslice_stats_.size(); ++i) {
      subslice_tracks_.push_back(timeline.track("gen.gpgpu.subslice" + std::to_string(i)));
    }
  }
  timeline.span(kernel_track_, ("kernel " + core::format_hex(kernel)).c_str(), start, end - start);
  const std::uint64_t cycles = array.now() > 0 ? array.now() : 1;
  std::vector<std::uint64_t> active(subslice_tracks_.size(), 0);
  for (unsigned e = 0; e < array.eu_count(); ++e) {
    active.at(e / params_.eus_per_subslice) += array.eu(e).stats().busy_cycles;
  }
  for (std::size_t i = 0; i < subslice_tracks_.size(); ++i) {
    const double share = static_cast<double>(active[i]) / static_cast<double>(params_.eus_per_subslice * cycles);
    const std::string name = "gen.gpgpu.subslice" + std::to_string(i) + " active";
    timeline.value(subslice_tracks_[i], name.c_str(), start, share);
    timeline.value(subslice_tracks_[i], name.c_str(), end, 0.0);
  }
}

void GpgpuPipe::update_hierarchy_stats() {
  const eu::MemoryHierarchyStats& s = hierarchy_->stats();
  l3_hits_.value = s.l3_hits;
  l3_misses_.value = s.l3_misses;
  l3_writebacks_.value = s.l3_writebacks;
  slm_lines_.value = s.slm_lines;
  dram_read_lines_.value = s.dram_read_lines;
  dram_written_lines_.value = s.dram_written_lines;
}

namespace {

// What a kernel's walkers took, per kernel: the names of GpgpuPipe::running_totals() in its order.
struct KernelTotal {
  const char* name;
  const char* unit;
  const char* description;
};
constexpr std::array<KernelTotal, 13> kKernelTotalNames{{
    {"array_cycles", "cycles", "GPU cycles its walkers took on the EU array (gen.gpgpu.timing=array)"},
    {"thread_groups", "events", "thread groups (work-groups) run"},
    {"threads", "events", "EU threads dispatched"},
    {"eu_instructions", "instructions", "EU instructions executed"},
    {"flops32", "flops", "array timing: single-precision floating-point operations (mad: 2)"},
    {"flops64", "flops", "array timing: double-precision floating-point operations (mad: 2)"},
    {"flops16", "flops", "array timing: half-precision floating-point operations (mad: 2)"},
    {"data_port_read_bytes", "bytes", "bytes the data port read from memory"},
    {"data_port_written_bytes", "bytes", "bytes the data port wrote to memory"},
    {"l3_hits", "events", "array timing: data port lines the L3 held"},
    {"l3_misses", "events", "array timing: data port lines the L3 fetched or allocated"},
    {"dram_read_lines", "events", "array timing: 64-byte lines read from DRAM"},
    {"dram_written_lines", "events", "array timing: 64-byte lines written back to DRAM"},
}};

}  // namespace

std::array<std::uint64_t, GpgpuPipe::kKernelTotals> GpgpuPipe::running_totals() const {
  static_assert(kKernelTotals == kKernelTotalNames.size());
  std::uint64_t flops32 = 0, flops64 = 0, flops16 = 0;
  for (const SubsliceStats& st : subslice_stats_) {
    flops32 += st.flops32->value;
    flops64 += st.flops64->value;
    flops16 += st.flops16->value;
  }
  return {array_cycles_.value,
          thread_groups_.value,
          threads_.value,
          instructions_.value,
          flops32,
          flops64,
          flops16,
          bytes_read_.value,
          bytes_written_.value,
          l3_hits_.value,
          l3_misses_.value,
          dram_read_lines_.value,
          dram_written_lines_.value};
}

// A kernel is known by its address (instruction base + the descriptor's kernel start pointer): the commands name no
// kernel, and the same address is the same kernel as long as the driver does not reuse it for another.
void GpgpuPipe::add_kernel_totals(std::uint64_t kernel, const std::array<std::uint64_t, kKernelTotals>& before,
                                  core::Picoseconds time) {
  auto it = kernel_totals_.find(kernel);
  if (it == kernel_totals_.end()) {
    core::StatsGroup g = stats_.subgroup("kernels").subgroup(core::format_hex(kernel));
    KernelTotals k{&g.counter("walkers", "commands", "GPGPU_WALKER commands that ran the kernel"),
                   &g.counter("time_ps", "ps", "time the command streamer spent in the kernel's walkers"),
                   {}};
    for (std::size_t i = 0; i < kKernelTotals; ++i) {
      k.totals[i] = &g.counter(kKernelTotalNames[i].name, kKernelTotalNames[i].unit, kKernelTotalNames[i].description);
    }
    it = kernel_totals_.emplace(kernel, k).first;
  }
  const KernelTotals& k = it->second;
  ++k.walkers->value;
  k.time_ps->value += time;
  const auto after = running_totals();
  for (std::size_t i = 0; i < kKernelTotals; ++i) k.totals[i]->value += after[i] - before[i];
}

void GpgpuPipe::update_data_port_stats() {
  const eu::DataPortStats& s = data_port_->stats();
  messages_.value = s.messages;
  bytes_read_.value = s.bytes_read;
  bytes_written_.value = s.bytes_written;
  lines_read_.value = s.lines_read;
  lines_written_.value = s.lines_written;
  atomics_.value = s.atomics;
  out_of_bounds_.value = s.out_of_bounds;
}

void GpgpuPipe::invalidate_instruction_cache() { decode_cache_->invalidate(); }

void GpgpuPipe::reset() {
  state_ = State{};
  decode_cache_->invalidate();
}

Outcome GpgpuPipe::execute(EngineContext& engine, const Command& cmd) {
  memory_->bind(&engine);
  data_port_memory_->bind(&engine);
  const std::uint32_t op = cmd.dw[0] >> 16;
  switch (op) {
    case kPipelineSelect:
      // Gen9: bits 15:8 mask the bits they name (only the selection, 1:0, is acted on); Gen8 has no mask bits.
      if (engine.generation() < 9 || (cmd.dw[0] & 0x300U) != 0) state_.pipeline = cmd.dw[0] & 3U;
      return Outcome::kNext;
    case kStateBaseAddress:
      return state_base_address(cmd);
    case kStateSip:
      state_.sip = address48(cmd.dw[1] & ~0xFU, cmd.dw[2]);
      return Outcome::kNext;
    case kGpgpuCsrBaseAddress:
      state_.csr_base = address48(cmd.dw[1] & ~0xFFFU, cmd.dw[2]);
      return Outcome::kNext;
    case kMediaVfeState:
      // DW1: scratch space base pointer 31:10 (General State relative), per-thread scratch space 3:0 (1 KiB << n);
      // DW3 31:16: maximum number of threads - 1 (Mesa gen9.xml MEDIA_VFE_STATE).
      state_.scratch_pointer = cmd.dw[1] & ~0x3FFU;
      state_.per_thread_scratch = cmd.dw[1] & 0xFU;
      if (state_.per_thread_scratch > 11) {
        return engine.fail(&cmd, "MEDIA_VFE_STATE per-thread scratch space " +
                                     std::to_string(state_.per_thread_scratch) + " is reserved (0..11: 1 KiB..2 MiB)");
      }
      state_.max_threads = (cmd.dw[3] >> 16) + 1;
      state_.vfe_programmed = true;
      return Outcome::kNext;
    case kMediaCurbeLoad:
      // Constant URB data: Gen9 kernels from IGC read their payload from the indirect data instead (NEO emits no
      // MEDIA_CURBE_LOAD); a CURBE the model would not deliver is an error, not silently ignored.
      if ((cmd.dw[2] & 0x1FFFFU) != 0) {
        return engine.fail(&cmd, "MEDIA_CURBE_LOAD with data (constant URB payload delivery is not modelled)");
      }
      return Outcome::kNext;
    case kMediaInterfaceDescriptorLoad:
      state_.idd_length = cmd.dw[2] & 0x1FFFFU;
      state_.idd_start = cmd.dw[3];
      return Outcome::kNext;
    case kMediaStateFlush:
      // Walkers complete before the next command in this model: nothing is in flight to flush.
      return Outcome::kNext;
    case kGpgpuWalker: {
      const auto before = running_totals();
      const core::Picoseconds start = engine.local_time();
      walker_kernel_.reset();
      const Outcome outcome = walker(engine, cmd);
      if (walker_kernel_) add_kernel_totals(*walker_kernel_, before, engine.local_time() - start);
      return outcome;
    }
    default:
      return engine.fail(&cmd, std::string("the GPGPU pipe has no handler for ") + cmd.info->name);
  }
}

Outcome GpgpuPipe::state_base_address(const Command& cmd) {
  // Each base is a qword with bit 0 = modify enable (Mesa gen9.xml STATE_BASE_ADDRESS): DW1-2 general state,
  // DW4-5 surface state, DW6-7 dynamic state, DW8-9 indirect object, DW10-11 instruction.
  const auto update = [&](unsigned dw, std::uint64_t& base) {
    if (cmd.dw[dw] & 1U) base = address48(cmd.dw[dw] & ~0xFFFU, cmd.dw[dw + 1]);
  };
  update(1, state_.general_state_base);
  update(4, state_.surface_state_base);
  update(6, state_.dynamic_state_base);
  update(8, state_.indirect_object_base);
  const std::uint64_t old_instruction_base = state_.instruction_base;
  update(10, state_.instruction_base);
  // A new instruction base makes cached kernels stale (the hardware requires software to expect that).
  if (state_.instruction_base != old_instruction_base) decode_cache_->invalidate();
  return Outcome::kNext;
}

Outcome GpgpuPipe::walker(EngineContext& engine, const Command& cmd) {
  if (state_.pipeline != kPipelineGpgpu) {
    return engine.fail(&cmd, "GPGPU_WALKER while PIPELINE_SELECT has pipeline " + std::to_string(state_.pipeline) +
                                 " selected, not GPGPU (2)");
  }
  if (cmd.dw[0] & (1U << 8)) return engine.fail(&cmd, "GPGPU_WALKER with predication is not modelled");
  if (cmd.dw[0] & (1U << 10)) return engine.fail(&cmd, "GPGPU_WALKER with indirect parameters is not modelled");
  if (!state_.vfe_programmed) return engine.fail(&cmd, "GPGPU_WALKER before MEDIA_VFE_STATE");

  // ---- the interface descriptor (Mesa gen9.xml INTERFACE_DESCRIPTOR_DATA) ----
  const std::uint32_t idd_offset = (cmd.dw[1] & 0x3FU) * 32;
  if (idd_offset + 32 > state_.idd_length) {
    return engine.fail(&cmd, "GPGPU_WALKER interface descriptor " + std::to_string(cmd.dw[1] & 0x3FU) +
                                 " lies beyond the " + std::to_string(state_.idd_length) +
                                 " bytes MEDIA_INTERFACE_DESCRIPTOR_LOAD loaded");
  }
  std::uint32_t idd[8];
  if (!memory_->read(state_.dynamic_state_base + state_.idd_start + idd_offset, idd, sizeof idd)) {
    return Outcome::kStopped;
  }
  const std::uint64_t kernel = state_.instruction_base + ((std::uint64_t{idd[1] & 0xFFFFU} << 32) | (idd[0] & ~0x3FU));
  const std::uint32_t binding_table = idd[4] & 0xFFE0U;
  const unsigned per_thread_grfs = idd[5] >> 16;
  const unsigned cross_thread_grfs = idd[7] & 0xFFU;
  const std::uint32_t slm_code = (idd[6] >> 16) & 0x1FU;
  const std::uint32_t rounding = (idd[6] >> 22) & 3U;
  if (slm_code > 7)
    return engine.fail(&cmd, "interface descriptor SLM size " + std::to_string(slm_code) + " is reserved");
  const std::size_t slm_bytes = slm_code == 0 ? 0 : std::size_t{1024} << (slm_code - 1);
  // The L3's partition: its ways must fit the L3, and shared local memory lives in it.
  std::uint32_t l3 = 0;
  if (!engine.reg_read(gpgpu::kL3Cntlreg, l3)) return Outcome::kStopped;
  const eu::L3Partition partition = eu::L3Partition::decode(l3);
  if (partition.ways() > eu::L3Partition::kWays) {
    return engine.fail(&cmd, "L3CNTLREG (0x7034) " + core::format_hex(l3) + " allocates " +
                                 std::to_string(partition.ways()) + " ways of the L3's " +
                                 std::to_string(eu::L3Partition::kWays) + " (SLM " + std::to_string(partition.slm) +
                                 ", URB " + std::to_string(partition.urb) + ", RO " + std::to_string(partition.ro) +
                                 ", DC " + std::to_string(partition.dc) + ", all " + std::to_string(partition.all) +
                                 ")");
  }
  if (slm_bytes > 0) {
    // NEO programs its SLM configuration before a kernel with shared local memory.
    if ((l3 & gpgpu::kL3CntlregSlmEnable) == 0) {
      return engine.fail(&cmd, "kernel with " + std::to_string(slm_bytes) +
                                   " bytes of shared local memory while L3CNTLREG (0x7034) allocates none (SLM Enable, "
                                   "bit 0, is clear: " +
                                   core::format_hex(l3) + ")");
    }
  }
  if (1 + per_thread_grfs + cross_thread_grfs > eu::ThreadState::kGrfCount) {
    return engine.fail(&cmd, "interface descriptor payload of " +
                                 std::to_string(1 + per_thread_grfs + cross_thread_grfs) +
                                 " registers does not fit the 128-register file");
  }

  // ---- the walker (Mesa gen9.xml GPGPU_WALKER) ----
  const std::uint32_t indirect_length = cmd.dw[2] & 0x1FFFFU;
  const std::uint32_t indirect_start = cmd.dw[3] & ~0x3FU;
  const std::uint32_t simd_code = cmd.dw[4] >> 30;
  if (simd_code == 3) return engine.fail(&cmd, "GPGPU_WALKER SIMD size 3 is reserved");
  const unsigned simd = 8U << simd_code;
  const unsigned width = (cmd.dw[4] & 0x3FU) + 1;
  const unsigned height = ((cmd.dw[4] >> 8) & 0x3FU) + 1;
  const unsigned depth = ((cmd.dw[4] >> 16) & 0x3FU) + 1;
  const unsigned threads_per_group = width * height * depth;
  // Group IDs run from the starting ID up to the dimension, exclusive (NEO programs start 0 and the group count).
  const std::uint32_t x0 = cmd.dw[5], x_end = cmd.dw[7];
  const std::uint32_t y0 = cmd.dw[8], y_end = cmd.dw[10];
  const std::uint32_t z0 = cmd.dw[11], z_end = cmd.dw[12];
  const std::uint32_t right_mask = cmd.dw[13];
  const std::uint32_t bottom_mask = cmd.dw[14];
  // A group's threads share its barrier and shared local memory, which live in one subslice.
  if (threads_per_group > params_.subslice_threads()) {
    return engine.fail(&cmd, "GPGPU_WALKER thread group of " + std::to_string(threads_per_group) +
                                 " threads exceeds the " + std::to_string(params_.subslice_threads()) +
                                 " hardware threads of a subslice");
  }
  const std::size_t per_thread_bytes = per_thread_grfs * std::size_t{32};
  const std::size_t cross_thread_bytes = cross_thread_grfs * std::size_t{32};
  const std::size_t payload_bytes = cross_thread_bytes + threads_per_group * per_thread_bytes;
  if (indirect_length < payload_bytes) {
    return engine.fail(&cmd, "GPGPU_WALKER indirect data of " + std::to_string(indirect_length) +
                                 " bytes is shorter than the " + std::to_string(payload_bytes) +
                                 " bytes of payload the interface descriptor reads");
  }
  std::vector<std::uint8_t> indirect(payload_bytes);
  if (payload_bytes > 0 && !memory_->read(state_.indirect_object_base + indirect_start,
                                          static_cast<void*>(indirect.data()), static_cast<unsigned>(payload_bytes))) {
    return Outcome::kStopped;
  }

  const eu::Generation gen = engine.generation() >= 9 ? eu::Generation::kGen9 : eu::Generation::kGen8;
  std::shared_ptr<eu::Program> program = decode_cache_->program(kernel, gen);
  std::vector<std::uint8_t> slm;
  data_port_->bind({state_.surface_state_base, state_.general_state_base, binding_table, &slm});
  eu::ThreadGroup group(*program, *data_port_);
  const std::uint32_t scratch_bytes = 1024U << state_.per_thread_scratch;
  const std::uint32_t simd_mask = simd == 32 ? ~0U : (1U << simd) - 1;

  std::uint64_t instructions = 0;
  std::uint64_t groups = 0;   // thread groups run so far
  std::uint64_t charged = 0;  // engine cycles charged so far
  std::vector<eu::ThreadState> threads(threads_per_group);
  ++walkers_.value;
  walker_kernel_ = kernel;
  // The payload of thread group (x, y, z)'s threads; with `logs`, each thread records its memory requests there.
  // fftid(t): thread t's hardware thread (its FFTID), which indexes its scratch space.
  const auto init_group = [&](std::vector<eu::ThreadState>& threads, std::vector<eu::MemoryLog>* logs, std::uint32_t x,
                              std::uint32_t y, std::uint32_t z, const std::function<unsigned(unsigned)>& fftid_of) {
    if (logs != nullptr) logs->resize(threads_per_group);
    for (unsigned t = 0; t < threads_per_group; ++t) {
      eu::ThreadState& th = threads[t];
      th = eu::ThreadState{};
      if (logs != nullptr) {
        (*logs)[t].clear();
        th.memory_log = &(*logs)[t];
      }
      // R0 (Gen9 GPGPU; IGC WIFuncResolution, Mesa emit_cs_work_group_id_setup): r0.1 group X, r0.6 group Y,
      // r0.7 group Z, r0.2 barrier ID (bits 27:24; one group at a time here: 0), r0.5 scratch offset 31:10 |
      // FFTID 8:0 (the thread's slot, which also indexes stateless private memory).
      th.grf_write<std::uint32_t>(4, x);
      const unsigned fftid = fftid_of(t);
      th.grf_write<std::uint32_t>(5 * 4, state_.scratch_pointer + fftid * scratch_bytes + (fftid & 0x1FFU));
      th.grf_write<std::uint32_t>(6 * 4, y);
      th.grf_write<std::uint32_t>(7 * 4, z);
      // r1..: this thread's block of the per-thread data, then the cross-thread data.
      // (A payload may be empty: no copy from an empty buffer.)
      if (per_thread_bytes > 0) {
        std::memcpy(th.grf.data() + 32, indirect.data() + cross_thread_bytes + t * per_thread_bytes, per_thread_bytes);
      }
      if (cross_thread_bytes > 0) {
        std::memcpy(th.grf.data() + 32 + per_thread_bytes, indirect.data(), cross_thread_bytes);
      }
      th.cr0[0] = rounding << eu::cr0::kRoundingModeShift;
      std::uint32_t mask = simd_mask;
      // The last thread of a row takes the right execution mask, the last row the bottom mask.
      if (t % width == width - 1) mask &= right_mask;
      if (height > 1 && t / width % height == height - 1) mask &= bottom_mask;
      th.reset_control_flow(0, mask);
    }
  };
  // Counts what (part of) group (x, y, z) ran; an error outcome when the engine stops.
  const auto account = [&](const eu::ThreadGroupResult& r, bool started, std::uint32_t x, std::uint32_t y,
                           std::uint32_t z) -> std::optional<Outcome> {
    instructions += r.instructions;
    instructions_.value += r.instructions;
    barriers_.value += r.barriers;
    if (started) {
      ++groups;
      ++thread_groups_.value;
      threads_.value += threads_per_group;
    }
    update_data_port_stats();
    if (!r.ok) {
      if (r.memory_fault) return Outcome::kStopped;  // the engine stopped on the fault
      return engine.fail(&cmd, "kernel at " + core::format_hex(kernel) + ", thread group (" + std::to_string(x) + ", " +
                                   std::to_string(y) + ", " + std::to_string(z) + "): " + r.error);
    }
    return std::nullopt;
  };
  // Runs thread group (x, y, z) functionally to its end.
  const auto run_group = [&](std::uint32_t x, std::uint32_t y, std::uint32_t z) -> std::optional<Outcome> {
    init_group(threads, nullptr, x, y, z, [](unsigned t) { return t; });
    slm.assign(slm_bytes, 0);
    return account(group.run(threads, params_.thread_group_instruction_limit), true, x, y, z);
  };

  if (params_.timing == "array") {
    // The EU array times the groups as it dispatches them, and the engine's time follows the array's, so that the
    // rest of the model runs alongside a long walker. Each group runs functionally in steps, from when the array
    // places it and as far ahead of the array as a step's instructions (kStepInstructions per thread): its threads'
    // traces (a pointer per instruction) and memory logs stay short however long the kernel runs: a step runs only
    // the threads with less than a step's instructions still to issue. Groups placed together run interleaved, so
    // each has its own SLM, and each thread the scratch space of the hardware thread it runs on (its FFTID: EU x
    // threads per EU + slot; NEO sizes scratch for every hardware thread, HwHelper getComputeUnitsUsedForScratch).
    constexpr std::uint64_t kStepInstructions = 4096;
    eu::EuArrayParams ap;
    ap.slices = params_.slices;
    ap.subslices_per_slice = params_.subslices_per_slice;
    ap.eus_per_subslice = params_.eus_per_subslice;
    ap.dispatch_cycles = params_.dispatch_cycles;
    ap.barrier_cycles = params_.barrier_cycles;
    ap.core.threads = params_.threads_per_eu;
    ap.core.send_latency = params_.send_latency_cycles;
    eu::EuArray array(ap);
    const core::Picoseconds walker_start = engine.local_time();
    hierarchy_->restart();
    hierarchy_->resize_l3(partition.data_ways() * eu::L3Partition::way_kib(params_.l3_banks));
    l3_data_kib_.value = hierarchy_->l3_kib();
    array.attach_memory(hierarchy_.get());
    const DramLines dram_lines(*hierarchy_, engine, walker_start, params_.dram.gpu_clock_hz, dram_lines_unbooked_);
    std::uint32_t x = x0, y = y0, z = z0;
    std::optional<Outcome> stopped;
    struct InFlight {  // a group whose functional run has not ended, by its index in the array's run
      std::uint32_t x, y, z;
      std::vector<eu::ThreadState> threads;
      std::vector<eu::MemoryLog> logs;
      std::vector<std::uint8_t> slm;
      std::unique_ptr<eu::ThreadGroup> group;
    };
    std::map<std::size_t, InFlight> in_flight;
    std::size_t taken = 0;
    std::vector<bool> allowed;
    // Runs a step of the group and hands its threads' instructions and memory requests to `g`.
    const auto step = [&](std::size_t index, eu::EuArray::Group& g, bool started) {
      InFlight& f = in_flight.at(index);
      allowed.assign(threads_per_group, true);
      for (unsigned t = 0; t < threads_per_group; ++t) allowed[t] = array.backlog(index, t) < kStepInstructions;
      data_port_->bind({state_.surface_state_base, state_.general_state_base, binding_table, &f.slm});
      const eu::ThreadGroupResult r = f.group->resume(kStepInstructions, &g.threads, &allowed);
      g.memory.resize(f.logs.size());
      for (std::size_t t = 0; t < f.logs.size(); ++t) {
        g.memory[t] = std::move(f.logs[t]);
        f.logs[t].clear();
      }
      if (auto outcome = account(r, started, f.x, f.y, f.z)) stopped = outcome;
      if (f.group->done()) in_flight.erase(index);
      return !stopped;
    };
    const auto next = [&](eu::EuArray::Group& g) {
      if (stopped || x0 >= x_end || y0 >= y_end || z0 >= z_end || z >= z_end) return false;
      if (array.now() > charged) {
        engine.cycles(array.now() - charged);
        charged = array.now();
        engine.progress();
        if (!engine.pause_point()) {
          stopped = Outcome::kStopped;
          return false;
        }
      }
      // Its threads have no instructions yet: the array asks for them once it has placed the group.
      InFlight& f = in_flight[taken++];
      f.x = x;
      f.y = y;
      f.z = z;
      g.threads.resize(threads_per_group);
      if (++x == x_end) {
        x = x0;
        if (++y == y_end) {
          y = y0;
          ++z;
        }
      }
      return true;
    };
    const auto refill = [&](std::size_t index, eu::EuArray::Group& more) {
      if (stopped) return false;  // a stop or reset came first: the groups placed end with the walker
      const auto it = in_flight.find(index);
      if (it == in_flight.end()) {
        throw std::logic_error("EU array: a thread of group " + std::to_string(index) +
                               " needs instructions after its group ended");
      }
      InFlight& f = it->second;
      if (f.group) return step(index, more, false);
      f.threads.resize(threads_per_group);
      init_group(f.threads, &f.logs, f.x, f.y, f.z, [&](unsigned t) {
        const eu::EuArray::Placement p = array.placement(index, t);
        return p.eu * params_.threads_per_eu + p.slot;
      });
      f.slm.assign(slm_bytes, 0);
      f.group = std::make_unique<eu::ThreadGroup>(*program, *data_port_);
      f.group->begin(f.threads, params_.thread_group_instruction_limit);
      return step(index, more, true);
    };
    const std::uint64_t end = array.run(next, refill);
    update_hierarchy_stats();
    add_array_stats(array, end);
    if (stopped) return *stopped;
    if (end > charged) engine.cycles(end - charged);
    timeline_walker(array, kernel, walker_start, engine.local_time());
    array_cycles_.value += end;
    engine.progress();
    return Outcome::kNext;
  }

  for (std::uint32_t z = z0; z < z_end; ++z) {
    for (std::uint32_t y = y0; y < y_end; ++y) {
      for (std::uint32_t x = x0; x < x_end; ++x) {
        if (const auto stopped = run_group(x, y, z)) return *stopped;
        // Functional timing until the EU timing model (issue 19): the EUs share the instructions evenly, and the
        // thread dispatcher takes an engine cycle per group (so that no walker is free, whatever the
        // configuration). Charged as the groups end, so that a walker of very many groups lets the rest of the
        // model run (and stop signals and time limits reach it) between them; a group that ended is progress.
        const std::uint64_t due =
            groups + (instructions * params_.instruction_cycles + params_.eu_count() - 1) / params_.eu_count();
        engine.cycles(due - charged);
        charged = due;
        engine.progress();
        if (!engine.pause_point()) return Outcome::kStopped;
      }
    }
  }
  return Outcome::kNext;
}

// The state goes with the context (keyed by its LRCA) but not into its image: no public source gives the layout of
// the render state the hardware saves there, and an image that never held GPGPU state may be too short to hold it
// (i915's early layout is two pages). A context never seen starts from the power-on pipeline state.
bool GpgpuPipe::save_state(EngineContext&, std::uint64_t lrca) {
  if (state_.pipeline == 0 && !state_.vfe_programmed) {
    saved_.erase(lrca);
  } else {
    saved_[lrca] = state_;
  }
  return true;
}

bool GpgpuPipe::restore_state(EngineContext&, std::uint64_t lrca) {
  // The L3 model tags lines with graphics virtual addresses: another context's are other memory.
  if (hierarchy_ && lrca != restored_lrca_) hierarchy_->invalidate();
  restored_lrca_ = lrca;
  const std::uint64_t old_instruction_base = state_.instruction_base;
  const auto it = saved_.find(lrca);
  state_ = it != saved_.end() ? it->second : State{};
  if (state_.instruction_base != old_instruction_base) decode_cache_->invalidate();
  return true;
}

}  // namespace gpuvp::gen
