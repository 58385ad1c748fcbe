#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pipeline/runner.hpp"
#include "sieve/embedder.hpp"

namespace sieve::pipeline {

// The sparse heads. A SPLADE model's rows: a weight per vocabulary entry [rows x vocabulary], pooled by Sieve from
// the masked-language-model logits (SpladePooling) unless the graph pooled them.
std::vector<float> splade_rows(const RunOutput& run, bool pooled_by_model, SparsePooling pooling);

// BGE-M3's lexical weights ("sparse_weights", [rows x sequence]): each token id's largest weight over the input's
// tokens, every positive one, the ids in `skip` (sorted: its special tokens) left out, as FlagEmbedding.
std::vector<SparseVector> lexical_weights(const RunOutput& run, std::span<const Encoding* const> encodings,
                                          const std::vector<std::uint32_t>& skip);

// A row of weights as a SparseVector of its entries above options.min_weight (and above 0), pruned to top_k.
SparseVector sparsify(std::span<const float> row, const SparseOptions& options);
// Drops the weights at or below options.min_weight and keeps the top_k heaviest (ties: the smaller id).
void prune(SparseVector& vector, const SparseOptions& options);

}  // namespace sieve::pipeline
