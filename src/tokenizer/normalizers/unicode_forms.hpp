#pragma once

#include <string_view>
#include <vector>

#include "tokenizer/normalizers/transform.hpp"

// Unicode normalization forms as Hugging Face computes them, with the
// alignment changes of its unicode-normalization-alignments crate.
//
// That crate's tables are Unicode 9.0, while utf8proc has current Unicode:
// characters assigned after 9.0 have, for Hugging Face, no decomposition, a
// combining class of 0, take part in no composition and are no marks.
// (Checked over every code point against tokenizers 0.23.3.)
namespace sieve::tokenizer::unicode_forms {

enum class Form { kNfd, kNfkd, kNfc, kNfkc };

// A quick check: true when the form certainly leaves `text` unchanged (false
// may still turn out unchanged).
bool is_normalized(std::string_view text, Form form);

// Appends the (character, change) sequence of `text` in `form`.
void normalize(std::string_view text, Form form, std::vector<CharChange>& out);

// A mark (Mn, Mc or Me) for the crate's is_combining_mark.
bool is_combining_mark(char32_t cp) noexcept;

}  // namespace sieve::tokenizer::unicode_forms
