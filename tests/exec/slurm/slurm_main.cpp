// The main of test_exec_slurm (tests/CMakeLists.txt): the tests run on a private one-node SLURM
// cluster (scripts/slurm-local, docs/execution.md "SLURM on one machine") found through
// SLURM_CONF, as the scheduler's clients find it. Under ctest that is the fixture slurm_local's
// cluster, stopped by ctest even when a test times out; without SLURM_CONF (run by hand) this
// main starts one in a directory of its own under TMPDIR and stops it after the tests by the pid
// files of its daemons.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "trails/core/subprocess.h"
#include "trails/core/temp_dir.h"

namespace {

namespace fs = std::filesystem;

class LocalSlurm final : public ::testing::Environment {
 public:
  void SetUp() override {
    if (std::getenv("SLURM_CONF") != nullptr) return;  // a cluster that is not ours
    dir_ = std::make_unique<trails::core::TempDir>("trails-slurm");
    // munged runs as the munge user and must reach its socket below this directory.
    fs::permissions(dir_->path(),
                    fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    const auto r = run("start");
    const std::string line = "export SLURM_CONF=";
    const auto at = r.stdout_text.find(line);
    ASSERT_TRUE(r.status.ok() && at != std::string::npos)
        << "scripts/slurm-local could not start a cluster: " << r.stdout_text << r.stderr_tail;
    std::string conf = r.stdout_text.substr(at + line.size());
    conf = conf.substr(0, conf.find('\n'));
    ::setenv("SLURM_CONF", conf.c_str(), 1);
  }
  void TearDown() override {
    if (!dir_) return;
    const auto r = run("stop");
    EXPECT_TRUE(r.status.ok()) << r.stderr_tail;
    dir_.reset();  // gtest never destroys its environments
  }

 private:
  trails::core::ProcessResult run(const std::string& action) const {
    trails::core::ProcessOptions o;
    o.timeout = std::chrono::seconds(60);
    return trails::core::run_process(
        {"bash", std::string(TRAILS_SOURCE_DIR) + "/scripts/slurm-local", action,
         dir_->path().string()},
        o);
  }
  std::unique_ptr<trails::core::TempDir> dir_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new LocalSlurm);  // gtest owns it
  return RUN_ALL_TESTS();
}
