// Reranking benchmark for Sieve: one query against a set of candidate
// documents (100 in bench/run_rerank.sh), one Reranker::score call per
// repetition, at each document length given. Prints one JSON object with the
// per-call latency p50/p99, pairs/s and the scores of the first call, so that
// bench/rerank_report.py can check them against the Python peers
// (bench/rerank_peers.py) of the same run.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "sieve/error.hpp"
#include "sieve/logging.hpp"
#include "sieve/reranker.hpp"

namespace {

using sieve::bench::Clock;
using sieve::bench::percentile;
using sieve::bench::read_lines;
using sieve::bench::since;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sieve reranking benchmark"};
  std::string model;
  std::string query;
  std::vector<std::string> documents_files;
  std::size_t batch_size = 32;
  int threads = 0;
  double min_seconds = 2;
  std::size_t min_reps = 10;
  std::vector<std::string> providers;
  app.add_option("--model", model, "Cross-encoder model folder")->required();
  app.add_option("--query", query, "The query")->required();
  app.add_option("--documents", documents_files, "Files of candidate documents, one per line; one set per file")
      ->required()
      ->delimiter(',');
  app.add_option("--batch-size", batch_size, "Pairs per ORT run");
  app.add_option("--threads", threads, "Intra-op threads (0: physical cores)");
  app.add_option("--min-seconds", min_seconds, "Minimum measuring time per document set");
  app.add_option("--min-reps", min_reps, "Minimum timed calls per document set");
  app.add_option("--provider", providers, "Execution provider, in order (as sieve rerank --provider); strict");
  CLI11_PARSE(app, argc, argv);

  try {
    sieve::set_log_level("warn");
    sieve::RerankerOptions options;
    options.runtime.intra_op_threads = threads;
    options.batch_size = batch_size;
    // A benchmark must measure the provider it names, never a silent CPU fallback.
    options.runtime.strict_providers = !providers.empty();
    for (const auto& p : providers) options.runtime.providers.push_back(sieve::parse_provider_spec(p));
    const auto reranker = sieve::Reranker::load(model, options);
    nlohmann::json report;
    report["threads"] = reranker.info().intra_op_threads;
    report["providers"] = reranker.info().providers;
    report["onnxruntime_version"] = reranker.info().onnxruntime_version;
    report["max_length"] = reranker.info().max_length;
    report["batch_size"] = batch_size;
    report["activation"] = sieve::to_string(reranker.activation());

    for (const auto& file : documents_files) {
      const auto documents = read_lines(file);
      const std::vector<std::string_view> views(documents.begin(), documents.end());
      // Untimed warm-up: ORT sizes its buffers on the first run of a shape.
      const std::vector<float> scores = reranker.score(query, views);
      std::vector<double> latencies_ms;
      const auto start = Clock::now();
      while (since(start) < min_seconds || latencies_ms.size() < min_reps) {
        const auto t = Clock::now();
        const auto s = reranker.score(query, views);
        latencies_ms.push_back(since(t) * 1000.0);
        if (s.size() != views.size()) throw std::runtime_error("wrong number of scores");
      }
      const double p50 = percentile(latencies_ms, 50);
      nlohmann::json row;
      row["file"] = file;
      row["documents"] = documents.size();
      row["p50_ms"] = p50;
      row["p99_ms"] = percentile(latencies_ms, 99);
      row["pairs_per_s"] = static_cast<double>(documents.size()) / (p50 / 1000.0);
      row["reps"] = latencies_ms.size();
      row["scores"] = scores;
      report["sets"].push_back(row);
      std::cerr << file << ": p50 " << p50 << " ms, " << latencies_ms.size() << " reps\n";
    }
    std::cout << report.dump(2) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "sieve_rerank_bench: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
