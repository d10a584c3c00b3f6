// Export round trip: every CV value written by `trails export` parses back to exactly the double
// stored in the ledger (%.17g), and the lineage rows follow the implied frame-record scheme.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/files.h"
#include "trails/core/rng.h"
#include "trails/report/export/export.h"
#include "trails/store/run_store.h"

namespace fs = std::filesystem;
using namespace trails;

namespace {

store::IterationRecord make_record(std::int64_t it, core::Rng& rng) {
  store::IterationRecord r;
  r.iteration = it;
  r.cv_dim = 2;
  r.n_atoms = 1;
  r.spatial_dim = 2;
  r.stride = 10;
  r.dt = 0.001;
  for (std::int64_t w = 0; w < 3; ++w) {
    store::WalkerRecord wr;
    wr.walker = w;
    wr.seed = 100 + w;
    wr.ok = !(it == 1 && w == 1);  // one failed walker
    wr.n_frames = wr.ok ? 4 : 0;
    if (it > 0) wr.parent = core::FrameKey{it - 1, 0, 3};
    r.walkers.push_back(wr);
    for (std::int64_t f = 0; f < wr.n_frames * 2; ++f) {
      // Awkward doubles: tiny, huge, negative, many digits.
      const double v =
          (rng.uniform() - 0.5) * std::pow(10.0, static_cast<double>(rng.below(40)) - 20);
      r.cvs.push_back(v);
    }
  }
  r.positions = r.cvs;
  r.spawns.push_back({0, 0, core::FrameKey{it, 0, 3}});
  r.n_bins = {30, 30};
  r.state = nlohmann::json::object();
  return r;
}

}  // namespace

TEST(Export, CvValuesRoundTripBitExactlyAndLineageFollowsRecords) {
  const fs::path dir = test_support::fresh_dir();
  core::Rng rng(17);
  std::vector<store::IterationRecord> records;
  {
    auto st = store::RunStore::create(dir / "run", store::RunMeta{});
    for (std::int64_t it = 0; it < 3; ++it) {
      records.push_back(make_record(it, rng));
      st.commit(records.back());
    }
  }
  report::export_run({dir / "run", dir / "cvs.csv", dir / "lineage.csv"});

  const auto cvs = test_support::read_csv(dir / "cvs.csv");
  EXPECT_EQ(cvs.header, (std::vector<std::string>{"iteration", "walker", "frame", "cv_0", "cv_1"}));
  std::size_t line = 0;
  for (const auto& r : records) {
    std::size_t row = 0;
    for (const auto& w : r.walkers) {
      for (std::int64_t f = 0; f < w.n_frames; ++f, ++row, ++line) {
        ASSERT_LT(line, cvs.rows.size());
        const auto& cells = cvs.rows[line];
        ASSERT_EQ(cells.size(), 5u);
        EXPECT_EQ(std::stoll(cells[0]), r.iteration);
        EXPECT_EQ(std::stoll(cells[1]), w.walker);  // raw walker index (walker 1 failed in it 1)
        EXPECT_EQ(std::stoll(cells[2]), f);
        for (std::size_t k = 0; k < 2; ++k) {
          const double back = std::strtod(cells[3 + k].c_str(), nullptr);
          EXPECT_EQ(back, r.cvs[row * 2 + k]) << "row " << line;  // bit-exact
        }
      }
    }
  }
  EXPECT_EQ(line, cvs.rows.size());

  const auto lineage = test_support::read_csv(dir / "lineage.csv");
  EXPECT_EQ(lineage.header, (std::vector<std::string>{"key", "parent"}));
  ASSERT_GE(lineage.rows.size(), 2u);
  EXPECT_EQ(lineage.rows[0], (std::vector<std::string>{"0:0:0", ""}));
  EXPECT_EQ(lineage.rows[1], (std::vector<std::string>{"0:0:1", "0:0:0"}));
  const std::string all = test_support::read_text(dir / "lineage.csv");
  EXPECT_NE(all.find("\n1:0:0,0:0:3\n"), std::string::npos);
  EXPECT_EQ(all.find("1:1:"), std::string::npos);  // failed walker has no frames
  EXPECT_NE(all.find("\n1:2:0,0:0:3\n"), std::string::npos);
}
