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
  for (std::size_t begin = 0; begin < plan.order.size(); begin += size) {
    plan.batches.emplace_back(begin, std::min(plan.order.size(), begin + size));
  }
  return plan;
}

}  // namespace sieve::pipeline
