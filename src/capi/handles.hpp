#pragma once

// What the C ABI's opaque handles are.

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sieve.h"
#include "sieve/embedder.hpp"
#include "sieve/registry.hpp"
#include "sieve/reranker.hpp"
#include "sieve/search.hpp"
#include "sieve/tokenizer.hpp"

struct sieve_tokenizer {
  std::unique_ptr<sieve::Tokenizer> owned;  // empty for a model's borrowed tokenizer
  const sieve::Tokenizer* tokenizer = nullptr;
};

// One loaded model of any kind (a sparse model is an Embedder whose output is
// sparse). The shared_ptrs let a handle from a registry outlive the registry
// and the model's eviction.
struct sieve_model {
  sieve_model_kind kind = SIEVE_KIND_EMBEDDING;
  std::shared_ptr<const sieve::Embedder> embedder;
  std::shared_ptr<const sieve::Reranker> reranker;
  sieve_tokenizer tokenizer;
  // The strings sieve_model_info points into.
  std::string pooling;
  std::string providers;
  std::string folder;
  std::string onnx_file;
};

struct sieve_sparse_embeddings {
  std::vector<sieve::SparseVector> vectors;
};

struct sieve_encoding {
  sieve::Encoding encoding;
  std::vector<std::uint32_t> offsets;  // flattened (begin, end) pairs
};

struct sieve_registry {
  std::unique_ptr<sieve::ModelRegistry> registry;
};

struct sieve_model_list {
  std::vector<sieve::RegistryEntry> entries;
  std::vector<std::string> providers;  // per entry, comma-separated
};

struct sieve_index {
  std::unique_ptr<sieve::SearchIndex> index;
  // Guards the two caches below; searches themselves run unlocked.
  mutable std::mutex mutex;
  // The model the index records, for searches given none; loaded once.
  mutable std::shared_ptr<const sieve::Embedder> own_embedder;
  // Callers' embedders already found to be the index's model (checking
  // hashes the model's ONNX file); expired entries are dropped.
  mutable std::vector<std::weak_ptr<const sieve::Embedder>> checked;
};

struct sieve_search_results {
  sieve::SearchResult result;
  std::string query;
  sieve::SearchMode mode = sieve::SearchMode::kHybrid;
  // Per hit: the flattened (begin, end) match spans and the metadata as JSON.
  std::vector<std::vector<std::size_t>> matches;
  std::vector<std::vector<std::size_t>> snippet_matches;
  std::vector<std::string> metadata_json;
};

namespace sieve::capi {

std::string join_comma(const std::vector<std::string>& values);

// The C ABI's kind of a model folder's kind (a pooled embedding is an embedding).
sieve_model_kind to_kind(ModelKind kind);
// What a kind is called in messages: "a reranker", "a late-interaction (ColBERT) model", ...
const char* kind_noun(sieve_model_kind kind);

// A handle for an embedder (dense or sparse) or a reranker (exactly one of
// them non-null).
std::unique_ptr<sieve_model> make_model(std::shared_ptr<const Embedder> embedder,
                                        std::shared_ptr<const Reranker> reranker);

}  // namespace sieve::capi
