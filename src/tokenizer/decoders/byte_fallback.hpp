#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Turns runs of byte tokens "<0xXX>" back into text. A run that is not valid
// UTF-8 becomes one U+FFFD per byte token, as Hugging Face does.
class ByteFallback final : public Decoder {
 public:
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;
};

}  // namespace sieve::tokenizer
