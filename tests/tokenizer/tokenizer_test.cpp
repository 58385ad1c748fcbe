#include <gtest/gtest.h>

#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"
#include "support/paths.hpp"

namespace sieve {
namespace {

// Expected ids below were produced by Hugging Face tokenizers 0.23 on the
// all-MiniLM-L6-v2 tokenizer.json; the parity suite checks thousands more.
Tokenizer minilm() {
  Tokenizer t = Tokenizer::from_file(testing::minilm_tokenizer());
  t.set_padding(std::nullopt);
  t.set_truncation(std::nullopt);
  return t;
}

TEST(Tokenizer, EncodesWithSpecialTokensAndOffsets) {
  const auto t = minilm();
  const std::string text = "Hello, world!";
  const auto e = t.encode(text);
  EXPECT_EQ(e.ids, (std::vector<std::uint32_t>{101, 7592, 1010, 2088, 999, 102}));
  EXPECT_EQ(e.special_tokens_mask, (std::vector<std::uint8_t>{1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(e.offsets[1], (Offsets{0, 5}));
  EXPECT_EQ(e.offsets[3], (Offsets{7, 12}));
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e.special_tokens_mask[i]) continue;
    const auto [b, end] = e.offsets[i];
    EXPECT_FALSE(text.substr(b, end - b).empty());
  }
}

TEST(Tokenizer, AddedTokensAreMatchedInTheRawText) {
  const auto t = minilm();
  EXPECT_EQ(t.encode("hello [SEP]world[MASK]").ids, (std::vector<std::uint32_t>{101, 7592, 102, 2088, 103, 102}));
}

TEST(Tokenizer, SubwordsAndAccents) {
  const auto t = minilm();
  const auto e = t.encode("unaffable naïve");
  EXPECT_EQ(e.ids, (std::vector<std::uint32_t>{101, 14477, 20961, 3468, 15743, 102}));
  EXPECT_EQ(e.offsets[4], (Offsets{10, 16}));  // byte offsets: 'ï' is two bytes
}

TEST(Tokenizer, EmptyAndReplacementCharacterGiveOnlySpecialTokens) {
  const auto t = minilm();
  EXPECT_EQ(t.encode("").ids, (std::vector<std::uint32_t>{101, 102}));
  EXPECT_EQ(t.encode("\xef\xbf\xbd").ids, (std::vector<std::uint32_t>{101, 102}));
  EXPECT_EQ(t.encode("", false).ids.size(), 0U);
}

TEST(Tokenizer, PairsGetTypeIds) {
  const auto t = minilm();
  const auto e = t.encode_pair("How old are you?", "I am six.");
  EXPECT_EQ(e.ids, (std::vector<std::uint32_t>{101, 2129, 2214, 2024, 2017, 1029, 102, 1045, 2572, 2416, 1012, 102}));
  EXPECT_EQ(e.type_ids, (std::vector<std::uint32_t>{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
}

TEST(Tokenizer, TruncationCountsSpecialTokens) {
  auto t = minilm();
  t.set_truncation(TruncationParams{8});
  EXPECT_EQ(t.encode("one two three four five six seven eight nine").ids,
            (std::vector<std::uint32_t>{101, 2028, 2048, 2093, 2176, 2274, 2416, 102}));
  const auto pair = t.encode_pair("one two three four five six seven", "a b c d e f g h i j");
  EXPECT_EQ(pair.ids, (std::vector<std::uint32_t>{101, 2028, 2048, 102, 1037, 1038, 1039, 102}));
  t.set_truncation(TruncationParams{1});
  EXPECT_THROW((void)t.encode("x"), Error);
}

TEST(Tokenizer, FilePaddingAndTruncationApplyAsInHuggingFace) {
  // The file pads to a fixed 128 and truncates at 128.
  const auto t = Tokenizer::from_file(testing::minilm_tokenizer());
  const auto e = t.encode("Hello");
  ASSERT_EQ(e.size(), 128U);
  EXPECT_EQ(e.attention_mask[2], 1);
  EXPECT_EQ(e.attention_mask[3], 0);
  EXPECT_EQ(e.ids[3], 0U);
  std::string long_text;
  for (int i = 0; i < 1000; ++i) long_text += "word ";
  EXPECT_EQ(t.encode(long_text).size(), 128U);
  EXPECT_EQ(t.encode(long_text).ids.back(), 102U);
}

TEST(Tokenizer, BatchLongestPaddingPadsToTheBatch) {
  auto t = minilm();
  PaddingParams p;
  p.pad_to_multiple_of = 4;
  t.set_padding(p);
  const std::vector<std::string_view> texts = {"a", "a b c d e"};
  const auto batch = t.encode_batch(texts);
  EXPECT_EQ(batch[0].size(), 8U);
  EXPECT_EQ(batch[1].size(), 8U);
  EXPECT_EQ(batch[0].attention_mask, (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0, 0, 0}));
}

TEST(Tokenizer, InvalidUtf8IsAnErrorOrReplaced) {
  auto t = minilm();
  try {
    (void)t.encode("ok \xff bad");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(e.what()).find("byte offset 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)t.encode("\xc0\xaf"), Error);          // overlong
  EXPECT_THROW((void)t.encode("\xed\xa0\x80"), Error);      // surrogate
  EXPECT_THROW((void)t.encode("\xf4\x90\x80\x80"), Error);  // beyond U+10FFFF
  EXPECT_THROW((void)t.encode("\xe4\xbd"), Error);          // truncated
  t.set_invalid_utf8(InvalidUtf8::kReplace);
  // U+FFFD is then removed by the BERT normalizer like any other.
  EXPECT_EQ(t.encode("ok \xff bad").ids, t.encode("ok bad").ids);
}

TEST(Tokenizer, VeryLongWordsBecomeUnknown) {
  const auto t = minilm();
  const std::string word(150, 'a');
  EXPECT_EQ(t.encode(word).ids, (std::vector<std::uint32_t>{101, 100, 102}));
}

TEST(Tokenizer, VocabularyLookups) {
  const auto t = minilm();
  EXPECT_EQ(t.token_to_id("[CLS]"), 101U);
  EXPECT_EQ(t.token_to_id("hello"), 7592U);
  EXPECT_EQ(t.id_to_token(7592), "hello");
  EXPECT_FALSE(t.token_to_id("no-such-token-here").has_value());
  EXPECT_EQ(t.vocab_size(), 30522U);
}

}  // namespace
}  // namespace sieve

namespace sieve {
namespace {

// A normalized added token with lstrip (roberta-base's "<mask>"): Hugging Face
// matches it in the normalized text, takes the swallowed whitespace into the
// token's string and the post-processor's trimming then removes it from the
// offsets. Expected values from tokenizers 0.23.3 on this JSON.
TEST(Tokenizer, NormalizedLstripTokenOffsetsAreTrimmedAsInHuggingFace) {
  const auto t = Tokenizer::from_json(R"({
    "added_tokens": [
      {"id": 0, "content": "<s>", "lstrip": false, "rstrip": false, "normalized": true, "special": true},
      {"id": 1, "content": "</s>", "lstrip": false, "rstrip": false, "normalized": true, "special": true},
      {"id": 4, "content": "<mask>", "lstrip": true, "rstrip": false, "normalized": true, "special": true}],
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
    "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0],
                       "trim_offsets": true, "add_prefix_space": false},
    "model": {"type": "WordLevel", "vocab": {"<s>": 0, "</s>": 1, "<unk>": 2, "a": 3, "<mask>": 4, "\u0120b": 5},
              "unk_token": "<unk>"}})");
  const auto e = t.encode("a\t <mask> b");
  EXPECT_EQ(e.ids, (std::vector<std::uint32_t>{0, 3, 4, 5, 1}));
  EXPECT_EQ(e.offsets, (std::vector<Offsets>{{0, 0}, {0, 1}, {3, 9}, {10, 11}, {0, 0}}));
}

// The ids a model must embed: the vocabulary's largest (not its size: ids
// may be sparse), added tokens and the post-processor's special tokens.
TEST(Tokenizer, IdBoundCoversVocabularyAddedAndSpecialTokens) {
  EXPECT_EQ(minilm().id_bound(), 30522U);
  const auto with = [](const std::string& added, const std::string& processor) {
    return Tokenizer::from_json(R"({"added_tokens": [)" + added + R"(], "post_processor": )" + processor + R"(,
      "model": {"type": "WordLevel", "vocab": {"<unk>": 0, "a": 1, "b": 7}, "unk_token": "<unk>"}})");
  };
  const auto t = with("", "null");
  EXPECT_EQ(t.vocab_size(), 3U);
  EXPECT_EQ(t.id_bound(), 8U);
  EXPECT_EQ(with(R"({"id": 20, "content": "<x>", "special": true})", "null").id_bound(), 21U);
  const std::string bert = R"({"type": "BertProcessing", "sep": ["[SEP]", 40], "cls": ["[CLS]", 30]})";
  EXPECT_EQ(with("", bert).id_bound(), 41U);
  const std::string pair_only = R"({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}},
             {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {"[SEP]": {"id": "[SEP]", "ids": [99], "tokens": ["[SEP]"]}}})";
  EXPECT_EQ(with("", pair_only).id_bound(), 100U);
}

}  // namespace
}  // namespace sieve
