// The million-chunk benchmark's Sieve runner (bench/search/scale/run.sh): stores precomputed vectors in a Sieve
// index (SQLite, as `sieve index add` stores chunks) and measures its nearest-neighbour search as SearchIndex runs it
// (the store's snapshot, its graph, rescoring from the float32 vectors on disk).
//
//   build:  sieve_scale_bench build --index DIR --base base.f32 --dimension 384 --count N --vectors int8
//   query:  sieve_scale_bench query --index DIR --queries queries.f32 --truth truth.i32 [--rescore R] [--ef E]
//
// base.f32: rows of float32 (little-endian), row i stored as chunk id i + 1. queries.f32: rows of the same width.
// truth.i32: each query's exact top 10 as 0-based row numbers of base.f32. Each command prints one JSON object:
// build: seconds to store the vectors and to build the graph, bytes on disk; query: recall@10 against the truth,
// latency p50/p99 (one thread), queries/s on --threads threads, and the resident memory the graph added (VmRSS
// before the index is opened and after its first search).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "bench/bench_util.hpp"
#include "search/sqlite.hpp"
#include "search/storage.hpp"
#include "sieve/error.hpp"

namespace {

namespace fs = std::filesystem;
using sieve::bench::Clock;
using sieve::bench::percentile;
using sieve::bench::since;

// A file of float32 rows, mapped read-only.
class Rows {
 public:
  Rows(const std::string& path, std::size_t dimension) : dimension_(dimension) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat status {};
    if (fd_ < 0 || ::fstat(fd_, &status) != 0) throw sieve::Error(sieve::ErrorCode::kNotFound, path + ": cannot open");
    bytes_ = static_cast<std::size_t>(status.st_size);
    data_ = ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (data_ == MAP_FAILED) throw sieve::Error(sieve::ErrorCode::kRuntime, path + ": cannot map");
  }
  ~Rows() {
    ::munmap(data_, bytes_);
    ::close(fd_);
  }
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;
  [[nodiscard]] std::size_t count() const { return bytes_ / (dimension_ * sizeof(float)); }
  [[nodiscard]] std::span<const float> row(std::size_t i) const {
    return {static_cast<const float*>(data_) + i * dimension_, dimension_};
  }

 private:
  std::size_t dimension_;
  int fd_ = -1;
  std::size_t bytes_ = 0;
  void* data_ = nullptr;
};

std::size_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

