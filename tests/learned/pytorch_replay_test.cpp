// The same training through PyTorch from Python (bench/learned_pytorch.py, Debian's
// python3-torch: the same 1.13 library): same seed, so the same initial weights, batches,
// dropout masks and noise; the per-epoch loss curve must agree to 1e-6.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "systems.h"
#include "trails/core/npy.h"
#include "trails/learned/trainers.h"

namespace trails::learned {
namespace {

nlohmann::json options_json(const ModelOptions& o) {
  return {{"kind", o.kind},
          {"latent_dim", o.latent_dim},
          {"encoder_hidden_dims", o.encoder_hidden_dims},
          {"decoder_hidden_dims", o.decoder_hidden_dims},
          {"deep_tica_hidden_dims", o.deep_tica_hidden_dims},
          {"dropout_rate", o.dropout_rate},
          {"learning_rate", o.learning_rate},
          {"epochs", o.epochs},
          {"batch_size", o.batch_size ? nlohmann::json(*o.batch_size) : nlohmann::json(nullptr)},
          {"tvae_beta", o.tvae_beta},
          {"spib_n_states", o.spib_n_states},
          {"spib_beta", o.spib_beta},
          {"spib_refine_rounds", o.spib_refine_rounds},
          {"seed", o.seed},
          {"threads", o.threads}};
}

std::vector<double> python_losses(const ModelOptions& o, const TrainingData& data,
                                  const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "options.json") << options_json(o).dump();
  core::write_npy(dir / "rows.npy", data.rows, {data.n_rows(), data.n_features});
  std::vector<double> pairs;
  for (const auto& [a, b] : data.pairs) {
    pairs.push_back(static_cast<double>(a));
    pairs.push_back(static_cast<double>(b));
  }
  core::write_npy(dir / "pairs.npy", pairs, {static_cast<std::int64_t>(data.pairs.size()), 2});
  if (o.kind == "spib") {
    const auto labels = detail::spib_initial_labels(o, data);
    core::write_npy(dir / "labels.npy", std::vector<double>(labels.begin(), labels.end()),
                    {static_cast<std::int64_t>(labels.size())});
  }
  const std::string command = "/usr/bin/python3 " TRAILS_SOURCE_DIR "/bench/learned_pytorch.py " +
                              dir.string() + " > " + (dir / "out.json").string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(dir / "out.json");
  return nlohmann::json::parse(in).at("loss").get<std::vector<double>>();
}

class PyTorchReplay : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Learned, PyTorchReplay,
                         ::testing::Values("tvae", "vampnet", "spib", "deep-tica"),
                         [](const auto& info) {
                           return info.param == "deep-tica" ? std::string("deep_tica") : info.param;
                         });

TEST_P(PyTorchReplay, SameLossCurveAsPyTorch) {
  const test::System s = test::three_state_chain(4, 150, 2, 17);
  ModelOptions o;
  o.kind = GetParam();
  o.latent_dim = 2;
  o.encoder_hidden_dims = {16, 8};
  o.decoder_hidden_dims = {8, 16};
  o.deep_tica_hidden_dims = {16, 8};
  o.epochs = 8;
  o.batch_size = 100;
  o.learning_rate = 5e-3;
  o.spib_n_states = 4;
  o.spib_refine_rounds = 2;
  o.seed = 5;
  TrainingRecord record;
  train(o, s.data, record);
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("replay_" + GetParam());
  const std::vector<double> python = python_losses(o, s.data, dir);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(python.size(), record.loss.size());
  for (std::size_t e = 0; e < python.size(); ++e)
    EXPECT_NEAR(record.loss[e], python[e], 1e-6 * std::max(1.0, std::abs(python[e])))
        << "epoch " << e + 1;
}

}  // namespace
}  // namespace trails::learned
