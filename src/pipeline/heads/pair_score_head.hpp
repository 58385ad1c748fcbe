#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "sieve/reranker.hpp"

namespace sieve::pipeline {

// The pair-scoring head of cross-encoders and classifiers: one row of logits per input.

// A pair's score from its logits, as CrossEncoder gives it: the `label`'s logit through the activation (a softmax
// over every label, or a sigmoid), or the raw logit.
float pair_score(std::span<const float> logits, std::size_t label, ScoreActivation activation, bool raw);

// Every label's score, as transformers' text-classification pipeline gives them: through `activation` (softmax
// over the labels, a sigmoid each, or none), or the logits with `raw`.
std::vector<float> label_scores(std::span<const float> logits, ScoreActivation activation, bool raw);

double sigmoid(double x);

}  // namespace sieve::pipeline
