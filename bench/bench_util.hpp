#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "sieve/error.hpp"

// Helpers shared by the benchmark programs: input files and timing.
namespace sieve::bench {

// The non-empty lines of a text file.
inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw sieve::Error(sieve::ErrorCode::kNotFound, path + ": cannot open");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

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

// CPU time of the whole process, in seconds: for single-threaded
// measurements on a shared machine, where wall time counts the time other
// processes held the core.
inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

enum class Timing { kWall, kProcessCpu };

// Repeats `body` (which returns the units it processed) for at least
// `min_seconds` after one warm-up; returns the rate of every repetition,
// per second of wall time or of process CPU time.
template <typename Body>
std::vector<double> rates(double min_seconds, Body&& body, Timing timing = Timing::kWall) {
  body();
  std::vector<double> out;
  const auto start = Clock::now();
  while (since(start) < min_seconds || out.size() < 3) {
    const auto t = Clock::now();
    const double cpu = process_cpu_seconds();
    const double units = body();
    const double seconds = timing == Timing::kWall ? since(t) : process_cpu_seconds() - cpu;
    out.push_back(units / seconds);
  }
  return out;
}

}  // namespace sieve::bench
