#pragma once

#include <string_view>

#include "search/storage.hpp"
#include "sieve/search.hpp"

namespace sieve::search {

// Vector, BM25 or hybrid (reciprocal rank fusion) retrieval over one
// snapshot, then optional cross-encoder reranking of the best candidates.
SearchResult retrieve(const IndexStorage& storage, std::string_view query, const SearchOptions& options,
                      const Embedder* embedder, const Reranker* reranker);

}  // namespace sieve::search
