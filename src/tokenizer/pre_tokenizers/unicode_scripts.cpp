#include "tokenizer/pre_tokenizers/unicode_scripts.hpp"

#include <algorithm>
#include <cstdint>

#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {
namespace {

struct ScriptRange {
  char32_t first;
  char32_t last;
  std::uint8_t script;
};

// Generated at build time from Scripts.txt and DerivedAge.txt by tools/gen_unicode_scripts.py.
#include "unicode_scripts_9.inc"

constexpr std::uint8_t kScriptAny = 0;

std::uint8_t raw_script(char32_t cp) {
  switch (cp) {
    // Script changes since Unicode 9.0, found by comparing every code point
    // with Hugging Face.
    case 0x0589:  // ARMENIAN FULL STOP, now Armenian
    case 0x061C:  // ARABIC LETTER MARK, now Arabic
      return kScriptCommon;
    case 0x0953:  // DEVANAGARI GRAVE ACCENT, now Inherited
    case 0x0954:  // DEVANAGARI ACUTE ACCENT, now Inherited
      return kScriptDevanagari;
    default: break;
  }
  const auto* end = kScriptRanges + sizeof(kScriptRanges) / sizeof(kScriptRanges[0]);
  const auto* it =
      std::upper_bound(kScriptRanges, end, cp, [](char32_t c, const ScriptRange& r) { return c < r.first; });
  if (it == kScriptRanges) return kScriptAny;
  --it;
  return cp <= it->last ? it->script : kScriptAny;
}

// SentencePiece's adjustments, which HF copies: the prolonged sound mark
// and the kana count as Han, and a space belongs to any script.
std::uint8_t fixed_script(char32_t cp) {
  if (cp == 0x30FC) return kScriptHan;
  if (cp == ' ') return kScriptAny;
  const std::uint8_t script = raw_script(cp);
  return script == kScriptHiragana || script == kScriptKatakana ? kScriptHan : script;
}

}  // namespace

std::unique_ptr<PreTokenizer> UnicodeScripts::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<UnicodeScripts>();
}

void UnicodeScripts::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [](const NormalizedString& text, std::vector<Split>& out) {
    // A piece starts at each character whose script differs from the last
    // script seen. As in HF, the first character with a script starts the
    // first piece, so characters of any script (spaces) before it are lost.
    bool in_piece = false;
    std::size_t piece_begin = 0;
    std::uint8_t last_script = kScriptAny;
    text.for_each_char([&](char32_t cp, std::size_t begin, std::size_t, Offsets) {
      const std::uint8_t script = fixed_script(cp);
      if (script == kScriptAny || (in_piece && script == last_script)) return;
      if (in_piece) out.push_back(Split{text.slice(piece_begin, begin), {}, false});
      in_piece = true;
      piece_begin = begin;
      last_script = script;
    });
    if (in_piece) out.push_back(Split{text.slice(piece_begin, text.size()), {}, false});
  });
}

}  // namespace sieve::tokenizer
