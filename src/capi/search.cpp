#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "capi/handles.hpp"
#include "capi/status.hpp"
#include "sieve/error.hpp"
#include "sieve/json_text.hpp"
#include "sieve/search.hpp"

namespace sieve::capi {
namespace {

const sieve_index& index_of(const sieve_index* index, const char* function) {
  return *require_not_null(index, function, "index is NULL");
}

// A library-allocated copy of `text` for sieve_string_free.
void return_string(const std::string& text, char** out, std::size_t* out_size) {
  // malloc, so that sieve_string_free is free() whatever allocator C++ uses.
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));  // NOLINT(cppcoreguidelines-no-malloc)
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  *out = copy;
  if (out_size != nullptr) *out_size = text.size();
}

SearchMode search_mode(const sieve_search_options& options, const char* function) {
  // A caller's out-of-range enum value is checked as the integer it is.
  static_assert(sizeof(sieve_search_mode) == sizeof(std::int32_t));
  std::int32_t mode = 0;
  std::memcpy(&mode, &options.mode, sizeof mode);
  switch (mode) {
    case SIEVE_SEARCH_HYBRID: return SearchMode::kHybrid;
    case SIEVE_SEARCH_VECTOR: return SearchMode::kVector;
    case SIEVE_SEARCH_BM25: return SearchMode::kBm25;
    default: break;
  }
  throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(function) + ": unknown search mode " + std::to_string(mode));
}

SearchOptions search_options(const sieve_search_options* given, const char* function) {
  sieve_search_options options;
  sieve_search_options_init(&options, sizeof options);
  if (given != nullptr) {
    read_versioned(given, given->struct_size, &options, sizeof options, function, "sieve_search_options");
  }
  SearchOptions result;
  result.k = options.k;
  result.mode = search_mode(options, function);
  result.rerank_candidates = options.rerank_candidates;
  result.exact = options.exact != 0;
  require(options.ef_search > 0, function, "ef_search must be positive");
  result.ef_search = options.ef_search;
  require(options.filter_count == 0 || (options.filter_keys != nullptr && options.filter_values != nullptr), function,
          "filter_keys or filter_values is NULL but filter_count is not 0");
  for (std::size_t i = 0; i < options.filter_count; ++i) {
    const std::string which = std::to_string(i);
    const std::string_view key = text_view(options.filter_keys[i], function, ("filter key " + which).c_str());
    const std::string_view value = text_view(options.filter_values[i], function, ("filter value " + which).c_str());
    if (key.empty())
      throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(function) + ": filter key " + which + " is empty");
    result.filters.emplace_back(key, value);
  }
  result.per_document = options.per_document;
  result.offset = options.offset;
  const auto texts = [&](const sieve_text* list, std::size_t count, const char* what) {
    require(count == 0 || list != nullptr, function, (std::string(what) + "s is NULL but its count is not 0").c_str());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < count; ++i) {
      const std::string name = std::string(what) + " " + std::to_string(i);
      out.emplace_back(text_view(list[i], function, name.c_str()));
    }
    return out;
  };
  result.formats = texts(options.formats, options.format_count, "format");
  result.folders = texts(options.folders, options.folder_count, "folder");
  return result;
}

// Whether `embedder` was already found to be the index's model; forgets
// the models that are gone.
bool already_checked(const sieve_index& index, const std::shared_ptr<const Embedder>& embedder) {
  const std::scoped_lock lock(index.mutex);
  std::erase_if(index.checked, [](const auto& weak) { return weak.expired(); });
  return std::any_of(index.checked.begin(), index.checked.end(),
                     [&](const auto& weak) { return weak.lock() == embedder; });
}

