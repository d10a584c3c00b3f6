// The configuration loader (config/load.h, config/swarm_config.h) on arbitrary bytes as a YAML
// file: a campaign or a swarm configuration, chosen as `trails` chooses (is_swarm_config).
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "trails/config/load.h"
#include "trails/config/swarm_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return trails::fuzz::read_as_file(data, size, ".yaml", [](const auto& file) {
    if (trails::config::is_swarm_config(file)) {
      (void)trails::config::load_swarm_config(file);
    } else {
      (void)trails::config::load_campaign_config(file);
    }
  });
}
