#include "tokenizer/normalizers/unicode_forms.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer::unicode_forms {
namespace {

struct CodeRange {
  char32_t first;
  char32_t last;
};

// Characters assigned in Unicode 9.0 that are marks or carry normalization
// data (a combining class or a decomposition), from DerivedAge.txt and
// utf8proc; the other 9.0 characters need no entry since they have none.
constexpr std::array<CodeRange, 16> kNormalizationDataIn9{{
    {0x08D4, 0x08E1},
    {0x1DFB, 0x1DFB},
    {0xA8C5, 0xA8C5},
    {0x1123E, 0x1123E},
    {0x11435, 0x11446},
    {0x11C2F, 0x11C36},
    {0x11C38, 0x11C3F},
    {0x11C92, 0x11CA7},
    {0x11CA9, 0x11CB6},
    {0x1E000, 0x1E006},
    {0x1E008, 0x1E018},
    {0x1E01B, 0x1E021},
    {0x1E023, 0x1E024},
    {0x1E026, 0x1E02A},
    {0x1E944, 0x1E94A},
    {0x1F23B, 0x1F23B},
}};

// Whether the crate's Unicode 9.0 tables know the character.
bool known_to_crate(char32_t cp) noexcept {
  if (!unicode::assigned_after_unicode_8(cp)) return true;
  return std::any_of(kNormalizationDataIn9.begin(), kNormalizationDataIn9.end(),
                     [cp](const CodeRange& r) { return cp >= r.first && cp <= r.last; });
}

int combining_class(char32_t cp) noexcept {
  if (cp < 0x300) return 0;
  return known_to_crate(cp) ? unicode::combining_class(cp) : 0;
}

constexpr std::size_t kMaxDecomposition = 32;  // the longest, U+FDFA in NFKD, has 18

std::size_t decompose_char(char32_t cp, bool compatible, char32_t* out) noexcept {
  // Below U+00A0 nothing decomposes, below U+00C0 nothing canonically.
  if (cp < 0xA0 || (!compatible && cp < 0xC0) || !known_to_crate(cp)) {
    out[0] = cp;
    return 1;
  }
  int boundclass = 0;
  const auto options = static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | (compatible ? UTF8PROC_COMPAT : 0));
  const auto n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), reinterpret_cast<utf8proc_int32_t*>(out),
                                         kMaxDecomposition, options, &boundclass);
  if (n <= 0 || static_cast<std::size_t>(n) > kMaxDecomposition) {
    out[0] = cp;
    return 1;
  }
  return static_cast<std::size_t>(n);
}

constexpr char32_t kHangulSBase = 0xAC00;
constexpr char32_t kHangulLBase = 0x1100;
constexpr char32_t kHangulVBase = 0x1161;
constexpr char32_t kHangulTBase = 0x11A7;
constexpr char32_t kHangulLCount = 19;
constexpr char32_t kHangulVCount = 21;
constexpr char32_t kHangulTCount = 28;
constexpr char32_t kHangulSCount = kHangulLCount * kHangulVCount * kHangulTCount;

// Canonical composition pairs, derived once from utf8proc: every character
// whose canonical decomposition recomposes to it is a primary composite, and
// its pair is (the composition of all but its last decomposed character,
// that last character).
class CompositionTable {
 public:
  CompositionTable() {
    for (const CodeRange& range : kScanned) {
      for (char32_t cp = range.first; cp <= range.last; ++cp) add_if_primary_composite(cp);
    }
    std::sort(starter_seconds_.begin(), starter_seconds_.end());
    starter_seconds_.erase(std::unique(starter_seconds_.begin(), starter_seconds_.end()), starter_seconds_.end());
  }

  // Whether NFC (or, with `compatible`, NFKC) gives back the character alone.
  [[nodiscard]] bool recomposes_to_itself(char32_t cp, bool compatible) const {
    if (cp >= kHangulSBase && cp < kHangulSBase + kHangulSCount) return true;
    return (compatible ? compatibility_stable_composites_ : composites_).count(cp) > 0;
  }

  // Whether a character of combining class 0 can join the one before it.
  [[nodiscard]] bool is_starter_second(char32_t cp) const {
    if (cp >= kHangulVBase && cp < kHangulVBase + kHangulVCount) return true;
    if (cp > kHangulTBase && cp < kHangulTBase + kHangulTCount) return true;
    return std::binary_search(starter_seconds_.begin(), starter_seconds_.end(), cp);
  }

