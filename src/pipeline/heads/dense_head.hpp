#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "model/modules/module.hpp"
#include "pipeline/runner.hpp"
#include "sieve/embedder.hpp"

namespace sieve::pipeline {

// The dense head (dense and BGE-M3 models): one vector per input, [rows x width] row-major. A graph that pools gives
// its rows as they are; otherwise the token states are pooled by each mode into its block of the row, as
// sentence-transformers concatenates them (`prompt_tokens[row]` leading tokens left out where the model pools
// without its prompt), and the vector modules Sieve applies map each row.
std::vector<float> dense_rows(const RunOutput& run, bool pooled_by_model, std::span<const std::size_t> prompt_tokens,
                              const std::vector<Pooling>& modes,
                              const std::vector<const model::VectorModule*>& modules);

// The modules after pooling (Dense, LayerNorm, ...) on each of `rows` vectors `width` wide.
std::vector<float> apply_vector_modules(const std::vector<const model::VectorModule*>& modules, std::vector<float> rows,
                                        std::size_t count, std::size_t width);

}  // namespace sieve::pipeline
