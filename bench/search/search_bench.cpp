// Search benchmark for Sieve: runs the queries of bench/search/make_corpus.py
// against an index built by `sieve index add`, in each mode (vector, bm25,
// hybrid) without and with reranking, and prints one JSON object with the
// per-query latency p50/p99 of each, recall@k against the queries' relevant
// documents (a document counts when one of its chunks is among the k hits),
// and recall@k of the approximate index against exact search
// (SearchOptions::exact) for the same queries. bench/search/report.py sets it
// beside the Python peer (bench/search/peer.py) of the same run.
//
//   sieve_search_bench --index DIR --queries queries.jsonl [--rerank MODEL] > sieve.json
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "sieve/logging.hpp"
#include "sieve/reranker.hpp"
#include "sieve/search.hpp"

namespace {

using sieve::bench::Clock;
using sieve::bench::percentile;
using sieve::bench::since;

struct Query {
  std::string text;
  std::vector<std::string> relevant;
};

std::vector<Query> read_queries(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw sieve::Error(sieve::ErrorCode::kNotFound, path + ": cannot open");
  std::vector<Query> queries;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto record = nlohmann::json::parse(line);
    Query q;
    q.text = record.at("query").get<std::string>();
    if (const auto it = record.find("relevant"); it != record.end()) {
      for (const auto& id : *it) q.relevant.push_back(id.is_string() ? id.get<std::string>() : id.dump());
    }
    queries.push_back(std::move(q));
  }
  if (queries.empty()) throw sieve::Error(sieve::ErrorCode::kInvalidInput, path + ": no queries");
  return queries;
}

double relevant_recall(const sieve::SearchResult& result, const std::vector<std::string>& relevant) {
  if (relevant.empty()) return 0;
  std::set<std::string> found;
  for (const auto& hit : result.hits) found.insert(hit.document_id);
  std::size_t got = 0;
  for (const auto& id : relevant) got += found.count(id);
  return static_cast<double>(got) / static_cast<double>(relevant.size());
}

