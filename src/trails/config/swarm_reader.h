// The swarm's own keys (docs/swarm.md, "Keys") and the first pass over a swarm config document
// (internal to the config module): the `pathgennie:` and `convergence:` blocks and `workdir`
// read against their own key table, with unknown and duplicate keys reported (with a
// suggestion) and PathGennie blocks that Trails reads differently named with what to write;
// `engine:`, `system:`, `cvs:` and `execution:` handed on as a campaign-shaped document, which the
// campaign key table reads (swarm_config.cpp).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "trails/config/problems.h"
#include "trails/config/schema.h"
#include "trails/config/swarm_config.h"

namespace trails::config::detail {

class SwarmReader {
 public:
  // A swarm key's converted value (its default when absent or invalid) and where it was written.
  struct Value {
    nlohmann::json value;
    bool present = false;
    Position at;
  };

  // `display_file`: the config file as the user named it, for locations in messages.
  SwarmReader(std::filesystem::path config_dir, std::string display_file, Problems& problems);

  // Reads the swarm's keys; returns the campaign-shaped document of engine/system/cvs.
  YAML::Node read(const YAML::Node& root);

  const Value& at(const std::string& dotted) const { return values_.at(dotted); }

  // PathGennie's Python blocks (swarm_pathgennie.cpp): `projection:` and a `convergence:` with
  // a module.
  const std::optional<PythonFunction>& projection() const { return projection_; }
  const std::vector<double>& projection_periods() const { return periods_; }
  const std::optional<PythonFunction>& convergence_function() const { return convergence_; }
  // `projection: {model: RUN_DIR, iteration: N}`: a stored learned model as the CVs.
  const std::optional<LearnedProjection>& learned_projection() const { return learned_; }

 private:
  // swarm_pathgennie.cpp: a {module, function, **kwargs} block; in `convergence:` the
  // declarative keys are read as usual and the rest are the function's kwargs.
  std::optional<PythonFunction> read_function(const std::string& block, const YAML::Node& k,
                                              const YAML::Node& v);
  // `projection:` naming a learned model (a mapping with a `model` key).
  std::optional<LearnedProjection> read_learned_projection(const YAML::Node& k,
                                                           const YAML::Node& v);
  // projection.periodic: per component true (2π), false (0) or a period.
  void read_periods(const YAML::Node& v, const std::string& dotted);
  // swarm_pathgennie.cpp: PathGennie's `openmm:` block, written into the campaign-shaped
  // document's engine/system blocks (docs/swarm.md has the table).
  void read_openmm(const YAML::Node& k, const YAML::Node& v, YAML::Node& md);

  void read_block(const std::string& block, Position at, const YAML::Node& value);
  // The keys of a swarm's `execution:` block that a swarm uses (the campaign key table reads
  // them); the others are reported, devices with pointers to pathgennie.devices.
  void check_execution_block(const YAML::Node& block);
  void read_key(const KeySpec& spec, const YAML::Node& k, const YAML::Node& v);
  static const KeySpec* key_spec(std::string_view block, std::string_view name);
  static std::string unknown_text(std::string_view block, const std::string& name);

  std::filesystem::path dir_;
  std::string file_;
  Problems& problems_;
  std::optional<PythonFunction> projection_;
  std::vector<double> periods_;
  std::optional<PythonFunction> convergence_;
  std::optional<LearnedProjection> learned_;
  std::map<std::string, Value> values_;
};

}  // namespace trails::config::detail
