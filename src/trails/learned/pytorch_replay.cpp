#include "trails/learned/pytorch_replay.h"

#include <fstream>

#include "trails/core/npy.h"
#include "trails/learned/trainers.h"

namespace trails::learned {

nlohmann::json options_to_json(const ModelOptions& o) {
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

void write_pytorch_replay_inputs(const ModelOptions& options, const TrainingData& data,
                                 const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "options.json") << options_to_json(options).dump();
  core::write_npy(dir / "rows.npy", data.rows, {data.n_rows(), data.n_features});
  std::vector<double> pairs;
  pairs.reserve(2 * data.pairs.size());
  for (const auto& [a, b] : data.pairs) {
    pairs.push_back(static_cast<double>(a));
    pairs.push_back(static_cast<double>(b));
  }
  core::write_npy(dir / "pairs.npy", pairs, {static_cast<std::int64_t>(data.pairs.size()), 2});
  if (options.kind == "spib") {
    const auto labels = detail::spib_initial_labels(options, data);
    core::write_npy(dir / "labels.npy", std::vector<double>(labels.begin(), labels.end()),
                    {static_cast<std::int64_t>(labels.size())});
  }
}

}  // namespace trails::learned
