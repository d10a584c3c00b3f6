// Shared helpers for the run-store tests: a scratch directory per test, deterministic records
// with awkward values (large seeds, -0.0, subnormals), bit-exact comparisons and a directory
// snapshot (names, sizes, mtimes) to prove that an open changed nothing.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "support/files.h"
#include "trails/store/run_store.h"

namespace trails::store::test {

namespace fs = std::filesystem;

// A scratch directory on tmpfs (/dev/shm) when there is one and TEST_TMPDIR is unset: the
// tests exercise the protocol, not the disk, and fsync on tmpfs is free (seconds -> ms).
inline fs::path scratch_root() {
  std::error_code ec;
  if (std::getenv("TEST_TMPDIR") == nullptr && fs::is_directory("/dev/shm", ec) &&
      ::access("/dev/shm", W_OK) == 0) {
    return "/dev/shm";
  }
  return ::testing::TempDir();
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    dir_ = scratch_root() / ("trails_store_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// Runs SQL statements directly on a ledger (to age or damage it the way other versions or
// crashes would).
inline void sql(const fs::path& db, const std::string& statements) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(h, statements.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
}

inline RunMeta test_meta() {
  RunMeta m;
  m.trails_version = "0.1.0-test";
  m.config_digest = "sha256:abc123";
  m.config = {{"walkers", 4}, {"potential", {{"name", "muller_brown"}, {"kT", 0.1}}}};
  m.effective_config = {{"walkers", 4}, {"stride", 10}, {"seed", 42}};
  m.created_at = "2024-05-01T12:00:00.000Z";
  return m;
}

// A value stream with full-precision doubles and a few special values.
inline double test_value(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  if (i % 97 == 5) return -0.0;
  if (i % 89 == 7) return 4.9e-324;  // subnormal
  return static_cast<double>(x >> 11) * 0x1.0p-53 * 20.0 - 10.0;
}

struct Shape {
  int walkers = 4;
  std::int64_t frames = 5;
  int cv_dim = 2;
  int n_atoms = 3;
  int spatial_dim = 3;
  std::vector<int> failed = {2};  // walker indices that fail
};

inline IterationRecord make_record(std::int64_t iteration, const Shape& shape = {}) {
  IterationRecord r;
  r.iteration = iteration;
  r.cv_dim = shape.cv_dim;
  r.n_atoms = shape.n_atoms;
  r.spatial_dim = shape.spatial_dim;
  r.stride = 10;
  r.dt = 0.002;
  std::uint64_t k = static_cast<std::uint64_t>(iteration) * 1000003;
  std::vector<std::int64_t> ok_walkers;
  for (int w = 0; w < shape.walkers; ++w) {
    WalkerRecord wr;
    wr.walker = w;
    wr.seed = 0xF000000000000000ULL + static_cast<std::uint64_t>(iteration * 100 + w);
    wr.ok = std::find(shape.failed.begin(), shape.failed.end(), w) == shape.failed.end();
    wr.error = wr.ok ? "" : "engine exploded: NaN in forces";
    wr.n_frames = wr.ok ? shape.frames : 0;
    if (iteration > 0) wr.parent = core::FrameKey{iteration - 1, w, shape.frames - 1};
    wr.startup_s = 0.25 + w;
    wr.integrate_s = 1.0 / 3.0 + w;
    wr.platform = w % 2 == 0 ? "CUDA:0" : "CPU";
    wr.device = w % 2 == 0 ? "0 (NVIDIA H200)" : "2 threads";
    wr.visible_devices = w % 2 == 0 ? "CUDA_VISIBLE_DEVICES=0,1" : "";
    wr.host = "node-" + std::to_string(w);
    for (std::int64_t f = 0; f < wr.n_frames; ++f) {
      for (int c = 0; c < r.cv_dim; ++c) r.cvs.push_back(test_value(k++));
      for (int a = 0; a < r.n_atoms * r.spatial_dim; ++a) r.positions.push_back(test_value(k++));
    }
    if (wr.ok && wr.n_frames > 0) ok_walkers.push_back(w);
    r.walkers.push_back(std::move(wr));
  }
  for (int s = 0; s < shape.walkers && !ok_walkers.empty(); ++s) {
    const auto w = ok_walkers[static_cast<std::size_t>(s) % ok_walkers.size()];
    r.spawns.push_back({s, 3 * s + 1, core::FrameKey{iteration, w, s % shape.frames}});
  }
  r.runner_s = 12.5 + static_cast<double>(iteration);
  r.analysis_s = 0.1 * static_cast<double>(iteration + 1);
  r.cumulative_frames = (iteration + 1) * 15;
  r.occupied_bins = 7 + iteration;
  r.total_bins = 100;
  r.n_bins = {10, 10};
  r.state = {{"spawner", {{"weights", {0.1, 1.0 / 3.0, 2.0e-300}}}},
             {"resolution", 0.05},
             {"iteration", iteration}};
  return r;
}

// Positions of frame `f` of ok walker `w` in `r`.
inline std::vector<double> frame_positions(const IterationRecord& r, std::int64_t w,
                                           std::int64_t f) {
  std::int64_t row = 0;
  for (const auto& wr : r.walkers) {
    if (wr.walker == w) break;
    if (wr.ok) row += wr.n_frames;
  }
  const auto n = static_cast<std::size_t>(r.n_atoms * r.spatial_dim);
  const auto begin = r.positions.begin() + static_cast<std::ptrdiff_t>((row + f) * n);
  return {begin, begin + static_cast<std::ptrdiff_t>(n)};
}

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every field except positions (which live in the shard only).
inline void expect_same_record(const IterationRecord& a, const IterationRecord& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  ASSERT_EQ(a.walkers.size(), b.walkers.size());
  for (std::size_t i = 0; i < a.walkers.size(); ++i) {
    const auto& x = a.walkers[i];
    const auto& y = b.walkers[i];
    EXPECT_EQ(x.walker, y.walker);
    EXPECT_EQ(x.seed, y.seed);
    EXPECT_EQ(x.ok, y.ok);
    EXPECT_EQ(x.error, y.error);
    EXPECT_EQ(x.n_frames, y.n_frames);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_TRUE(same_bits(x.startup_s, y.startup_s));
    EXPECT_TRUE(same_bits(x.integrate_s, y.integrate_s));
    EXPECT_EQ(x.platform, y.platform);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.visible_devices, y.visible_devices);
    EXPECT_EQ(x.host, y.host);
  }
  EXPECT_EQ(a.cv_dim, b.cv_dim);
  EXPECT_TRUE(same_bits(a.cvs, b.cvs));
  EXPECT_EQ(a.n_atoms, b.n_atoms);
  EXPECT_EQ(a.spatial_dim, b.spatial_dim);
  EXPECT_EQ(a.stride, b.stride);
  EXPECT_TRUE(same_bits(a.dt, b.dt));
  ASSERT_EQ(a.spawns.size(), b.spawns.size());
  for (std::size_t i = 0; i < a.spawns.size(); ++i) {
    EXPECT_EQ(a.spawns[i].slot, b.spawns[i].slot);
    EXPECT_EQ(a.spawns[i].pool_index, b.spawns[i].pool_index);
    EXPECT_EQ(a.spawns[i].source, b.spawns[i].source);
  }
  EXPECT_TRUE(same_bits(a.runner_s, b.runner_s));
  EXPECT_TRUE(same_bits(a.analysis_s, b.analysis_s));
  EXPECT_EQ(a.cumulative_frames, b.cumulative_frames);
  EXPECT_EQ(a.occupied_bins, b.occupied_bins);
  EXPECT_EQ(a.total_bins, b.total_bins);
  EXPECT_EQ(a.n_bins, b.n_bins);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.state.dump(), b.state.dump());
}

// Names, sizes and modification times (ns) of everything under `dir`, the directories included.
using Snapshot = std::map<std::string, std::tuple<bool, std::uintmax_t, std::int64_t>>;

inline Snapshot snapshot(const fs::path& dir) {
  Snapshot out;
  auto add = [&](const fs::path& p) {
    const bool is_dir = fs::is_directory(p);
    out[fs::relative(p, dir.parent_path()).string()] = {
        is_dir, is_dir ? 0 : fs::file_size(p),
        static_cast<std::int64_t>(fs::last_write_time(p).time_since_epoch().count())};
  };
  add(dir);
  for (const auto& e : fs::recursive_directory_iterator(dir)) add(e.path());
  return out;
}

using test_support::read_bytes;
using test_support::write_bytes;

}  // namespace trails::store::test
