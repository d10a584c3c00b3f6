// Helpers shared by the config tests: a private temporary directory per test (removed on exit),
// writing a YAML file into it, and capturing the ConfigError message of a load.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "trails/config/load.h"
#include "trails/core/error.h"

namespace trails::config::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "t";
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    path_ =
        std::filesystem::temp_directory_path() / ("trails-config-" + std::to_string(::getpid()) +
                                                  "-" + std::to_string(counter++) + "-" + name);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

 private:
  std::filesystem::path path_;
};

// A complete, valid built-in Müller–Brown config (every required key), for variations.
inline std::string good_config() {
  return "outdir: out\n"                // line 1
         "n_bins: [30, 30]\n"           // 2
         "min_values: [-1.5, -0.5]\n"   // 3
         "max_values: [1.2, 2.0]\n"     // 4
         "system:\n"                    // 5
         "  start: [-0.558, 1.442]\n"   // 6
         "engine:\n"                    // 7
         "  md_engine: builtin\n"       // 8
         "  potential: muller_brown\n"  // 9
         "  kT: 15.0\n"                 // 10
         "  dt: 0.0001\n"               // 11
         "spawning:\n"                  // 12
         "  walker: 4\n"                // 13
         "  step: 100\n"                // 14
         "  stride: 10\n";              // 15
}

// The ConfigError message of loading `file`; fails the test if it loads or throws another type.
inline std::string load_error(const std::filesystem::path& file) {
  try {
    (void)load_campaign_config(file);
  } catch (const core::ConfigError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected ConfigError, got another exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected ConfigError, but " << file << " loaded";
  return {};
}

}  // namespace trails::config::testing
