#include "search/retrieval.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "search/digest.hpp"
#include "search/text_match.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace retrieval_detail {

constexpr std::size_t kMaxResults = 1000;

std::vector<float> query_vector(const Embedder& embedder, std::string_view query) {
  const std::array<std::string_view, 1> texts{query};
  const Embeddings embedded = embedder.embed(texts);
  std::vector<float> vector(embedded.row(0).begin(), embedded.row(0).end());
  normalize(vector);
  return vector;
}

std::vector<ScoredChunk> sorted_scores(const std::unordered_map<std::int64_t, double>& scores) {
  std::vector<ScoredChunk> fused;
  fused.reserve(scores.size());
  for (const auto& [id, score] : scores) fused.push_back({id, score});
  std::sort(fused.begin(), fused.end(),
            [](const auto& x, const auto& y) { return x.score != y.score ? x.score > y.score : x.id < y.id; });
  return fused;
}

// Cormack, Clarke and Buettcher (2009): each list adds 1 / (k + rank).
std::vector<ScoredChunk> fuse(const std::vector<const std::vector<ScoredChunk>*>& lists, double k) {
  std::unordered_map<std::int64_t, double> scores;
  for (const auto* list : lists) {
    for (std::size_t rank = 0; rank < list->size(); ++rank) {
      scores[(*list)[rank].id] += 1.0 / (k + static_cast<double>(rank + 1));
    }
  }
  return sorted_scores(scores);
}

// Each list's scores scaled to [0, 1] (its best 1, its last 0), weighted and summed: a chunk missing from a
// list gets that list's 0.
std::vector<ScoredChunk> fuse_weighted(const std::vector<const std::vector<ScoredChunk>*>& lists,
                                       const std::vector<double>& weights) {
  std::unordered_map<std::int64_t, double> scores;
  for (std::size_t l = 0; l < lists.size(); ++l) {
    const auto& list = *lists[l];
    if (list.empty()) continue;
    const auto [low, high] =
        std::minmax_element(list.begin(), list.end(), [](const auto& x, const auto& y) { return x.score < y.score; });
    const double range = high->score - low->score;
    for (const auto& hit : list) {
      scores[hit.id] += weights[l] * (range > 0 ? (hit.score - low->score) / range : 1.0);
    }
  }
  return sorted_scores(scores);
}

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// How deep the lists go at most to fill k hits under a per-document limit.
constexpr std::size_t kMaxListDepth = 4000;

}  // namespace retrieval_detail

// The lists a search ranks by: the mode's own, or those hybrid fuses.
using retrieval_detail::kMaxListDepth;
using retrieval_detail::kMaxResults;

std::vector<SearchMode> lists_of(const SearchOptions& options, const StorageConfig& config) {
  if (options.mode != SearchMode::kHybrid) {
    if (!options.fuse.empty()) {
      throw Error(ErrorCode::kInvalidArgument, "only hybrid search fuses lists; a " +
                                                   std::string(to_string(options.mode)) + " search ranks by its own");
    }
    return {options.mode};
  }
  std::vector<SearchMode> lists = options.fuse;
  if (lists.empty()) {
    lists = {SearchMode::kVector, SearchMode::kBm25};
    if (config.sparse_model) lists.push_back(SearchMode::kSparse);
    return lists;
  }
  for (std::size_t i = 0; i < lists.size(); ++i) {
    if (lists[i] == SearchMode::kHybrid) {
      throw Error(ErrorCode::kInvalidArgument, "hybrid search fuses vector, bm25 and sparse lists, not hybrid ones");
    }
    if (std::find(lists.begin(), lists.begin() + static_cast<std::ptrdiff_t>(i), lists[i]) !=
        lists.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw Error(ErrorCode::kInvalidArgument,
                  "hybrid search fuses each list once; " + std::string(to_string(lists[i])) + " is named twice");
    }
  }
  if (lists.size() < 2) {
    throw Error(ErrorCode::kInvalidArgument, "hybrid search fuses two or more of vector, bm25 and sparse");
  }
  return lists;
}

bool uses(const std::vector<SearchMode>& lists, SearchMode mode) {
  return std::find(lists.begin(), lists.end(), mode) != lists.end();
}

