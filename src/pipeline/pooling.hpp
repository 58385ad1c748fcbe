#pragma once

#include <cstddef>
#include <cstdint>

#include "sieve/embedder.hpp"

namespace sieve::pipeline {

// Pools token states [batch, sequence, dim] into [batch, dim] using the
// attention mask [batch, sequence], as sentence-transformers does.
void pool(const float* states, std::size_t batch, std::size_t sequence, std::size_t dim, const std::int64_t* mask,
          Pooling pooling, float* out);

// SPLADE: masked-language-model logits [batch, sequence, vocab] to one
// weight per vocabulary entry [batch, vocab], over the tokens the mask
// attends, as sentence-transformers' SpladePooling.
void splade_pool(const float* logits, std::size_t batch, std::size_t sequence, std::size_t vocab,
                 const std::int64_t* mask, SparsePooling pooling, float* out);

// x / max(||x||, 1e-12), as torch.nn.functional.normalize.
void l2_normalize(float* vector, std::size_t dim);

}  // namespace sieve::pipeline
