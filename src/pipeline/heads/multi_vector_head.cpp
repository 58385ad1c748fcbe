#include "pipeline/heads/multi_vector_head.hpp"

#include <algorithm>

#include "pipeline/heads/dense_head.hpp"
#include "pipeline/pooling.hpp"

namespace sieve::pipeline {

std::vector<TokenVectors> token_vectors(const RunOutput& run, std::span<const TokenInput* const> inputs,
                                        const TokenVectorRules& rules) {
  const auto width = static_cast<std::size_t>(run.output.shape().back());
  const auto keep = [&](const Encoding& e, std::size_t i, bool query) {
    if (!rules.colbert) return i > 0;
    if (query && rules.query_expansion) return true;
    if (e.attention_mask[i] == 0) return false;
    return query || rules.skiplist == nullptr ||
           !std::binary_search(rules.skiplist->begin(), rules.skiplist->end(), e.ids[i]);
  };
  std::vector<TokenVectors> result(inputs.size());
  for (std::size_t row = 0; row < inputs.size(); ++row) {
    const Encoding& e = inputs[row]->encoding;
    const bool query = inputs[row]->role == TextRole::kQuery;
    TokenVectors& v = result[row];
    std::vector<float> states;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (!keep(e, i, query)) continue;
      const float* state = run.output.data() + (row * run.sequence + i) * width;
      states.insert(states.end(), state, state + width);
      v.ids.push_back(e.ids[i]);
    }
    v.rows = v.ids.size();
    v.dimension = rules.dimension != 0 ? rules.dimension : width;
    v.data = rules.modules.empty() ? std::move(states)
                                   : apply_vector_modules(rules.modules, std::move(states), v.rows, width);
    for (std::size_t r = 0; r < v.rows; ++r) l2_normalize(v.data.data() + r * v.dimension, v.dimension);
  }
  return result;
}

}  // namespace sieve::pipeline
