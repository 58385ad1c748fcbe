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

}  // namespace
}  // namespace sieve::pipeline
