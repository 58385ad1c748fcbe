#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"
#include "sieve/search.hpp"
#include "sieve/text.hpp"

namespace sieve::cli {
namespace {

struct SearchArgs {
  std::string index;
  std::string query;
  std::string queries;
  ModelOptions model;
  std::size_t k = 10;
  std::string mode = "hybrid";
  std::string fuse;
  std::string sparse_model;
  std::string rerank;
  std::size_t rerank_candidates = kDefaultRerankCandidates;
  std::size_t per_document = kDefaultHitsPerDocument;
  std::size_t rerank_window = SearchOptions{}.rerank_window_bytes;
  std::string fusion = "weighted";
  std::string weights;
  std::vector<std::string> filters;
  std::vector<std::string> formats;
  std::vector<std::string> folders;
  std::size_t offset = 0;
  std::size_t ef = 64;
  bool exact = false;
  bool json = false;
};

// The hit's snippet on one line, its matches marked.
std::string shown_snippet(const SearchHit& hit, bool terminal) {
  const std::string_view text = hit.snippet;
  const char* open = terminal ? "\x1b[1m" : "[";
  const char* close = terminal ? "\x1b[0m" : "]";
  // The document's text on one line, its control characters escaped: only
  // the highlighting here reaches the terminal as escape sequences.
  const auto shown = [](std::string_view part) {
    std::string line(part);
    for (char& c : line) {
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    return escape_control(line);
  };
  std::string out;
  std::size_t at = 0;
  for (const auto& [match_begin, match_end] : hit.snippet_matches) {
    if (match_begin < at || match_end > text.size()) continue;
    out.append(shown(text.substr(at, match_begin - at))).append(open);
    out.append(shown(text.substr(match_begin, match_end - match_begin))).append(close);
    at = match_end;
  }
  out.append(shown(text.substr(at)));
  return out;
}

// "vector=0.6,bm25=0.4": the weights of weighted fusion.
void read_weights(const std::string& given, SearchOptions& options) {
  for (std::size_t begin = 0; begin < given.size();) {
    const std::size_t comma = std::min(given.find(',', begin), given.size());
    const std::string item = given.substr(begin, comma - begin);
    begin = comma + 1;
    const auto equals = item.find('=');
    double weight = -1;
    try {
      std::size_t used = 0;
      if (equals != std::string::npos) weight = std::stod(item.substr(equals + 1), &used);
      if (used != item.size() - equals - 1) weight = -1;
    } catch (const std::exception&) {
      weight = -1;
    }
    if (!(weight >= 0)) {
      throw Error(ErrorCode::kInvalidArgument,
                  "--weights takes list=weight pairs (vector=0.6,bm25=0.4), not '" + item + "'");
    }
    const SearchMode list = parse_search_mode(item.substr(0, equals));
    if (list == SearchMode::kVector) options.vector_weight = weight;
    if (list == SearchMode::kBm25) options.bm25_weight = weight;
    if (list == SearchMode::kSparse) options.sparse_weight = weight;
    if (list == SearchMode::kHybrid) throw Error(ErrorCode::kInvalidArgument, "--weights weighs vector, bm25, sparse");
  }
}

int run_search(const SearchArgs& args) {
  const SearchIndex index = SearchIndex::open(args.index);
  SearchOptions options;
  options.k = args.k;
  options.mode = parse_search_mode(args.mode);
  if (!args.fuse.empty()) {
    if (options.mode != SearchMode::kHybrid) {
      throw Error(ErrorCode::kInvalidArgument, "--fuse goes with --mode hybrid");
    }
    for (std::size_t begin = 0; begin <= args.fuse.size();) {
      const std::size_t comma = std::min(args.fuse.find(',', begin), args.fuse.size());
      options.fuse.push_back(parse_search_mode(std::string_view(args.fuse).substr(begin, comma - begin)));
      begin = comma + 1;
    }
  }
  const std::vector<SearchMode> lists = index.lists(options);
  const auto uses = [&](SearchMode list) { return std::find(lists.begin(), lists.end(), list) != lists.end(); };
  options.rerank_candidates = args.rerank_candidates;
  options.per_document = args.per_document;
  options.rerank_window_bytes = args.rerank_window;
  options.fusion = parse_search_fusion(args.fusion);
  read_weights(args.weights, options);
  options.exact = args.exact;
  options.ef_search = args.ef;
  for (const auto& filter : args.filters) {
    const auto equals = filter.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw Error(ErrorCode::kInvalidArgument, "--filter takes key=value, not '" + filter + "'");
    }
    options.filters.emplace_back(filter.substr(0, equals), filter.substr(equals + 1));
  }
  options.formats = args.formats;
  // Folders as the index records files: absolute, links resolved.
  for (const auto& folder : args.folders) {
    std::error_code error;
    auto path = std::filesystem::weakly_canonical(folder, error);
    if (error) path = std::filesystem::absolute(folder).lexically_normal();
    options.folders.push_back(path.string());
  }
  options.offset = args.offset;
  EmbedderOptions embedder_options;
  embedder_options.runtime = to_runtime_options(args.model);
  std::optional<Embedder> embedder;
  if (uses(SearchMode::kVector)) {
    embedder.emplace(
        Embedder::load(args.model.model.empty() ? index.model().path : args.model.model, embedder_options));
    index.check_model(*embedder);
  }
  std::optional<Embedder> sparse;
  if (uses(SearchMode::kSparse) && (index.sparse_model() || !args.sparse_model.empty())) {
    sparse.emplace(
        Embedder::load(args.sparse_model.empty() ? index.sparse_model()->path : args.sparse_model, embedder_options));
    index.check_sparse_model(*sparse);
  }
  std::optional<Reranker> reranker;
  if (!args.rerank.empty()) {
    RerankerOptions reranker_options;
    reranker_options.runtime = to_runtime_options(args.model);
    reranker.emplace(Reranker::load(args.rerank, reranker_options));
  }
  const Embedder* embedder_used = embedder ? &*embedder : nullptr;
  const Reranker* reranker_used = reranker ? &*reranker : nullptr;
  const Embedder* sparse_used = sparse ? &*sparse : nullptr;
  if (!args.queries.empty()) {
    // Many queries for one model load: one JSON line per query.
    std::ifstream file;
    if (args.queries != "-") {
      file.open(args.queries);
      if (!file) throw Error(ErrorCode::kNotFound, "cannot read " + args.queries);
    }
    std::istream& in = args.queries == "-" ? std::cin : file;
    std::size_t line_number = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      try {
        write_stdout(search_result_json(index.search(line, options, embedder_used, reranker_used, sparse_used), line,
                                        options.mode) +
                     "\n");
      } catch (const Error& e) {
        throw Error(e.code(), args.queries + " line " + std::to_string(line_number) + ": " + e.what());
      }
    }
    return 0;
  }
  if (args.query.empty()) throw Error(ErrorCode::kInvalidArgument, "give a query, or --queries FILE");
  const SearchResult result = index.search(args.query, options, embedder_used, reranker_used, sparse_used);
  if (args.json) {
    write_stdout(search_result_json(result, args.query, options.mode) + "\n");
    return 0;
  }
  const bool terminal = isatty(STDOUT_FILENO) == 1;
  std::string out;
  for (std::size_t i = 0; i < result.hits.size(); ++i) {
    const auto& hit = result.hits[i];
    char head[64];
    std::snprintf(head, sizeof head, "%2zu. %3.0f%%  ", hit.rank, hit.relevance * 100);
    out += head + escape_control(hit.document_id);
    if (hit.source != hit.document_id) out += "  " + escape_control(hit.source);
    if (!hit.section.empty()) out += "  " + escape_control(hit.section) + ",";
    out += "  chunk " + std::to_string(hit.chunk_index) + " [" + std::to_string(hit.chunk_begin) + ", " +
           std::to_string(hit.chunk_end) + ")\n";
    if (!hit.title.empty()) out += "    " + escape_control(hit.title) + "\n";
    out += "    " + shown_snippet(hit, terminal) + "\n";
    if (!hit.metadata.empty()) {
      out += "    ";
      for (std::size_t m = 0; m < hit.metadata.size(); ++m) {
        out += (m ? ", " : "") + escape_control(hit.metadata[m].first) + "=" + escape_control(hit.metadata[m].second);
      }
      out += "\n";
    }
  }
  if (result.hits.empty()) out = "no results\n";
  write_stdout(out);
  return 0;
}

}  // namespace

