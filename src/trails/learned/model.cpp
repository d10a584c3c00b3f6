// train() and load() (model.h): option and data checks, the torch-free model every kind
// becomes after training (its evaluation-mode Network), and its versioned bytes.
#include "trails/learned/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "trails/core/error.h"
#include "trails/learned/network.h"
#include "trails/learned/pair_covariances.h"
#include "trails/learned/trainers.h"

namespace trails::learned {
namespace {

static_assert(std::endian::native == std::endian::little,
              "learned model bytes are little-endian doubles");

constexpr std::string_view kMagic = "TRAILS-LEARNED-MODEL\n";
constexpr std::uint32_t kVersion = 1;

class NetworkModel final : public Model {
 public:
  NetworkModel(std::string kind, int n_features, Network net)
      : kind_(std::move(kind)), n_features_(n_features), net_(std::move(net)) {}
  const std::string& kind() const override { return kind_; }
  int n_features() const override { return n_features_; }
  int dim() const override { return net_.n_out(); }
  std::vector<double> project(std::span<const double> rows) const override {
    return net_.forward(rows);
  }
  std::string serialize() const override;
  void export_torchscript(const std::filesystem::path& file) const override {
    detail::write_torchscript(net_, kind_, file);
  }

 private:
  std::string kind_;
  int n_features_;
  Network net_;
};

// FNV-1a over the bytes before the checksum: damage anywhere is reported as damage.
std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
void put(std::string& out, T value) {
  char b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));
  out.append(b, sizeof(T));
}

