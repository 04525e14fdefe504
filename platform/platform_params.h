// Parameters of a whole platform: what the YAML config and --set fill. The defaults here are the embedded default
// platform; platform/configs/default.yaml spells the same values out (a test keeps the two equal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlm/core/config.h"
#include "tlm/core/host_poll.h"
#include "tlm/core/memory.h"
#include "tlm/gen/gen_gpu.h"
#include "tlm/vc4/v3d.h"

namespace gpuvp::platform {

struct SimParams {
  std::uint64_t quantum_ns = 1000;
  std::uint64_t seed = 1;
  std::uint64_t time_limit_ns = 0;
  std::string progress = "auto";
  std::uint64_t guest_report_limit = 10;

  void visit(core::ParamVisitor& v) {
    v.param("quantum_ns", quantum_ns, "temporal decoupling quantum; 0 synchronises at every access", 0, 1'000'000'000);
    v.param("seed", seed, "seed of every random choice in the model and workloads");
    v.param("time_limit_ns", time_limit_ns, "stop the run after this much simulated time; 0 = no limit");
    v.param("progress", progress, "progress line on stderr when it is a terminal; auto: unless CI is set",
            {"auto", "on", "off"});
    v.param("guest_report_limit", guest_report_limit,
            "guest reports of one kind (block, severity, source line, message without its numbers) shown before the "
            "rest are only counted (the "
            "summary and the statistic gpuvp.reports.guest_suppressed); 0 = no limit",
            0, 1'000'000'000);
  }
};

struct BusParams {
  std::uint64_t clock_hz = 1'000'000'000;
  std::uint32_t hop_latency_cycles = 2;
  std::uint32_t dram_port_bytes_per_cycle = 32;
  std::uint32_t mmio_port_bytes_per_cycle = 4;

  void visit(core::ParamVisitor& v) {
    v.param("clock_hz", clock_hz, "interconnect clock in Hz", 1'000'000, 10'000'000'000ULL);
    v.param("hop_latency_cycles", hop_latency_cycles, "latency of one hop through the bus", 0, 1000);
    v.param("dram_port_bytes_per_cycle", dram_port_bytes_per_cycle, "width of the DRAM port; 0 = no contention", 0,
            4096);
    v.param("mmio_port_bytes_per_cycle", mmio_port_bytes_per_cycle, "width of MMIO ports; 0 = no contention", 0, 4096);
  }
};

struct DramParams {
  std::uint64_t base = 0;
  core::MemoryParams memory;
  // For the GPU's memory hierarchy (gen.gpgpu.timing=array): lines interleave across channels, each with its share of
  // bytes_per_cycle, and every 64-byte access costs its channel this much beyond the transfer (row activations,
  // precharges, bus turnarounds and refresh, on average).
  std::uint32_t channels = 1;
  std::uint32_t access_overhead_ps = 0;

  void visit(core::ParamVisitor& v) {
    v.param("base", base, "physical base address");
    v.param("size", memory.size,
            "bytes of DRAM, a multiple of 4 KiB (sparse: only touched pages cost host memory); what does not fit "
            "below the MMIO windows is remapped above 4 GiB",
            4096, 1ULL << 40);
    v.param("page_size", memory.page_size, "host allocation and DMI granule in bytes (power of two)", 4096, 1ULL << 30);
    v.param("clock_hz", memory.clock_hz, "DRAM controller clock in Hz", 1'000'000, 10'000'000'000ULL);
    v.param("read_latency_cycles", memory.read_latency_cycles, "read latency", 0, 100000);
    v.param("write_latency_cycles", memory.write_latency_cycles, "write latency", 0, 100000);
    v.param("bytes_per_cycle", memory.bytes_per_cycle, "sustained bandwidth (all channels)", 1, 4096);
    v.param("channels", channels, "channels the GPU's L3 misses interleave across (gen.gpgpu.timing=array)", 1, 16);
    v.param("access_overhead_ps", access_overhead_ps,
            "time a 64-byte GPU access costs its channel beyond the transfer (gen.gpgpu.timing=array)", 0, 1'000'000);
    v.param("dmi", memory.dmi, "grant direct memory interface pointers");
  }
};

struct GenParams {
  bool enabled = true;
  std::uint64_t base = 0xE000'0000;
  gen::GenGpuParams gpu;

  void visit(core::ParamVisitor& v) {
    v.param("enabled", enabled, "instantiate the Intel Gen GPU");
    v.param("base", base, "physical address of the GTTMMADR BAR (16 MiB)");
    gpu.visit(v);
  }
};

struct Vc4Params {
  bool enabled = true;
  std::uint64_t base = 0xE100'0000;
  vc4::V3dParams v3d;

  void visit(core::ParamVisitor& v) {
    v.param("enabled", enabled, "instantiate the VideoCore IV 3D block");
    v.param("base", base, "physical address of the V3D register block (4 KiB)");
    v.group("v3d", v3d, "V3D core");
  }
};

// The host CPU that runs scripts, the qtest server and the TBX server.
struct HostParams {
  std::uint64_t poll_interval_ns = core::kDefaultPollIntervalNs;
  std::uint64_t tbx_read_wait_ns = 1'000'000;
  // NEO in TBX mode cannot learn of a GPU hang (no kernel driver tells it): it polls its tag for ever.
  std::uint64_t tbx_stall_timeout_ns = 20'000'000;
  // An engine waiting on a semaphore nobody will signal stays busy for ever: a wait for the GPU to finish needs a
  // bound.
  std::uint64_t gpu_wait_limit_ns = 100'000'000;

  void visit(core::ParamVisitor& v) {
    v.param("poll_interval_ns", poll_interval_ns,
            "start-to-start time between the reads of a poll command (pollb/pollw/polll/pollq), as a driver's busy "
            "loop; 0 = back to back",
            0, 1'000'000'000);
    v.param("tbx_read_wait_ns", tbx_read_wait_ns,
            "TBX server (run --tbx, exec): before answering a read it lets the model run for poll_interval_ns, then "
            "on in such steps while any engine is busy, up to this long",
            0, 1'000'000'000'000ULL);
    v.param("tbx_stall_timeout_ns", tbx_stall_timeout_ns,
            "TBX server: once an engine has stopped on an error or hang, a session whose GPU then stays idle this long "
            "while the client still reads ends as failed (the client waits for work that cannot complete); 0 = never",
            0, 1'000'000'000'000ULL);
    v.param(
        "gpu_wait_limit_ns", gpu_wait_limit_ns,
        "the longest the TBX server lets the GPU finish what the clients left when the session ends, and AUB replay "
        "waits in one poll or for the GPU at the trace's end, while an engine stays busy (one waiting on a "
        "semaphore nobody signals does for ever); 0 = no limit",
        0, 1'000'000'000'000ULL);
  }
};

struct PlatformParams {
  SimParams sim;
  BusParams bus;
  DramParams dram;
  GenParams gen;
  Vc4Params vc4;
  HostParams host;

  void visit(core::ParamVisitor& v) {
    v.group("sim", sim, "simulation control");
    v.group("bus", bus, "system interconnect");
    v.group("dram", dram, "main memory");
    v.group("gen", gen, "Intel Gen8/Gen9 GPU");
    v.group("vc4", vc4, "Broadcom VideoCore IV");
    v.group("host", host, "host CPU");
  }
};

// Loads the configuration: defaults, then each file in order (later files override earlier ones key by key), then
// each --set in order. Throws core::ConfigError.
// `defaults` (KEY=VALUE) come first: a mode's own defaults, which config files and overrides still change.
PlatformParams load_platform_params(const std::vector<std::string>& config_files,
                                    const std::vector<std::string>& overrides,
                                    const std::vector<std::string>& defaults = {});
// The same with at most one file (none when empty).
PlatformParams load_platform_params(const std::string& config_file, const std::vector<std::string>& overrides);

}  // namespace gpuvp::platform
