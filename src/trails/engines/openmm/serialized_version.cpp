#include "trails/engines/openmm/serialized_version.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <vector>

#include <OpenMM.h>
#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/engines/openmm/platform.h"

namespace trails::engines::openmm {
namespace {

std::string first_tag(std::string_view xml) {
  std::size_t at = 0;
  for (;;) {  // skip the <?xml ...?> declaration and comments
    at = xml.find('<', at);
    if (at == std::string_view::npos || at + 1 >= xml.size()) return {};
    if (xml[at + 1] != '?' && xml[at + 1] != '!') break;
    ++at;
  }
  const std::size_t end = xml.find('>', at);
  return std::string(xml.substr(at, end == std::string_view::npos ? end : end - at));
}

}  // namespace

std::optional<std::string> serialized_openmm_version(std::string_view xml) {
  const std::string tag = first_tag(xml);
  const std::string key = " openmmVersion=\"";
  const std::size_t at = tag.find(key);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t begin = at + key.size();
  const std::size_t end = tag.find('"', begin);
  if (end == std::string::npos) return std::nullopt;
  return tag.substr(begin, end - begin);
}

bool newer_openmm_version(std::string_view a, std::string_view b) {
  const auto parts = [](std::string_view v) {
    std::vector<long> out;
    std::size_t i = 0;
    while (i < v.size()) {
      long n = 0;
      while (i < v.size() && v[i] >= '0' && v[i] <= '9') n = 10 * n + (v[i++] - '0');
      out.push_back(n);
      while (i < v.size() && v[i] != '.') ++i;  // "1.dev-abc": the number only
      ++i;
    }
    return out;
  };
  const auto pa = parts(a);
  const auto pb = parts(b);
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    const long x = i < pa.size() ? pa[i] : 0;
    const long y = i < pb.size() ? pb[i] : 0;
    if (x != y) return x > y;
  }
  return false;
}

void check_deserializable(const std::string& xml, const std::filesystem::path& file,
                          bool integrator, const std::string& prepared_by) {
  try {
    std::istringstream in(xml);
    if (integrator) {
      std::unique_ptr<OpenMM::Integrator> read(
          OpenMM::XmlSerializer::deserialize<OpenMM::Integrator>(in));
    } else {
      std::unique_ptr<OpenMM::System> read(OpenMM::XmlSerializer::deserialize<OpenMM::System>(in));
    }
  } catch (const std::exception& e) {
    const std::string mine = openmm_version();
    const std::optional<std::string> attribute = serialized_openmm_version(xml);
    const std::string writer = attribute ? *attribute : prepared_by;
    const std::string source =
        attribute ? "its openmmVersion" : "the OpenMM of the Python that prepared it";
    if (!writer.empty() && newer_openmm_version(writer, mine)) {
      throw core::InputError(fmt::format(
          "{}: written by OpenMM {} ({}), which this build's OpenMM {} cannot read (OpenMM: {}). "
          "Build Trails against OpenMM {} or newer (cmake -DOpenMM_ROOT=PREFIX; `make deps` "
          "installs OpenMM 8 in .venv/: docs/engines.md, \"OpenMM 7.7 or 8\"), or serialize the "
          "{} again with OpenMM {}",
          file.string(), writer, source, mine, e.what(), writer,
          integrator ? "Integrator" : "System", mine));
    }
    throw core::InputError(fmt::format("{}: OpenMM {} cannot read it{}: {}", file.string(), mine,
                                       writer.empty() ? "" : " (written by OpenMM " + writer + ")",
                                       e.what()));
  }
}

}  // namespace trails::engines::openmm