// The embedder a search uses: the caller's, checked once to be the index's
// model, or the index's own, loaded on first use.
const Embedder& embedder_for(const sieve_index& index, const sieve_model* model) {
  if (model != nullptr) {
    if (!already_checked(index, model->embedder)) {
      index.index->check_model(*model->embedder);
      const std::scoped_lock lock(index.mutex);
      index.checked.push_back(model->embedder);
    }
    return *model->embedder;
  }
  const std::scoped_lock lock(index.mutex);
  if (!index.own_embedder) {
    auto own = std::make_shared<const Embedder>(Embedder::load(index.index->model().path));
    index.index->check_model(*own);
    index.own_embedder = std::move(own);
  }
  return *index.own_embedder;
}

std::string metadata_json(const SearchHit& hit) {
  std::string out = "{";
  for (std::size_t i = 0; i < hit.metadata.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, hit.metadata[i].first);
    out += ':';
    append_json_string(out, hit.metadata[i].second);
  }
  out += '}';
  return out;
}

// Spans as begin, end, begin, end...
std::vector<std::size_t> flat_spans(const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
  std::vector<std::size_t> flat;
  flat.reserve(2 * spans.size());
  for (const auto& [begin, end] : spans) {
    flat.push_back(begin);
    flat.push_back(end);
  }
  return flat;
}

sieve_text text_of(const std::string& value) {
  return sieve_text{value.c_str(), value.size()};
}

double score_or_nan(const std::optional<double>& score) {
  return score ? *score : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace
}  // namespace sieve::capi

using sieve::capi::CapiError;
using sieve::capi::guarded;
using sieve::capi::require;

extern "C" {

sieve_status* sieve_index_open(const char* folder, sieve_index** out) {
  static constexpr const char* kFunction = "sieve_index_open";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    require(folder != nullptr, kFunction, "folder is NULL");
    auto index = std::make_unique<sieve_index>();
    index->index = std::make_unique<sieve::SearchIndex>(sieve::SearchIndex::open(folder));
    *out = index.release();
  });
}

void sieve_index_destroy(sieve_index* index) {
  delete index;
}

sieve_status* sieve_index_stats_json(const sieve_index* index, char** out, size_t* out_size) {
  static constexpr const char* kFunction = "sieve_index_stats_json";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    const sieve_index& i = sieve::capi::index_of(index, kFunction);
    sieve::capi::return_string(sieve::index_stats_json(i.index->stats()), out, out_size);
  });
}

void sieve_search_options_init(sieve_search_options* options, size_t struct_size) {
  if (options == nullptr || struct_size < sizeof(std::size_t)) return;
  sieve_search_options defaults{};
  const sieve::SearchOptions library;
  defaults.k = library.k;
  defaults.mode = SIEVE_SEARCH_HYBRID;
  defaults.rerank_candidates = library.rerank_candidates;
  defaults.exact = library.exact ? 1 : 0;
  defaults.ef_search = library.ef_search;
  defaults.per_document = library.per_document;
  defaults.offset = library.offset;
  sieve::capi::init_versioned(options, struct_size, &defaults, sizeof defaults);
}

