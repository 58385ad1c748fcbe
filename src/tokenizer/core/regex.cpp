#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/core/regex.hpp"

#include <pcre2.h>

#include "sieve/error.hpp"
#include "tokenizer/core/onig_pattern.hpp"

namespace sieve::tokenizer {
namespace {

struct CodeDeleter {
  void operator()(pcre2_code* code) const noexcept { pcre2_code_free(code); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const noexcept { pcre2_match_data_free(data); }
};

std::string error_text(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof(buffer)) < 0) return "error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

// Match data big enough for any pattern: one buffer per thread, reused by every call.
pcre2_match_data* thread_match_data() {
  thread_local std::unique_ptr<pcre2_match_data, MatchDataDeleter> data(pcre2_match_data_create(64, nullptr));
  if (!data) throw Error(ErrorCode::kRuntime, "out of memory creating regex match data");
  return data.get();
}

}  // namespace

struct Regex::Compiled {
  std::unique_ptr<pcre2_code, CodeDeleter> code;
  bool jit = false;
};

Regex::Regex(std::string_view pattern) : pattern_(pattern), compiled_(std::make_unique<Compiled>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  // Inputs are validated once before tokenization; PCRE2 need not check again.
  const std::uint32_t options = PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK;
  const std::string translated = to_pcre2_pattern(pattern);
  compiled_->code.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(), options,
                                      &error, &offset, nullptr));
  if (!compiled_->code) {
    throw Error(ErrorCode::kParse, "invalid regular expression \"" + std::string(pattern) + "\" at offset " +
                                       std::to_string(offset) + ": " + error_text(error));
  }
  compiled_->jit = pcre2_jit_compile(compiled_->code.get(), PCRE2_JIT_COMPLETE) == 0;
}

Regex Regex::literal(std::string_view text) {
  std::string quoted = "\\Q";
  // \E inside the text would end the quoting early: split it.
  std::size_t pos = 0;
  while (true) {
    const std::size_t found = text.find("\\E", pos);
    if (found == std::string_view::npos) break;
    quoted.append(text.substr(pos, found - pos)).append("\\E\\\\E\\Q");
    pos = found + 2;
  }
  quoted.append(text.substr(pos)).append("\\E");
  Regex out(quoted);
  out.pattern_ = std::string(text);
  return out;
}

Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;
Regex::~Regex() = default;

void Regex::find_all(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& out) const {
  pcre2_match_data* data = thread_match_data();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  // The iteration of the onig crate that Hugging Face uses: an empty match
  // is reported, except right where the previous match ended, and then the
  // search resumes one character later.
  std::size_t start = 0;
  bool have_previous = false;
  std::size_t previous_end = 0;
  while (start <= text.size()) {
    const int rc =
        compiled_->jit
            ? pcre2_jit_match(compiled_->code.get(), subject, text.size(), start, 0, data, nullptr)
            : pcre2_match(compiled_->code.get(), subject, text.size(), start, PCRE2_NO_UTF_CHECK, data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc < 0) {
      throw Error(ErrorCode::kRuntime, "regular expression \"" + pattern_ + "\" failed: " + error_text(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
    const std::size_t begin = ovector[0];
    const std::size_t end = ovector[1];
    if (begin == end && have_previous && previous_end == end) {
      if (start >= text.size()) return;
      std::size_t next = start + 1;
      while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0U) == 0x80U) ++next;
      start = next;
      continue;
    }
    out.emplace_back(begin, end);
    start = end;
    have_previous = true;
    previous_end = end;
  }
}

}  // namespace sieve::tokenizer
