#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Maps GPT-2's byte characters back to bytes and joins everything into one
// string, since a character may be split across tokens. A token with any
// character outside the byte alphabet (an added token) is kept as its UTF-8;
// invalid UTF-8 in the result becomes U+FFFD as Rust's from_utf8_lossy does.
class ByteLevelDecoder final : public Decoder {
 public:
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;
};

}  // namespace sieve::tokenizer
