#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

// Timing helpers shared by the benchmark programs.
namespace sieve::bench {

using Clock = std::chrono::steady_clock;

inline double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(rank);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

// Repeats `body` (which returns the units it processed) for at least
// `min_seconds` after one warm-up; returns the rate of every repetition.
template <typename Body>
std::vector<double> rates(double min_seconds, Body&& body) {
  body();
  std::vector<double> out;
  const auto start = Clock::now();
  while (since(start) < min_seconds || out.size() < 3) {
    const auto t = Clock::now();
    const double units = body();
    out.push_back(units / since(t));
  }
  return out;
}

}  // namespace sieve::bench
