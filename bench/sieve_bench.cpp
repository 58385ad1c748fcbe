// Embedding benchmark for Sieve: tokenization throughput, embedding
// throughput per batch size, single-sentence latency, and the share of wall
// time spent outside ONNX Runtime's run. Prints one JSON object; bench/run.sh
// runs it beside the Python peers (bench/peers.py) and writes RESULTS.md.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

#include "bench/bench_util.hpp"
#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "sieve/logging.hpp"

namespace {

using sieve::bench::Clock;
using sieve::bench::median;
using sieve::bench::percentile;
using sieve::bench::rates;
using sieve::bench::read_lines;
using sieve::bench::since;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sieve embedding benchmark"};
  std::string model;
  std::string sentences_file;
  std::vector<std::size_t> batch_sizes = {1, 8, 32, 128};
  int threads = 0;
  double min_seconds = 3;
  bool memory_pattern = false;
  bool no_spinning = false;
  std::vector<std::string> providers;
  app.add_option("--model", model, "Model folder")->required();
  app.add_option("--sentences", sentences_file, "One sentence per line")->required();
  app.add_option("--batch-sizes", batch_sizes, "Batch sizes")->delimiter(',');
  app.add_option("--threads", threads, "Intra-op threads (0: physical cores)");
  app.add_option("--min-seconds", min_seconds, "Minimum measuring time per configuration");
  app.add_flag("--memory-pattern", memory_pattern, "Enable ORT memory patterns (off by default in Sieve)");
  app.add_flag("--no-spinning", no_spinning, "Intra-op threads sleep instead of spinning while they wait");
  app.add_option("--provider", providers, "Execution provider, in order (as sieve embed --provider); strict");
  CLI11_PARSE(app, argc, argv);

  try {
    sieve::set_log_level("warn");
    const auto sentences = read_lines(sentences_file);
    std::vector<std::string_view> views(sentences.begin(), sentences.end());
    nlohmann::json report;
    report["sentences"] = sentences.size();

    sieve::EmbedderOptions options;
    options.runtime.intra_op_threads = threads;
    options.runtime.memory_pattern = memory_pattern;
    options.runtime.spinning = !no_spinning;
    // A benchmark must measure the provider it names, never a silent CPU fallback.
    options.runtime.strict_providers = !providers.empty();
    for (const auto& p : providers) options.runtime.providers.push_back(sieve::parse_provider_spec(p));
    const auto tokenizer_owner = sieve::Embedder::load(model, options);
    const auto& info = tokenizer_owner.info();
    report["threads"] = info.intra_op_threads;
    report["providers"] = info.providers;
    report["onnxruntime_version"] = info.onnxruntime_version;
    report["max_length"] = info.max_length;

    // Tokenization alone, single-threaded, with the embedding truncation.
    std::size_t total_tokens = 0;
    for (const auto s : views) total_tokens += tokenizer_owner.tokenizer().encode(s).size();
    report["total_tokens"] = total_tokens;
    const auto tokenize_rates = rates(min_seconds, [&] {
      std::size_t tokens = 0;
      for (const auto s : views) tokens += tokenizer_owner.tokenizer().encode(s).size();
      return static_cast<double>(tokens);
    });
    report["tokenize"] = {{"tokens_per_second", median(tokenize_rates)},
                          {"sentences_per_second", median(tokenize_rates) * static_cast<double>(sentences.size()) /
                                                       static_cast<double>(total_tokens)}};

    for (const std::size_t batch : batch_sizes) {
      options.batch_size = batch;
      const auto embedder = sieve::Embedder::load(model, options);
      sieve::EmbedTimings timings;
      double wall = 0;
      const auto r = rates(min_seconds, [&] {
        sieve::EmbedTimings one;
        const auto t = Clock::now();
        const auto result = embedder.embed(views, &one);
        wall += since(t);
        timings.tokenize_seconds += one.tokenize_seconds;
        timings.prepare_seconds += one.prepare_seconds;
        timings.run_seconds += one.run_seconds;
        timings.pool_seconds += one.pool_seconds;
        timings.tokens += one.tokens;
        timings.padded_tokens += one.padded_tokens;
        return static_cast<double>(result.rows);
      });
      const double outside = wall - timings.run_seconds;
      report["embed"][std::to_string(batch)] = {
          {"sentences_per_second", median(r)},
          {"share_outside_ort", outside / wall},
          {"tokenize_share", timings.tokenize_seconds / wall},
          {"prepare_share", timings.prepare_seconds / wall},
          {"pool_share", timings.pool_seconds / wall},
          {"padding_overhead", static_cast<double>(timings.padded_tokens) / static_cast<double>(timings.tokens) - 1.0}};
      std::cerr << "batch " << batch << ": " << median(r) << " sentences/s\n";
    }

    // Latency of one sentence per call, each sentence in turn.
    options.batch_size = 1;
    const auto embedder = sieve::Embedder::load(model, options);
    for (std::size_t i = 0; i < std::min<std::size_t>(20, views.size()); ++i)
      (void)embedder.embed(std::span<const std::string_view>(views).subspan(i, 1));
    std::vector<double> latencies;
    const auto start = Clock::now();
    for (std::size_t round = 0; since(start) < min_seconds || round == 0; ++round) {
      for (std::size_t i = 0; i < views.size(); ++i) {
        const auto t = Clock::now();
        (void)embedder.embed(std::span<const std::string_view>(views).subspan(i, 1));
        latencies.push_back(since(t) * 1000.0);
      }
    }
    report["latency_ms"] = {
        {"p50", percentile(latencies, 50)}, {"p99", percentile(latencies, 99)}, {"samples", latencies.size()}};
    std::cout << report.dump(2) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "sieve_bench: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
