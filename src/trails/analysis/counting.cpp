// Transition counting and iterative Tarjan strongly connected components.
#include "trails/analysis/counting.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "trails/core/error.h"

namespace trails::analysis {

namespace {

void require_square_counts(const Eigen::Ref<const Eigen::MatrixXd>& C, const char* what) {
  if (C.rows() != C.cols())
    throw core::InputError(std::string(what) + ": expected a square count matrix, got " +
                           std::to_string(C.rows()) + " x " + std::to_string(C.cols()));
}

// C with each row scaled by its count-weighted mean inefficiency (rows keep their proportions).
Eigen::MatrixXd row_averaged(const Eigen::MatrixXd& C, const Eigen::MatrixXd& inefficiency) {
  Eigen::MatrixXd E = C;
  for (Eigen::Index i = 0; i < C.rows(); ++i) {
    const double row = C.row(i).sum();
    if (!(row > 0.0)) continue;
    const double average = C.row(i).dot(inefficiency.row(i)) / row;
    E.row(i) *= average;
  }
  return E;
}

// Effective counts from the sliding counts C: the statistical inefficiency of each nonzero
// pair's indicator series, evaluated sparsely. With m = C_ij / L (L = total series length) the
// lag-k autocovariance sum of one trajectory is n_k - m (S1 + S2) + m^2 (L_r - k): n_k pairs of
// occurrences k apart, S1 occurrences that have a partner slot k later, S2 occurrences that
// have one k earlier. Each is counted from the occurrence list, reading a_{t+k} straight from
// the trajectory, so a pair costs O(occurrences) per k.
Eigen::MatrixXd effective_counts(const std::vector<std::vector<int>>& dtrajs, std::size_t lag,
                                 const Eigen::MatrixXd& C) {
  const Eigen::Index n = C.rows();
  struct Occurrence {
    std::int64_t pair;
    std::uint32_t traj;
    std::uint32_t t;
  };
  std::vector<Occurrence> occ;
  occ.reserve(static_cast<std::size_t>(C.sum()));
  std::vector<std::size_t> length(dtrajs.size(), 0);  // indicator series length L_r
  double total = 0.0;
  std::size_t longest = 0;
  for (std::size_t r = 0; r < dtrajs.size(); ++r) {
    const auto& d = dtrajs[r];
    if (d.size() <= lag) continue;
    length[r] = d.size() - lag;
    total += static_cast<double>(length[r]);
    longest = std::max(longest, length[r]);
    for (std::size_t t = 0; t + lag < d.size(); ++t)
      occ.push_back({static_cast<std::int64_t>(d[t]) * n + d[t + lag],
                     static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(t)});
  }
  // Stable: within a pair, occurrences stay in (trajectory, time) order.
  std::stable_sort(occ.begin(), occ.end(),
                   [](const Occurrence& a, const Occurrence& b) { return a.pair < b.pair; });
  Eigen::MatrixXd inefficiency = Eigen::MatrixXd::Ones(n, n);
  for (std::size_t begin = 0; begin < occ.size();) {
    std::size_t end = begin;
    while (end < occ.size() && occ[end].pair == occ[begin].pair) ++end;
    const auto i = static_cast<int>(occ[begin].pair / n), j = static_cast<int>(occ[begin].pair % n);
    const double m = static_cast<double>(end - begin) / total;
    const double var = m * (1.0 - m);
    double tau = 0.5;
    if (var > 0.0) {
      for (std::size_t k = 1; k < longest; ++k) {
        double products = 0.0, partners = 0.0, pairs = 0.0;
        for (std::size_t r = 0; r < dtrajs.size(); ++r)
          if (length[r] > k) pairs += static_cast<double>(length[r] - k);
        for (std::size_t o = begin; o < end; ++o) {
          const auto r = occ[o].traj;
          const std::size_t t = occ[o].t, L = length[r];
          if (t + k < L) {
            partners += 1.0;
            const auto& d = dtrajs[r];
            if (d[t + k] == i && d[t + k + lag] == j) products += 1.0;
          }
          if (t >= k && L > k) partners += 1.0;
        }
        const double autocorrelation = (products - m * partners + m * m * pairs) / pairs / var;
        if (!(autocorrelation > 0.0)) break;
        tau += autocorrelation * pairs / total;
      }
    }
    inefficiency(i, j) = 1.0 / (2.0 * tau);
    begin = end;
  }
  return row_averaged(C, inefficiency);
}

}  // namespace

EffectiveCountAccumulator::EffectiveCountAccumulator(int n_states, int lag)
    : n_(n_states),
      lag_(static_cast<std::size_t>(lag)),
      C_(Eigen::MatrixXd::Zero(n_states, n_states)),
      pair_of_(static_cast<std::size_t>(n_states) * static_cast<std::size_t>(n_states), -1) {
  if (lag < 1)
    throw core::InputError("EffectiveCountAccumulator: expected lag >= 1, got " +
                           std::to_string(lag));
  if (n_states < 0) throw core::InputError("EffectiveCountAccumulator: expected n_states >= 0");
}

void EffectiveCountAccumulator::add(std::span<const int> d) {
  if (d.size() <= lag_) return;  // no pair: contributes nothing, as in count_matrix
  for (const int s : d) {
    if (s < 0 || s >= n_)
      throw core::InputError("EffectiveCountAccumulator: state id " + std::to_string(s) +
                             " outside [0, " + std::to_string(n_) + ")");
  }
  const std::size_t L = d.size() - lag_;  // indicator series length
  std::vector<std::int64_t> pair_at(L);
  for (std::size_t t = 0; t < L; ++t) {
    const auto key = static_cast<std::size_t>(d[t]) * static_cast<std::size_t>(n_) +
                     static_cast<std::size_t>(d[t + lag_]);
    if (pair_of_[key] < 0) {
      pair_of_[key] = static_cast<std::int64_t>(pairs_.size());
      pairs_.emplace_back();
    }
    pair_at[t] = pair_of_[key];
    C_(d[t], d[t + lag_]) += 1.0;
  }
  total_ += static_cast<double>(L);
  if (lagged_.size() < L) lagged_.resize(L, 0.0);
  for (std::size_t k = 1; k < L; ++k) lagged_[k] += static_cast<double>(L - k);
  for (std::size_t t = 0; t < L; ++t) {
    Pair& p = pairs_[static_cast<std::size_t>(pair_at[t])];
    if (p.partners.size() < L) {
      p.partners.resize(L, 0.0);
      p.products.resize(L, 0.0);
    }
    for (std::size_t k = 1; k < L; ++k) {
      if (t + k < L) {
        p.partners[k] += 1.0;
        if (pair_at[t + k] == pair_at[t]) p.products[k] += 1.0;
      }
      if (t >= k) p.partners[k] += 1.0;
    }
  }
}

Eigen::MatrixXd EffectiveCountAccumulator::effective() const {
  Eigen::MatrixXd inefficiency = Eigen::MatrixXd::Ones(n_, n_);
  for (Eigen::Index i = 0; i < n_; ++i) {
    for (Eigen::Index j = 0; j < n_; ++j) {
      const auto idx = pair_of_[static_cast<std::size_t>(i * n_ + j)];
      if (idx < 0) continue;
      const Pair& p = pairs_[static_cast<std::size_t>(idx)];
      const double m = C_(i, j) / total_;
      const double var = m * (1.0 - m);
      double tau = 0.5;
      if (var > 0.0) {
        for (std::size_t k = 1; k < lagged_.size(); ++k) {
          const double products = k < p.products.size() ? p.products[k] : 0.0;
          const double partners = k < p.partners.size() ? p.partners[k] : 0.0;
          const double pairs = lagged_[k];
          const double autocorrelation = (products - m * partners + m * m * pairs) / pairs / var;
          if (!(autocorrelation > 0.0)) break;
          tau += autocorrelation * pairs / total_;
        }
      }
      inefficiency(i, j) = 1.0 / (2.0 * tau);
    }
  }
  return row_averaged(C_, inefficiency);
}

double statistical_inefficiency(const std::vector<std::vector<double>>& series) {
  double total = 0.0, sum = 0.0;
  std::size_t longest = 0;
  for (const auto& s : series) {
    total += static_cast<double>(s.size());
    longest = std::max(longest, s.size());
    for (double v : s) sum += v;
  }
  if (!(total > 0.0)) return 1.0;
  const double mean = sum / total;
  double var = 0.0;
  for (const auto& s : series)
    for (double v : s) var += (v - mean) * (v - mean);
  var /= total;
  if (!(var > 0.0)) return 1.0;
  double tau = 0.5;
  for (std::size_t k = 1; k < longest; ++k) {
    double products = 0.0, pairs = 0.0;
    for (const auto& s : series)
      for (std::size_t t = 0; t + k < s.size(); ++t) {
        products += (s[t] - mean) * (s[t + k] - mean);
        pairs += 1.0;
      }
    const double autocorrelation = products / pairs / var;
    if (!(autocorrelation > 0.0)) break;
    tau += autocorrelation * pairs / total;
  }
  return 1.0 / (2.0 * tau);
}

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
  if (mode == CountMode::Effective) return effective_counts(dtrajs, ulag, C);
  return C;
}

std::vector<std::vector<int>> strongly_connected_components(
    const Eigen::Ref<const Eigen::MatrixXd>& C) {
  require_square_counts(C, "strongly_connected_components");
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
  require_square_counts(C, "restrict_to_set");
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
