#include "trails/learned/torch_support.h"

#include <ATen/ExpandUtils.h>
#include <ATen/Parallel.h>

#include "trails/learned/linear_products.h"

namespace trails::learned::detail {
namespace {
std::mutex& training_mutex() {
  static std::mutex m;
  return m;
}

// The running training's options.threads (guarded by training_mutex: one training at a time),
// for the Linear layers' products, which may run on autograd's threads.
int kernel_threads = 1;

float* floats(const torch::Tensor& t) { return t.data_ptr<float>(); }

// y = x wᵀ + b and its gradients; torch's own sum_to for the bias gradient (as addmm's).
class LinearFunction : public torch::autograd::Function<LinearFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const torch::Tensor x = input.contiguous(), w = weight.contiguous();
    ctx->save_for_backward({x, w, bias});
    torch::Tensor y = torch::empty({x.size(0), w.size(0)}, x.options());
    linear_forward(floats(x), floats(w), floats(bias.contiguous()), static_cast<int>(x.size(0)),
                   static_cast<int>(w.size(1)), static_cast<int>(w.size(0)), floats(y),
                   kernel_threads);
    return y;
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &w = saved[1], &bias = saved[2];
    const torch::Tensor g = grads[0].contiguous();
    const int n = static_cast<int>(x.size(0)), in = static_cast<int>(w.size(1)),
              out = static_cast<int>(w.size(0));
    torch::Tensor gx, gw, gb;
    if (ctx->needs_input_grad(0)) {
      gx = torch::empty_like(x);
      linear_input_grad(floats(g), floats(w), n, in, out, floats(gx), kernel_threads);
    }
    if (ctx->needs_input_grad(1)) {
      gw = torch::empty_like(w);
      linear_weight_grad(floats(g), floats(x), n, in, out, floats(gw), kernel_threads);
    }
    if (ctx->needs_input_grad(2)) gb = at::sum_to(g, bias.sizes());
    return {gx, gw, gb};
  }
};
}  // namespace

torch::Tensor KernelLinearImpl::forward(const torch::Tensor& input) {
  if (input.dim() != 2 || !bias.defined() || input.scalar_type() != torch::kFloat32 ||
      !input.device().is_cpu())
    return torch::nn::LinearImpl::forward(input);
  return LinearFunction::apply(input, weight, bias);
}

TrainingScope::TrainingScope(const ModelOptions& options)
    : lock_(training_mutex()),
      saved_threads_(at::get_num_threads()),
      saved_deterministic_(at::globalContext().deterministicAlgorithms()) {
  at::set_num_threads(options.threads);
  kernel_threads = options.threads;
  at::globalContext().setDeterministicAlgorithms(true, false);
  torch::manual_seed(options.seed);
}

TrainingScope::~TrainingScope() {
  at::globalContext().setDeterministicAlgorithms(saved_deterministic_, false);
  at::set_num_threads(saved_threads_);
}

torch::Tensor rows_tensor(const TrainingData& data) {
  return torch::from_blob(const_cast<double*>(data.rows.data()),  // NOLINT: read-only, copied
                          {data.n_rows(), data.n_features}, torch::kFloat64)
      .to(torch::kFloat32);
}

PairIndex pair_index(const TrainingData& data) {
  const auto n = static_cast<std::int64_t>(data.pairs.size());
  auto t = torch::empty({n}, torch::kInt64), lagged = torch::empty({n}, torch::kInt64);
  auto* pt = t.data_ptr<std::int64_t>();
  auto* pl = lagged.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    pt[i] = data.pairs[static_cast<std::size_t>(i)].first;
    pl[i] = data.pairs[static_cast<std::size_t>(i)].second;
  }
  return {t, lagged};
}

std::vector<torch::Tensor> epoch_batches(std::int64_t n, std::optional<int> batch_size,
                                         bool shuffle) {
  torch::Tensor order =
      shuffle ? torch::randperm(n, torch::kInt64) : torch::arange(n, torch::kInt64);
  const std::int64_t b = batch_size ? std::min<std::int64_t>(*batch_size, n) : n;
  std::vector<torch::Tensor> batches;
  for (std::int64_t start = 0; start < n; start += b) {
    std::int64_t end = std::min(start + b, n);
    if (n - end == 1) end = n;  // no trailing batch of one
    batches.push_back(order.slice(0, start, end));
    if (end == n) break;
  }
  return batches;
}

void train_on_pairs(const std::vector<torch::Tensor>& parameters, const ModelOptions& options,
                    std::int64_t n_pairs, bool shuffle,
                    const std::function<torch::Tensor(const torch::Tensor&)>& batch_loss,
                    TrainingRecord& record) {
  torch::optim::Adam optimiser(parameters, torch::optim::AdamOptions(options.learning_rate));
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    double sum = 0.0;
    for (const torch::Tensor& batch : epoch_batches(n_pairs, options.batch_size, shuffle)) {
      const torch::Tensor loss = batch_loss(batch);
      optimiser.zero_grad();
      loss.backward();
      optimiser.step();
      sum += loss.item<double>() * static_cast<double>(batch.size(0));
    }
    record.loss.push_back(sum / static_cast<double>(n_pairs));
    ++record.epochs_run;
  }
}

