#include "tokenizer/decoders/decoder_text.hpp"

#include <array>
#include <utility>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer::decoder_text {

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) {
    std::string out;
    out.reserve(text.size() + (text.size() + 1) * to.size());
    out.append(to);
    for (std::size_t pos = 0; pos < text.size();) {
      const std::size_t n = unicode::sequence_length(static_cast<unsigned char>(text[pos]));
      out.append(text, pos, n);
      out.append(to);
      pos += n;
    }
    text = std::move(out);
    return;
  }
  std::size_t hit = text.find(from);
  if (hit == std::string::npos) return;
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (hit != std::string::npos) {
    out.append(text, pos, hit - pos);
    out.append(to);
    pos = hit + from.size();
    hit = text.find(from, pos);
  }
  out.append(text, pos, std::string::npos);
  text = std::move(out);
}

void cleanup_artifacts(std::string& text) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kRules{{
      {" .", "."},
      {" ?", "?"},
      {" !", "!"},
      {" ,", ","},
      {" ' ", "'"},
      {" n't", "n't"},
      {" 'm", "'m"},
      {" do not", " don't"},
      {" 's", "'s"},
      {" 've", "'ve"},
      {" 're", "'re"},
  }};
  // Every rule starts with a space: most tokens have none and skip the chain.
  if (text.find(' ') == std::string::npos) return;
  for (const auto& [from, to] : kRules) replace_all(text, from, to);
}

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of a complete sequence starting with `lead` and the allowed range of
// its second byte, per the Unicode table of well-formed UTF-8; 0 when `lead`
// cannot start one.
struct LeadInfo {
  std::size_t length;
  unsigned char second_min;
  unsigned char second_max;
};

LeadInfo lead_info(unsigned char lead) noexcept {
  if (lead >= 0xC2 && lead <= 0xDF) return {2, 0x80, 0xBF};
  if (lead == 0xE0) return {3, 0xA0, 0xBF};
  if (lead == 0xED) return {3, 0x80, 0x9F};
  if (lead >= 0xE1 && lead <= 0xEF) return {3, 0x80, 0xBF};
  if (lead == 0xF0) return {4, 0x90, 0xBF};
  if (lead >= 0xF1 && lead <= 0xF3) return {4, 0x80, 0xBF};
  if (lead == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

}  // namespace

void append_utf8_lossy(std::string& out, std::string_view bytes) {
  out.reserve(out.size() + bytes.size());
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const auto lead = static_cast<unsigned char>(bytes[pos]);
    if (lead < 0x80) {
      out.push_back(static_cast<char>(lead));
      ++pos;
      continue;
    }
    const LeadInfo info = lead_info(lead);
    std::size_t end = pos + 1;
    if (info.length != 0 && end < bytes.size()) {
      const auto second = static_cast<unsigned char>(bytes[end]);
      if (second >= info.second_min && second <= info.second_max) {
        ++end;
        while (end < pos + info.length && end < bytes.size() &&
               (static_cast<unsigned char>(bytes[end]) & 0xC0) == 0x80) {
          ++end;
        }
      }
    }
    if (info.length != 0 && end == pos + info.length) {
      out.append(bytes.substr(pos, info.length));
    } else {
      // The longest prefix of a well-formed sequence counts as one error.
      out.append(kReplacement);
    }
    pos = end;
  }
}

char32_t single_char(const JsonView& node) {
  const std::string text = node.as_string();
  char32_t cp = 0;
  const std::size_t n = text.empty() ? 0 : unicode::decode(text, 0, cp);
  if (n == 0 || n != text.size()) node.fail("expected a single character, got \"" + text + "\"");
  return cp;
}

}  // namespace sieve::tokenizer::decoder_text
