// GpgpuPipe: the render engine's GPGPU (media) pipeline: the state commands NEO emits on Gen9 (PIPELINE_SELECT,
// STATE_BASE_ADDRESS, MEDIA_VFE_STATE, MEDIA_INTERFACE_DESCRIPTOR_LOAD, MEDIA_CURBE_LOAD, MEDIA_STATE_FLUSH,
// STATE_SIP, GPGPU_CSR_BASE_ADDRESS) and GPGPU_WALKER, which dispatches the kernel's thread groups to the functional
// EU with the hardware's thread payload and runs them to completion (eu::ThreadGroup) before the next command.
//
// Facts: Mesa genxml gen8.xml/gen9.xml (command layouts), /docs/gen-gpgpu.md (the payload, what is modelled and
// the timing rule), NEO's captured Gen9 dispatch sequence (reference-eu-opencl.md §2).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tlm/core/config.h"
#include "tlm/core/stats_group.h"
#include "tlm/gen/eu/data_port.h"
#include "tlm/gen/eu/memory_hierarchy.h"
#include "tlm/gen/eu/program.h"
#include "tlm/gen/pipe_unit.h"

namespace gpuvp::gen {

namespace eu {
class EuArray;
}

// The built-in default of gen.gpgpu.timing ("array"); the GPGPU suites run once more with "functional" (CTest sets
// GPUVP_GPGPU_TIMING for those copies).
const std::string& default_gpgpu_timing();
void set_default_gpgpu_timing(const std::string& timing);

struct GpgpuParams {
  // The EU array's organisation (Gen9 GT2: 1 slice x 3 subslices x 8 EUs x 7 threads; Junkins, "The Compute
  // Architecture of Intel Processor Graphics Gen9", sections 5.3-5.6). A thread group runs within one subslice.
  std::uint32_t slices = 1;
  std::uint32_t subslices_per_slice = 3;
  std::uint32_t eus_per_subslice = 8;
  std::uint32_t threads_per_eu = 7;
  // Engine cycles per EU instruction on one EU; a walker takes instructions x this / EUs cycles plus its
  // memory accesses (a placeholder until the EU timing model: issue 19).
  std::uint32_t instruction_cycles = 1;
  std::uint64_t thread_group_instruction_limit = 200'000'000;
  // How a walker takes time: "functional" (instructions x instruction_cycles / EUs, plus the data port's line requests
  // one after another) or "array" (the EU array's issue model: docs/gen-eu-timing.md).
  std::string timing = default_gpgpu_timing();
  std::uint32_t dispatch_cycles = 2;
  std::uint32_t barrier_cycles = 90;
  std::uint32_t send_latency_cycles = 100;
  // The memory hierarchy under array timing (eu::MemoryHierarchy; Junkins, Gen9, sections 5.4-5.6).
  std::uint32_t data_port_bytes_per_cycle = 64;
  std::uint32_t l3_ways = 16;
  std::uint32_t l3_banks = 4;
  std::uint32_t l3_bank_bytes_per_cycle = 64;
  std::uint32_t l3_latency_cycles = 100;
  std::uint32_t slm_bytes_per_cycle = 64;
  std::uint32_t slm_latency_cycles = 100;
  std::uint32_t atomic_cycles = 1;
  std::uint32_t gti_bytes_per_cycle = 64;

  // Not parameters of their own: the GPU's clock (gen.clock_hz) and the DRAM behind the GTI (dram.*), filled in by
  // the GPU and the platform.
  struct Dram {
    std::uint64_t gpu_clock_hz = 1'000'000'000;
    std::uint64_t clock_hz = 1'000'000'000;
    std::uint32_t bytes_per_cycle = 32;  // all channels
    std::uint32_t channels = 1;
    std::uint32_t read_latency_cycles = 60;
    std::uint32_t access_overhead_ps = 0;
  } dram;

  std::uint32_t eu_count() const { return slices * subslices_per_slice * eus_per_subslice; }
  // The hardware threads of one subslice: the most one thread group may have.
  std::uint32_t subslice_threads() const { return eus_per_subslice * threads_per_eu; }

