// MdSystemConfig::engine_spec() and a spec as JSON and back (for worker processes) through the
// engine modules' table (config/engines/); the JSON helpers the modules' specs share.
#include <utility>

#include "trails/config/engines/engine_module.h"
#include "trails/config/md_system_config.h"
#include "trails/core/error.h"

namespace trails::config {

namespace {

const detail::EngineModule& module_of(const EngineConfig& engine) {
  const detail::EngineModule* module = detail::engine_module(engine.md_engine);
  // The schema admits only the registry's engines; reaching this is a bug, not bad input.
  if (module == nullptr) {
    throw core::InternalError("engine.md_engine: no module for '" + engine.md_engine + "'");
  }
  return *module;
}

}  // namespace

EngineSpec MdSystemConfig::engine_spec(const SegmentShape& segment) const {
  return module_of(engine).spec(*this, segment);
}

bool MdSystemConfig::point_system() const {
  const detail::EngineModule& module = module_of(engine);
  return module.point_system != nullptr && module.point_system(*this);
}

WalkerFilesSpec MdSystemConfig::walker_files() const {
  WalkerFilesSpec files;
  if (execution.scheduler.scratch) files.scratch = *execution.scheduler.scratch;
  files.keep_walker_files = engine.keep_walker_files;
  return files;
}

namespace {

using json = nlohmann::json;

}  // namespace

namespace detail {

json path_json(const std::optional<std::filesystem::path>& p) {
  return p ? json(p->string()) : json(nullptr);
}
std::optional<std::filesystem::path> path_of(const json& j) {
  if (j.is_null()) return std::nullopt;
  return std::filesystem::path(j.get<std::string>());
}

json optional_string_json(const std::optional<std::string>& s) {
  return s ? json(*s) : json(nullptr);
}
std::optional<std::string> optional_string_of(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<std::string>();
}

void put_external(json& j, const WalkerFilesSpec& files, const std::optional<double>& timeout_s) {
  j["scratch"] = path_json(files.scratch);
  j["keep_walker_files"] = files.keep_walker_files;
  j["timeout_s"] = timeout_s ? json(*timeout_s) : json(nullptr);
}
void get_external(const json& j, WalkerFilesSpec& files, std::optional<double>& timeout_s) {
  files.scratch = path_of(j.at("scratch"));
  files.keep_walker_files = j.at("keep_walker_files").get<bool>();
  if (!j.at("timeout_s").is_null()) timeout_s = j.at("timeout_s").get<double>();
}

}  // namespace detail

nlohmann::json engine_spec_json(const EngineSpec& spec) {
  for (const detail::EngineModule* module : detail::engine_modules()) {
    if (module->owns(spec)) return module->spec_json(spec);
  }
  throw core::InternalError("engine spec: no engine module owns it");
}

EngineSpec engine_spec_from_json(const nlohmann::json& j) {
  try {
    const std::string engine = j.at("engine").get<std::string>();
    const detail::EngineModule* module = detail::engine_module(engine);
    if (module == nullptr) {
      throw core::CorruptionError("engine spec: unknown engine '" + engine + "'");
    }
    return module->spec_from_json(j);
  } catch (const json::exception& e) {
    throw core::CorruptionError(std::string("engine spec from the driver: ") + e.what());
  }
}

}  // namespace trails::config
