#pragma once

#include <string_view>
#include <vector>

#include "search/storage.hpp"
#include "sieve/search.hpp"

namespace sieve::search {

// The models a search may use; each may be null when its list is not wanted.
struct RetrievalModels {
  const Embedder* dense = nullptr;
  const Embedder* sparse = nullptr;
  const Reranker* reranker = nullptr;
};

// The lists a search ranks by: the mode's own, or those hybrid fuses (its
// "fuse", else vector, BM25 and sparse where the index stores sparse
// vectors). A list named twice, or hybrid inside hybrid, is kInvalidArgument.
std::vector<SearchMode> lists_of(const SearchOptions& options, const StorageConfig& config);

// Vector, BM25, sparse or hybrid (reciprocal rank fusion of any of them)
// retrieval over one snapshot, then optional cross-encoder reranking of the
// best candidates.
SearchResult retrieve(const IndexStorage& storage, std::string_view query, const SearchOptions& options,
                      const RetrievalModels& models);

}  // namespace sieve::search
