#include "pipeline/heads/pair_score_head.hpp"

#include <algorithm>
#include <cmath>

namespace sieve::pipeline {
namespace {

void softmax_into(std::span<const float> logits, float* out) {
  // Shifted by the largest logit, as torch's softmax, so exp cannot overflow.
  const double top = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (const float v : logits) sum += std::exp(static_cast<double>(v) - top);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    out[i] = static_cast<float>(std::exp(static_cast<double>(logits[i]) - top) / sum);
  }
}

}  // namespace

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

float pair_score(std::span<const float> logits, std::size_t label, ScoreActivation activation, bool raw) {
  const double x = logits[label];
  if (raw) return static_cast<float>(x);
  switch (activation) {
    case ScoreActivation::kSigmoid: return static_cast<float>(sigmoid(x));
    case ScoreActivation::kSoftmax: {
      std::vector<float> all(logits.size());
      softmax_into(logits, all.data());
      return all[label];
    }
    case ScoreActivation::kNone:
    case ScoreActivation::kAuto: break;
  }
  return static_cast<float>(x);
}

std::vector<float> label_scores(std::span<const float> logits, ScoreActivation activation, bool raw) {
  std::vector<float> out(logits.begin(), logits.end());
  if (raw) return out;
  switch (activation) {
    case ScoreActivation::kSigmoid:
      for (float& v : out) v = static_cast<float>(sigmoid(v));
      break;
    case ScoreActivation::kSoftmax: softmax_into(logits, out.data()); break;
    case ScoreActivation::kNone:
    case ScoreActivation::kAuto: break;
  }
  return out;
}

}  // namespace sieve::pipeline