Action add_search_command(CLI::App& app) {
  auto args = std::make_shared<SearchArgs>();
  auto* cmd = app.add_subcommand("search", "Search an index built by sieve index add");
  add_examples(*cmd, {"sieve search --index notes.idx \"how do I quantize a model\" --k 3",
                      "sieve search --index notes.idx \"quantize\" --mode bm25 --json",
                      "sieve search --index notes.idx \"quantize\" --rerank models/ms-marco-MiniLM-L-6-v2"});
  add_index_location(*cmd, args->index, "Index folder");
  auto* query = cmd->add_option("query", args->query, "The query");
  cmd->add_option("--queries", args->queries, "Search each line of this file ('-': standard input); JSON lines out")
      ->excludes(query);
  cmd->add_option("--k,-k", args->k, "Results to return (default 10)")->check(CLI::Range(1, 1000));
  cmd->add_option("--mode", args->mode,
                  "vector, bm25, sparse (an index with a sparse model) or hybrid (the lists fused; default)")
      ->check(CLI::IsMember({"vector", "bm25", "sparse", "hybrid"}));
  cmd->add_option("--fuse", args->fuse,
                  "The lists hybrid fuses, two or more of vector,bm25,sparse (default: all the index has)");
  cmd->add_option("--sparse-model", args->sparse_model,
                  "The index's sparse model folder, when it moved since indexing (it must be the same model)");
  cmd->add_option("--rerank", args->rerank, "Cross-encoder model folder: rerank the best candidates");
  cmd->add_option("--rerank-candidates", args->rerank_candidates,
                  "Candidates the cross-encoder scores, each on the passage around its matches (default " +
                      std::to_string(kDefaultRerankCandidates) + ")")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--rerank-window", args->rerank_window,
                  "Bytes of each candidate the cross-encoder reads, around its matches (default " +
                      std::to_string(SearchOptions{}.rerank_window_bytes) + "); more is slower")
      ->check(CLI::Range(16, 1 << 20));
  cmd->add_option("--per-document", args->per_document,
                  "At most this many results of one document, its best passages first; 0: no limit (default " +
                      std::to_string(kDefaultHitsPerDocument) + ")");
  cmd->add_option("--fusion", args->fusion,
                  "How hybrid fuses its lists: weighted (each list's scores scaled to 0-1, weighted; default) or "
                  "rrf (reciprocal rank)")
      ->check(CLI::IsMember({"weighted", "rrf"}));
  cmd->add_option("--weights", args->weights,
                  "Weighted fusion's weight of each list, e.g. vector=0.6,bm25=0.4,sparse=0.4 (the defaults)");
  cmd->add_option("--filter", args->filters, "Metadata key=value (or source=PATH); repeat for more, all must hold");
  cmd->add_option("--format", args->formats,
                  "Only documents of this format (pdf, markdown, text, html...: see sieve index stats); repeat for "
                  "more, any may hold");
  cmd->add_option("--folder", args->folders,
                  "Only documents from files in this folder (or this file); repeat for more, any may hold");
  cmd->add_option("--offset", args->offset, "Skip this many results first: --offset 10 gives the second page of 10")
      ->check(CLI::Range(0, 999));
  cmd->add_option("--model,-m", args->model.model,
                  "The embedding model's folder, when it moved since indexing (it must be the same model)");
  add_runtime_options(*cmd, args->model);
  cmd->add_option("--ef", args->ef, "Graph search breadth: higher is slower and finds more (default 64)")
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--exact", args->exact, "Compare with every stored vector instead of the graph");
  cmd->add_flag("--json", args->json, "JSON output");
  return [args] { return run_search(*args); };
}

}  // namespace sieve::cli
