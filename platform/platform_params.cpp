#include "platform/platform_params.h"

#include "platform/memory_map.h"

namespace gpuvp::platform {

PlatformParams load_platform_params(const std::vector<std::string>& config_files,
                                    const std::vector<std::string>& overrides,
                                    const std::vector<std::string>& defaults) {
  core::ConfigTree tree;
  for (const auto& d : defaults) tree.apply_override(d);
  for (const auto& file : config_files) tree.load_file(file);
  for (const auto& o : overrides) tree.apply_override(o);
  PlatformParams params;
  tree.bind(params);
  if ((params.dram.memory.page_size & (params.dram.memory.page_size - 1)) != 0) {
    throw core::ConfigError("config key 'dram.page_size': must be a power of two");
  }
  plan_memory_map(params);  // DRAM placed around the MMIO windows, or a one-line error naming the key
  return params;
}

PlatformParams load_platform_params(const std::string& config_file, const std::vector<std::string>& overrides) {
  return load_platform_params(config_file.empty() ? std::vector<std::string>{} : std::vector<std::string>{config_file},
                              overrides);
}

}  // namespace gpuvp::platform
