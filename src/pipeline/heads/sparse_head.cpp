#include "pipeline/heads/sparse_head.hpp"

#include <algorithm>
#include <utility>

#include "pipeline/pooling.hpp"

namespace sieve::pipeline {
namespace {

// Keeps the k largest weights (ties: the smaller id), by ascending id; k 0: all.
void keep_top_k(SparseVector& v, std::size_t k) {
  if (k == 0 || v.ids.size() <= k) return;
  std::vector<std::size_t> order(v.ids.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto heavier = [&](std::size_t a, std::size_t b) {
    return v.weights[a] != v.weights[b] ? v.weights[a] > v.weights[b] : v.ids[a] < v.ids[b];
  };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), heavier);
  order.resize(k);
  std::sort(order.begin(), order.end());  // positions ascend as the ids do
  SparseVector kept;
  for (const std::size_t i : order) {
    kept.ids.push_back(v.ids[i]);
    kept.weights.push_back(v.weights[i]);
  }
  v = std::move(kept);
}

}  // namespace

std::vector<float> splade_rows(const RunOutput& run, bool pooled_by_model, SparsePooling pooling) {
  const float* data = run.output.data();
  const auto vocabulary = static_cast<std::size_t>(run.output.shape().back());
  if (pooled_by_model) return {data, data + run.rows * vocabulary};
  std::vector<float> rows(run.rows * vocabulary);
  splade_pool(data, run.rows, run.sequence, vocabulary, run.mask.data(), pooling, rows.data());
  return rows;
}

std::vector<SparseVector> lexical_weights(const RunOutput& run, std::span<const Encoding* const> encodings,
                                          const std::vector<std::uint32_t>& skip) {
  std::vector<SparseVector> result(encodings.size());
  std::vector<std::pair<std::uint32_t, float>> entries;
  for (std::size_t row = 0; row < encodings.size(); ++row) {
    const Encoding& e = *encodings[row];
    entries.clear();
    for (std::size_t i = 0; i < e.size(); ++i) {
      const float w = run.output.data()[row * run.sequence + i];
      if (w > 0 && !std::binary_search(skip.begin(), skip.end(), e.ids[i])) entries.emplace_back(e.ids[i], w);
    }
    std::sort(entries.begin(), entries.end());
    SparseVector& v = result[row];
    for (const auto& [id, w] : entries) {
      if (!v.ids.empty() && v.ids.back() == id) {
        v.weights.back() = std::max(v.weights.back(), w);
      } else {
        v.ids.push_back(id);
        v.weights.push_back(w);
      }
    }
  }
  return result;
}

SparseVector sparsify(std::span<const float> row, const SparseOptions& options) {
  SparseVector v;
  const float floor = std::max(options.min_weight, 0.0F);
  for (std::size_t j = 0; j < row.size(); ++j) {
    if (row[j] > floor) {
      v.ids.push_back(static_cast<std::uint32_t>(j));
      v.weights.push_back(row[j]);
    }
  }
  keep_top_k(v, options.top_k);
  return v;
}

void prune(SparseVector& vector, const SparseOptions& options) {
  if (options.min_weight > 0) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < vector.ids.size(); ++i) {
      if (vector.weights[i] <= options.min_weight) continue;
      vector.ids[kept] = vector.ids[i];
      vector.weights[kept] = vector.weights[i];
      ++kept;
    }
    vector.ids.resize(kept);
    vector.weights.resize(kept);
  }
  keep_top_k(vector, options.top_k);
}

}  // namespace sieve::pipeline
