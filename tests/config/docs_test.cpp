// docs/configuration.md documents every key of the key table (so the reference cannot fall
// behind the loader), and says for each block whether this build supports it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "trails/config/schema.h"

namespace trails::config {
namespace {

TEST(ConfigurationDocs, EveryKeyIsDocumented) {
  std::ifstream in(std::filesystem::path(TRAILS_SOURCE_DIR) / "docs" / "configuration.md");
  ASSERT_TRUE(in) << "docs/configuration.md is missing";
  std::ostringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const auto& key : detail::all_keys()) {
    // Each key appears as a table row "| `name` |" inside its block's section.
    const std::string section =
        key.block.empty() ? "## Top level" : "## `" + std::string(key.block) + "`";
    const auto start = doc.find(section);
    ASSERT_NE(start, std::string::npos) << "no section " << section;
    const auto end = doc.find("\n## ", start + 1);
    const std::string body = doc.substr(start, end == std::string::npos ? end : end - start);
    EXPECT_NE(body.find("| `" + std::string(key.name) + "` |"), std::string::npos)
        << key.dotted() << " is not documented in " << section;
  }
}

}  // namespace
}  // namespace trails::config
