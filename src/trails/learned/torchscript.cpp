// Model::export_torchscript (model.h): libtorch's C++ API cannot script an nn::Module, so the
// evaluation-mode network is rebuilt as a torch::jit::Module: its parameters as float64
// buffers and forward() defined in TorchScript source, the same layers in the same order.
#include <fmt/format.h>
#include <torch/script.h>

#include "trails/core/error.h"
#include "trails/learned/trainers.h"

namespace trails::learned::detail {
namespace {

torch::Tensor tensor_of(const std::vector<double>& v, std::vector<std::int64_t> shape) {
  return torch::from_blob(const_cast<double*>(v.data()),  // NOLINT: read-only, cloned
                          shape, torch::kFloat64)
      .clone();
}

}  // namespace

void write_torchscript(const Network& net, const std::string& kind,
                       const std::filesystem::path& file) {
  torch::jit::Module module("TrailsLearnedModel");
  std::string body = "def forward(self, x):\n    h = x.type_as(self.w0)\n";
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    switch (l.type) {
      case LayerType::Linear:
        module.register_buffer(fmt::format("w{}", i), tensor_of(l.weight, {l.out, l.in}));
        module.register_buffer(fmt::format("b{}", i), tensor_of(l.bias, {l.out}));
        body += fmt::format("    h = torch.addmm(self.b{0}, h, self.w{0}.t())\n", i);
        break;
      case LayerType::Affine:
        module.register_buffer(fmt::format("w{}", i), tensor_of(l.weight, {l.out}));
        module.register_buffer(fmt::format("b{}", i), tensor_of(l.bias, {l.out}));
        body += fmt::format("    h = h * self.w{0} + self.b{0}\n", i);
        break;
      case LayerType::Silu:
        body += "    h = h * torch.sigmoid(h)\n";
        break;
      case LayerType::Relu:
        body += "    h = torch.relu(h)\n";
        break;
    }
  }
  body += "    return h\n";
  if (net.layers.empty() || net.layers.front().type != LayerType::Linear)
    module.register_buffer("w0", torch::zeros({1}, torch::kFloat64));
  module.register_attribute("kind", c10::StringType::get(), kind);
  module.register_attribute("n_features", c10::IntType::get(), static_cast<std::int64_t>(net.n_in));
  module.define(body);
  try {
    module.save(file.string());
  } catch (const c10::Error& e) {
    throw core::StoreError(fmt::format("{}: cannot write the TorchScript model: {}", file.string(),
                                       e.what_without_backtrace()));
  }
}

}  // namespace trails::learned::detail
