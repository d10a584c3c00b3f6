// Export round trip: every CV value written by `trails export` parses back to exactly the double
// stored in the ledger (%.17g), and the lineage rows follow the implied frame-record scheme.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

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
  const fs::path dir = fs::temp_directory_path() / ("trails-export-" + std::to_string(::getpid()));
  fs::remove_all(dir);
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

  std::ifstream cvs(dir / "cvs.csv");
  std::string line;
  std::getline(cvs, line);
  EXPECT_EQ(line, "iteration,walker,frame,cv_0,cv_1");
  for (const auto& r : records) {
    std::size_t row = 0;
    for (const auto& w : r.walkers) {
      for (std::int64_t f = 0; f < w.n_frames; ++f, ++row) {
        ASSERT_TRUE(std::getline(cvs, line));
        std::stringstream ss(line);
        std::string field;
        std::getline(ss, field, ',');
        EXPECT_EQ(std::stoll(field), r.iteration);
        std::getline(ss, field, ',');
        EXPECT_EQ(std::stoll(field), w.walker);  // raw walker index (walker 1 failed in it 1)
        std::getline(ss, field, ',');
        EXPECT_EQ(std::stoll(field), f);
        for (int k = 0; k < 2; ++k) {
          std::getline(ss, field, ',');
          const double back = std::strtod(field.c_str(), nullptr);
          EXPECT_EQ(back, r.cvs[row * 2 + k]) << line;  // bit-exact
        }
      }
    }
  }
  EXPECT_FALSE(std::getline(cvs, line));

  std::ifstream lineage(dir / "lineage.csv");
  std::getline(lineage, line);
  EXPECT_EQ(line, "key,parent");
  std::getline(lineage, line);
  EXPECT_EQ(line, "0:0:0,");
  std::getline(lineage, line);
  EXPECT_EQ(line, "0:0:1,0:0:0");
  std::string all((std::istreambuf_iterator<char>(lineage)), {});
  EXPECT_NE(all.find("\n1:0:0,0:0:3\n"), std::string::npos);
  EXPECT_EQ(all.find("1:1:"), std::string::npos);  // failed walker has no frames
  EXPECT_NE(all.find("\n1:2:0,0:0:3\n"), std::string::npos);
  fs::remove_all(dir);
}
