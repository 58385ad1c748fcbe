#pragma once

#include <cstddef>
#include <vector>

namespace sieve::pipeline {

// A batch is a run of positions in length order.
struct BatchPlan {
  std::vector<std::size_t> order;                            // input indices, shortest first
  std::vector<std::pair<std::size_t, std::size_t>> batches;  // [begin, end) into order
};

// Orders inputs by token count so each batch pads little, then cuts the
// order into batches of at most `batch_size` inputs. A batch is also cut
// before an input whose length would make padding exceed half the batch's
// real tokens: attention grows with the square of the padded length, so a
// few long inputs must not drag many short ones up to their size.
BatchPlan plan_batches(const std::vector<std::size_t>& lengths, std::size_t batch_size);

}  // namespace sieve::pipeline
