#include "server/metrics.hpp"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace sieve::server {
namespace {

std::vector<double> latency_buckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

std::vector<double> powers_of_two(double first, std::size_t n) {
  std::vector<double> bounds;
  for (std::size_t i = 0; i < n; ++i) bounds.push_back(first * std::pow(2.0, static_cast<double>(i)));
  return bounds;
}

std::string number(double value) {
  if (std::isinf(value)) return "+Inf";
  std::ostringstream s;
  s.precision(10);
  s << value;
  return s.str();
}

// Label values escape backslash, quote and newline.
std::string escape(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  const std::lock_guard lock(mutex_);
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
  const std::lock_guard lock(mutex_);
  std::string prefix(labels);
  if (!prefix.empty()) prefix.push_back(',');
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const double bound = i < bounds_.size() ? bounds_[i] : INFINITY;
    out.append(name).append("_bucket{").append(prefix).append("le=\"").append(number(bound)).append("\"} ");
    out.append(std::to_string(cumulative)).append("\n");
  }
  std::string braces;
  if (!labels.empty()) braces.append("{").append(labels).append("}");
  out.append(name).append("_sum").append(braces).append(" ").append(number(sum_)).append("\n");
  out.append(name).append("_count").append(braces).append(" ").append(std::to_string(count_)).append("\n");
}

Metrics::Metrics()
    : tokenize_seconds_(latency_buckets()),
      inference_seconds_(latency_buckets()),
      queue_wait_seconds_(latency_buckets()),
      batch_size_(powers_of_two(1, 10)),
      batch_tokens_(powers_of_two(16, 12)) {}

void Metrics::count_request(std::string_view route, int status, double seconds) {
  const std::lock_guard lock(mutex_);
  ++requests_[{std::string(route), status}];
  auto it = request_seconds_.find(std::string(route));
  if (it == request_seconds_.end()) it = request_seconds_.emplace(std::string(route), latency_buckets()).first;
  it->second.observe(seconds);
}

void Metrics::observe_tokenize(double seconds) {
  tokenize_seconds_.observe(seconds);
}

void Metrics::observe_batch(std::string_view /*model*/, const BatchReport& report) {
  inference_seconds_.observe(report.run_seconds);
  queue_wait_seconds_.observe(report.wait_seconds);
  batch_size_.observe(static_cast<double>(report.inputs));
  batch_tokens_.observe(static_cast<double>(report.padded_tokens));
  const std::lock_guard lock(mutex_);
  ++batches_;
}

void Metrics::set_model_load_seconds(std::string_view model, double seconds) {
  const std::lock_guard lock(mutex_);
  load_seconds_[std::string(model)] = seconds;
}

void Metrics::set_queue_depth(std::string_view model, std::size_t inputs) {
  const std::lock_guard lock(mutex_);
  queue_depth_[std::string(model)] = inputs;
}

std::string Metrics::render() const {
  std::string out;
  const std::lock_guard lock(mutex_);
  header(out, "sieve_requests_total", "counter", "HTTP requests answered, by route and status");
  for (const auto& [key, n] : requests_) {
    out.append("sieve_requests_total{route=\"").append(escape(key.first)).append("\",status=\"");
    out.append(std::to_string(key.second)).append("\"} ").append(std::to_string(n)).append("\n");
  }
  header(out, "sieve_request_duration_seconds", "histogram", "End-to-end request latency, by route");
  for (const auto& [route, h] : request_seconds_) {
    h.render(out, "sieve_request_duration_seconds", "route=\"" + escape(route) + "\"");
  }
  header(out, "sieve_tokenize_duration_seconds", "histogram", "Tokenization time of one request");
  tokenize_seconds_.render(out, "sieve_tokenize_duration_seconds", "");
  header(out, "sieve_inference_duration_seconds", "histogram", "Model run time of one batch");
  inference_seconds_.render(out, "sieve_inference_duration_seconds", "");
  header(out, "sieve_queue_wait_seconds", "histogram", "Time the oldest input of a batch waited in the queue");
  queue_wait_seconds_.render(out, "sieve_queue_wait_seconds", "");
  header(out, "sieve_batch_size", "histogram", "Inputs per model run");
  batch_size_.render(out, "sieve_batch_size", "");
  header(out, "sieve_batch_tokens", "histogram", "Tokens per model run, padding included");
  batch_tokens_.render(out, "sieve_batch_tokens", "");
  header(out, "sieve_batches_total", "counter", "Model runs");
  out.append("sieve_batches_total ").append(std::to_string(batches_)).append("\n");
  header(out, "sieve_queue_depth", "gauge", "Inputs queued for a model run, by model");
  for (const auto& [model, n] : queue_depth_) {
    out.append("sieve_queue_depth{model=\"").append(escape(model)).append("\"} ").append(std::to_string(n));
    out.append("\n");
  }
  header(out, "sieve_model_load_seconds", "gauge", "Time the model took to load, by model");
  for (const auto& [model, seconds] : load_seconds_) {
    out.append("sieve_model_load_seconds{model=\"").append(escape(model)).append("\"} ").append(number(seconds));
    out.append("\n");
  }
  header(out, "sieve_resident_memory_bytes", "gauge", "Resident set size of the server process");
  out.append("sieve_resident_memory_bytes ").append(std::to_string(resident_memory_bytes())).append("\n");
  return out;
}

std::size_t resident_memory_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages_total = 0;
  std::size_t pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0;
  return pages_resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace sieve::server
