#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Connectionist Temporal Classification output (speech models): collapses
// repeated tokens, drops the pad token and turns the word delimiter into a
// space (the latter only with cleanup, as in Hugging Face).
class Ctc final : public Decoder {
 public:
  Ctc(std::string pad_token, std::string word_delimiter, bool cleanup)
      : pad_token_(std::move(pad_token)), word_delimiter_(std::move(word_delimiter)), cleanup_(cleanup) {}
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;

 private:
  std::string pad_token_;
  std::string word_delimiter_;
  bool cleanup_;
};

}  // namespace sieve::tokenizer
