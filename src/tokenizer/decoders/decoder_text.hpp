#pragma once

#include <string>
#include <string_view>

#include "tokenizer/core/json_view.hpp"

// Text operations the decoders share, each with the exact semantics of the
// Rust standard library call Hugging Face uses, since decoded text is compared
// byte for byte.
namespace sieve::tokenizer::decoder_text {

// Rust's str::replace: every non-overlapping occurrence, left to right. An
// empty pattern matches at every character boundary, both ends included.
void replace_all(std::string& text, std::string_view from, std::string_view to);

// The WordPiece decoder's cleanup of tokenization artifacts (spaces before
// punctuation, split English contractions), also used by CTC.
void cleanup_artifacts(std::string& text);

// Rust's String::from_utf8_lossy: each maximal invalid subsequence becomes
// one U+FFFD.
void append_utf8_lossy(std::string& out, std::string_view bytes);

// A JSON string that must hold exactly one character (a Rust `char` field).
char32_t single_char(const JsonView& node);

}  // namespace sieve::tokenizer::decoder_text
