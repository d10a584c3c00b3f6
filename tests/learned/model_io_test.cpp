// Reproducibility, serialisation, TorchScript export and refused hyper-parameters.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "systems.h"
#include "trails/core/error.h"

namespace trails::learned {
namespace {

ModelOptions tiny(const std::string& kind, std::uint64_t seed = 1, int threads = 1) {
  ModelOptions o;
  o.kind = kind;
  o.latent_dim = 2;
  o.encoder_hidden_dims = {8, 8};
  o.decoder_hidden_dims = {8};
  o.deep_tica_hidden_dims = {8};
  o.epochs = 5;
  o.batch_size = 64;
  o.spib_n_states = 4;
  o.spib_refine_rounds = 2;
  o.seed = seed;
  o.threads = threads;
  return o;
}

const test::System& data() {
  static const test::System s = test::three_state_chain(4, 100, 2, 21);
  return s;
}

class EveryKind : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Learned, EveryKind,
                         ::testing::Values("tvae", "vampnet", "spib", "deep-tica"),
                         [](const auto& info) {
                           return info.param == "deep-tica" ? std::string("deep_tica") : info.param;
                         });

TEST_P(EveryKind, SameSeedSameBitsOtherSeedDiffers) {
  TrainingRecord r1, r2, r3;
  const auto a = train(tiny(GetParam(), 1), data().data, r1);
  const auto b = train(tiny(GetParam(), 1), data().data, r2);
  const auto c = train(tiny(GetParam(), 2), data().data, r3);
  EXPECT_EQ(a->serialize(), b->serialize());
  EXPECT_EQ(a->project(data().data.rows), b->project(data().data.rows));
  EXPECT_EQ(r1.loss, r2.loss);
  EXPECT_NE(a->serialize(), c->serialize());
  EXPECT_EQ(a->kind(), GetParam());
  EXPECT_EQ(a->dim(), 2);
  EXPECT_EQ(a->n_features(), 4);
  EXPECT_EQ(r1.epochs_run, static_cast<int>(r1.loss.size()));
}

TEST_P(EveryKind, TwoThreadsReproduceThemselves) {
  TrainingRecord r1, r2;
  const auto a = train(tiny(GetParam(), 1, 2), data().data, r1);
  const auto b = train(tiny(GetParam(), 1, 2), data().data, r2);
  EXPECT_EQ(a->serialize(), b->serialize());
}

TEST_P(EveryKind, ProjectionIsRowWise) {
  TrainingRecord r;
  const auto m = train(tiny(GetParam()), data().data, r);
  const auto& rows = data().data.rows;
  const std::vector<double> all = m->project(rows);
  const std::vector<double> one = m->project(std::span(rows).subspan(8, 4));
  EXPECT_EQ(one, std::vector<double>(all.begin() + 4, all.begin() + 6));
}

TEST_P(EveryKind, SerializeLoadRoundTripIsBitwise) {
  TrainingRecord r;
  const auto m = train(tiny(GetParam()), data().data, r);
  const std::string bytes = m->serialize();
  const auto back = load(bytes);
  EXPECT_EQ(back->serialize(), bytes);
  EXPECT_EQ(back->project(data().data.rows), m->project(data().data.rows));
  EXPECT_EQ(back->kind(), m->kind());
  EXPECT_EQ(back->dim(), m->dim());
  EXPECT_EQ(back->n_features(), m->n_features());
}

TEST_P(EveryKind, TorchScriptExportProjectsTheSame) {
  TrainingRecord r;
  const auto m = train(tiny(GetParam()), data().data, r);
  const std::string file = ::testing::TempDir() + "learned_" + GetParam() + ".pt";
  m->export_torchscript(file);
  torch::jit::Module loaded = torch::jit::load(file);
  const auto& rows = data().data.rows;
  const auto n = static_cast<std::int64_t>(rows.size() / 4);
  const torch::Tensor x =
      torch::from_blob(const_cast<double*>(rows.data()), {n, 4}, torch::kFloat64).clone();
  const torch::Tensor y = loaded.forward({x}).toTensor().contiguous();
  const std::vector<double> expected = m->project(rows);
  ASSERT_EQ(y.numel(), static_cast<std::int64_t>(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(y.data_ptr<double>()[i], expected[i], 1e-12 * (1 + std::abs(expected[i])));
  std::remove(file.c_str());
}

// torch's generator and thread count are process-wide: trainings on two threads at once (the
// campaign trains on a background thread) give what each gives alone.
TEST(ModelIo, ConcurrentTrainingsMatchSerialOnes) {
  TrainingRecord r;
  const std::string tvae = train(tiny("tvae", 4), data().data, r)->serialize();
  const std::string spib = train(tiny("spib", 5, 2), data().data, r)->serialize();
  std::string a, b;
  std::thread t1([&] {
    TrainingRecord record;
    a = train(tiny("tvae", 4), data().data, record)->serialize();
  });
  std::thread t2([&] {
    TrainingRecord record;
    b = train(tiny("spib", 5, 2), data().data, record)->serialize();
  });
  t1.join();
  t2.join();
  EXPECT_EQ(a, tvae);
  EXPECT_EQ(b, spib);
}

TEST(ModelIo, DamagedBytesAreRefused) {
  TrainingRecord r;
  const std::string bytes = train(tiny("vampnet"), data().data, r)->serialize();
  EXPECT_THROW(load(""), core::Error);
  EXPECT_THROW(load("not a model"), core::Error);
  EXPECT_THROW(load(bytes.substr(0, bytes.size() / 2)), core::Error);
  for (std::size_t at : {std::size_t{30}, bytes.size() / 2, bytes.size() - 3}) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    EXPECT_THROW(load(damaged), core::Error) << "byte " << at;
  }
}

// Each refusal is a ConfigError naming the key.
TEST(ModelIo, BadHyperParametersAreRefused) {
  const auto refused = [](const ModelOptions& o, const std::string& key) {
    TrainingRecord r;
    try {
      train(o, data().data, r);
      ADD_FAILURE() << key << " accepted";
    } catch (const core::Error& e) {
      EXPECT_EQ(e.kind(), core::ErrorKind::Config) << e.what();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  ModelOptions o = tiny("tvae");
  o.kind = "deep-lda";
  refused(o, "space_mode");
  o = tiny("tvae");
  o.latent_dim = 5;  // more than the 4 features
  refused(o, "latent_dim");
  o = tiny("tvae");
  o.encoder_hidden_dims = {8, 0};
  refused(o, "encoder_hidden_dims");
  o = tiny("tvae");
  o.dropout_rate = -0.1;
  refused(o, "dropout_rate");
  o = tiny("tvae");
  o.epochs = 0;
  refused(o, "epochs");
  o = tiny("tvae");
  o.tvae_beta = 0;
  refused(o, "tvae_beta");
  o = tiny("spib");
  o.spib_n_states = 1;
  refused(o, "spib_n_states");
  o = tiny("spib");
  o.spib_refine_rounds = -1;
  refused(o, "spib_refine_rounds");
  o = tiny("vampnet");
  o.batch_size = 1;
  refused(o, "batch_size");
  o = tiny("vampnet");
  o.learning_rate = 0;
  refused(o, "learning_rate");
}

TEST(ModelIo, UnusableDataIsRefused) {
  TrainingData d = data().data;
  d.pairs.clear();
  TrainingRecord r;
  EXPECT_THROW(train(tiny("vampnet"), d, r), core::Error);
  d = data().data;
  d.pairs.emplace_back(0, d.n_rows());
  EXPECT_THROW(train(tiny("vampnet"), d, r), core::Error);
  d = data().data;
  d.rows[3] = std::nan("");
  EXPECT_THROW(train(tiny("vampnet"), d, r), core::Error);
}

}  // namespace
}  // namespace trails::learned
