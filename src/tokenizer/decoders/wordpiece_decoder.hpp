#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Joins WordPiece tokens: a continuation (starting with the prefix) loses the
// prefix and attaches to the previous token, any other token after the first
// gets a leading space; optionally cleans up artifacts in each token.
class WordPieceDecoder final : public Decoder {
 public:
  WordPieceDecoder(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;

 private:
  std::string prefix_;
  bool cleanup_;
};

}  // namespace sieve::tokenizer
