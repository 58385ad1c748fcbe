#include <gtest/gtest.h>

#include <cmath>

#include "pipeline/batching.hpp"
#include "pipeline/pooling.hpp"

namespace sieve::pipeline {
namespace {

// Two sequences of three tokens, dimension 2; the second has one padded token.
const std::vector<float> kStates = {1,  2, 3, 4, 5,   6,  //
                                    -1, 0, 7, 1, 100, 100};
const std::vector<std::int64_t> kMask = {1, 1, 1, 1, 1, 0};

std::vector<float> run(Pooling p) {
  std::vector<float> out(4);
  pool(kStates.data(), 2, 3, 2, kMask.data(), p, out.data());
  return out;
}

TEST(Pooling, MeanIgnoresPadding) {
  EXPECT_EQ(run(Pooling::kMean), (std::vector<float>{3, 4, 3, 0.5F}));
}
TEST(Pooling, ClsTakesTheFirstToken) {
  EXPECT_EQ(run(Pooling::kCls), (std::vector<float>{1, 2, -1, 0}));
}
TEST(Pooling, MaxIgnoresPadding) {
  EXPECT_EQ(run(Pooling::kMax), (std::vector<float>{5, 6, 7, 1}));
}
TEST(Pooling, LastTokenIsTheLastAttended) {
  EXPECT_EQ(run(Pooling::kLastToken), (std::vector<float>{5, 6, 7, 1}));
}

TEST(Pooling, WeightedMeanWeighsPositionsFromOne) {
  // (1*1 + 2*3 + 3*5) / 6 and (1*2 + 2*4 + 3*6) / 6; then (1*-1 + 2*7) / 3 and (0 + 2*1) / 3.
  const auto out = run(Pooling::kWeightedMean);
  EXPECT_FLOAT_EQ(out[0], 22.0F / 6);
  EXPECT_FLOAT_EQ(out[1], 28.0F / 6);
  EXPECT_FLOAT_EQ(out[2], 13.0F / 3);
  EXPECT_FLOAT_EQ(out[3], 2.0F / 3);
}

TEST(Pooling, MeanSqrtLenDividesBySquareRoot) {
  const auto out = run(Pooling::kMeanSqrtLen);
  EXPECT_FLOAT_EQ(out[0], 9 / std::sqrt(3.0F));
  EXPECT_FLOAT_EQ(out[2], 6 / std::sqrt(2.0F));
}

TEST(Pooling, AllPaddingGivesZerosNotNan) {
  const std::vector<std::int64_t> mask = {0, 0, 0};
  std::vector<float> out(2);
  pool(kStates.data(), 1, 3, 2, mask.data(), Pooling::kMean, out.data());
  EXPECT_EQ(out, (std::vector<float>{0, 0}));
}

TEST(Normalize, UnitLengthAndZeroSafe) {
  std::vector<float> v = {3, 4};
  l2_normalize(v.data(), 2);
  EXPECT_FLOAT_EQ(v[0], 0.6F);
  EXPECT_FLOAT_EQ(v[1], 0.8F);
  std::vector<float> zero = {0, 0};
  l2_normalize(zero.data(), 2);
  EXPECT_EQ(zero, (std::vector<float>{0, 0}));
}

TEST(Batching, OrdersByLengthAndCoversEveryInput) {
  const std::vector<std::size_t> lengths = {5, 4, 6, 4, 5};
  const auto plan = plan_batches(lengths, 2);
  EXPECT_EQ(plan.order, (std::vector<std::size_t>{1, 3, 0, 4, 2}));
  ASSERT_EQ(plan.batches.size(), 3U);
  EXPECT_EQ(plan.batches.back(), (std::pair<std::size_t, std::size_t>{4, 5}));
}

TEST(Batching, LongInputsDoNotPadManyShortOnes) {
  std::vector<std::size_t> lengths(100, 10);
  lengths.push_back(256);
  const auto plan = plan_batches(lengths, 128);
  ASSERT_EQ(plan.batches.size(), 2U);
  EXPECT_EQ(plan.batches[0], (std::pair<std::size_t, std::size_t>{0, 100}));
  // Similar lengths stay together up to the batch size.
  const auto even = plan_batches(std::vector<std::size_t>(300, 12), 128);
  EXPECT_EQ(even.batches.size(), 3U);
}

// SPLADE over logits [2 sequences, 3 tokens, vocabulary 3]; the second
// sequence's last token is padding, whose large logits must not count.
const std::vector<float> kLogits = {1,  -2, 0, 3, -1, 0, 2, -5, 0,  //
                                    -1, 4,  0, 0, 1,  0, 9, 9,  9};

std::vector<float> splade(SparsePooling pooling) {
  std::vector<float> out(6);
  splade_pool(kLogits.data(), 2, 3, 3, kMask.data(), pooling, out.data());
  return out;
}

TEST(SpladePooling, MaxOfLog1pReluOverRealTokens) {
  const auto out = splade({});
  const std::vector<float> want = {std::log1p(3.0F), 0, 0, 0, std::log1p(4.0F), 0};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(out[i], want[i]) << i;
}

TEST(SpladePooling, SumAndDoubleLog) {
  const auto out = splade({.sum = true, .double_log = true});
  const auto f = [](float x) { return std::log1p(std::log1p(std::max(x, 0.0F))); };
  const std::vector<float> want = {f(1) + f(3) + f(2), 0, 0, 0, f(4) + f(1), 0};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(out[i], want[i]) << i;
}

TEST(Sparsify, KeepsNonZerosByIdAndPrunes) {
  const std::vector<float> row = {0, 0.5F, 0, 2, 0.5F, 1, -1};
  SparseVector all = Embedder::sparsify(row, {});
  EXPECT_EQ(all.ids, (std::vector<std::uint32_t>{1, 3, 4, 5}));
  EXPECT_EQ(all.weights, (std::vector<float>{0.5F, 2, 0.5F, 1}));
  // The three largest, a tie going to the smaller id, still in id order.
  SparseVector top = Embedder::sparsify(row, {.top_k = 3});
  EXPECT_EQ(top.ids, (std::vector<std::uint32_t>{1, 3, 5}));
  SparseVector heavy = Embedder::sparsify(row, {.min_weight = 0.5F});
  EXPECT_EQ(heavy.ids, (std::vector<std::uint32_t>{3, 5}));
  EXPECT_TRUE(Embedder::sparsify(std::vector<float>(4, 0.0F), {}).ids.empty());
}

}  // namespace
}  // namespace sieve::pipeline