std::string NetworkModel::serialize() const {
  nlohmann::json header;
  header["kind"] = kind_;
  header["n_features"] = n_features_;
  header["dim"] = dim();
  nlohmann::json layers = nlohmann::json::array();
  for (const Layer& l : net_.layers)
    layers.push_back({{"type", layer_type_name(l.type)}, {"in", l.in}, {"out", l.out}});
  header["layers"] = layers;
  const std::string text = header.dump();
  std::string out(kMagic);
  put(out, kVersion);
  put(out, static_cast<std::uint64_t>(text.size()));
  out += text;
  for (const Layer& l : net_.layers) {
    for (double w : l.weight) put(out, w);
    for (double b : l.bias) put(out, b);
  }
  put(out, fnv1a(out));
  return out;
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  T get(const char* what) {
    if (bytes_.size() - pos_ < sizeof(T))
      throw core::CorruptionError(fmt::format("learned model: truncated in {}", what));
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string_view take(std::size_t n, const char* what) {
    if (bytes_.size() - pos_ < n)
      throw core::CorruptionError(fmt::format("learned model: truncated in {}", what));
    auto s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

LayerType parse_layer_type(const std::string& name) {
  for (LayerType t : {LayerType::Linear, LayerType::Affine, LayerType::Silu, LayerType::Relu})
    if (layer_type_name(t) == name) return t;
  throw core::CorruptionError(fmt::format("learned model: unknown layer type '{}'", name));
}

constexpr std::string_view kKinds[] = {"tvae", "vampnet", "spib", "deep-tica"};

void check_options(const ModelOptions& o, const TrainingData& data) {
  auto refuse = [](const std::string& key, const std::string& what) {
    throw core::ConfigError(fmt::format("learned model: {} {}", key, what));
  };
  if (std::find(std::begin(kKinds), std::end(kKinds), o.kind) == std::end(kKinds))
    refuse("space_mode",
           fmt::format("'{}' is not a learned model (tvae, vampnet, spib, deep-tica)", o.kind));
  if (o.latent_dim < 1) refuse("latent_dim", fmt::format("= {}, must be >= 1", o.latent_dim));
  if (o.latent_dim > data.n_features)
    refuse("latent_dim",
           fmt::format("= {} exceeds the {} input features", o.latent_dim, data.n_features));
  auto dims = [&](const std::string& key, const std::vector<int>& v) {
    for (int h : v)
      if (h < 1) refuse(key, fmt::format("holds {}: hidden layer sizes must be positive", h));
  };
  dims("encoder_hidden_dims", o.encoder_hidden_dims);
  dims("decoder_hidden_dims", o.decoder_hidden_dims);
  dims("deep_tica_hidden_dims", o.deep_tica_hidden_dims);
  if (!(o.dropout_rate >= 0.0 && o.dropout_rate < 1.0))
    refuse("dropout_rate", fmt::format("= {}, must be in [0, 1)", o.dropout_rate));
  if (!(o.learning_rate > 0.0 && std::isfinite(o.learning_rate)))
    refuse("learning_rate", fmt::format("= {}, must be positive", o.learning_rate));
  if (o.epochs < 1) refuse("epochs", fmt::format("= {}, must be >= 1", o.epochs));
  if (o.batch_size && *o.batch_size < 2)
    refuse("batch_size", fmt::format("= {}, must be >= 2 or auto", *o.batch_size));
  if (!(o.tvae_beta > 0.0 && std::isfinite(o.tvae_beta)))
    refuse("tvae_beta", fmt::format("= {}, must be positive", o.tvae_beta));
  if (o.spib_n_states < 2)
    refuse("spib_n_states", fmt::format("= {}, must be >= 2", o.spib_n_states));
  if (!(o.spib_beta >= 0.0 && std::isfinite(o.spib_beta)))
    refuse("spib_beta", fmt::format("= {}, must be >= 0", o.spib_beta));
  if (o.spib_refine_rounds < 0)
    refuse("spib_refine_rounds", fmt::format("= {}, must be >= 0", o.spib_refine_rounds));
  if (o.threads < 1) refuse("threads", fmt::format("= {}, must be >= 1", o.threads));
}

void check_data(const TrainingData& data, int latent_dim) {
  if (data.n_features < 1) throw core::InputError("learned model: no features to train on");
  if (data.rows.size() % static_cast<std::size_t>(data.n_features) != 0)
    throw core::InputError(fmt::format("learned model: {} values are not rows of {} features",
                                       data.rows.size(), data.n_features));
  if (!std::all_of(data.rows.begin(), data.rows.end(), [](double x) { return std::isfinite(x); }))
    throw core::InputError("learned model: non-finite feature value in the training rows");
  const std::int64_t n = data.n_rows();
  if (n < std::max<std::int64_t>(2, latent_dim))
    throw core::InputError(
        fmt::format("learned model: {} training rows, fewer than the latent dimension {} (or 2)", n,
                    latent_dim));
  if (data.pairs.size() < 2)
    throw core::InputError(fmt::format(
        "learned model: {} time-lagged pairs; walker segments shorter than the lag give none",
        data.pairs.size()));
  for (const auto& [a, b] : data.pairs)
    if (a < 0 || b < 0 || a >= n || b >= n)
      throw core::InputError(
          fmt::format("learned model: pair ({}, {}) outside the {} training rows", a, b, n));
}

}  // namespace

std::unique_ptr<Model> train(const ModelOptions& options, const TrainingData& data,
                             TrainingRecord& record) {
  check_options(options, data);
  check_data(data, options.latent_dim);
  record = TrainingRecord{};
  Network net;
  if (options.kind == "tvae")
    net = detail::train_tvae(options, data, record);
  else if (options.kind == "vampnet")
    net = detail::train_vampnet(options, data, record);
  else if (options.kind == "spib")
    net = detail::train_spib(options, data, record);
  else
    net = detail::train_deep_tica(options, data, record);
  for (std::size_t e = 0; e < record.loss.size(); ++e)
    if (!std::isfinite(record.loss[e]))
      throw core::InputError(
          fmt::format("learned model {}: training diverged (non-finite loss in epoch {}); lower "
                      "learning_rate or check the features",
                      options.kind, e + 1));
  try {
    net.validate();
  } catch (const core::Error&) {
    throw core::InputError(fmt::format(
        "learned model {}: training gave non-finite weights; lower learning_rate", options.kind));
  }
  auto model = std::make_unique<NetworkModel>(options.kind, data.n_features, std::move(net));
  const std::vector<double> cv = model->project(data.rows);
  record.vamp2 = pair_vamp2(cv, model->dim(), data.pairs);
  return model;
}

std::unique_ptr<Model> load(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic)
    throw core::CorruptionError("learned model: not a Trails learned-model file (bad magic)");
  if (bytes.size() < kMagic.size() + 8) throw core::CorruptionError("learned model: truncated");
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (fnv1a(bytes.substr(0, bytes.size() - 8)) != stored)
    throw core::CorruptionError("learned model: checksum mismatch (damaged bytes)");
  Reader r(bytes.substr(0, bytes.size() - 8));
  r.take(kMagic.size(), "magic");
  const auto version = r.get<std::uint32_t>("version");
  if (version != kVersion)
    throw core::CorruptionError(
        fmt::format("learned model: format version {} (this Trails reads {})", version, kVersion));
  const auto length = r.get<std::uint64_t>("header length");
  nlohmann::json header;
  std::string kind;
  int n_features = 0, dim = 0;
  Network net;
  try {
    header = nlohmann::json::parse(r.take(length, "header"));
    kind = header.at("kind").get<std::string>();
    n_features = header.at("n_features").get<int>();
    dim = header.at("dim").get<int>();
    net.n_in = n_features;
    for (const auto& jl : header.at("layers")) {
      Layer l;
      l.type = parse_layer_type(jl.at("type").get<std::string>());
      l.in = jl.at("in").get<int>();
      l.out = jl.at("out").get<int>();
      if (l.in < 1 || l.out < 1 || l.in > (1 << 24) || l.out > (1 << 24))
        throw core::CorruptionError("learned model: layer size out of range");
      net.layers.push_back(l);
    }
  } catch (const nlohmann::json::exception& e) {
    throw core::CorruptionError(fmt::format("learned model header: {}", e.what()));
  }
  if (std::find(std::begin(kKinds), std::end(kKinds), kind) == std::end(kKinds))
    throw core::CorruptionError(fmt::format("learned model: unknown kind '{}'", kind));
  for (Layer& l : net.layers) {
    const std::size_t nw = l.type == LayerType::Linear   ? static_cast<std::size_t>(l.in) * l.out
                           : l.type == LayerType::Affine ? static_cast<std::size_t>(l.out)
                                                         : 0;
    const std::size_t nb = l.type == LayerType::Linear || l.type == LayerType::Affine
                               ? static_cast<std::size_t>(l.out)
                               : 0;
    if (nw + nb > r.remaining() / sizeof(double))
      throw core::CorruptionError("learned model: truncated in weights");
    l.weight.resize(nw);
    l.bias.resize(nb);
    for (double& w : l.weight) w = r.get<double>("weights");
    for (double& b : l.bias) b = r.get<double>("weights");
  }
  if (r.pos() != bytes.size() - 8)
    throw core::CorruptionError("learned model: trailing bytes after the weights");
  net.validate();
  if (net.n_out() != dim)
    throw core::CorruptionError(
        fmt::format("learned model: header says dim {}, the layers give {}", dim, net.n_out()));
  return std::make_unique<NetworkModel>(kind, n_features, std::move(net));
}

}  // namespace trails::learned
