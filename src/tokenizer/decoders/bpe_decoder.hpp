#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Original (suffix-marked) BPE: the end-of-word suffix becomes a space,
// except in the last token where it is dropped.
class BpeDecoder final : public Decoder {
 public:
  explicit BpeDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;

 private:
  std::string suffix_;
};

}  // namespace sieve::tokenizer