  void visit(core::ParamVisitor& v) {
    v.param("slices", slices, "slices of the EU array (Gen9: GT1/GT2 1, GT3 2, GT4 3)", 1, 8);
    v.param("subslices_per_slice", subslices_per_slice, "subslices per slice (Gen9: 3; GT1 2)", 1, 8);
    v.param("eus_per_subslice", eus_per_subslice, "execution units per subslice (Gen9: 8; GT1 6)", 1, 16);
    v.param("threads_per_eu", threads_per_eu, "hardware threads per EU (Gen9: 7)", 1, 16);
    v.param("instruction_cycles", instruction_cycles, "engine cycles per EU instruction on one EU", 0, 1000);
    v.param("thread_group_instruction_limit", thread_group_instruction_limit,
            "EU instructions a thread group may run before it is declared a kernel that never ends", 1000,
            1'000'000'000'000ULL);
    v.param("timing", timing,
            "how a walker takes time: functional (instruction_cycles per instruction shared by the EUs, plus the data "
            "port's line requests one after another) or array (each EU's issue model: threads, FPUs, scoreboard, "
            "dispatch, barriers; memory messages through the data port, L3 or SLM, GTI and DRAM)",
            {"functional", "array"});
    v.param("dispatch_cycles", dispatch_cycles, "array timing: GPU cycles between two thread launches of a subslice", 0,
            1000);
    v.param("barrier_cycles", barrier_cycles,
            "array timing: GPU cycles from a group's last barrier arrival until its threads go on", 0, 100000);
    v.param("send_latency_cycles", send_latency_cycles,
            "array timing: GPU cycles until the response of a message that reaches no memory (gateway, fence)", 1,
            100000);
    v.param("data_port_bytes_per_cycle", data_port_bytes_per_cycle,
            "array timing: bytes per GPU cycle of a subslice's data port, each way (Gen9: 64)", 1, 4096);
    v.param("l3_ways", l3_ways, "array timing: L3 associativity", 1, 64);
    v.param("l3_banks", l3_banks,
            "array timing: L3 banks per slice (Gen9 GT2: 4; 2 KiB per bank make one of the 96 ways L3CNTLREG "
            "partitions: 768 KiB)",
            1, 64);
    v.param("l3_bank_bytes_per_cycle", l3_bank_bytes_per_cycle, "array timing: bytes per GPU cycle of an L3 bank", 1,
            4096);
    v.param("l3_latency_cycles", l3_latency_cycles, "array timing: GPU cycles from a send until an L3 hit's data", 1,
            100000);
    v.param("slm_bytes_per_cycle", slm_bytes_per_cycle,
            "array timing: bytes per GPU cycle of a subslice's shared local memory", 1, 4096);
    v.param("slm_latency_cycles", slm_latency_cycles, "array timing: GPU cycles from a send until SLM data", 1, 100000);
    v.param("atomic_cycles", atomic_cycles, "array timing: GPU cycles an L3 bank or the SLM takes per atomic lane", 0,
            1000);
    v.param("gti_bytes_per_cycle", gti_bytes_per_cycle,
            "array timing: bytes per GPU cycle between the slices and memory (GTI), each way (Gen9: 64)", 1, 4096);
  }
};

class GpgpuPipe final : public PipeUnit {
 public:
  // stats: the engine's group; the pipe's statistics are its "gpgpu.*".
  GpgpuPipe(const GpgpuParams& params, const core::StatsGroup& stats);
  ~GpgpuPipe() override;

  Pipe pipe() const override { return Pipe::kGpgpu; }
  Outcome execute(EngineContext& engine, const Command& cmd) override;
  bool save_state(EngineContext& engine, std::uint64_t lrca) override;
  bool restore_state(EngineContext& engine, std::uint64_t lrca) override;
  void reset() override;

  // PIPE_CONTROL with Instruction Cache Invalidate: kernels are decoded afresh.
  void invalidate_instruction_cache();

  // Pipeline state (for tests and the context image).
  struct State {
    std::uint32_t pipeline = 0;  // PIPELINE_SELECT: 0 3D, 1 media, 2 GPGPU
    std::uint64_t general_state_base = 0;
    std::uint64_t surface_state_base = 0;
    std::uint64_t dynamic_state_base = 0;
    std::uint64_t indirect_object_base = 0;
    std::uint64_t instruction_base = 0;
    std::uint32_t scratch_pointer = 0;     // MEDIA_VFE_STATE DW1 31:10 (General State relative)
    std::uint32_t per_thread_scratch = 0;  // DW1 3:0: 1 KiB << n
    std::uint32_t max_threads = 0;         // DW3 31:16 + 1
    std::uint32_t idd_length = 0;          // MEDIA_INTERFACE_DESCRIPTOR_LOAD
    std::uint32_t idd_start = 0;           // DSH-relative
    std::uint64_t sip = 0;
    std::uint64_t csr_base = 0;
    bool vfe_programmed = false;
  };
  const State& state() const { return state_; }

