#include <gtest/gtest.h>

#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve {
namespace {

const char* kMinimal = R"({
  "normalizer": {"type": "BertNormalizer", "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "hi": 1, "##s": 2}},
  "post_processor": null,
  "added_tokens": []
})";

std::string error_of(std::string_view json) {
  try {
    (void)Tokenizer::from_json(json, "t.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Loader, LoadsAMinimalTokenizer) {
  const auto t = Tokenizer::from_json(kMinimal);
  EXPECT_EQ(t.encode("HIS hi").ids, (std::vector<std::uint32_t>{1, 2, 1}));
}

TEST(Loader, MalformedJsonNamesTheByte) {
  EXPECT_NE(error_of("{\"model\": ").find("t.json: invalid JSON at byte"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("t.json: /: expected an object"), std::string::npos);
}

TEST(Loader, ErrorsNameTheJsonPath) {
  EXPECT_NE(
      error_of(
          R"({"normalizer": {"type": "BertNormalizer", "lowercase": "yes"}, "model": {"type": "WordPiece", "vocab": {}}})")
          .find("t.json: /normalizer/lowercase: expected a boolean, got a string"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"model": {"type": "WordPiece", "vocab": {"a": -1}}})").find("/model/vocab/a"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"normalizer": {}})").find("/normalizer: missing required field \"type\""), std::string::npos);
  EXPECT_NE(error_of("{}").find("missing required field \"model\""), std::string::npos);
  EXPECT_NE(error_of(R"({"model": {"type": "WordPiece", "vocab": {}}, "added_tokens": [{"id": 1}]})")
                .find("/added_tokens/0: missing required field \"content\""),
            std::string::npos);
}

TEST(Loader, UnsupportedComponentsAreNamed) {
  const std::string e =
      error_of(R"({"pre_tokenizer": {"type": "Mystery"}, "model": {"type": "WordPiece", "vocab": {}}})");
  EXPECT_NE(e.find("/pre_tokenizer: unsupported pre-tokenizer type \"Mystery\""), std::string::npos) << e;
  try {
    (void)Tokenizer::from_json(R"({"model": {"type": "Nope", "vocab": {}}})");
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kUnsupported);
  }
}

TEST(Loader, ModelTypeIsInferredWhenMissing) {
  const auto t = Tokenizer::from_json(
      R"({"model": {"unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                    "vocab": {"[UNK]": 0, "a": 1}}})");
  EXPECT_EQ(t.encode("a").ids, (std::vector<std::uint32_t>{1}));
}

TEST(Loader, MissingFileIsNotFound) {
  try {
    (void)Tokenizer::from_file("/nonexistent/tokenizer.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/tokenizer.json"), std::string::npos);
  }
}

TEST(Loader, AddedTokenFlags) {
  const auto t = Tokenizer::from_json(R"({
    "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1, "b": 2}},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "added_tokens": [
      {"id": 7, "content": "<x>", "special": true, "normalized": false, "lstrip": true, "rstrip": true},
      {"id": 8, "content": "zz", "special": false, "normalized": false, "single_word": true}
    ]})");
  // lstrip/rstrip swallow the spaces around the token.
  const std::string text = "a <x> b";
  const auto e = t.encode(text);
  EXPECT_EQ(e.ids, (std::vector<std::uint32_t>{1, 7, 2}));
  EXPECT_EQ(e.offsets[1], (Offsets{1, 6}));
  // single_word: matched alone, not inside a word.
  EXPECT_EQ(t.encode("zz").ids, (std::vector<std::uint32_t>{8}));
  EXPECT_EQ(t.encode("azz").ids, (std::vector<std::uint32_t>{0}));
}

}  // namespace
}  // namespace sieve
