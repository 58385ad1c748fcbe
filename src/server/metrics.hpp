#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sieve/batch_scheduler.hpp"

namespace sieve::server {

// A Prometheus histogram: cumulative buckets, a sum and a count.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
  // The exposition lines of this histogram under `name`, with `labels`
  // (`key="value",...`, may be empty) on every line.
  void render(std::string& out, std::string_view name, std::string_view labels) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; the last is +Inf
  double sum_ = 0;
  std::uint64_t count_ = 0;
  mutable std::mutex mutex_;
};

// What the server reports at /metrics, in the Prometheus text format.
// Thread-safe.
class Metrics {
 public:
  Metrics();

  void count_request(std::string_view route, int status, double seconds);
  void observe_tokenize(double seconds);
  void observe_batch(std::string_view model, const BatchReport& report);
  void set_model_load_seconds(std::string_view model, double seconds);
  void set_queue_depth(std::string_view model, std::size_t inputs);

  // Everything, with the gauges read now (resident memory from /proc).
  [[nodiscard]] std::string render() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;  // (route, status)
  std::map<std::string, Histogram> request_seconds_;               // by route
  std::map<std::string, double> load_seconds_;                     // by model
  std::map<std::string, std::size_t> queue_depth_;                 // by model
  Histogram tokenize_seconds_;
  Histogram inference_seconds_;
  Histogram queue_wait_seconds_;
  Histogram batch_size_;
  Histogram batch_tokens_;
  std::uint64_t batches_ = 0;
};

// Resident set size of this process in bytes (0 where /proc is missing).
std::size_t resident_memory_bytes();

}  // namespace sieve::server
