#include "tokenizer/pre_tokenizers/byte_level.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "tokenizer/core/byte_level_alphabet.hpp"
#include "tokenizer/core/regex.hpp"
#include "tokenizer/core/unicode.hpp"
#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {
namespace {

const Regex& gpt2_regex() {
  static const Regex regex(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
  return regex;
}

// UTF-8 length of the character standing for each byte: printable ASCII
// stands for itself, every other byte for a character in U+00A1..U+0143.
constexpr std::array<std::uint8_t, 256> kMappedLength = [] {
  std::array<std::uint8_t, 256> lengths{};
  for (unsigned byte = 0; byte < 256; ++byte) lengths[byte] = byte >= '!' && byte <= '~' ? 1 : 2;
  return lengths;
}();

struct ByteLevelScratch {
  std::string prefixed;                // the split with the added space, for the regex
  std::vector<std::size_t> mapped_at;  // offset in the rewritten text of each byte of the split
};

ByteLevelScratch& byte_level_scratch() {
  thread_local ByteLevelScratch scratch;
  return scratch;
}

}  // namespace

std::unique_ptr<PreTokenizer> ByteLevel::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<ByteLevel>(node.get_bool("add_prefix_space", true), node.get_bool("use_regex", true));
}

void ByteLevel::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [this](const NormalizedString& text, std::vector<Split>& out) { split_text(text, out); });
}

void ByteLevel::split_text(const NormalizedString& text, std::vector<Split>& out) const {
  const std::string& s = text.get();
  if (s.empty()) return;
  // HF prepends the space to the normalized text, which gives it the
  // alignment of the first character; the regex then runs on the result.
  const bool prefix = add_prefix_space_ && s.front() != ' ';
  const std::size_t subject_size = s.size() + (prefix ? 1 : 0);
  SplitScratch& scratch = split_scratch();
  ByteLevelScratch& local = byte_level_scratch();
  std::vector<ByteRange>& pieces = scratch.pieces;
  pieces.clear();
  if (use_regex_) {
    std::string_view subject = s;
    if (prefix) {
      local.prefixed.assign(1, ' ');
      local.prefixed.append(s);
      subject = local.prefixed;
    }
    scratch.matches.clear();
    gpt2_regex().find_all(subject, scratch.matches);
    ranges_from_matches(subject.size(), scratch.matches, scratch.ranges);
    apply_split_behavior(scratch.ranges, SplitBehavior::kIsolated, false, pieces);
  } else {
    pieces.emplace_back(0, subject_size);
  }

  // Rewrite the whole split once, then cut the pieces out of the result:
  // HF rewrites each piece, which is the same character by character.
  NormalizedString::Builder builder(text);
  std::vector<std::size_t>& mapped_at = local.mapped_at;
  mapped_at.resize(subject_size + 1);
  std::size_t subject_pos = 0;
  std::size_t mapped = 0;
  const auto emit_byte = [&](std::uint8_t byte, Offsets original) {
    mapped_at[subject_pos++] = mapped;
    mapped += kMappedLength[byte];
    builder.emit(byte_level::byte_to_char(byte), original);
  };
  if (prefix) emit_byte(' ', text.original_offsets(0, 1));
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t length = std::min(unicode::sequence_length(static_cast<unsigned char>(s[pos])), s.size() - pos);
    // As HF's transform: the first byte replaces the character and takes
    // its alignment, the others are inserted after it and take the
    // alignment of its last byte.
    emit_byte(static_cast<std::uint8_t>(s[pos]), text.original_offsets(pos, pos + 1));
    if (length > 1) {
      const Offsets last = text.original_offsets(pos + length - 1, pos + length);
      for (std::size_t i = 1; i < length; ++i) emit_byte(static_cast<std::uint8_t>(s[pos + i]), last);
    }
    pos += length;
  }
  mapped_at[subject_pos] = mapped;
  NormalizedString rewritten = std::move(builder).finish();

  if (pieces.size() == 1 && pieces.front().first == 0 && pieces.front().second == subject_size) {
    out.push_back(Split{std::move(rewritten), {}, false});
    return;
  }
  for (const auto& [begin, end] : pieces) {
    if (begin < end) out.push_back(Split{rewritten.slice(mapped_at[begin], mapped_at[end]), {}, false});
  }
}

}  // namespace sieve::tokenizer