SearchResult retrieve(const IndexStorage& storage, std::string_view query, const SearchOptions& options,
                      const RetrievalModels& models) {
  const auto started = std::chrono::steady_clock::now();
  if (options.k == 0 || options.k > kMaxResults) {
    throw Error(ErrorCode::kInvalidArgument, "k must be between 1 and " + std::to_string(kMaxResults));
  }
  if (query.empty()) throw Error(ErrorCode::kInvalidInput, "the query is empty");
  if (options.offset > kMaxResults - options.k) {
    throw Error(ErrorCode::kInvalidArgument, "offset + k must be at most " + std::to_string(kMaxResults));
  }
  // A later page ranks as deep as it reaches and skips the first `offset` hits.
  const std::size_t wanted = options.offset + options.k;
  const std::vector<SearchMode> lists = lists_of(options, storage.config());
  const bool wants_vectors = uses(lists, SearchMode::kVector);
  const bool wants_sparse = uses(lists, SearchMode::kSparse);
  if (wants_vectors && models.dense == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string(to_string(options.mode)) + " search needs the embedding model");
  }
  if (wants_sparse && !storage.config().sparse_model) {
    throw Error(ErrorCode::kInvalidArgument,
                "sparse search needs sparse vectors, and this index has none: create it with a sparse model "
                "(sieve index add --sparse-model)");
  }
  if (wants_sparse && models.sparse == nullptr) {
    throw Error(ErrorCode::kInvalidArgument, std::string(to_string(options.mode)) +
                                                 " search needs the index's sparse model " +
                                                 storage.config().sparse_model->name);
  }
  const Reranker* reranker = models.reranker;
  // Hits wanted (the pages up to this one) before reranking cuts them.
  std::size_t depth = wanted;
  if (reranker) depth = std::clamp(options.rerank_candidates, wanted, kMaxResults);
  // Fusion needs room below the cut: a chunk ranked 40th in both lists can beat one ranked 5th in one. A
  // per-document limit needs more: one document's chunks may fill the top of every list.
  std::size_t list_depth = options.mode == SearchMode::kHybrid ? std::max<std::size_t>(depth, 50) : depth;
  if (options.per_document > 0) list_depth = std::max(list_depth, depth * 4);

  std::vector<float> vector;
  if (wants_vectors) vector = retrieval_detail::query_vector(*models.dense, query);
  SparseVector sparse_query;
  if (wants_sparse) {
    const std::array<std::string_view, 1> texts{query};
    sparse_query = std::move(models.sparse->embed_sparse(texts).front());
  }

  SearchResult result;
  auto snapshot = storage.snapshot();
  const AllowedChunks allowed = snapshot->filter({options.filters, options.formats, options.folders});
  std::vector<ScoredChunk> by_vector;
  std::vector<ScoredChunk> by_keyword;
  std::vector<ScoredChunk> by_sparse;
  std::vector<StoredChunk> stored;
  std::unordered_map<std::int64_t, double> rank_scores;
  while (true) {
    if (wants_vectors) {
      by_vector = snapshot->nearest(vector, list_depth, allowed, options.exact, options.ef_search, &result.used_ann);
    }
    if (uses(lists, SearchMode::kBm25)) by_keyword = snapshot->keyword(query, list_depth, allowed);
    if (wants_sparse) by_sparse = snapshot->sparse(sparse_query, list_depth, allowed);

    std::vector<ScoredChunk> ranked;
    switch (options.mode) {
      case SearchMode::kVector: ranked = by_vector; break;
      case SearchMode::kBm25: ranked = by_keyword; break;
      case SearchMode::kSparse: ranked = by_sparse; break;
      case SearchMode::kHybrid: {
        std::vector<const std::vector<ScoredChunk>*> fused;
        std::vector<double> weights;
        for (const SearchMode list : lists) {
          fused.push_back(list == SearchMode::kVector ? &by_vector
                          : list == SearchMode::kBm25 ? &by_keyword
                                                      : &by_sparse);
          weights.push_back(list == SearchMode::kVector ? options.vector_weight
                            : list == SearchMode::kBm25 ? options.bm25_weight
                                                        : options.sparse_weight);
        }
        ranked = options.fusion == SearchFusion::kWeighted ? retrieval_detail::fuse_weighted(fused, weights)
                                                           : retrieval_detail::fuse(fused, options.rrf_k);
        break;
      }
    }
    rank_scores.clear();
    for (const auto& hit : ranked) rank_scores.emplace(hit.id, hit.score);

    // The best chunks in order, at most per_document of each document, read in batches until depth are found.
    stored.clear();
    std::unordered_map<std::string, std::size_t> per_document;
    const std::size_t batch = std::max<std::size_t>(depth * 2, 32);
    for (std::size_t first = 0; first < ranked.size() && stored.size() < depth; first += batch) {
      std::vector<std::int64_t> ids;
      for (std::size_t i = first; i < std::min(ranked.size(), first + batch); ++i) ids.push_back(ranked[i].id);
      for (auto& chunk : snapshot->chunks(ids)) {
        if (stored.size() >= depth) break;
        if (options.per_document > 0 && ++per_document[chunk.document_key] > options.per_document) continue;
        stored.push_back(std::move(chunk));
      }
      if (options.per_document == 0) break;
    }
    const bool lists_full =
        by_vector.size() >= list_depth || by_keyword.size() >= list_depth || by_sparse.size() >= list_depth;
    if (stored.size() >= depth || options.per_document == 0 || !lists_full || list_depth >= kMaxListDepth) break;
    list_depth = std::min(list_depth * 4, kMaxListDepth);
  }

  std::unordered_map<std::int64_t, double> vector_scores;
  std::unordered_map<std::int64_t, double> keyword_scores;
  std::unordered_map<std::int64_t, double> sparse_scores;
  for (const auto& hit : by_vector) vector_scores.emplace(hit.id, hit.score);
  for (const auto& hit : by_keyword) keyword_scores.emplace(hit.id, hit.score);
  for (const auto& hit : by_sparse) sparse_scores.emplace(hit.id, hit.score);

  std::vector<SearchHit> hits;
  hits.reserve(stored.size());
  for (auto& chunk : stored) {
    SearchHit hit;
    hit.score = rank_scores[chunk.id];
    if (const auto it = vector_scores.find(chunk.id); it != vector_scores.end()) hit.vector_score = it->second;
    if (const auto it = keyword_scores.find(chunk.id); it != keyword_scores.end()) hit.bm25_score = it->second;
    if (const auto it = sparse_scores.find(chunk.id); it != sparse_scores.end()) hit.sparse_score = it->second;
    hit.document_id = std::move(chunk.document_key);
    hit.source = std::move(chunk.source);
    hit.title = std::move(chunk.title);
    hit.format = std::move(chunk.format);
    hit.chunk_id = chunk.id;
    hit.chunk_index = chunk.ordinal;
    hit.section = chunk.section;
    hit.chunk_begin = chunk.begin;
    hit.chunk_end = chunk.end;
    hit.matches = match_spans(chunk.text, query);
    hit.text = std::move(chunk.text);
    hit.metadata = std::move(chunk.metadata);
    hits.push_back(std::move(hit));
  }
  if (reranker && !hits.empty()) {
    // Each candidate is scored on the passage around its matches, not its whole chunk: a chunk of 256 tokens
    // costs a cross-encoder several times what 60 do.
    std::vector<std::string_view> texts;
    texts.reserve(hits.size());
    for (auto& hit : hits) {
      const Passage window = find_passage(hit.text, hit.matches, std::max<std::size_t>(options.rerank_window_bytes, 1));
      hit.rerank_span = std::make_pair(window.begin, window.end);
      texts.push_back(std::string_view(hit.text).substr(window.begin, window.end - window.begin));
    }
    const auto scores = reranker->score(query, texts);
    for (std::size_t i = 0; i < hits.size(); ++i) {
      hits[i].rerank_score = scores[i];
      hits[i].score = scores[i];
    }
    const auto order = rank_by_score(scores);
    std::vector<SearchHit> reordered;
    reordered.reserve(order.size());
    for (const auto i : order) reordered.push_back(std::move(hits[i]));
    hits = std::move(reordered);
  }
  if (hits.size() > wanted) hits.resize(wanted);
  // The best hit of the whole ranking is 100%, on every page of it.
  double best = 0;
  for (const auto& hit : hits) best = std::max(best, hit.score);
  hits.erase(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(std::min(options.offset, hits.size())));
  for (std::size_t i = 0; i < hits.size(); ++i) {
    auto& hit = hits[i];
    hit.rank = options.offset + i + 1;
    double relevance = 0;
    if (hit.rerank_score) {
      if (reranker->is_late_interaction()) {
        relevance = best > 0 ? hit.score / best : 0;
      } else if (reranker->activation() == ScoreActivation::kNone) {
        relevance = retrieval_detail::sigmoid(hit.score);
      } else {
        relevance = hit.score;
      }
    } else if (options.mode == SearchMode::kVector) {
      relevance = hit.score;
    } else {
      relevance = best > 0 ? hit.score / best : 0;
    }
    hit.relevance = std::isfinite(relevance) ? std::clamp(relevance, 0.0, 1.0) : 0.0;
    const Passage passage = find_passage(hit.text, hit.matches, options.snippet_bytes);
    Snippet snippet = make_snippet(hit.text, hit.matches, passage);
    hit.snippet = std::move(snippet.text);
    hit.snippet_matches = std::move(snippet.matches);
    hit.snippet_begin = passage.begin;
    hit.snippet_end = passage.end;
  }
  result.hits = std::move(hits);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace sieve::search
