#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Joins all tokens into one, for decoders that must run on the whole text.
class Fuse final : public Decoder {
 public:
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;
};

}  // namespace sieve::tokenizer