 private:
  class Memory;
  class DramLines;
  Outcome state_base_address(const Command& cmd);
  Outcome walker(EngineContext& engine, const Command& cmd);

  void update_data_port_stats();
  void update_hierarchy_stats();
  // Per kernel: the pipe's running totals before a walker, and what the walker added to them, under
  // gen.rcs.gpgpu.kernels.<kernel address>.
  static constexpr std::size_t kKernelTotals = 13;
  std::array<std::uint64_t, kKernelTotals> running_totals() const;
  void add_kernel_totals(std::uint64_t kernel, const std::array<std::uint64_t, kKernelTotals>& before,
                         core::Picoseconds time);
  // Adds a walker's EU statistics; `cycles`: the walker's time on the array.
  void add_array_stats(const eu::EuArray& array, std::uint64_t cycles);
  void timeline_walker(const eu::EuArray& array, std::uint64_t kernel, core::Picoseconds start, core::Picoseconds end);

  GpgpuParams params_;
  State state_;
  core::StatsGroup stats_;
  core::Counter& walkers_;
  core::Counter& thread_groups_;
  core::Counter& threads_;
  core::Counter& instructions_;
  core::Counter& barriers_;
  core::Counter& messages_;
  core::Counter& bytes_read_;
  core::Counter& bytes_written_;
  core::Counter& lines_read_;
  core::Counter& lines_written_;
  core::Counter& atomics_;
  core::Counter& out_of_bounds_;
  core::Counter& array_cycles_;
  core::Counter& l3_hits_;
  core::Counter& l3_misses_;
  core::Counter& l3_writebacks_;
  core::Counter& slm_lines_;
  core::Counter& l3_data_kib_;
  core::Counter& dram_read_lines_;
  core::Counter& dram_written_lines_;
  core::Counter& dram_lines_unbooked_;
  // Array timing, per subslice: instructions by class, FPU busy cycles, threads ended, flops.
  struct SubsliceStats {
    core::CounterVector instructions;
    core::CounterVector by_width;
    core::Counter* flops16;
    core::CounterVector fpu_busy;
    core::Counter* threads;
    core::Counter* active_cycles;
    core::Counter* thread_cycles;
    core::Counter* flops32;
    core::Counter* flops64;
    core::Counter* stalled_cycles;
    core::Counter* idle_cycles;
    core::CounterVector thread_stalls;
  };
  std::vector<SubsliceStats> subslice_stats_;
  struct EuStats {  // Intel's EU active / stall / idle split of the walkers' array cycles, and the EU's load
    core::Counter* active_cycles;
    core::Counter* stalled_cycles;
    core::Counter* idle_cycles;
    core::Counter* instructions;
  };
  std::vector<EuStats> eu_stats_;
  struct KernelTotals {
    core::Counter* walkers;
    core::Counter* time_ps;
    std::array<core::Counter*, kKernelTotals> totals;  // running_totals()' order
  };
  std::map<std::uint64_t, KernelTotals> kernel_totals_;
  std::optional<std::uint64_t> walker_kernel_;  // the kernel of the walker running, once its descriptor is read
  std::unique_ptr<Memory> memory_;
  std::unique_ptr<Memory> data_port_memory_;  // untimed under array timing: the array times the messages
  std::unique_ptr<eu::DecodeCache> decode_cache_;
  std::unique_ptr<eu::DataPort> data_port_;
  std::unique_ptr<eu::MemoryHierarchy> hierarchy_;  // array timing only
  std::uint64_t restored_lrca_ = 0;
  int kernel_track_ = -1;  // timeline tracks, made at the first walker with the timeline on
  std::vector<int> subslice_tracks_;
  std::map<std::uint64_t, State> saved_;  // by LRCA: the pipeline state of contexts switched out
};

}  // namespace gpuvp::gen
