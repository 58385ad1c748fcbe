#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sieve/tokenizer.hpp"
#include "support/paths.hpp"

namespace sieve {
namespace {

// Each normalizer in a whole tokenizer (BertPreTokenizer and WordPiece over a
// small vocabulary). Expected ids and byte offsets come from Hugging Face
// tokenizers 0.23.3 on the same tokenizer.json, encoded without special tokens.
struct Case {
  std::string text;
  std::vector<std::uint32_t> ids;
  std::vector<Offsets> offsets;
};

Tokenizer tokenizer_with(const nlohmann::json& normalizer) {
  const std::vector<std::string> vocab = {
      "[UNK]",    "fi",     "x",          "##x",   "cafe",   "caf",        "##e",
      "##\u00E9", "\u00E9", "e",          "creme", "brulee", "cr\u00E8me", "br\u00FBl\u00E9e",
      "\uAC00",   "\uAC01", "##\uAC01",   "a",     "\u00E5", "\u00C5",     "##\u030A",
      "\u030A",   "naive",  "na\u00EFve", "na",    "##i",    "##ve",       "\U0001F600",
      "dz",       "\u01C6", "\u01C5",     "kg",    "1",      "##1",        "!"};
  nlohmann::json vocab_json = nlohmann::json::object();
  for (std::size_t i = 0; i < vocab.size(); ++i) vocab_json[vocab[i]] = i;
  const nlohmann::json file = {{"version", "1.0"},
                               {"truncation", nullptr},
                               {"padding", nullptr},
                               {"added_tokens", nlohmann::json::array()},
                               {"normalizer", normalizer},
                               {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
                               {"post_processor", nullptr},
                               {"decoder", nullptr},
                               {"model",
                                {{"type", "WordPiece"},
                                 {"unk_token", "[UNK]"},
                                 {"continuing_subword_prefix", "##"},
                                 {"max_input_chars_per_word", 100},
                                 {"vocab", vocab_json}}}};
  return Tokenizer::from_json(file.dump());
}

void expect_encodes(const Tokenizer& tokenizer, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    const Encoding e = tokenizer.encode(c.text, false);
    EXPECT_EQ(e.ids, c.ids) << c.text;
    EXPECT_EQ(e.offsets, c.offsets) << c.text;
  }
}

TEST(NormalizerPipeline, Nfkc) {
  expect_encodes(tokenizer_with({{"type", "NFKC"}}),
                 {
                     {"\uFB01x caf\u00E9!", {1, 3, 5, 7, 34}, {{0, 3}, {3, 4}, {5, 8}, {8, 10}, {10, 11}}},
                     {"Cr\u00E8me Br\u00FBl\u00E9e", {0, 0}, {{0, 6}, {7, 15}}},
                     {"\uAC00\uAC01 \u00C5 A\u030A", {14, 16, 19, 19}, {{0, 3}, {3, 6}, {7, 9}, {10, 11}}},
                     {"na\u00EFve \U0001F600", {23, 27}, {{0, 6}, {7, 11}}},
                     {"", {}, {}},
                     {"e\u0301\u0302", {0}, {{0, 5}}},
                     {"\u01C5 \u338F \u2460", {0, 31, 32}, {{0, 2}, {3, 6}, {7, 10}}},
                     {"  \011 x  ", {2}, {{4, 5}}},
                 });
}

TEST(NormalizerPipeline, NfdStripAccentsLowercase) {
  const nlohmann::json normalizer = {
      {"type", "Sequence"}, {"normalizers", {{{"type", "NFD"}}, {{"type", "StripAccents"}}, {{"type", "Lowercase"}}}}};
  expect_encodes(tokenizer_with(normalizer),
                 {
                     {"\uFB01x caf\u00E9!", {0, 4, 34}, {{0, 4}, {5, 10}, {10, 11}}},
                     {"Cr\u00E8me Br\u00FBl\u00E9e", {10, 11}, {{0, 6}, {7, 15}}},
                     {"\uAC00\uAC01 \u00C5 A\u030A", {0, 17, 17}, {{0, 6}, {7, 9}, {10, 11}}},
                     {"na\u00EFve \U0001F600", {22, 27}, {{0, 6}, {7, 11}}},
                     {"", {}, {}},
                     {"e\u0301\u0302", {9}, {{0, 1}}},
                     {"\u01C5 \u338F \u2460", {29, 0, 0}, {{0, 2}, {3, 6}, {7, 10}}},
                     {"  \011 x  ", {2}, {{4, 5}}},
                 });
}

TEST(NormalizerPipeline, ClipStyleSequence) {
  const nlohmann::json normalizer = {{"type", "Sequence"},
                                     {"normalizers",
                                      {{{"type", "NFC"}},
                                       {{"type", "Replace"}, {"pattern", {{"Regex", "\\s+"}}}, {"content", " "}},
                                       {{"type", "Lowercase"}}}}};
  expect_encodes(tokenizer_with(normalizer),
                 {
                     {"\uFB01x caf\u00E9!", {0, 5, 7, 34}, {{0, 4}, {5, 8}, {8, 10}, {10, 11}}},
                     {"Cr\u00E8me Br\u00FBl\u00E9e", {12, 13}, {{0, 6}, {7, 15}}},
                     {"\uAC00\uAC01 \u00C5 A\u030A", {14, 16, 18, 18}, {{0, 3}, {3, 6}, {7, 9}, {10, 11}}},
                     {"na\u00EFve \U0001F600", {23, 27}, {{0, 6}, {7, 11}}},
                     {"", {}, {}},
                     {"e\u0301\u0302", {0}, {{0, 5}}},
                     {"\u01C5 \u338F \u2460", {29, 0, 0}, {{0, 2}, {3, 6}, {7, 10}}},
                     {"  \011 x  ", {2}, {{4, 5}}},
                 });
}

TEST(NormalizerPipeline, PrecompiledFromT5) {
  const auto path = testing::source_dir() / "../shared/tokenizers/t5-small/tokenizer.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared t5-small tokenizer";
  std::ifstream in(path);
  const nlohmann::json file = nlohmann::json::parse(in);
  expect_encodes(tokenizer_with(file.at("normalizer")),
                 {
                     {"\uFB01x caf\u00E9!", {1, 3, 5, 7, 34}, {{0, 3}, {3, 4}, {5, 8}, {8, 10}, {10, 11}}},
                     {"Cr\u00E8me Br\u00FBl\u00E9e", {0, 0}, {{0, 6}, {7, 15}}},
                     {"\uAC00\uAC01 \u00C5 A\u030A", {14, 16, 19, 19}, {{0, 3}, {3, 6}, {7, 9}, {10, 11}}},
                     {"na\u00EFve \U0001F600", {23, 27}, {{0, 6}, {7, 11}}},
                     {"", {}, {}},
                     {"e\u0301\u0302", {8}, {{0, 1}}},
                     {"\u01C5 \u338F \u2460", {0, 31, 32}, {{0, 2}, {3, 6}, {7, 10}}},
                     {"  \011 x  ", {2}, {{4, 5}}},
                 });
}

}  // namespace
}  // namespace sieve
