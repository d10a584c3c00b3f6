// What the four trainers share (only learned/*_training.cpp include this; it includes
// libtorch): the training scope (process-wide lock, seed, threads, deterministic algorithms),
// tensors of the training data, batches, the networks' building blocks, the conversion of a
// trained torch network into its evaluation-mode Network, and the VAMP-2 and TICA losses.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "trails/learned/model.h"
#include "trails/learned/network.h"

namespace trails::learned::detail {

// torch's default generator, its intra-op thread count and its algorithm flags are
// process-wide, so one training runs at a time (the campaign trains on a background thread
// while the main thread may train or project). Seeds the generator with options.seed, sets
// options.threads intra-op threads and deterministic algorithms; the destructor restores the
// thread count and the flag.
class TrainingScope {
 public:
  explicit TrainingScope(const ModelOptions& options);
  ~TrainingScope();
  TrainingScope(const TrainingScope&) = delete;
  TrainingScope& operator=(const TrainingScope&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
  int saved_threads_;
  bool saved_deterministic_;
};

// Feature rows as float32 (n × d) and the pairs' row indices (int64, one tensor per side).
torch::Tensor rows_tensor(const TrainingData& data);
struct PairIndex {
  torch::Tensor t, lagged;
};
PairIndex pair_index(const TrainingData& data);

// One epoch's batches as positions into [0, n): in order or shuffled (torch's default
// generator), batch_size nullopt = one batch of all n. A trailing batch of one pair is folded
// into the batch before it (batch statistics need two samples).
std::vector<torch::Tensor> epoch_batches(std::int64_t n, std::optional<int> batch_size,
                                         bool shuffle);

// The training loop every model shares: options.epochs epochs of Adam (options.learning_rate)
// over `parameters`, each epoch over epoch_batches(n_pairs, options.batch_size, shuffle); for
// each batch (positions into the pairs) batch_loss gives the loss, then zero_grad, backward,
// step. Appends each epoch's mean loss per pair to record.loss and counts record.epochs_run
// (SPIB calls it once per refinement round, so the record holds every round in order).
void train_on_pairs(const std::vector<torch::Tensor>& parameters, const ModelOptions& options,
                    std::int64_t n_pairs, bool shuffle,
                    const std::function<torch::Tensor(const torch::Tensor&)>& batch_loss,
                    TrainingRecord& record);

// torch::nn::Linear whose three products run on linear_products.h: the same parameters, the
// same initial weights from the same generator, and PyTorch's results bit for bit (the reference
// BLAS's summation order), split across TrainingScope's thread count. Every model's layers are
// these (docs/cvs.md, "Training speed").
class KernelLinearImpl : public torch::nn::LinearImpl {
 public:
  using torch::nn::LinearImpl::LinearImpl;
  torch::Tensor forward(const torch::Tensor& input);
};
TORCH_MODULE(KernelLinear);

enum class Activation { Silu, Relu };

// For each hidden size h: KernelLinear → [BatchNorm1d] → activation → [Dropout(p) if p > 0]; then a
// final KernelLinear to `out` when given (no activation after it).
torch::nn::Sequential mlp(int in, const std::vector<int>& hidden, std::optional<int> out,
                          Activation activation, bool batch_norm, double dropout);

// Appends the evaluation-mode layers of a Sequential built by mlp() (or a Linear) to net.
void append_layers(const torch::nn::Sequential& seq, Network& net);
void append_linear(const torch::nn::LinearImpl& linear, Network& net);

// VAMP-2 score of a batch of lobe outputs (deeptime's VAMPNet score, "regularize" mode):
// 1 + ‖C00^{-1/2} C0t Ctt^{-1/2}‖²_F with covariances about each side's batch mean (n − 1
// normalisation) and C^{-1/2} from the eigen-decomposition of C + εI (|eigenvalues|).
torch::Tensor vamp2_score(const torch::Tensor& x, const torch::Tensor& y, double epsilon = 1e-6);

// The TICA eigenvalues of a batch (Deep-TICA's objective): reversible covariances about the
// mean of both halves, C0 = (XᵀX + YᵀY)/2n, Cτ = (XᵀY + YᵀX)/2n, and the eigenvalues of
// L⁻¹ Cτ L⁻ᵀ with C0 + εI = LLᵀ (Cholesky), ascending.
torch::Tensor tica_eigenvalues(const torch::Tensor& x, const torch::Tensor& y,
                               double epsilon = 1e-6);

// KL(N(μ, e^{logvar}) ‖ N(0, I)) per sample, averaged over the batch: −½ mean Σ(1 + logvar − μ²
// − e^{logvar}).
torch::Tensor kl_to_standard_normal(const torch::Tensor& mean, const torch::Tensor& logvar);

}  // namespace trails::learned::detail
