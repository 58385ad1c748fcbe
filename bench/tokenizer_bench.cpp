// Tokenizer benchmark: for each tokenizer.json, encodes a corpus with
// Tokenizer::encode_each single-threaded and on every core, without the
// file's truncation and padding (the Python peer, bench/tokenizer_peers.py,
// does the same), and prints one JSON object with throughputs and a hash of
// every id so that bench/tokenizer_report.py can check the outputs are equal.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "bench/bench_util.hpp"
#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"

namespace {

using sieve::bench::median;
using sieve::bench::rates;
using sieve::bench::Timing;

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw sieve::Error(sieve::ErrorCode::kNotFound, path + ": cannot open");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// FNV-1a over every id of every line, with a separator per line: the same
// function as in tokenizer_peers.py.
std::uint64_t hash_ids(const std::vector<sieve::Encoding>& encodings) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto mix = [&](std::uint64_t v) {
    h ^= v;
    h *= 1099511628211ULL;
  };
  for (const auto& e : encodings) {
    for (const auto id : e.ids) mix(id);
    mix(0xFFFFFFFFULL);
  }
  return h;
}

std::size_t count_tokens(const std::vector<sieve::Encoding>& encodings) {
  std::size_t n = 0;
  for (const auto& e : encodings) n += e.size();
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sieve tokenizer benchmark"};
  std::vector<std::string> tokenizers;
  std::string corpus;
  double min_seconds = 3;
  app.add_option("--tokenizer", tokenizers, "tokenizer.json files (NAME=PATH or PATH)")->required();
  app.add_option("--corpus", corpus, "Valid UTF-8 text, one input per line")->required();
  app.add_option("--min-seconds", min_seconds, "Minimum measuring time per configuration");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto lines = read_lines(corpus);
    const std::vector<std::string_view> views(lines.begin(), lines.end());
    nlohmann::json report;
    report["lines"] = lines.size();
    report["cores"] = std::thread::hardware_concurrency();
    for (const auto& spec : tokenizers) {
      const auto eq = spec.find('=');
      const std::string name =
          eq == std::string::npos ? std::filesystem::path(spec).parent_path().filename().string() : spec.substr(0, eq);
      const std::string path = eq == std::string::npos ? spec : spec.substr(eq + 1);
      auto tokenizer = sieve::Tokenizer::from_file(path);
      tokenizer.set_truncation(std::nullopt);
      tokenizer.set_padding(std::nullopt);
      const auto reference = tokenizer.encode_each(views, true, 1);
      const std::size_t tokens = count_tokens(reference);
      nlohmann::json entry;
      entry["tokens"] = tokens;
      entry["ids_hash"] = std::to_string(hash_ids(reference));
      for (const std::size_t threads : {std::size_t{1}, std::size_t{0}}) {
        // One thread: tokens per second of CPU time (the Python peer does the
        // same), so that other load on the machine does not count; all cores:
        // wall time.
        const auto r = rates(
            min_seconds,
            [&] {
              const auto encodings = tokenizer.encode_each(views, true, threads);
              return static_cast<double>(count_tokens(encodings));
            },
            threads == 1 ? Timing::kProcessCpu : Timing::kWall);
        entry[threads == 1 ? "single_thread" : "all_cores"] = {{"tokens_per_second", median(r)},
                                                               {"repetitions", r.size()}};
      }
      report["tokenizers"][name] = entry;
      std::cerr << name << ": " << entry.dump() << "\n";
    }
    std::cout << report.dump(2) << "\n";
  } catch (const sieve::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
