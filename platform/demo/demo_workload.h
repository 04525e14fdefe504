// The embedded default workload of `gpuvp run` with no arguments: the host driver models (tb/host) record, for the
// platform configured, a host script that identifies the GPUs present and runs work on each, checking every result.
// It lives above the SoC library (which depends on no driver): the gpuvp executable hands it to run_simulation
// (RunOptions::default_workload).
#pragma once

#include <string>

#include "platform/platform_params.h"

namespace gpuvp::demo {

// A host script (script_interpreter.h protocol) for the given platform.
std::string demo_script(const platform::PlatformParams& params);

}  // namespace gpuvp::demo
