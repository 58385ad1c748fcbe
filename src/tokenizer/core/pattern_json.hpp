#pragma once

#include "tokenizer/core/json_view.hpp"
#include "tokenizer/core/regex.hpp"

namespace sieve::tokenizer {

// The {"String": s} or {"Regex": r} pattern object of Split, Replace and the
// like. A string is matched literally (an empty one between every
// character, as Hugging Face escapes it into a regex); a pattern PCRE2
// rejects is an error naming its JSON path.
Regex pattern_from_json(const JsonView& pattern);

}  // namespace sieve::tokenizer
