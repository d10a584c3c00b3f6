// The same training through PyTorch from Python (bench/learned_pytorch.py, Debian's
// python3-torch: the same 1.13 library): same seed, so the same initial weights, batches,
// dropout masks and noise; the per-epoch loss curve must agree to 1e-6. And Python's
// torch.jit.load reads the TorchScript export.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "systems.h"
#include "trails/core/npy.h"
#include "trails/learned/pytorch_replay.h"

namespace trails::learned {
namespace {

std::vector<double> python_losses(const ModelOptions& o, const TrainingData& data,
                                  const std::filesystem::path& dir) {
  write_pytorch_replay_inputs(o, data, dir);
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

// PyTorch's own torch.jit.load of export_torchscript()'s file projects as project() does.
TEST_P(PyTorchReplay, PythonLoadsTheTorchScriptExport) {
  const test::System s = test::three_state_chain(2, 50, 1, 3);
  ModelOptions o;
  o.kind = GetParam();
  o.latent_dim = 2;
  o.encoder_hidden_dims = {8};
  o.decoder_hidden_dims = {8};
  o.deep_tica_hidden_dims = {8};
  o.epochs = 3;
  o.spib_n_states = 3;
  TrainingRecord record;
  const auto model = train(o, s.data, record);
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("jit_" + GetParam());
  std::filesystem::create_directories(dir);
  model->export_torchscript(dir / "model.pt");
  core::write_npy(dir / "rows.npy", s.data.rows, {s.data.n_rows(), s.data.n_features});
  const std::string command =
      "/usr/bin/python3 -c 'import sys, numpy, torch; m = torch.jit.load(sys.argv[1] + "
      "\"/model.pt\"); x = torch.from_numpy(numpy.load(sys.argv[1] + \"/rows.npy\")); "
      "numpy.save(sys.argv[1] + \"/cv.npy\", m(x).detach().numpy())' " +
      dir.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const core::NpyArray cv = core::read_npy(dir / "cv.npy");
  std::filesystem::remove_all(dir);
  const std::vector<double> expected = model->project(s.data.rows);
  ASSERT_EQ(cv.n_elements(), static_cast<std::int64_t>(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(cv.float_at(static_cast<std::int64_t>(i)), expected[i],
                1e-12 * (1 + std::abs(expected[i])));
}

}  // namespace
}  // namespace trails::learned
