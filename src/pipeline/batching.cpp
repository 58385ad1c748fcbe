#include "pipeline/batching.hpp"

#include <algorithm>
#include <numeric>

namespace sieve::pipeline {

BatchPlan plan_batches(const std::vector<std::size_t>& lengths, std::size_t batch_size) {
  BatchPlan plan;
  plan.order.resize(lengths.size());
  std::iota(plan.order.begin(), plan.order.end(), std::size_t{0});
  std::stable_sort(plan.order.begin(), plan.order.end(),
                   [&](std::size_t a, std::size_t b) { return lengths[a] < lengths[b]; });
  const std::size_t size = std::max<std::size_t>(1, batch_size);
  std::size_t begin = 0;
  std::size_t real_tokens = 0;
  for (std::size_t k = 0; k < plan.order.size(); ++k) {
    const std::size_t length = std::max<std::size_t>(1, lengths[plan.order[k]]);
    const std::size_t count = k - begin;
    // Ascending order: the new input sets the padded length of the batch.
    const bool full = count == size;
    const bool wasteful = count > 0 && 2 * length * (count + 1) > 3 * (real_tokens + length);
    if (full || wasteful) {
      plan.batches.emplace_back(begin, k);
      begin = k;
      real_tokens = 0;
    }
    real_tokens += length;
  }
  if (begin < plan.order.size()) plan.batches.emplace_back(begin, plan.order.size());
  return plan;
}

}  // namespace sieve::pipeline
