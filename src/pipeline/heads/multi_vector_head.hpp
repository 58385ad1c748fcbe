#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/modules/module.hpp"
#include "pipeline/runner.hpp"
#include "sieve/embedder.hpp"

namespace sieve::pipeline {

// Which tokens give a vector, and how each is mapped.
struct TokenVectorRules {
  // A ColBERT model: a query's every token (query_expansion: expansion tokens included, attended to or not) or
  // its real ones; a document's real ones less `skiplist` (sorted ids). Otherwise (BGE-M3): every real token
  // but the first.
  bool colbert = false;
  bool query_expansion = false;
  const std::vector<std::uint32_t>* skiplist = nullptr;
  // Applied to each kept token's vector (PyLate's Dense), before L2 normalization.
  std::vector<const model::VectorModule*> modules;
  std::size_t dimension = 0;  // of a vector after the modules; 0: the output's width
};

// The multi-vector head (ColBERT models, BGE-M3's "colbert_vectors"): each input's kept tokens' vectors,
// L2-normalized, with their token ids; `run` is [rows x sequence x width].
std::vector<TokenVectors> token_vectors(const RunOutput& run, std::span<const TokenInput* const> inputs,
                                        const TokenVectorRules& rules);

}  // namespace sieve::pipeline
