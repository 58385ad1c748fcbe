#include "tokenizer/pre_tokenizers/whitespace.hpp"

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {
namespace {

enum class CharClass { kSpace, kWord, kOther };

CharClass classify(char32_t cp) {
  if (unicode::is_whitespace(cp)) return CharClass::kSpace;
  return unicode::is_word_char(cp) ? CharClass::kWord : CharClass::kOther;
}

}  // namespace

std::unique_ptr<PreTokenizer> Whitespace::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<Whitespace>();
}

void Whitespace::pre_tokenize(std::vector<Split>& splits) const {
  // The regex's matches are exactly the maximal runs of word characters and
  // of other non-space characters, so a scan by character class gives them
  // without running a regex.
  split_each(splits, [](const NormalizedString& text, std::vector<Split>& out) {
    std::size_t run_begin = 0;
    CharClass run_class = CharClass::kSpace;
    const auto close_run = [&](std::size_t end) {
      if (run_class != CharClass::kSpace && end > run_begin)
        out.push_back(Split{text.slice(run_begin, end), {}, false});
    };
    text.for_each_char([&](char32_t cp, std::size_t begin, std::size_t, Offsets) {
      const CharClass char_class = classify(cp);
      if (char_class == run_class) return;
      close_run(begin);
      run_class = char_class;
      run_begin = begin;
    });
    close_run(text.size());
  });
}

}  // namespace sieve::tokenizer
