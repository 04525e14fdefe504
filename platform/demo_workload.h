// The embedded default workload of `gpuvp run` with no arguments. It grows as GPU blocks arrive; today it identifies
// the GPUs present and exercises the memory system the way a driver sets up its buffers, checking every result.
#pragma once

#include <string>

#include "platform/platform_params.h"

namespace gpuvp::platform {

// A host script (script_interpreter.h protocol) for the given platform.
std::string demo_script(const PlatformParams& params);

}  // namespace gpuvp::platform
