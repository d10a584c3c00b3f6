// The bad-input corpus: every tests/data/bad/<case>.yaml listed in cases.tsv must fail to load
// with a ConfigError containing the listed substring, every YAML file there must be listed, and
// loading must leave the corpus directory exactly as it was (no file created or touched).
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config_test_support.h"

namespace trails::config {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(TRAILS_TEST_DATA) / "bad";

struct Case {
  std::string file;
  std::string expect;
};

std::vector<Case> read_cases() {
  std::vector<Case> cases;
  std::ifstream in(kCorpus / "cases.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos) {
      ADD_FAILURE() << "cases.tsv line without a TAB: " << line;
      continue;
    }
    cases.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return cases;
}

// Every entry under the corpus: relative path -> (size, mtime, content) for files.
std::map<std::string, std::string> snapshot() {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(kCorpus)) {
    std::string state = e.is_directory() ? "dir" : "file";
    if (e.is_regular_file()) {
      std::ifstream in(e.path(), std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      state +=
          ":" + std::to_string(e.last_write_time().time_since_epoch().count()) + ":" + text.str();
    }
    out[fs::relative(e.path(), kCorpus).string()] = state;
  }
  return out;
}

TEST(BadCorpus, EveryCaseFailsWithItsMessage) {
  const auto before = snapshot();
  const std::vector<Case> cases = read_cases();
  ASSERT_GE(cases.size(), 30u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    ASSERT_TRUE(fs::is_regular_file(kCorpus / c.file)) << "listed but missing";
    const std::string message = testing::load_error(kCorpus / c.file);
    EXPECT_NE(message.find(c.expect), std::string::npos)
        << "expected substring: " << c.expect << "\nmessage:\n"
        << message;
    // Every message has the contract's header and FILE:LINE:COL (or FILE:) lines.
    EXPECT_EQ(message.find(" problem(s) in " + (kCorpus / c.file).string() + ":"),
              message.find(' '))
        << message;
  }
  EXPECT_EQ(snapshot(), before) << "loading changed the corpus directory";
}

TEST(BadCorpus, EveryYamlFileIsListedAndNamedNN) {
  std::set<std::string> listed;
  for (const Case& c : read_cases()) EXPECT_TRUE(listed.insert(c.file).second) << c.file;
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".yaml") continue;
    EXPECT_TRUE(listed.count(name)) << name << " is not in cases.tsv";
    EXPECT_TRUE(name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
                std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '-')
        << name;
  }
}

}  // namespace
}  // namespace trails::config
