#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Turns the metaspace character back into spaces. When the pre-tokenizer
// prepends one (any scheme but "never"), the first token drops them instead.
class MetaspaceDecoder final : public Decoder {
 public:
  MetaspaceDecoder(char32_t replacement, bool prepends);
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;

 private:
  std::string replacement_;  // UTF-8
  bool prepends_;
};

}  // namespace sieve::tokenizer