sieve_status* sieve_index_search(const sieve_index* index, const sieve_model* embedder, const sieve_model* reranker,
                                 sieve_text query, const sieve_search_options* options, sieve_search_results** out) {
  static constexpr const char* kFunction = "sieve_index_search";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    const sieve_index& i = sieve::capi::index_of(index, kFunction);
    const std::string_view q = sieve::capi::text_view(query, kFunction, "query");
    const sieve::SearchOptions opts = sieve::capi::search_options(options, kFunction);
    if (embedder != nullptr && !embedder->embedder) {
      throw CapiError(SIEVE_WRONG_KIND, std::string(kFunction) + ": embedder " + embedder->folder +
                                            " is a reranker, not an embedding model");
    }
    if (embedder != nullptr && embedder->kind == SIEVE_KIND_SPARSE) {
      throw CapiError(SIEVE_WRONG_KIND, std::string(kFunction) + ": embedder " + embedder->folder +
                                            " is a sparse (SPLADE) embedding model; an index holds dense vectors");
    }
    const sieve::Reranker* cross_encoder = nullptr;
    if (reranker != nullptr) {
      if (!reranker->reranker) {
        throw CapiError(SIEVE_WRONG_KIND, std::string(kFunction) + ": reranker " + reranker->folder +
                                              " is an embedding model, not a reranker");
      }
      cross_encoder = reranker->reranker.get();
    }
    const sieve::Embedder* model = nullptr;
    if (opts.mode != sieve::SearchMode::kBm25) model = &sieve::capi::embedder_for(i, embedder);
    auto results = std::make_unique<sieve_search_results>();
    results->result = i.index->search(q, opts, model, cross_encoder);
    results->query = std::string(q);
    results->mode = opts.mode;
    for (const sieve::SearchHit& hit : results->result.hits) {
      results->matches.push_back(sieve::capi::flat_spans(hit.matches));
      results->snippet_matches.push_back(sieve::capi::flat_spans(hit.snippet_matches));
      results->metadata_json.push_back(sieve::capi::metadata_json(hit));
    }
    *out = results.release();
  });
}

void sieve_search_results_destroy(sieve_search_results* results) {
  delete results;
}

size_t sieve_search_results_size(const sieve_search_results* results) {
  return results == nullptr ? 0 : results->result.hits.size();
}

sieve_status* sieve_search_results_get(const sieve_search_results* results, size_t index, sieve_search_hit* out) {
  static constexpr const char* kFunction = "sieve_search_results_get";
  return guarded(kFunction, [&] {
    require(results != nullptr, kFunction, "results is NULL");
    require(out != nullptr, kFunction, "out is NULL");
    const auto& hits = results->result.hits;
    if (index >= hits.size()) {
      throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(kFunction) + ": index " + std::to_string(index) +
                                                  " is beyond the " + std::to_string(hits.size()) + " hits");
    }
    const sieve::SearchHit& hit = hits[index];
    sieve_search_hit result{};
    result.struct_size = sizeof result;
    result.score = hit.score;
    result.vector_score = sieve::capi::score_or_nan(hit.vector_score);
    result.bm25_score = sieve::capi::score_or_nan(hit.bm25_score);
    result.rerank_score = sieve::capi::score_or_nan(hit.rerank_score);
    result.document_id = sieve::capi::text_of(hit.document_id);
    result.source = sieve::capi::text_of(hit.source);
    result.title = sieve::capi::text_of(hit.title);
    result.text = sieve::capi::text_of(hit.text);
    result.chunk_id = hit.chunk_id;
    result.chunk_index = hit.chunk_index;
    result.chunk_begin = hit.chunk_begin;
    result.chunk_end = hit.chunk_end;
    const std::vector<std::size_t>& spans = results->matches[index];
    result.matches = spans.empty() ? nullptr : spans.data();
    result.match_count = spans.size() / 2;
    result.metadata_json = results->metadata_json[index].c_str();
    result.section = sieve::capi::text_of(hit.section);
    result.rank = hit.rank;
    result.relevance = hit.relevance;
    result.format = sieve::capi::text_of(hit.format);
    result.snippet = sieve::capi::text_of(hit.snippet);
    const std::vector<std::size_t>& snippet_spans = results->snippet_matches[index];
    result.snippet_matches = snippet_spans.empty() ? nullptr : snippet_spans.data();
    result.snippet_match_count = snippet_spans.size() / 2;
    sieve::capi::write_versioned(out, &result, sizeof result, kFunction, "sieve_search_hit");
  });
}

sieve_status* sieve_search_results_json(const sieve_search_results* results, char** out, size_t* out_size) {
  static constexpr const char* kFunction = "sieve_search_results_json";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    require(results != nullptr, kFunction, "results is NULL");
    sieve::capi::return_string(sieve::search_result_json(results->result, results->query, results->mode), out,
                               out_size);
  });
}

}  // extern "C"
