// The swarm's own keys (docs/swarm.md, "Keys") and the first pass over a swarm config document
// (internal to the config module): the `pathgennie:` and `convergence:` blocks and `workdir`
// read against their own key table, with unknown and duplicate keys reported (with a
// suggestion) and PathGennie blocks that Trails reads differently named with what to write;
// `engine:`, `system:` and `cvs:` handed on as a campaign-shaped document, which the campaign
// key table reads (swarm_config.cpp).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "trails/config/problems.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

class SwarmReader {
 public:
  // A swarm key's converted value (its default when absent or invalid) and where it was written.
  struct Value {
    nlohmann::json value;
    bool present = false;
    Position at;
  };

  SwarmReader(std::filesystem::path config_dir, Problems& problems);

  // Reads the swarm's keys; returns the campaign-shaped document of engine/system/cvs.
  YAML::Node read(const YAML::Node& root);

  const Value& at(const std::string& dotted) const { return values_.at(dotted); }

 private:
  void read_block(const std::string& block, Position at, const YAML::Node& value);
  void read_key(const KeySpec& spec, const YAML::Node& k, const YAML::Node& v);
  static std::string unknown_text(std::string_view block, const std::string& name);

  std::filesystem::path dir_;
  Problems& problems_;
  std::map<std::string, Value> values_;
};

}  // namespace trails::config::detail
