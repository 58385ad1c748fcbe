#pragma once

#include <memory>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Applies its normalizers in order.
class NormalizerSequence final : public Normalizer {
 public:
  explicit NormalizerSequence(std::vector<std::unique_ptr<Normalizer>> children) : children_(std::move(children)) {}
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;

 private:
  std::vector<std::unique_ptr<Normalizer>> children_;
};

}  // namespace sieve::tokenizer