torch::nn::Sequential mlp(int in, const std::vector<int>& hidden, std::optional<int> out,
                          Activation activation, bool batch_norm, double dropout) {
  torch::nn::Sequential seq;
  int width = in;
  for (int h : hidden) {
    seq->push_back(KernelLinear(width, h));
    if (batch_norm) seq->push_back(torch::nn::BatchNorm1d(h));
    if (activation == Activation::Silu)
      seq->push_back(torch::nn::SiLU());
    else
      seq->push_back(torch::nn::ReLU());
    if (dropout > 0) seq->push_back(torch::nn::Dropout(dropout));
    width = h;
  }
  if (out) seq->push_back(KernelLinear(width, *out));
  return seq;
}

namespace {
std::vector<double> to_doubles(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kFloat64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}
}  // namespace

void append_linear(const torch::nn::LinearImpl& linear, Network& net) {
  net.layers.push_back(Layer{LayerType::Linear, static_cast<int>(linear.weight.size(1)),
                             static_cast<int>(linear.weight.size(0)), to_doubles(linear.weight),
                             to_doubles(linear.bias)});
}

void append_layers(const torch::nn::Sequential& seq, Network& net) {
  for (const auto& child : seq->children()) {
    if (const auto* lin = child->as<torch::nn::Linear>()) {
      append_linear(*lin, net);
    } else if (auto* bn = child->as<torch::nn::BatchNorm1d>()) {
      // Evaluation mode: (x − running mean)/√(running var + eps)·γ + β = scale·x + shift.
      const auto scale = bn->weight.detach().to(torch::kFloat64) /
                         torch::sqrt(bn->running_var.to(torch::kFloat64) + bn->options.eps());
      const auto shift =
          bn->bias.detach().to(torch::kFloat64) - bn->running_mean.to(torch::kFloat64) * scale;
      const int n = static_cast<int>(scale.numel());
      net.layers.push_back(Layer{LayerType::Affine, n, n, to_doubles(scale), to_doubles(shift)});
    } else if (child->as<torch::nn::SiLU>()) {
      const int n = net.n_out();
      net.layers.push_back(Layer{LayerType::Silu, n, n, {}, {}});
    } else if (child->as<torch::nn::ReLU>()) {
      const int n = net.n_out();
      net.layers.push_back(Layer{LayerType::Relu, n, n, {}, {}});
    }
    // Dropout: the identity in evaluation mode.
  }
}

namespace {
torch::Tensor inverse_sqrt(const torch::Tensor& c, double epsilon) {
  const auto eye = torch::eye(c.size(0), c.options());
  auto [values, vectors] = torch::linalg_eigh(c + epsilon * eye);
  return vectors.mm(torch::diag(values.abs().rsqrt())).mm(vectors.t());
}
}  // namespace

torch::Tensor vamp2_score(const torch::Tensor& x, const torch::Tensor& y, double epsilon) {
  const double norm = 1.0 / static_cast<double>(x.size(0) - 1);
  const auto xc = x - x.mean(0, true), yc = y - y.mean(0, true);
  const auto c00 = xc.t().mm(xc) * norm, c0t = xc.t().mm(yc) * norm, ctt = yc.t().mm(yc) * norm;
  const auto k = inverse_sqrt(c00, epsilon).mm(c0t).mm(inverse_sqrt(ctt, epsilon));
  return 1 + k.pow(2).sum();
}

torch::Tensor tica_eigenvalues(const torch::Tensor& x, const torch::Tensor& y, double epsilon) {
  const double norm = 1.0 / (2.0 * static_cast<double>(x.size(0)));
  const auto mean = 0.5 * (x.mean(0, true) + y.mean(0, true));
  const auto xc = x - mean, yc = y - mean;
  const auto c0 = (xc.t().mm(xc) + yc.t().mm(yc)) * norm;
  const auto ct = (xc.t().mm(yc) + yc.t().mm(xc)) * norm;
  const auto l = torch::linalg_cholesky(c0 + epsilon * torch::eye(c0.size(0), c0.options()));
  const auto a = torch::linalg_solve_triangular(l, ct, /*upper=*/false);     // L⁻¹ Cτ
  const auto b = torch::linalg_solve_triangular(l, a.t(), /*upper=*/false);  // L⁻¹ (L⁻¹Cτ)ᵀ
  return torch::linalg_eigvalsh(0.5 * (b + b.t()));
}

torch::Tensor kl_to_standard_normal(const torch::Tensor& mean, const torch::Tensor& logvar) {
  return -0.5 * (1 + logvar - mean.pow(2) - logvar.exp()).sum(1).mean();
}

}  // namespace trails::learned::detail
