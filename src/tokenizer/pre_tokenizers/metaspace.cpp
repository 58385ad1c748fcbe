#include "tokenizer/pre_tokenizers/metaspace.hpp"

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {

Metaspace::Metaspace(char32_t replacement, PrependScheme prepend_scheme, bool split)
    : replacement_(replacement), prepend_scheme_(prepend_scheme), split_(split) {
  unicode::append_utf8(replacement_utf8_, replacement);
}

std::unique_ptr<PreTokenizer> Metaspace::from_json(const JsonView& node) {
  node.expect_object();
  const char32_t replacement = single_char_from_json(node.at("replacement"));
  PrependScheme scheme = PrependScheme::kAlways;
  if (const auto field = node.find("prepend_scheme")) {
    const std::string name = field->as_string();
    if (name == "always") {
      scheme = PrependScheme::kAlways;
    } else if (name == "never") {
      scheme = PrependScheme::kNever;
    } else if (name == "first") {
      scheme = PrependScheme::kFirst;
    } else {
      field->fail("unknown prepend_scheme \"" + name + "\" (expected always, never or first)");
    }
  }
  // Files written before prepend_scheme existed say add_prefix_space; HF
  // accepts false only together with "never" (or no prepend_scheme at all,
  // which it then reads as "always" and rejects too).
  if (const auto legacy = node.get_optional_bool("add_prefix_space"); legacy && !*legacy) {
    if (scheme != PrependScheme::kNever) {
      node.at("add_prefix_space").fail("add_prefix_space does not match declared prepend_scheme");
    }
  }
  return std::make_unique<Metaspace>(replacement, scheme, node.get_bool("split", true));
}

void Metaspace::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [this](NormalizedString& text, std::vector<Split>& out) { split_text(text, out); });
}

void Metaspace::split_text(NormalizedString& text, std::vector<Split>& out) const {
  const std::string& s = text.get();
  if (s.empty()) return;
  const bool starts_with_replacement =
      s.front() == ' ' || s.compare(0, replacement_utf8_.size(), replacement_utf8_) == 0;
  bool prepend = false;
  switch (prepend_scheme_) {
    case PrependScheme::kAlways: prepend = !starts_with_replacement; break;
    case PrependScheme::kNever: break;
    case PrependScheme::kFirst:
      // HF prepends only to the split whose original range starts at the
      // start of the sequence: not after an added token, nor after text
      // that a normalizer or an earlier pre-tokenizer removed.
      prepend = !starts_with_replacement && text.original_offsets(0, s.size()).first == 0;
      break;
  }
  if (prepend || s.find(' ') != std::string::npos) {
    NormalizedString::Builder builder(text);
    // The prepended character takes the alignment of the first one, as HF's prepend.
    if (prepend) builder.emit(replacement_, text.original_offsets(0, 1));
    text.for_each_char([&](char32_t cp, std::size_t, std::size_t, Offsets original) {
      builder.emit(cp == ' ' ? replacement_ : cp, original);
    });
    text = std::move(builder).finish();
  }
  if (split_) {
    split_on_predicate(
        text, [this](char32_t cp) { return cp == replacement_; }, SplitBehavior::kMergedWithNext, false, out);
  } else {
    out.push_back(Split{std::move(text), {}, false});
  }
}

}  // namespace sieve::tokenizer
