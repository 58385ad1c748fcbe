#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/llm_reranker.hpp"
#include "sieve/reranker.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve::pipeline {

// The LLM reranker's head. Its inputs follow the model card's recipe: the template filled in with each pair
// (llm_bodies()) is tokenized and cut alone, then put between the prompt's own tokens (wrap_in_prompt()). Its score
// is the probability of "yes" against "no": a sigmoid of their log-odds, from the graph's [no, yes] logits.
std::vector<std::string> llm_bodies(const model::LlmRerankerConfig& config, std::span<const TextPair> pairs);
void wrap_in_prompt(std::vector<Encoding>& encodings, std::span<const std::uint32_t> prefix,
                    std::span<const std::uint32_t> suffix);
// The log-odds of "yes" over "no" through a sigmoid (the activation, unless kNone), or raw.
float llm_score(std::span<const float> logits, ScoreActivation activation, bool raw);

}  // namespace sieve::pipeline
