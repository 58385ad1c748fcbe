#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "support/paths.hpp"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// Reference embeddings come from tools/make_fixtures.py: Hugging Face
// tokenizers + Python onnxruntime + numpy pooling on the same ONNX files.
class FixtureModel : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path folder() const { return testing::fixtures_dir() / GetParam(); }
};

nlohmann::json read_reference(const fs::path& folder) {
  std::ifstream in(folder / "reference.json");
  if (!in) throw std::runtime_error((folder / "reference.json").string() + " missing: run tools/make_fixtures.py");
  return nlohmann::json::parse(in);
}

TEST_P(FixtureModel, MatchesPythonReferenceWithin1e5) {
  const auto ref = read_reference(folder());
  const auto texts = ref["texts"].get<std::vector<std::string>>();
  for (const std::size_t batch_size : {1UL, 3UL, 32UL}) {
    EmbedderOptions options;
    options.batch_size = batch_size;
    options.normalize = ref["normalize"].get<bool>();
    options.runtime.intra_op_threads = 1;
    const auto embedder = Embedder::load(folder(), options);
    EXPECT_EQ(embedder.info().max_length, ref["max_length"].get<std::size_t>());
    const auto result = embedder.embed(texts);
    ASSERT_EQ(result.rows, texts.size());
    const auto& expected = ref["embeddings"];
    double worst = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const auto row = result.row(i);
      ASSERT_EQ(row.size(), expected[i].size());
      for (std::size_t d = 0; d < row.size(); ++d) {
        worst = std::max(worst, std::abs(static_cast<double>(row[d]) - expected[i][d].get<double>()));
      }
    }
    EXPECT_LE(worst, 1e-5) << GetParam() << " batch " << batch_size;
  }
}

TEST_P(FixtureModel, ResultsDoNotDependOnBatchComposition) {
  const auto ref = read_reference(folder());
  const auto texts = ref["texts"].get<std::vector<std::string>>();
  EmbedderOptions options;
  options.runtime.intra_op_threads = 1;
  const auto embedder = Embedder::load(folder(), options);
  const auto all = embedder.embed(texts);
  for (std::size_t i = 0; i < texts.size(); i += 7) {
    const auto one = embedder.embed(std::vector<std::string>{texts[i]});
    for (std::size_t d = 0; d < one.dimension; ++d) EXPECT_NEAR(one.data[d], all.row(i)[d], 1e-5);
  }
}

// Per-call options give what the same options at load time give, bit for
// bit; progress sees every input once, and stopping it cancels the call.
TEST_P(FixtureModel, PerCallOptionsEqualLoadTimeOnes) {
  const auto texts = read_reference(folder())["texts"].get<std::vector<std::string>>();
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  EmbedderOptions base;
  base.runtime.intra_op_threads = 1;
  const auto embedder = Embedder::load(folder(), base);
  EmbedderOptions fixed = base;
  fixed.normalize = !embedder.info().normalize;
  fixed.dimensions = embedder.info().model_dimension / 2;
  fixed.batch_size = 3;
  const auto want = Embedder::load(folder(), fixed).embed(views);

  EmbedOptions call;
  call.normalize = fixed.normalize;
  call.dimensions = fixed.dimensions;
  call.batch_size = 3;
  std::vector<std::size_t> seen;
  call.progress = [&](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, texts.size());
    seen.push_back(done);
    return true;
  };
  const auto got = embedder.embed(views, call);
  EXPECT_EQ(got.dimension, *fixed.dimensions);
  EXPECT_EQ(got.data, want.data);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), texts.size());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));

  // A per-call prompt, as encode(prompt=...), equals the same prompt given at load time.
  EmbedderOptions prompted = base;
  prompted.prompt = "query: ";
  EmbedOptions with_prompt;
  with_prompt.prompt = prompted.prompt;
  EXPECT_EQ(embedder.embed(views, with_prompt).data, Embedder::load(folder(), prompted).embed(views).data);
  EXPECT_NE(embedder.embed(views, with_prompt).data, embedder.embed(views).data);

  call.progress = [](std::size_t, std::size_t) { return false; };
  try {
    (void)embedder.embed(views, call);
    ADD_FAILURE() << "a progress callback that returns false must stop the call";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
  }
  call.progress = nullptr;
  call.dimensions = embedder.info().model_dimension + 1;
  EXPECT_THROW((void)embedder.embed(views, call), Error);
  EXPECT_EQ(embedder.embed(std::span<const std::string_view>{}, EmbedOptions{}).dimension, embedder.info().dimension);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureModel,
                         ::testing::Values("tiny-bert-tokens", "tiny-bert-pooled", "tiny-bert-cls", "tiny-bert-max"));

