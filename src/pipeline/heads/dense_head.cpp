#include "pipeline/heads/dense_head.hpp"

#include <algorithm>

#include "pipeline/pooling.hpp"

namespace sieve::pipeline {

std::vector<float> apply_vector_modules(const std::vector<const model::VectorModule*>& modules, std::vector<float> rows,
                                        std::size_t count, std::size_t width) {
  for (const model::VectorModule* module : modules) {
    const std::size_t out_width = module->output_dimension(width);
    std::vector<float> next(count * out_width);
    module->apply_rows(std::span<const float>(rows).subspan(0, count * width), count, next);
    rows = std::move(next);
    width = out_width;
  }
  return rows;
}

std::vector<float> dense_rows(const RunOutput& run, bool pooled_by_model, std::span<const std::size_t> prompt_tokens,
                              const std::vector<Pooling>& modes,
                              const std::vector<const model::VectorModule*>& modules) {
  const float* states = run.output.data();
  const std::size_t batch = run.rows;
  const std::size_t seq = run.sequence;
  const auto dim = static_cast<std::size_t>(run.output.shape().back());
  if (pooled_by_model) return {states, states + batch * dim};
  const bool has_prompt = std::any_of(prompt_tokens.begin(), prompt_tokens.end(), [](std::size_t n) { return n > 0; });
  std::vector<std::int64_t> prompt_mask;
  if (has_prompt) {
    prompt_mask = run.mask;
    for (std::size_t row = 0; row < batch; ++row) {
      std::fill_n(prompt_mask.begin() + static_cast<std::ptrdiff_t>(row * seq), std::min(prompt_tokens[row], seq), 0);
    }
  }
  // Each mode pools into its block of the row; the blocks are concatenated.
  const std::size_t count = modes.size();
  const std::size_t pooled_width = dim * count;
  std::vector<float> pooled(batch * pooled_width);
  std::vector<float> block(count == 1 ? 0 : batch * dim);
  for (std::size_t k = 0; k < count; ++k) {
    const Pooling mode = modes[k];
    // Last-token pooling picks a position that the prompt mask does not move.
    const bool mask_prompt = has_prompt && mode != Pooling::kLastToken;
    const std::int64_t* mask = mask_prompt ? prompt_mask.data() : run.mask.data();
    float* target = count == 1 ? pooled.data() : block.data();
    pool(states, batch, seq, dim, mask, mode, target);
    if (mask_prompt && mode == Pooling::kCls) {
      // sentence-transformers takes the first position the prompt mask
      // leaves attended (argmax of the mask), not position 0.
      for (std::size_t row = 0; row < batch; ++row) {
        const std::int64_t* rm = mask + row * seq;
        const auto first =
            static_cast<std::size_t>(std::find_if(rm, rm + seq, [](std::int64_t v) { return v != 0; }) - rm);
        const float* state = states + (row * seq + (first == seq ? 0 : first)) * dim;
        std::copy(state, state + dim, target + row * dim);
      }
    }
    if (count != 1) {
      for (std::size_t row = 0; row < batch; ++row) {
        std::copy_n(block.begin() + static_cast<std::ptrdiff_t>(row * dim), dim,
                    pooled.begin() + static_cast<std::ptrdiff_t>(row * pooled_width + k * dim));
      }
    }
  }
  if (!modules.empty()) pooled = apply_vector_modules(modules, std::move(pooled), batch, pooled_width);
  return pooled;
}

}  // namespace sieve::pipeline
