#include "pipeline/heads/llm_score_head.hpp"

#include "pipeline/heads/pair_score_head.hpp"

namespace sieve::pipeline {

std::vector<std::string> llm_bodies(const model::LlmRerankerConfig& config, std::span<const TextPair> pairs) {
  std::vector<std::string> bodies;
  bodies.reserve(pairs.size());
  for (const auto& [query, document] : pairs) bodies.push_back(model::fill_llm_template(config, query, document));
  return bodies;
}

void wrap_in_prompt(std::vector<Encoding>& encodings, std::span<const std::uint32_t> prefix,
                    std::span<const std::uint32_t> suffix) {
  for (Encoding& e : encodings) {
    Encoding full;
    full.ids.reserve(prefix.size() + e.size() + suffix.size());
    full.ids.insert(full.ids.end(), prefix.begin(), prefix.end());
    full.ids.insert(full.ids.end(), e.ids.begin(), e.ids.end());
    full.ids.insert(full.ids.end(), suffix.begin(), suffix.end());
    full.type_ids.assign(full.ids.size(), 0);
    full.attention_mask.assign(full.ids.size(), 1);
    full.special_tokens_mask.assign(full.ids.size(), 0);
    e = std::move(full);
  }
}

float llm_score(std::span<const float> logits, ScoreActivation activation, bool raw) {
  const double x = static_cast<double>(logits[1]) - logits[0];
  if (raw || activation == ScoreActivation::kNone) return static_cast<float>(x);
  return static_cast<float>(sigmoid(x));
}

}  // namespace sieve::pipeline
