// Minimal reproducers of what the fuzz targets (tests/fuzz) found: each must
// end in sieve::Error or success, never another exception or a crash.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve {
namespace {

// The outcome of loading: "" on success, else the sieve::Error message.
// Any other exception escapes and fails the test.
std::string load_error(std::string_view json) {
  try {
    (void)Tokenizer::from_json(json, "fuzz.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

constexpr std::string_view kModel = R"("model": {"type": "WordPiece", "unk_token": "a", "vocab": {"a": 0}})";

// nlohmann reports a number too large for a double as out_of_range, not as
// a parse_error; serde_json (Hugging Face) rejects the file.
TEST(FuzzRegressions, NumberOverflowIsAParseError) {
  const std::string json = "{" + std::string(kModel) + R"(, "version": 1e400})";
  const std::string error = load_error(json);
  EXPECT_EQ(error.rfind("fuzz.json: ", 0), 0u) << error;
}

// A pattern PCRE2 rejects is a malformed file like any other: the error
// must name the JSON path of the pattern, not only the pattern.
TEST(FuzzRegressions, InvalidRegexNamesTheJsonPath) {
  const std::string split = "{" + std::string(kModel) +
                            R"(, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(("}, "behavior": "Isolated",
                                "invert": false}})";
  EXPECT_EQ(load_error(split).rfind("fuzz.json: /pre_tokenizer/pattern", 0), 0u) << load_error(split);
  const std::string normalizer =
      "{" + std::string(kModel) + R"(, "normalizer": {"type": "Replace", "pattern": {"Regex": "(("}, "content": ""}})";
  EXPECT_EQ(load_error(normalizer).rfind("fuzz.json: /normalizer/pattern", 0), 0u) << load_error(normalizer);
  const std::string decoder =
      "{" + std::string(kModel) + R"(, "decoder": {"type": "Replace", "pattern": {"Regex": "(("}, "content": ""}})";
  EXPECT_EQ(load_error(decoder).rfind("fuzz.json: /decoder/pattern", 0), 0u) << load_error(decoder);
}

// Hugging Face (serde_json) refuses JSON nested deeper than 128 levels
// ("recursion limit exceeded"); Sieve recursed once per nested Sequence
// and overflowed the stack.
TEST(FuzzRegressions, DeeplyNestedSequenceIsAnError) {
  constexpr int kDepth = 100000;
  std::string normalizer;
  for (int i = 0; i < kDepth; ++i) normalizer += R"({"type": "Sequence", "normalizers": [)";
  normalizer += R"({"type": "Lowercase"})";
  for (int i = 0; i < kDepth; ++i) normalizer += "]}";
  const std::string error = load_error("{" + std::string(kModel) + R"(, "normalizer": )" + normalizer + "}");
  EXPECT_EQ(error.rfind("fuzz.json: ", 0), 0u) << error.substr(0, 200);
}

// A WordPiece id near 2^32 made Sieve allocate an id -> token array of
// that length (tens of GiB); Hugging Face accepts any 32-bit id, and so must
// a loader that allocates only what the vocabulary holds.
TEST(FuzzRegressions, HugeWordPieceIdAllocatesNoArrayOfThatLength) {
  auto tokenizer = Tokenizer::from_json(R"({
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 4000000000}}
  })");
  EXPECT_EQ(tokenizer.encode("a", false).ids, (std::vector<std::uint32_t>{4000000000U}));
  EXPECT_EQ(tokenizer.id_to_token(4000000000U), "a");
  EXPECT_EQ(tokenizer.id_to_token(3999999999U), "");
}

// With InvalidUtf8::kReplace the offsets must still be into the text the
// caller passed (include/sieve/tokenizer.hpp), not into the copy where each
// bad byte became the 3-byte U+FFFD.
TEST(FuzzRegressions, ReplacedInvalidUtf8KeepsOffsetsIntoTheInput) {
  auto tokenizer = Tokenizer::from_json(R"({
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}
  })");
  tokenizer.set_invalid_utf8(InvalidUtf8::kReplace);
  const std::string text = "\xFF a";
  const Encoding encoding = tokenizer.encode(text, false);
  ASSERT_EQ(encoding.ids, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(encoding.offsets[0], (Offsets{0, 1}));
  EXPECT_EQ(encoding.offsets[1], (Offsets{2, 3}));
}

}  // namespace
}  // namespace sieve
