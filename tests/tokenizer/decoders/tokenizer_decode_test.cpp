#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sieve/tokenizer.hpp"

// Tokenizer::decode end to end; expected strings from Hugging Face
// tokenizers 0.23.3 (Tokenizer.from_str(json).decode(ids, skip_special_tokens)).
namespace sieve {
namespace {

constexpr const char* kWordPieceJson =
    R"json({"version": "1.0", "truncation": null, "padding": null, "added_tokens": [{"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}, {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}, {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}, {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}, {"id": 12, "content": "<new>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false}], "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}, "pre_tokenizer": {"type": "BertPreTokenizer"}, "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}, "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true}, "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "un": 4, "##aff": 5, "##able": 6, "hello": 7, ",": 8, "i": 9, "'": 10, "m": 11, "<new>": 12, ".": 13, "do": 14, "not": 15}}})json";

TEST(TokenizerDecode, WordPieceDecoderMatchesHuggingFace) {
  const auto t = Tokenizer::from_json(kWordPieceJson);
  const auto ids = t.encode("Unaffable, hello!").ids;
  ASSERT_EQ(ids, (std::vector<std::uint32_t>{2, 4, 5, 6, 8, 7, 1, 3}));
  EXPECT_EQ(t.decode(ids), "unaffable, hello");
  EXPECT_EQ(t.decode(ids, false), "[CLS] unaffable, hello [UNK] [SEP]");

  const auto ids2 = t.encode("I'm unaffable. Do not <new> hello").ids;
  ASSERT_EQ(ids2, (std::vector<std::uint32_t>{2, 9, 10, 11, 4, 5, 6, 13, 14, 15, 12, 7, 3}));
  EXPECT_EQ(t.decode(ids2), "i ' m unaffable. do not <new> hello");
  EXPECT_EQ(t.decode(ids2, false), "[CLS] i ' m unaffable. do not <new> hello [SEP]");

  const std::vector<std::uint32_t> ids3{2, 7, 3, 4, 3};
  EXPECT_EQ(t.decode(ids3), "hello un");
  EXPECT_EQ(t.decode(ids3, false), "[CLS] hello [SEP] un [SEP]");

  const std::vector<std::uint32_t> ids4{7, 8, 9, 10, 11, 14, 15, 13, 12, 5, 4, 6};
  EXPECT_EQ(t.decode(ids4), "hello, i ' m do not. <new>aff unable");
}

}  // namespace
}  // namespace sieve