  [[nodiscard]] std::optional<char32_t> compose(char32_t first, char32_t second) const {
    if (first >= kHangulLBase && first < kHangulLBase + kHangulLCount && second >= kHangulVBase &&
        second < kHangulVBase + kHangulVCount) {
      return kHangulSBase + ((first - kHangulLBase) * kHangulVCount + (second - kHangulVBase)) * kHangulTCount;
    }
    if (first >= kHangulSBase && first < kHangulSBase + kHangulSCount && (first - kHangulSBase) % kHangulTCount == 0 &&
        second > kHangulTBase && second < kHangulTBase + kHangulTCount) {
      return first + (second - kHangulTBase);
    }
    const auto it = pairs_.find(key(first, second));
    if (it == pairs_.end()) return std::nullopt;
    return it->second;
  }

 private:
  // Where the primary composites of Unicode 9.0 live (Hangul syllables are
  // algorithmic); later ones are unknown to the crate anyway.
  static constexpr std::array<CodeRange, 3> kScanned{{{0x00C0, 0x22FF}, {0x3040, 0x30FF}, {0x11000, 0x11FFF}}};

  static std::uint64_t key(char32_t first, char32_t second) {
    return (static_cast<std::uint64_t>(first) << 21U) | second;
  }

  // STABLE makes utf8proc honour the composition exclusions.
  static std::size_t compose_in_place(std::array<utf8proc_int32_t, kMaxDecomposition>& buffer, std::size_t length) {
    const auto n = utf8proc_normalize_utf32(buffer.data(), static_cast<utf8proc_ssize_t>(length),
                                            static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_STABLE));
    return n < 0 ? 0 : static_cast<std::size_t>(n);
  }

  void add_if_primary_composite(char32_t cp) {
    if (!known_to_crate(cp)) return;
    std::array<char32_t, kMaxDecomposition> decomposed{};
    const std::size_t n = decompose_char(cp, false, decomposed.data());
    if (n < 2) return;  // singletons never recompose
    std::array<utf8proc_int32_t, kMaxDecomposition> buffer{};
    std::copy_n(decomposed.begin(), n, buffer.begin());
    if (compose_in_place(buffer, n) != 1 || static_cast<char32_t>(buffer[0]) != cp) return;  // excluded
    std::copy_n(decomposed.begin(), n - 1, buffer.begin());
    if (compose_in_place(buffer, n - 1) != 1) return;
    pairs_.emplace(key(static_cast<char32_t>(buffer[0]), decomposed[n - 1]), cp);
    composites_.insert(cp);
    // Some composites hold a part that NFKC maps further (U+1E9B, long s with dot).
    std::array<char32_t, kMaxDecomposition> compatible{};
    if (decompose_char(cp, true, compatible.data()) == n &&
        std::equal(decomposed.begin(), decomposed.begin() + n, compatible.begin())) {
      compatibility_stable_composites_.insert(cp);
    }
    if (combining_class(decomposed[n - 1]) == 0) starter_seconds_.push_back(decomposed[n - 1]);
  }

  std::unordered_map<std::uint64_t, char32_t> pairs_;
  std::unordered_set<char32_t> composites_;
  std::unordered_set<char32_t> compatibility_stable_composites_;
  std::vector<char32_t> starter_seconds_;
};

const CompositionTable& compositions() {
  static const CompositionTable table;
  return table;
}

// Canonical ordering of the marks after the last starter: a stable sort by
// combining class, as the crate does each time a starter arrives.
void sort_pending(std::vector<CharChange>& out, std::size_t from) {
  if (out.size() - from < 2) return;
  const auto begin = out.begin() + static_cast<std::ptrdiff_t>(from);
  const auto by_class = [](const CharChange& a, const CharChange& b) {
    return combining_class(a.cp) < combining_class(b.cp);
  };
  if (!std::is_sorted(begin, out.end(), by_class)) std::stable_sort(begin, out.end(), by_class);
}

// The decomposition: the first character of each decomposition replaces its
// source character (change 0), the others are insertions (change 1), and
// reordering moves the changes along with their characters.
void decompose(std::string_view text, bool compatible, std::vector<CharChange>& out) {
  std::size_t pending = out.size();
  std::array<char32_t, kMaxDecomposition> buffer{};
  std::size_t pos = 0;
  while (pos < text.size()) {
    char32_t cp = 0;
    std::size_t len = unicode::decode(text, pos, cp);
    if (len == 0) {  // inputs are valid UTF-8 by now
      cp = unicode::kReplacementChar;
      len = 1;
    }
    pos += len;
    const std::size_t n = decompose_char(cp, compatible, buffer.data());
    for (std::size_t i = 0; i < n; ++i) {
      if (combining_class(buffer[i]) == 0) {
        sort_pending(out, pending);
        pending = out.size();
      }
      out.push_back({buffer[i], i == 0 ? 0 : 1});
    }
  }
  sort_pending(out, pending);
}

