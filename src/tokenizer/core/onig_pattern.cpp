#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/core/onig_pattern.hpp"

#include <pcre2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>

namespace sieve::tokenizer {
namespace {

// One property as Oniguruma sees it, as PCRE2 class items (no brackets).
struct OnigProperty {
  std::string_view name;        // the short name: L, Lu, ...; "word" and "word_in_class" for \w
  std::string_view full;        // every code point of Oniguruma's set
  std::string_view complement;  // every code point outside it (surrogates left out)
  std::string_view added;       // in Oniguruma's set, not in PCRE2's of the same name
  std::string_view removed;     // in PCRE2's set, not in Oniguruma's
};

// Generated at build time from the Unicode data by tools/gen_unicode_tables.py.
#include "unicode_onig_tables.inc"

// Oniguruma's \s with Unicode is the White_Space property; PCRE2's, with
// UCP, also takes U+180E (a space until Unicode 6.3). Patterns are rewritten
// to spell out Oniguruma's set, so GPT-2's pattern splits as Hugging Face's does.
constexpr std::string_view kOnigSpaces =
    "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

// Long general-category names Oniguruma accepts, by their short form.
constexpr std::array<std::pair<std::string_view, std::string_view>, 41> kLongNames = {{
    {"letter", "L"},
    {"uppercaseletter", "Lu"},
    {"lowercaseletter", "Ll"},
    {"titlecaseletter", "Lt"},
    {"modifierletter", "Lm"},
    {"otherletter", "Lo"},
    {"casedletter", "LC"},
    {"mark", "M"},
    {"combiningmark", "M"},
    {"nonspacingmark", "Mn"},
    {"spacingmark", "Mc"},
    {"enclosingmark", "Me"},
    {"number", "N"},
    {"decimalnumber", "Nd"},
    {"digit", "Nd"},
    {"letternumber", "Nl"},
    {"othernumber", "No"},
    {"punctuation", "P"},
    {"punct", "P"},
    {"connectorpunctuation", "Pc"},
    {"dashpunctuation", "Pd"},
    {"openpunctuation", "Ps"},
    {"closepunctuation", "Pe"},
    {"initialpunctuation", "Pi"},
    {"finalpunctuation", "Pf"},
    {"otherpunctuation", "Po"},
    {"symbol", "S"},
    {"mathsymbol", "Sm"},
    {"currencysymbol", "Sc"},
    {"modifiersymbol", "Sk"},
    {"othersymbol", "So"},
    {"separator", "Z"},
    {"spaceseparator", "Zs"},
    {"lineseparator", "Zl"},
    {"paragraphseparator", "Zp"},
    {"other", "C"},
    {"control", "Cc"},
    {"format", "Cf"},
    {"surrogate", "Cs"},
    {"privateuse", "Co"},
    {"unassigned", "Cn"},
}};

// Oniguruma matches property names ignoring case, spaces, '_' and '-'.
std::string loose_name(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (c == ' ' || c == '_' || c == '-') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

const OnigProperty* find_property(std::string_view name) {
  const std::string loose = loose_name(name);
  std::string_view short_name;
  for (const auto& [long_name, abbreviation] : kLongNames) {
    if (loose == long_name) short_name = abbreviation;
  }
  for (const auto& property : kOnigProperties) {
    if (!short_name.empty() ? property.name == short_name : loose_name(property.name) == loose) return &property;
  }
  return nullptr;
}

// How one property is written where it appears.
class PropertyWriter {
 public:
  explicit PropertyWriter(bool pcre2_is_baseline) : deltas_(pcre2_is_baseline) {}

  // `native` is PCRE2's own spelling of the property (\p{L}, \w, \d).
  void write(std::string& out, const OnigProperty& p, std::string_view native, bool negated, bool in_class) const {
    if (in_class) {
      // Items of an enclosing class: removal and negation cannot be spelled
      // with PCRE2's item, so those take the full lists.
      if (negated) {
        out += p.complement;
      } else if (deltas_ && p.removed.empty()) {
        out.append(native).append(p.added);
      } else {
        out += p.full;
      }
      return;
    }
    if (!deltas_) {
      out.append(negated ? "[^" : "[").append(p.full).append("]");
      return;
    }
    const std::string with_added = std::string(native) + std::string(p.added);
    if (p.removed.empty()) {
      out.append(negated ? "[^" : "[").append(with_added).append("]");
    } else if (negated) {
      out.append("(?:[").append(p.removed).append("]|[^").append(with_added).append("])");
    } else {
      out.append("(?:(?![").append(p.removed).append("])[").append(with_added).append("])");
    }
  }

 private:
  bool deltas_;
};

}  // namespace

std::string pcre2_unicode_version() {
  std::array<char, 32> buffer{};
  if (pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, buffer.data()) < 0) return {};
  return buffer.data();
}

std::string to_pcre2_pattern(std::string_view pattern) {
  static const bool pcre2_is_baseline = pcre2_unicode_version() == kPcre2BaselineUnicode;
  const PropertyWriter writer(pcre2_is_baseline);
  std::string out;
  out.reserve(pattern.size());
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[i + 1];
      switch (next) {
        case 's': out += in_class ? std::string(kOnigSpaces) : "[" + std::string(kOnigSpaces) + "]"; break;
        case 'S':
          // Inside a class the complement cannot be spelled as items: PCRE2's \S,
          // which differs only on U+180E, stays.
          out += in_class ? std::string("\\S") : "[^" + std::string(kOnigSpaces) + "]";
          break;
        case 'w':
        case 'W':
          // Oniguruma's \w differs in and out of a class (on six Latin-1 characters).
          writer.write(out, *find_property(in_class ? "word_in_class" : "word"), "\\w", next == 'W', in_class);
          break;
        case 'd':
        case 'D': writer.write(out, *find_property("Nd"), "\\d", next == 'D', in_class); break;
        case 'p':
        case 'P': {
          const std::size_t close = pattern.find('}', i + 2);
          if (i + 2 >= pattern.size() || pattern[i + 2] != '{' || close == std::string_view::npos) {
            out.push_back(c);
            out.push_back(next);
            break;
          }
          std::string_view name = pattern.substr(i + 3, close - i - 3);
          bool negated = next == 'P';
          if (!name.empty() && name.front() == '^') {
            negated = !negated;
            name.remove_prefix(1);
          }
          const OnigProperty* property = find_property(name);
          if (property == nullptr) {
            // A script or another property: PCRE2's own tables.
            out.append(pattern.substr(i, close + 1 - i));
          } else {
            // PCRE2 spells Cased_Letter L&.
            const std::string native = property->name == "LC" ? "\\p{L&}" : "\\p{" + std::string(property->name) + "}";
            writer.write(out, *property, native, negated, in_class);
          }
          i = close;
          continue;
        }
        case 'Q': {
          // Quoted text runs to \E unchanged.
          const std::size_t end = pattern.find("\\E", i + 2);
          const std::size_t stop = end == std::string_view::npos ? pattern.size() : end + 2;
          out.append(pattern.substr(i, stop - i));
          i = stop - 1;
          continue;
        }
        default:
          out.push_back(c);
          out.push_back(next);
          break;
      }
      ++i;
      continue;
    }
    if (c == '[' && !in_class) {
      in_class = true;
      out.push_back(c);
      // A ']' right after '[' or '[^' is a member, not the end.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out.push_back(pattern[++i]);
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out.push_back(pattern[++i]);
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace sieve::tokenizer
