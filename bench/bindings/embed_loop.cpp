// The reference of the bindings benchmark: the same embedding loop as
// embed_loop.c (the C ABI), the Go and the Zig programs, written against the
// C++ API directly. Protocol (README.md): batches cycle through the lines of
// --texts; --warmup calls are not timed; one JSON line of results.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

#include "bench/bench_util.hpp"
#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "sieve/logging.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Embedding loop through the C++ API (bindings benchmark reference)"};
  std::string model;
  std::string texts_file;
  std::size_t batch = 1;
  std::size_t calls = 1000;
  std::size_t warmup = 50;
  int threads = 0;
  app.add_option("--model", model, "Model folder")->required();
  app.add_option("--texts", texts_file, "One text per line")->required();
  app.add_option("--batch", batch, "Texts per call")->check(CLI::PositiveNumber);
  app.add_option("--calls", calls, "Timed calls")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "Untimed calls first");
  app.add_option("--threads", threads, "Intra-op threads (0: physical cores)");
  CLI11_PARSE(app, argc, argv);
  try {
    sieve::set_log_level("warn");
    const std::vector<std::string> lines = sieve::bench::read_lines(texts_file);
    if (lines.empty()) throw sieve::Error(sieve::ErrorCode::kInvalidInput, texts_file + " has no lines");
    sieve::EmbedderOptions options;
    options.runtime.intra_op_threads = threads;
    options.batch_size = batch;
    const auto embedder = sieve::Embedder::load(model, options);
    std::vector<std::string_view> texts(batch);
    std::vector<double> seconds;
    seconds.reserve(calls);
    double checksum = 0;
    for (std::size_t call = 0; call < warmup + calls; ++call) {
      for (std::size_t j = 0; j < batch; ++j) texts[j] = lines[(call * batch + j) % lines.size()];
      const auto start = sieve::bench::Clock::now();
      const sieve::Embeddings vectors = embedder.embed(std::span<const std::string_view>(texts));
      const double elapsed = sieve::bench::since(start);
      if (call >= warmup) seconds.push_back(elapsed);
      checksum = vectors.data.empty() ? 0 : vectors.data.front();
    }
    double total = 0;
    for (const double s : seconds) total += s;
    nlohmann::json out = {{"impl", "cpp"},
                          {"batch", batch},
                          {"calls", calls},
                          {"median_ms", 1e3 * sieve::bench::median(seconds)},
                          {"p99_ms", 1e3 * sieve::bench::percentile(seconds, 99)},
                          {"sentences_per_s", static_cast<double>(batch * calls) / total},
                          {"first_value", checksum}};
    std::cout << out.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "embed_loop: " << e.what() << "\n";
    return 1;
  }
}
