// Transition counting and iterative Tarjan strongly connected components.
#include "trails/analysis/counting.h"

#include <algorithm>
#include <cstddef>
#include <string>

#include "trails/core/error.h"

namespace trails::analysis {

namespace {

void require_square(const Eigen::Ref<const Eigen::MatrixXd>& C, const char* what) {
  if (C.rows() != C.cols())
    throw core::InputError(std::string(what) + ": expected a square count matrix, got " +
                           std::to_string(C.rows()) + " x " + std::to_string(C.cols()));
}

}  // namespace

Eigen::MatrixXd count_matrix(const std::vector<std::vector<int>>& dtrajs, int lag, int n_states,
                             CountMode mode) {
  if (lag < 1)
    throw core::InputError("count_matrix: expected lag >= 1, got " + std::to_string(lag));
  if (n_states < -1)
    throw core::InputError("count_matrix: expected n_states >= 0 or -1 (auto), got " +
                           std::to_string(n_states));
  int max_state = -1;
  for (std::size_t k = 0; k < dtrajs.size(); ++k) {
    for (std::size_t t = 0; t < dtrajs[k].size(); ++t) {
      const int s = dtrajs[k][t];
      if (s < 0)
        throw core::InputError("count_matrix: trajectory " + std::to_string(k) + " frame " +
                               std::to_string(t) + ": expected a state id >= 0, got " +
                               std::to_string(s));
      if (n_states >= 0 && s >= n_states)
        throw core::InputError("count_matrix: trajectory " + std::to_string(k) + " frame " +
                               std::to_string(t) + ": expected a state id < n_states = " +
                               std::to_string(n_states) + ", got " + std::to_string(s));
      max_state = std::max(max_state, s);
    }
  }
  const int n = n_states >= 0 ? n_states : max_state + 1;
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(n, n);
  const auto ulag = static_cast<std::size_t>(lag);
  for (const auto& traj : dtrajs) {
    for (std::size_t t = 0; t + ulag < traj.size(); ++t) C(traj[t], traj[t + ulag]) += 1.0;
  }
  if (mode == CountMode::Effective) C /= static_cast<double>(lag);
  return C;
}

std::vector<std::vector<int>> strongly_connected_components(
    const Eigen::Ref<const Eigen::MatrixXd>& C) {
  require_square(C, "strongly_connected_components");
  const int n = static_cast<int>(C.rows());
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && C(i, j) > 0.0) adj[static_cast<std::size_t>(i)].push_back(j);

  // Tarjan's algorithm with an explicit call stack, so deep chains cannot overflow the C stack.
  std::vector<int> index(static_cast<std::size_t>(n), -1), low(static_cast<std::size_t>(n), 0);
  std::vector<char> on_stack(static_cast<std::size_t>(n), 0);
  std::vector<int> stack;
  std::vector<std::vector<int>> components;
  struct Frame {
    int v;
    std::size_t next;
  };
  std::vector<Frame> calls;
  int counter = 0;
  auto visit = [&](int v) {
    const auto uv = static_cast<std::size_t>(v);
    index[uv] = low[uv] = counter++;
    stack.push_back(v);
    on_stack[uv] = 1;
    calls.push_back({v, 0});
  };
  for (int root = 0; root < n; ++root) {
    if (index[static_cast<std::size_t>(root)] != -1) continue;
    visit(root);
    while (!calls.empty()) {
      const int v = calls.back().v;
      const auto uv = static_cast<std::size_t>(v);
      if (calls.back().next < adj[uv].size()) {
        const int w = adj[uv][calls.back().next++];
        const auto uw = static_cast<std::size_t>(w);
        if (index[uw] == -1) {
          visit(w);
        } else if (on_stack[uw]) {
          low[uv] = std::min(low[uv], index[uw]);
        }
        continue;
      }
      if (low[uv] == index[uv]) {
        std::vector<int> comp;
        int w = -1;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[static_cast<std::size_t>(w)] = 0;
          comp.push_back(w);
        } while (w != v);
        std::sort(comp.begin(), comp.end());
        components.push_back(std::move(comp));
      }
      calls.pop_back();
      if (!calls.empty()) {
        const auto uu = static_cast<std::size_t>(calls.back().v);
        low[uu] = std::min(low[uu], low[uv]);
      }
    }
  }
  return components;
}

std::vector<int> largest_connected_set(const Eigen::Ref<const Eigen::MatrixXd>& C) {
  const auto components = strongly_connected_components(C);
  const std::vector<int>* best = nullptr;
  for (const auto& comp : components) {
    if (best == nullptr || comp.size() > best->size() ||
        (comp.size() == best->size() && comp.front() < best->front()))
      best = &comp;
  }
  return best ? *best : std::vector<int>{};
}

Eigen::MatrixXd restrict_to_set(const Eigen::Ref<const Eigen::MatrixXd>& C,
                                std::span<const int> states) {
  require_square(C, "restrict_to_set");
  const auto m = static_cast<Eigen::Index>(states.size());
  for (std::size_t a = 0; a < states.size(); ++a)
    if (states[a] < 0 || states[a] >= C.rows())
      throw core::InputError("restrict_to_set: expected state ids in [0, " +
                             std::to_string(C.rows()) + "), got " + std::to_string(states[a]) +
                             " at position " + std::to_string(a));
  Eigen::MatrixXd R(m, m);
  for (Eigen::Index a = 0; a < m; ++a)
    for (Eigen::Index b = 0; b < m; ++b)
      R(a, b) = C(states[static_cast<std::size_t>(a)], states[static_cast<std::size_t>(b)]);
  return R;
}

}  // namespace trails::analysis
