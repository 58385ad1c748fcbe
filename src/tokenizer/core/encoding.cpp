#include "tokenizer/core/components.hpp"

namespace sieve::tokenizer {

void append_special(Encoding& out, std::uint32_t id, std::uint32_t type_id) {
  out.ids.push_back(id);
  out.type_ids.push_back(type_id);
  out.offsets.emplace_back(0, 0);
  out.special_tokens_mask.push_back(1);
  out.attention_mask.push_back(1);
}

void append_sequence(Encoding& out, const Encoding& sequence, std::uint32_t type_id) {
  out.ids.insert(out.ids.end(), sequence.ids.begin(), sequence.ids.end());
  out.type_ids.insert(out.type_ids.end(), sequence.size(), type_id);
  out.offsets.insert(out.offsets.end(), sequence.offsets.begin(), sequence.offsets.end());
  out.special_tokens_mask.insert(out.special_tokens_mask.end(), sequence.special_tokens_mask.begin(),
                                 sequence.special_tokens_mask.end());
  out.attention_mask.insert(out.attention_mask.end(), sequence.attention_mask.begin(), sequence.attention_mask.end());
}

Encoding concatenate(Encoding first, std::optional<Encoding> second) {
  if (second) {
    // Without special tokens the second sequence still keeps type id 1 as
    // Hugging Face assigns it.
    append_sequence(first, *second, 1);
  }
  return first;
}

}  // namespace sieve::tokenizer
