// The three matrix products of a Linear layer (forward, input gradient, weight gradient) on
// row-major float32 arrays, for the learned models' training (docs/cvs.md, "Training speed").
// Torch-free; used by torch_support's Linear layer.
//
// Each output element is one dot product summed in the reference BLAS's order (index ascending,
// in float, from 0, without fused multiply-add), which is what Debian's libtorch computes through
// libblas: so the results equal PyTorch's bit for bit. The speed comes from computing many
// independent outputs at once (vector lanes, register blocks, cache blocks over the summed
// index) and from splitting output rows across core::default_pool(): no partition changes any
// element's order, so the results are the same on every thread count.
#pragma once

namespace trails::learned::detail {

// y (n × out) = x (n × in) · wᵀ + b, w (out × in): y[j][i] = (Σ_l x[j][l] w[i][l]) + b[i].
void linear_forward(const float* x, const float* w, const float* b, int n, int in, int out,
                    float* y, int threads);

// gx (n × in) = g (n × out) · w: gx[j][i] = Σ_l g[j][l] w[l][i].
void linear_input_grad(const float* g, const float* w, int n, int in, int out, float* gx,
                       int threads);

// gw (out × in) = gᵀ · x: gw[i][j] = Σ_l g[l][i] x[l][j], l over the n samples.
void linear_weight_grad(const float* g, const float* x, int n, int in, int out, float* gw,
                        int threads);

}  // namespace trails::learned::detail
