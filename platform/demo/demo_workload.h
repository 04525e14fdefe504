// The embedded default workload of `gpuvp run` with no arguments: the host driver models (tb/host) record, for the
// platform configured, a host script that identifies the GPUs present and runs work on each, checking every result.
// It lives above the SoC library (which depends on no driver): the gpuvp executable hands it to run_simulation
// (RunOptions::default_workload).
#pragma once

#include <string>
#include <vector>

#include "platform/platform_params.h"

namespace gpuvp::demo {

// The demo's parts, each run when the platform has what it needs.
enum DemoPart : unsigned {
  kDemoVc4Frame = 1U << 0,  // identify the V3D, bin and render a frame with a fragment shader, check pixels
  kDemoVc4Fft = 1U << 1,    // the 256-point FFT as 8 QPU user programs
  kDemoGen = 1U << 2,       // Gen rings on every engine, GPGPU dispatches, execlists, the GuC
  kDemoAll = kDemoVc4Frame | kDemoVc4Fft | kDemoGen,
};

// A named selection of parts: `gpuvp run --workload NAME`, and the workloads a sweep can name.
struct DemoWorkload {
  const char* name;
  unsigned parts;
  const char* description;
};
const std::vector<DemoWorkload>& demo_workloads();
const DemoWorkload* find_demo_workload(const std::string& name);  // nullptr when there is none of that name

// A host script (script_interpreter.h protocol) of the given parts for the given platform.
std::string demo_script(const platform::PlatformParams& params, unsigned parts = kDemoAll);

}  // namespace gpuvp::demo
