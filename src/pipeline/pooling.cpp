#include "pipeline/pooling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/modules/normalize_module.hpp"
#include "sieve/error.hpp"

namespace sieve::pipeline {

void pool(const float* states, std::size_t batch, std::size_t sequence, std::size_t dim, const std::int64_t* mask,
          Pooling pooling, float* out) {
  for (std::size_t b = 0; b < batch; ++b) {
    const float* rows = states + b * sequence * dim;
    const std::int64_t* m = mask + b * sequence;
    float* target = out + b * dim;
    std::size_t count = 0;
    for (std::size_t t = 0; t < sequence; ++t) count += m[t] != 0 ? 1 : 0;
    switch (pooling) {
      case Pooling::kCls: std::copy(rows, rows + dim, target); break;
      case Pooling::kLastToken: {
        // The last attended position; padding is on the right.
        const std::size_t last = count == 0 ? 0 : count - 1;
        std::copy(rows + last * dim, rows + (last + 1) * dim, target);
        break;
      }
      case Pooling::kMax: {
        // sentence-transformers sets padded positions to -1e9 before the max.
        std::fill(target, target + dim, -std::numeric_limits<float>::infinity());
        for (std::size_t t = 0; t < sequence; ++t) {
          const float* row = rows + t * dim;
          for (std::size_t d = 0; d < dim; ++d) target[d] = std::max(target[d], m[t] != 0 ? row[d] : -1e9F);
        }
        break;
      }
      case Pooling::kWeightedMean: {
        // Position t (from 0) weighs t + 1, as sentence-transformers weighs them.
        std::fill(target, target + dim, 0.0F);
        float weights = 0;
        for (std::size_t t = 0; t < sequence; ++t) {
          if (m[t] == 0) continue;
          const auto w = static_cast<float>(t + 1);
          weights += w;
          const float* row = rows + t * dim;
          for (std::size_t d = 0; d < dim; ++d) target[d] += row[d] * w;
        }
        const float divisor = std::max(weights, 1e-9F);
        for (std::size_t d = 0; d < dim; ++d) target[d] /= divisor;
        break;
      }
      case Pooling::kMean:
      case Pooling::kMeanSqrtLen: {
        std::fill(target, target + dim, 0.0F);
        for (std::size_t t = 0; t < sequence; ++t) {
          if (m[t] == 0) continue;
          const float* row = rows + t * dim;
          for (std::size_t d = 0; d < dim; ++d) target[d] += row[d];
        }
        // Clamped like sentence-transformers (min 1e-9) so an all-padding row gives zeros, not NaN.
        const float n = std::max(static_cast<float>(count), 1e-9F);
        const float divisor = pooling == Pooling::kMean ? n : std::sqrt(n);
        for (std::size_t d = 0; d < dim; ++d) target[d] /= divisor;
        break;
      }
    }
  }
}

void splade_pool(const float* logits, std::size_t batch, std::size_t sequence, std::size_t vocab,
                 const std::int64_t* mask, SparsePooling pooling, float* out) {
  const auto transform = [&](float x) {
    const float once = std::log1p(std::max(x, 0.0F));
    return pooling.double_log ? std::log1p(once) : once;
  };
  for (std::size_t b = 0; b < batch; ++b) {
    float* target = out + b * vocab;
    // Padded positions count as 0 (sentence-transformers multiplies the
    // logits by the mask), which every weight is at least.
    std::fill_n(target, vocab, 0.0F);
    for (std::size_t t = 0; t < sequence; ++t) {
      if (mask[b * sequence + t] == 0) continue;
      const float* row = logits + (b * sequence + t) * vocab;
      if (pooling.sum) {
        for (std::size_t j = 0; j < vocab; ++j) target[j] += transform(row[j]);
      } else {
        // The transform is monotonic: the largest logit gives the largest
        // weight, so it is applied once per entry, after the max.
        for (std::size_t j = 0; j < vocab; ++j) target[j] = std::max(target[j], row[j]);
      }
    }
    if (!pooling.sum) {
      for (std::size_t j = 0; j < vocab; ++j) target[j] = transform(target[j]);
    }
  }
}

void l2_normalize(float* vector, std::size_t dim) {
  model::l2_normalize(std::span<float>(vector, dim));
}

}  // namespace sieve::pipeline

namespace sieve {

const char* to_string(Pooling pooling) noexcept {
  switch (pooling) {
    case Pooling::kMean: return "mean";
    case Pooling::kCls: return "cls";
    case Pooling::kMax: return "max";
    case Pooling::kMeanSqrtLen: return "mean_sqrt_len";
    case Pooling::kLastToken: return "lasttoken";
    case Pooling::kWeightedMean: return "weightedmean";
  }
  return "mean";
}

Pooling parse_pooling(std::string_view name) {
  if (name == "mean") return Pooling::kMean;
  if (name == "cls") return Pooling::kCls;
  if (name == "max") return Pooling::kMax;
  if (name == "mean_sqrt_len" || name == "mean_sqrt_len_tokens") return Pooling::kMeanSqrtLen;
  if (name == "lasttoken" || name == "last") return Pooling::kLastToken;
  if (name == "weightedmean" || name == "weighted_mean") return Pooling::kWeightedMean;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown pooling \"" + std::string(name) +
                  "\" (expected mean, cls, max, mean_sqrt_len, weightedmean or lasttoken)");
}

std::string pooling_name(const ModelInfo& info) {
  if (info.pooled_by_model) return "model";
  if (info.output_kind == OutputKind::kSparse) return info.sparse_pooling.sum ? "splade sum" : "splade max";
  if (info.output_kind == OutputKind::kMultiVector) return "none (a vector per token)";
  std::string name;
  for (const Pooling mode : info.dense.pooling_modes) {
    if (!name.empty()) name += '+';
    name += to_string(mode);
  }
  return name;
}

}  // namespace sieve
