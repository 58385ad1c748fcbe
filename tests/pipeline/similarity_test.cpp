#include "sieve/similarity.hpp"

#include <gtest/gtest.h>

#include "sieve/embedder.hpp"
#include "sieve/error.hpp"

namespace sieve {
namespace {

// Expected values from NumPy 2.4.6 in float64 (Sieve sums in double): a@c / (|a| |c|), a@c, -|a-c|_2, -|a-c|_1,
// as sentence-transformers' cos_sim, dot_score, euclidean_sim, manhattan_sim.
const std::vector<float> kA = {1.0F, 2.0F, 3.0F, 0.5F};
const std::vector<float> kC = {-1.0F, 0.5F, 2.0F, 4.0F};

TEST(Similarity, MatchesNumpy) {
  EXPECT_NEAR(cosine_similarity(kA, kC), 0.45973025698199, 1e-12);
  EXPECT_DOUBLE_EQ(dot_product(kA, kC), 8.0);
  EXPECT_NEAR(similarity(kA, kC, Similarity::kEuclidean), -4.415880433163924, 1e-12);
  EXPECT_DOUBLE_EQ(similarity(kA, kC, Similarity::kManhattan), -8.0);
  EXPECT_DOUBLE_EQ(similarity(kA, kC, Similarity::kDot), 8.0);
}

TEST(Similarity, ZeroVectorHasCosineZero) {
  const std::vector<float> zero(4, 0.0F);
  EXPECT_EQ(cosine_similarity(zero, kA), 0.0);
}

TEST(Similarity, DifferentLengthsAreRefused) {
  const std::vector<float> shorter = {1.0F};
  EXPECT_THROW((void)cosine_similarity(kA, shorter), Error);
}

TEST(Similarity, MatrixIsEveryRowAgainstEveryRow) {
  Embeddings a;
  a.rows = 2;
  a.dimension = 4;
  a.data = kA;
  a.data.insert(a.data.end(), kC.begin(), kC.end());
  const auto m = similarity_matrix(a, a, Similarity::kDot);
  ASSERT_EQ(m.size(), 4U);
  EXPECT_DOUBLE_EQ(m[0], 14.25);
  EXPECT_DOUBLE_EQ(m[1], 8.0);
  EXPECT_DOUBLE_EQ(m[2], 8.0);
  EXPECT_DOUBLE_EQ(m[3], 21.25);
}

TEST(Similarity, Names) {
  for (const auto s : {Similarity::kCosine, Similarity::kDot, Similarity::kEuclidean, Similarity::kManhattan}) {
    EXPECT_EQ(parse_similarity(to_string(s)), s);
  }
  EXPECT_EQ(parse_similarity("dot_product"), Similarity::kDot);
  EXPECT_THROW((void)parse_similarity("jaccard"), Error);
}

}  // namespace
}  // namespace sieve

namespace sieve {
namespace {

TokenVectors tokens(std::size_t dimension, std::vector<float> data) {
  TokenVectors v;
  v.dimension = dimension;
  v.rows = data.size() / dimension;
  v.data = std::move(data);
  v.ids.assign(v.rows, 0);
  return v;
}

// MaxSim by hand: query rows (1,0) and (0,1) against document rows (0.6,0.8)
// and (-1,0): best dots 0.6 and 0.8, summed 1.4. A negative best stays
// negative (no zero padding enters the maximum).
TEST(MaxSim, SumsEachQueryTokensBestDot) {
  EXPECT_NEAR(maxsim(tokens(2, {1, 0, 0, 1}), tokens(2, {0.6F, 0.8F, -1, 0})), 1.4, 1e-6);
  EXPECT_NEAR(maxsim(tokens(2, {1, 0}), tokens(2, {-1, 0, -0.5F, 0})), -0.5, 1e-6);
  EXPECT_EQ(maxsim(tokens(2, {1, 0}), tokens(2, {})), 0.0F);
  EXPECT_THROW((void)maxsim(tokens(2, {1, 0}), tokens(3, {1, 0, 0})), Error);
}

TEST(MaxSim, EachDocumentInItsOrder) {
  const TokenVectors documents[] = {tokens(2, {0, 1}), tokens(2, {}), tokens(2, {1, 0, 0.5F, 0.5F})};
  const std::vector<float> scores = maxsim_each(tokens(2, {1, 0}), documents);
  ASSERT_EQ(scores.size(), 3U);
  EXPECT_NEAR(scores[0], 0.0, 1e-6);
  EXPECT_EQ(scores[1], 0.0F);
  EXPECT_NEAR(scores[2], 1.0, 1e-6);
  EXPECT_TRUE(maxsim_each(tokens(2, {1, 0}), {}).empty());
}

}  // namespace
}  // namespace sieve
