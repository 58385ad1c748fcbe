#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.hpp"

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PreTokenizer> BertPreTokenizer::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<BertPreTokenizer>();
}

void BertPreTokenizer::pre_tokenize(std::vector<Split>& splits) const {
  std::vector<Split> out;
  out.reserve(splits.size() * 4);
  for (auto& split : splits) {
    if (split.tokenized) {
      out.push_back(std::move(split));
      continue;
    }
    const NormalizedString& text = split.text;
    std::size_t word_begin = 0;
    bool in_word = false;
    const auto close_word = [&](std::size_t end) {
      if (in_word && end > word_begin) out.push_back(Split{text.slice(word_begin, end), {}, false});
      in_word = false;
    };
    text.for_each_char([&](char32_t cp, std::size_t begin, std::size_t end, Offsets) {
      if (unicode::is_whitespace(cp)) {
        close_word(begin);
      } else if (unicode::is_bert_punctuation(cp)) {
        close_word(begin);
        out.push_back(Split{text.slice(begin, end), {}, false});
      } else if (!in_word) {
        in_word = true;
        word_begin = begin;
      }
    });
    close_word(text.size());
  }
  splits = std::move(out);
}

}  // namespace sieve::tokenizer