TEST(Embedder, ReadsPoolingAndNormalizationFromTheFolder) {
  const auto tokens = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens");
  EXPECT_EQ(tokens.info().dense.pooling, Pooling::kMean);
  EXPECT_TRUE(tokens.info().normalize);
  EXPECT_FALSE(tokens.info().pooled_by_model);
  EXPECT_EQ(tokens.info().output, "last_hidden_state");
  EXPECT_EQ(tokens.info().dimension, 32U);
  const auto cls = Embedder::load(testing::fixtures_dir() / "tiny-bert-cls");
  EXPECT_EQ(cls.info().dense.pooling, Pooling::kCls);
  EXPECT_FALSE(cls.info().normalize);
  const auto pooled = Embedder::load(testing::fixtures_dir() / "tiny-bert-pooled");
  EXPECT_TRUE(pooled.info().pooled_by_model);
  EXPECT_EQ(pooled.info().output, "sentence_embedding");
  EXPECT_EQ(pooled.info().inputs.size(), 2U);
}

TEST(Embedder, NormalizeOverride) {
  EmbedderOptions options;
  options.normalize = true;
  const auto e = Embedder::load(testing::fixtures_dir() / "tiny-bert-cls", options);
  const auto r = e.embed(std::vector<std::string>{"hello there"});
  double norm = 0;
  for (const float x : r.row(0)) norm += static_cast<double>(x) * x;
  EXPECT_NEAR(norm, 1.0, 1e-5);
}

TEST(Embedder, EmptyInputListAndEmptyText) {
  const auto e = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens");
  EXPECT_EQ(e.embed(std::vector<std::string>{}).rows, 0U);
  const auto r = e.embed(std::vector<std::string>{""});
  ASSERT_EQ(r.rows, 1U);
  for (const float x : r.row(0)) EXPECT_TRUE(std::isfinite(x));
}

TEST(Embedder, HugeInputIsTruncatedNotRejected) {
  const auto e = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens");
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "word ";
  const auto r = e.embed(std::vector<std::string>{text});
  EXPECT_EQ(r.rows, 1U);
}

TEST(Embedder, InvalidUtf8NamesTheText) {
  const auto e = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens");
  try {
    (void)e.embed(std::vector<std::string>{"fine", "bad \xfe"});
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(err.what()).find("text 1"), std::string::npos) << err.what();
  }
}

TEST(Embedder, BadOptionsAreRejected) {
  EmbedderOptions options;
  options.max_length = 100000;
  EXPECT_THROW((void)Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options), Error);
  options = {};
  options.batch_size = 0;
  EXPECT_THROW((void)Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options), Error);
  options = {};
  options.runtime.providers.push_back(ProviderSpec{"warp-drive", {}});
  EXPECT_THROW((void)Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options), Error);
}

TEST(Embedder, UnavailableProviderFallsBackToCpuUnlessStrict) {
  EmbedderOptions options;
  options.runtime.providers.push_back(ProviderSpec{"cuda", {}});
  const auto e = Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options);
  EXPECT_EQ(e.info().providers.back(), "cpu");
  options.runtime.strict_providers = true;
  if (e.info().providers.size() == 1) {  // no CUDA in this ONNX Runtime build
    EXPECT_THROW((void)Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options), Error);
  }
}

}  // namespace
}  // namespace sieve
