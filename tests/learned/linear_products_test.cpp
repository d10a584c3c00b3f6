// The Linear layer's products (linear_products.h) against libtorch's own Linear (forward and
// autograd backward, the reference BLAS underneath): equal bit for bit, on shapes that exercise
// every vector tile and scalar tail, and on 1 and 2 threads.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "trails/learned/linear_products.h"

namespace trails::learned::detail {
namespace {

std::vector<float> floats(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

struct Shape {
  int n, in, out;
};

class LinearProducts : public ::testing::TestWithParam<Shape> {};
INSTANTIATE_TEST_SUITE_P(Learned, LinearProducts,
                         ::testing::Values(Shape{300, 30, 256}, Shape{37, 256, 128},
                                           Shape{41, 128, 2}, Shape{5, 2, 19}, Shape{600, 19, 3},
                                           Shape{2, 7, 33}));

TEST_P(LinearProducts, EqualTorchLinearBitForBit) {
  const auto [n, in, out] = GetParam();
  torch::manual_seed(11);
  const torch::Tensor x = torch::randn({n, in}).requires_grad_(true);
  torch::nn::Linear linear(in, out);
  const torch::Tensor y = linear->forward(x);
  const torch::Tensor g = torch::randn({n, out});
  y.backward(g);

  const std::vector<float> xs = floats(x), w = floats(linear->weight), b = floats(linear->bias),
                           gs = floats(g);
  for (int threads : {1, 2}) {
    std::vector<float> ky(static_cast<std::size_t>(n) * out), kgx(xs.size()), kgw(w.size());
    linear_forward(xs.data(), w.data(), b.data(), n, in, out, ky.data(), threads);
    linear_input_grad(gs.data(), w.data(), n, in, out, kgx.data(), threads);
    linear_weight_grad(gs.data(), xs.data(), n, in, out, kgw.data(), threads);
    EXPECT_EQ(ky, floats(y)) << "forward, threads " << threads;
    EXPECT_EQ(kgx, floats(x.grad())) << "input gradient, threads " << threads;
    EXPECT_EQ(kgw, floats(linear->weight.grad())) << "weight gradient, threads " << threads;
  }
}

}  // namespace
}  // namespace trails::learned::detail