// The crate's recomposition state machine: a composed pair keeps the
// changes of both minus one, so the result replaces both source characters.
void recompose(const std::vector<CharChange>& decomposed, std::vector<CharChange>& out) {
  const CompositionTable& table = compositions();
  std::vector<CharChange> blocked;  // marks that could not join the composee
  std::optional<CharChange> composee;
  int last_class = -1;  // combining class of the last blocked mark; -1 when none
  for (const CharChange& current : decomposed) {
    const int current_class = combining_class(current.cp);
    if (!composee) {
      if (current_class != 0) {
        out.push_back(current);
      } else {
        composee = current;
      }
      continue;
    }
    if (last_class >= current_class) {  // blocked from the composee
      if (current_class == 0) {
        out.push_back(*composee);
        out.insert(out.end(), blocked.begin(), blocked.end());
        blocked.clear();
        composee = current;
        last_class = -1;
      } else {
        blocked.push_back(current);
        last_class = current_class;
      }
      continue;
    }
    if (const auto composed = table.compose(composee->cp, current.cp)) {
      composee = CharChange{*composed, composee->change + current.change - 1};
      continue;
    }
    if (last_class < 0 && current_class == 0) {
      out.push_back(*composee);
      composee = current;
      continue;
    }
    blocked.push_back(current);
    last_class = current_class;
  }
  if (composee) out.push_back(*composee);
  out.insert(out.end(), blocked.begin(), blocked.end());
}

// Whether a character is certainly left as it is by the form and cannot
// interact with its neighbours: a starter that nothing decomposes and, for the
// composing forms, that joins no character before it (a primary composite
// stays: it decomposes and recomposes to itself).
bool is_inert(char32_t cp, Form form) {
  if (cp < 0xA0) return true;
  const utf8proc_property_t* property = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
  const bool decomposes = property->decomp_seqindex != UINT16_MAX;
  const bool canonical = decomposes && property->decomp_type == 0;
  const bool hangul_syllable = cp >= kHangulSBase && cp < kHangulSBase + kHangulSCount;
  bool inert = property->combining_class == 0;
  switch (form) {
    case Form::kNfd: inert = inert && !canonical && !hangul_syllable; break;
    case Form::kNfkd: inert = inert && !decomposes && !hangul_syllable; break;
    case Form::kNfc:
      inert = inert && !compositions().is_starter_second(cp) &&
              (!canonical || compositions().recomposes_to_itself(cp, false));
      break;
    case Form::kNfkc:
      inert = inert && !compositions().is_starter_second(cp) &&
              (!decomposes || (canonical && compositions().recomposes_to_itself(cp, true)));
      break;
  }
  return inert || !known_to_crate(cp);
}

}  // namespace

bool is_normalized(std::string_view text, Form form) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (lead < 0x80) {
      ++pos;
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = unicode::decode(text, pos, cp);
    if (len == 0 || !is_inert(cp, form)) return false;
    pos += len;
  }
  return true;
}

void normalize(std::string_view text, Form form, std::vector<CharChange>& out) {
  const bool compatible = form == Form::kNfkd || form == Form::kNfkc;
  if (form == Form::kNfd || form == Form::kNfkd) {
    decompose(text, compatible, out);
    return;
  }
  thread_local std::vector<CharChange> decomposed;
  decomposed.clear();
  decompose(text, compatible, decomposed);
  recompose(decomposed, out);
}

bool is_combining_mark(char32_t cp) noexcept {
  if (cp < 0x300) return false;
  // Their category changed after Unicode 9.0: marks then, letters now ...
  if (cp == 0x1CF2 || cp == 0x1CF3) return true;
  // ... and a punctuation mark then, a mark now.
  if (cp == 0x111C9) return false;
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  const bool mark =
      category == UTF8PROC_CATEGORY_MN || category == UTF8PROC_CATEGORY_MC || category == UTF8PROC_CATEGORY_ME;
  return mark && known_to_crate(cp);
}

}  // namespace sieve::tokenizer::unicode_forms
