#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "support/paths.hpp"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// A copy of the tiny mean-pooling fixture with the prompts of a
// config_sentence_transformers.json, and optionally include_prompt false.
fs::path prompted_fixture(const std::string& name, const std::string& st_config, bool include_prompt = true) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("sieve-options-" + name);
  fs::remove_all(dir);
  fs::copy(testing::fixtures_dir() / "tiny-bert-tokens", dir, fs::copy_options::recursive);
  std::ofstream(dir / "config_sentence_transformers.json") << st_config;
  if (!include_prompt) {
    std::ofstream(dir / "1_Pooling/config.json")
        << R"({"word_embedding_dimension": 32, "pooling_mode_mean_tokens": true, "include_prompt": false})";
  }
  return dir;
}

const char* const kPrompts =
    R"({"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": "query",
        "similarity_fn_name": "dot"})";

EmbedderOptions one_thread() {
  EmbedderOptions options;
  options.runtime.intra_op_threads = 1;
  return options;
}

void expect_rows_equal(const Embeddings& a, const Embeddings& b) {
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.dimension, b.dimension);
  for (std::size_t i = 0; i < a.data.size(); ++i) EXPECT_NEAR(a.data[i], b.data[i], 1e-6) << i;
}

const std::vector<std::string> kTexts = {"hello world", "A man is eating food.", ""};

TEST(EmbeddingOptions, FolderPromptsAndDefaultAreRead) {
  const auto dir = prompted_fixture("read", kPrompts);
  const auto embedder = Embedder::load(dir, one_thread());
  const auto& info = embedder.info();
  ASSERT_EQ(info.dense.prompts.size(), 2U);
  EXPECT_EQ(info.dense.prompts[0].first, "passage");
  EXPECT_EQ(info.dense.prompts[1].second, "query: ");
  EXPECT_EQ(info.dense.default_prompt_name, "query");
  EXPECT_EQ(info.dense.prompt, "query: ");  // the default applies when none is named
  EXPECT_EQ(info.dense.similarity_fn_name, "dot");
  EXPECT_EQ(info.dense.prompt_length, 0U);  // include_prompt true: the prompt is pooled
}

// sentence-transformers' encode(prompt=...) is [prompt + text for text in
// texts]: with the prompt included in pooling, the result is that of the
// concatenated text.
TEST(EmbeddingOptions, PromptIsPrependedToTheText) {
  const auto dir = prompted_fixture("prepend", kPrompts);
  auto options = one_thread();
  options.prompt_name = "passage";
  const auto named = Embedder::load(dir, options).embed(kTexts);
  options.prompt_name.reset();
  options.prompt = "";  // turns the default prompt off
  const auto plain = Embedder::load(dir, options);
  EXPECT_EQ(plain.info().dense.prompt, "");
  std::vector<std::string> concatenated;
  for (const auto& t : kTexts) concatenated.push_back("passage: " + t);
  expect_rows_equal(named, plain.embed(concatenated));

  options.prompt = "passage: ";
  options.prompt_name = "query";  // the explicit prompt wins, as in sentence-transformers
  expect_rows_equal(Embedder::load(dir, options).embed(kTexts), named);
}

TEST(EmbeddingOptions, UnknownPromptNameListsTheKnownOnes) {
  const auto dir = prompted_fixture("unknown", kPrompts);
  auto options = one_thread();
  options.prompt_name = "document";
  try {
    (void)Embedder::load(dir, options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("\"document\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("passage, query"), std::string::npos) << e.what();
  }
  options.prompt_name = "query";
  EXPECT_THROW((void)Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options), Error);
}

TEST(EmbeddingOptions, DefaultPromptNameMustBeAPrompt) {
  const auto dir = prompted_fixture("bad-default", R"({"prompts": {"query": "q: "}, "default_prompt_name": "x"})");
  EXPECT_THROW((void)Embedder::load(dir, one_thread()), Error);
}

// include_prompt false: the prompt's tokens ([CLS] and the prompt, not a
// trailing [SEP]) are left out of pooling, as sentence-transformers'
// Pooling does with prompt_length.
TEST(EmbeddingOptions, ExcludedPromptLengthCountsClsAndPromptTokens) {
  const auto dir = prompted_fixture("exclude", kPrompts, false);
  const auto embedder = Embedder::load(dir, one_thread());
  const auto prompt_ids = embedder.tokenizer().encode("query: ", true).ids;  // [CLS] query : [SEP]
  EXPECT_EQ(embedder.info().dense.prompt_length, prompt_ids.size() - 1);
  const auto excluded = embedder.embed(kTexts);
  auto options = one_thread();
  options.prompt = "query: ";
  const auto included = Embedder::load(prompted_fixture("include", kPrompts), options).embed(kTexts);
  double diff = 0;
  for (std::size_t i = 0; i < excluded.data.size(); ++i) diff += std::abs(excluded.data[i] - included.data[i]);
  EXPECT_GT(diff, 1e-3);
}

TEST(EmbeddingOptions, DimensionsKeepTheLeadingValuesRenormalized) {
  auto options = one_thread();
  options.normalize = false;
  const auto dir = testing::fixtures_dir() / "tiny-bert-tokens";
  const auto full = Embedder::load(dir, options).embed(kTexts);
  options.normalize = true;
  options.dimensions = 8;
  const auto embedder = Embedder::load(dir, options);
  EXPECT_EQ(embedder.info().dimension, 8U);
  EXPECT_EQ(embedder.info().model_dimension, 32U);
  const auto cut = embedder.embed(kTexts);
  ASSERT_EQ(cut.dimension, 8U);
  for (std::size_t i = 0; i < kTexts.size(); ++i) {
    double norm = 0;
    for (std::size_t d = 0; d < 8; ++d) norm += static_cast<double>(full.row(i)[d]) * full.row(i)[d];
    norm = std::sqrt(norm);
    for (std::size_t d = 0; d < 8; ++d) EXPECT_NEAR(cut.row(i)[d], full.row(i)[d] / norm, 1e-6);
  }
  options.normalize = false;
  const auto raw = Embedder::load(dir, options).embed(kTexts);
  for (std::size_t i = 0; i < kTexts.size(); ++i) {
    for (std::size_t d = 0; d < 8; ++d) EXPECT_EQ(raw.row(i)[d], full.row(i)[d]);
  }
}

TEST(EmbeddingOptions, DimensionsOutOfRangeAreRefused) {
  const auto dir = testing::fixtures_dir() / "tiny-bert-tokens";
  auto options = one_thread();
  for (const std::size_t n : {0UL, 33UL}) {
    options.dimensions = n;
    EXPECT_THROW((void)Embedder::load(dir, options), Error) << n;
  }
  options.dimensions = 32;
  EXPECT_EQ(Embedder::load(dir, options).info().dimension, 32U);
}

}  // namespace
}  // namespace sieve
