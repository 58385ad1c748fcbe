#pragma once

#include <string>
#include <string_view>

namespace sieve::tokenizer {

// Rewrites a pattern written for Oniguruma, the engine of Hugging Face
// `tokenizers`, so that PCRE2 (UTF, UCP) matches exactly what Oniguruma does:
// \s and \S as Oniguruma's White_Space; \w, \W, \d, \D and the general
// categories \p{..}, \P{..}, \p{^..} at Oniguruma's Unicode version (16.0),
// whatever the version of PCRE2's own tables. Where PCRE2 knows the Unicode
// version the tables were generated against, the rewrite keeps PCRE2's
// property lookup and adds the differences; otherwise it spells out every
// range. Other constructs pass through unchanged.
std::string to_pcre2_pattern(std::string_view onig_pattern);

// The Unicode version of the linked PCRE2's tables ("14.0.0" for 10.42).
std::string pcre2_unicode_version();

}  // namespace sieve::tokenizer