double overlap(const sieve::SearchResult& approximate, const sieve::SearchResult& exact) {
  if (exact.hits.empty()) return approximate.hits.empty() ? 1.0 : 0.0;
  std::set<std::int64_t> want;
  for (const auto& hit : exact.hits) want.insert(hit.chunk_id);
  std::size_t got = 0;
  for (const auto& hit : approximate.hits) got += want.count(hit.chunk_id);
  return static_cast<double>(got) / static_cast<double>(want.size());
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (const double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sieve search benchmark"};
  std::string index_dir;
  std::string queries_file;
  std::string model_dir;
  std::string rerank_model;
  std::size_t k = 10;
  std::size_t candidates = 50;
  std::size_t ef_search = 64;
  int threads = 0;
  std::size_t max_queries = 0;
  std::vector<std::string> modes{"vector", "bm25", "hybrid"};
  app.add_option("--index", index_dir, "Index folder (made by sieve index add)")->required();
  app.add_option("--queries", queries_file, "Queries JSONL: {\"query\": ..., \"relevant\": [document ids]}")
      ->required();
  app.add_option("--model", model_dir, "Embedding model folder (default: the one the index records)");
  app.add_option("--rerank", rerank_model, "Cross-encoder folder (none: no reranked runs)");
  app.add_option("--k", k, "Hits per query");
  app.add_option("--rerank-candidates", candidates, "Candidates the reranker scores");
  app.add_option("--ef", ef_search, "hnswlib's ef at query time");
  app.add_option("--threads", threads, "Intra-op threads of the models (0: physical cores)");
  app.add_option("--max-queries", max_queries, "Run only the first N queries (0: all)");
  app.add_option("--modes", modes, "Modes to run")->delimiter(',');
  CLI11_PARSE(app, argc, argv);

  try {
    sieve::set_log_level("warn");
    auto queries = read_queries(queries_file);
    if (max_queries > 0 && queries.size() > max_queries) queries.resize(max_queries);

    auto t = Clock::now();
    const auto index = sieve::SearchIndex::open(index_dir);
    const double open_seconds = since(t);
    if (model_dir.empty()) model_dir = index.model().path;

    sieve::EmbedderOptions embedder_options;
    embedder_options.runtime.intra_op_threads = threads;
    t = Clock::now();
    const auto embedder = sieve::Embedder::load(model_dir, embedder_options);
    const double embedder_seconds = since(t);
    index.check_model(embedder);

    std::optional<sieve::Reranker> reranker;
    double reranker_seconds = 0;
    if (!rerank_model.empty()) {
      sieve::RerankerOptions reranker_options;
      reranker_options.runtime.intra_op_threads = threads;
      t = Clock::now();
      reranker.emplace(sieve::Reranker::load(rerank_model, reranker_options));
      reranker_seconds = since(t);
    }

    const auto stats = index.stats();
    nlohmann::json report;
    report["index"] = index_dir;
    report["model"] = model_dir;
    report["rerank_model"] = rerank_model;
    report["threads"] = embedder.info().intra_op_threads;
    report["queries"] = queries.size();
    report["open_seconds"] = open_seconds;
    report["embedder_load_seconds"] = embedder_seconds;
    report["reranker_load_seconds"] = reranker_seconds;
    report["settings"] = {{"k", k}, {"rerank_candidates", candidates}, {"ef_search", ef_search}};
    report["stats"] = {{"documents", stats.documents},
                       {"chunks", stats.chunks},
                       {"database_bytes", stats.database_bytes},
                       {"ann_bytes", stats.ann_bytes},
                       {"ann_elements", stats.ann_elements},
                       {"exact_threshold", stats.exact_threshold},
                       {"chunk_tokens", stats.chunking.chunk_tokens},
                       {"overlap_tokens", stats.chunking.overlap_tokens}};

    const std::string recall_key = "recall@" + std::to_string(k);
    nlohmann::json mode_rows = nlohmann::json::object();
    for (const auto& mode_name : modes) {
      for (const bool rerank : {false, true}) {
        if (rerank && !reranker) continue;
        sieve::SearchOptions options;
        options.k = k;
        options.mode = sieve::parse_search_mode(mode_name);
        options.rerank_candidates = candidates;
        options.ef_search = ef_search;
        const sieve::Reranker* r = rerank ? &*reranker : nullptr;
        (void)index.search(queries.front().text, options, &embedder, r);  // warm-up
        std::vector<double> latencies_ms;
        std::vector<double> recalls;
        std::size_t used_ann = 0;
        for (const auto& q : queries) {
          const auto start = Clock::now();
          const auto result = index.search(q.text, options, &embedder, r);
          latencies_ms.push_back(since(start) * 1000.0);
          recalls.push_back(relevant_recall(result, q.relevant));
          used_ann += result.used_ann ? 1 : 0;
        }
        const std::string name = mode_name + (rerank ? "+rerank" : "");
        mode_rows[name] = {{"mode", mode_name},
                           {"rerank", rerank},
                           {"queries", queries.size()},
                           {"p50_ms", percentile(latencies_ms, 50)},
                           {"p99_ms", percentile(latencies_ms, 99)},
                           {"mean_ms", mean(latencies_ms)},
                           {recall_key, mean(recalls)},
                           {"used_ann", used_ann}};
        std::cerr << name << ": p50 " << percentile(latencies_ms, 50) << " ms, p99 " << percentile(latencies_ms, 99)
                  << " ms, " << recall_key << ' ' << mean(recalls) << '\n';
      }
    }
    report["modes"] = mode_rows;

    // The approximate index against exact search, for the same queries.
    nlohmann::json ann = nlohmann::json::object();
    for (const auto& mode_name : {"vector", "hybrid"}) {
      if (std::find(modes.begin(), modes.end(), mode_name) == modes.end()) continue;
      sieve::SearchOptions options;
      options.k = k;
      options.mode = sieve::parse_search_mode(mode_name);
      options.ef_search = ef_search;
      sieve::SearchOptions exact_options = options;
      exact_options.exact = true;
      std::vector<double> overlaps;
      for (const auto& q : queries) {
        const auto approximate = index.search(q.text, options, &embedder);
        const auto exact = index.search(q.text, exact_options, &embedder);
        overlaps.push_back(overlap(approximate, exact));
      }
      ann[mode_name] = mean(overlaps);
      std::cerr << mode_name << ": " << recall_key << " of the graph against exact " << mean(overlaps) << '\n';
    }
    report["ann_" + recall_key] = ann;
    std::cout << report.dump(2) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "sieve_search_bench: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
