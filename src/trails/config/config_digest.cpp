// config_digest.h. nlohmann's objects keep keys sorted and doubles print shortest-round-trip, so
// dump() is canonical and its digest stable.
#include "trails/config/config_digest.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace trails::config {
namespace {

using json = nlohmann::json;

void collect_changes(const json& a, const json& b, const std::string& prefix,
                     std::vector<std::string>& out) {
  // A block present on one side only names its own keys (output.position_precision, not output),
  // so a resume refusal names the key the user wrote.
  static const json no_block = json::object();
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      if (b.contains(key)) {
        collect_changes(value, b.at(key), path, out);
      } else if (value.is_object() && !value.empty()) {
        collect_changes(value, no_block, path, out);
      } else {
        out.push_back(path);
      }
    }
    for (const auto& [key, value] : b.items()) {
      if (a.contains(key)) continue;
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      if (value.is_object() && !value.empty()) {
        collect_changes(no_block, value, path, out);
      } else {
        out.push_back(path);
      }
    }
    return;
  }
  if (a != b) out.push_back(prefix);
}

}  // namespace

std::vector<std::string> keys_changed(const json& before, const json& after) {
  std::vector<std::string> out;
  collect_changes(before, after, "", out);
  std::sort(out.begin(), out.end());
  return out;
}

std::string digest_of(const json& canonical) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (const unsigned char byte : canonical.dump()) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;  // FNV-1a 64 prime
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace trails::config
