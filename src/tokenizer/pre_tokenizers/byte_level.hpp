#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// GPT-2's pre-tokenizer: optionally puts a space in front of each split,
// cuts it with GPT-2's regex, and rewrites every byte of each piece as the
// printable character standing for it (byte_level_alphabet.hpp). Each of
// those characters keeps the original range of the whole character its byte
// came from, so a token holding part of a multi-byte character maps back to
// all of it. `trim_offsets` is read but acts in the ByteLevel post-processor.
class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;

 private:
  void split_text(const NormalizedString& text, std::vector<Split>& out) const;

  bool add_prefix_space_;
  bool use_regex_;
};

}  // namespace sieve::tokenizer
