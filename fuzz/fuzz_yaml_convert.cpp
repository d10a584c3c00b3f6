// The YAML converter (config/convert.h): a YAML document converted by one key's specification
// (type, range, choices, paths). The first byte picks the key of the schema, the rest is the
// document.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "trails/config/convert.h"
#include "trails/config/problems.h"
#include "trails/config/schema.h"
#include "trails/config/yaml_document.h"
#include "trails/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace cfg = trails::config::detail;
  if (size == 0) return 0;
  const auto& keys = cfg::all_keys();
  const cfg::KeySpec& spec = keys[data[0] % keys.size()];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    cfg::Problems problems("fuzz.yaml");
    const auto root = cfg::parse_document(text, problems);
    if (!root) return 0;
    nlohmann::json out;
    const cfg::ValueSite site{spec.dotted(), {}, "/fuzz"};
    if (cfg::convert_value(*root, spec, site, problems, out)) (void)out.dump();
    (void)problems.format();
  } catch (const trails::core::Error&) {
  }
  return 0;
}
