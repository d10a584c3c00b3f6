// A minimal static parallel-for for the analysis kernels. Work items are independent and each
// writes only its own outputs, so results never depend on the number of threads; reductions are
// done by the caller in a fixed order after the loop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace trails::analysis::detail {

// 0 means one thread per hardware core (at least 1).
inline int resolve_threads(int n_threads) {
  if (n_threads > 0) return n_threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Calls body(begin, end) on contiguous blocks covering [0, n). Exceptions from any block are
// rethrown (the first one by block order) after every thread has joined.
template <class Body>
void parallel_for(std::size_t n, int n_threads, Body&& body) {
  const auto threads =
      std::min<std::size_t>(static_cast<std::size_t>(resolve_threads(n_threads)), n);
  if (threads <= 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
    pool.emplace_back([&, t, begin, end] {
      try {
        body(begin, end);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace trails::analysis::detail
