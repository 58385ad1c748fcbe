#include "tokenizer/pre_tokenizers/digits.hpp"

#include <utf8proc.h>

#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {
namespace {

// Rust's char::is_numeric: general categories Nd, Nl and No.
bool is_numeric(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return category == UTF8PROC_CATEGORY_ND || category == UTF8PROC_CATEGORY_NL || category == UTF8PROC_CATEGORY_NO;
}

}  // namespace

std::unique_ptr<PreTokenizer> Digits::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<Digits>(node.get_bool("individual_digits", false));
}

void Digits::pre_tokenize(std::vector<Split>& splits) const {
  const SplitBehavior behavior = individual_digits_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous;
  split_each(splits, [behavior](const NormalizedString& text, std::vector<Split>& out) {
    split_on_predicate(text, is_numeric, behavior, false, out);
  });
}

}  // namespace sieve::tokenizer
