#pragma once

#include <cstddef>
#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Cuts text into pieces of `length` characters (code points); the last piece
// holds the rest.
class FixedLength final : public PreTokenizer {
 public:
  explicit FixedLength(std::size_t length) : length_(length) {}
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;

 private:
  std::size_t length_;
};

}  // namespace sieve::tokenizer