std::uint64_t folder_bytes(const fs::path& folder) {
  std::uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

int build(const std::string& index, const std::string& base, std::size_t dimension, std::size_t count,
          const std::string& vectors, std::size_t m, std::size_t ef_construction, std::size_t graph_dimensions) {
  const Rows rows(base, dimension);
  count = count == 0 ? rows.count() : std::min(count, rows.count());
  sieve::search::StorageConfig config;
  config.model = {"scale-bench", "", "", dimension, "mean", true};
  config.options.exact_threshold = 1;
  config.options.hnsw_m = m;
  config.options.hnsw_ef_construction = ef_construction;
  config.options.vectors = sieve::parse_vector_codes(vectors);
  config.options.graph_dimensions = graph_dimensions;
  config.options.rescore = sieve::default_rescore(config.options.vectors, graph_dimensions != 0);
  fs::remove_all(index);
  fs::create_directories(index);
  auto storage = sieve::search::open_sqlite_storage(index, config);
  const auto start = Clock::now();
  constexpr std::size_t kPerDocument = 100;
  for (std::size_t first = 0; first < count;) {
    auto writer = storage->begin_write();
    for (std::size_t d = 0; d < 100 && first < count; ++d) {
      sieve::search::NewDocument document;
      // (appended, not "d" + ...: GCC 12 warns falsely of overlapping copies there)
      document.key = std::to_string(first / kPerDocument);
      document.key.insert(0, 1, 'd');
      document.source = document.key;
      document.format = "text";
      for (std::size_t i = first; i < std::min(count, first + kPerDocument); ++i) {
        sieve::search::NewChunk chunk;
        chunk.text = std::to_string(i);
        chunk.text.insert(0, 1, 'c');
        chunk.end = chunk.text.size();
        const auto row = rows.row(i);
        chunk.vector.assign(row.begin(), row.end());
        document.chunks.push_back(std::move(chunk));
      }
      writer->add_document(document);
      first += document.chunks.size();
    }
    writer->commit();
  }
  const double store_s = since(start);
  const auto graph_start = Clock::now();
  const std::size_t covered = storage->refresh_graph();
  const double graph_s = since(graph_start);
  const auto stats = storage->stats();
  nlohmann::json out{{"vectors", vectors},
                     {"graph_dimensions", graph_dimensions},
                     {"count", count},
                     {"store_s", store_s},
                     {"graph_s", graph_s},
                     {"graph_covers", covered},
                     {"disk_bytes", folder_bytes(index)},
                     {"database_bytes", stats.database_bytes},
                     {"graph_file_bytes", stats.ann_bytes},
                     {"vector_bytes", stats.ann_vector_bytes}};
  std::cout << out.dump() << "\n";
  return 0;
}

int query(const std::string& index, const std::string& queries_file, const std::string& truth_file,
          std::size_t dimension, std::optional<std::size_t> rescore, std::size_t ef, std::size_t threads, bool exact,
          std::size_t limit) {
  if (rescore) {
    sieve::search::Database db(fs::path(index) / "index.sqlite", sieve::search::Database::Mode::kReadWrite);
    db.prepare("INSERT OR REPLACE INTO meta VALUES ('rescore', ?)").bind(1, std::to_string(*rescore)).run();
  }
  const Rows queries(queries_file, dimension);
  std::vector<std::int32_t> top;
  {
    std::ifstream in(truth_file, std::ios::binary);
    in.seekg(0, std::ios::end);
    top.resize(static_cast<std::size_t>(in.tellg()) / sizeof(std::int32_t));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(top.data()), static_cast<std::streamsize>(top.size() * sizeof(std::int32_t)));
  }
  const std::size_t n = std::min({queries.count(), top.size() / 10, limit == 0 ? queries.count() : limit});
  const std::size_t before = resident_bytes();
  auto storage = sieve::search::open_sqlite_storage(index, std::nullopt);
  const auto config = storage->config();
  const auto search = [&](std::size_t q, bool* used) {
    auto snapshot = storage->snapshot();
    return snapshot->nearest(queries.row(q), 10, std::nullopt, exact, ef, used);
  };
  bool used_ann = false;
  const auto load_start = Clock::now();
  (void)search(0, &used_ann);
  const double load_s = since(load_start);
  const std::size_t after = resident_bytes();
  std::vector<double> latencies;
  std::size_t found = 0;
  for (std::size_t q = 0; q < n; ++q) {
    const auto start = Clock::now();
    const auto hits = search(q, nullptr);
    latencies.push_back(since(start) * 1000);
    std::set<std::int64_t> want;
    for (std::size_t i = 0; i < 10; ++i) want.insert(top[q * 10 + i] + 1);
    for (const auto& hit : hits) found += want.count(hit.id);
  }
  std::atomic<std::size_t> next{0};
  const auto parallel_start = Clock::now();
  {
    std::vector<std::jthread> workers;
    for (std::size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        for (std::size_t q = next++; q < n; q = next++) (void)search(q, nullptr);
      });
    }
  }
  const double parallel_s = since(parallel_start);
  nlohmann::json out{{"vectors", sieve::to_string(config.options.vectors)},
                     {"exact", exact},
                     {"used_graph", used_ann},
                     {"rescore", config.options.rescore.value_or(0)},
                     {"ef", ef},
                     {"queries", n},
                     {"recall_at_10", static_cast<double>(found) / static_cast<double>(n * 10)},
                     {"p50_ms", percentile(latencies, 50)},
                     {"p99_ms", percentile(latencies, 99)},
                     {"threads", threads},
                     {"queries_per_s", static_cast<double>(n) / parallel_s},
                     {"first_search_s", load_s},
                     {"graph_resident_bytes", after > before ? after - before : 0}};
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sieve's runner of the million-chunk benchmark (bench/search/scale/run.sh)"};
  app.require_subcommand(1);
  std::string index;
  std::string base;
  std::string queries;
  std::string truth;
  std::string vectors = "float32";
  std::size_t dimension = 384;
  std::size_t count = 0;
  std::size_t m = 16;
  std::size_t ef_construction = 100;
  std::size_t graph_dimensions = 0;
  std::optional<std::size_t> rescore;
  std::size_t ef = 64;
  std::size_t threads = 2;
  std::size_t limit = 0;
  bool exact = false;
  auto* build_command = app.add_subcommand("build", "Store the vectors and build the graph");
  build_command->add_option("--index", index)->required();
  build_command->add_option("--base", base)->required();
  build_command->add_option("--dimension", dimension);
  build_command->add_option("--count", count, "rows stored (0: all)");
  build_command->add_option("--vectors", vectors);
  build_command->add_option("--m", m);
  build_command->add_option("--ef-construction", ef_construction);
  build_command->add_option("--graph-dimensions", graph_dimensions, "the graph holds this prefix (0: all)");
  auto* query_command = app.add_subcommand("query", "Run the queries");
  query_command->add_option("--index", index)->required();
  query_command->add_option("--queries", queries)->required();
  query_command->add_option("--truth", truth)->required();
  query_command->add_option("--dimension", dimension);
  query_command->add_option("--rescore", rescore);
  query_command->add_option("--ef", ef);
  query_command->add_option("--threads", threads);
  query_command->add_option("--limit", limit, "queries run (0: all)");
  query_command->add_flag("--exact", exact);
  CLI11_PARSE(app, argc, argv);
  try {
    if (*build_command) return build(index, base, dimension, count, vectors, m, ef_construction, graph_dimensions);
    return query(index, queries, truth, dimension, rescore, ef, threads, exact, limit);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sieve_scale_bench: %s\n", e.what());
    return 1;
  }
}
