#include "sieve/quantize.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sieve/error.hpp"

namespace sieve {
namespace {

// Expected values come from NumPy 2.4.6 running the code of
// sentence-transformers' quantize_embeddings (util/quantization.py on main:
// floor, clip to [0, 255], a zero step replaced by 1; packbits along the
// last axis) on the same float32 inputs; float16 from NumPy's astype(float16).

Embeddings make(std::size_t rows, std::size_t dim, std::vector<float> data) {
  Embeddings e;
  e.rows = rows;
  e.dimension = dim;
  e.data = std::move(data);
  return e;
}

std::vector<int> values(const QuantizedEmbeddings& q) {
  std::vector<int> out;
  for (std::size_t i = 0; i < q.rows; ++i) {
    for (std::size_t j = 0; j < q.values_per_row(); ++j) out.push_back(static_cast<int>(q.value(i, j)));
  }
  return out;
}

const Embeddings kScalar = make(3, 4, {0.1F, -0.5F, 0.3F, 0.7F, -0.2F, 0.25F, 0.3F, -0.7F, 0.05F, 0.0F, 0.3F, 0.1F});

TEST(Quantize, Uint8WithRangesOfTheEmbeddingsThemselves) {
  const auto q = quantize(kScalar, Precision::kUint8);
  EXPECT_EQ(q.row_bytes, 4U);
  // Dimension 2 is constant (0.3): step 1, every value in bucket 0.
  EXPECT_EQ(values(q), (std::vector<int>{255, 0, 0, 255, 0, 255, 0, 0, 212, 170, 0, 145}));
}

TEST(Quantize, Int8IsTheUint8BucketMinus128) {
  const auto q = quantize(kScalar, Precision::kInt8);
  EXPECT_EQ(values(q), (std::vector<int>{127, -128, -128, 127, -128, 127, -128, -128, 84, 42, -128, 17}));
}

TEST(Quantize, GivenRangesClipValuesOutside) {
  QuantizationRanges ranges;
  ranges.min = {-0.1F, -0.25F, 0.0F, -1.0F};
  ranges.max = {0.1F, 0.25F, 0.2F, 1.0F};
  // 0.25 in [-0.25, 0.25] lands in bucket 254, not 255: float32
  // (0.5 / (0.5 / 255)) is just under 255, as in NumPy.
  EXPECT_EQ(values(quantize(kScalar, Precision::kUint8, &ranges)),
            (std::vector<int>{255, 0, 255, 216, 0, 254, 255, 38, 191, 127, 255, 140}));
  EXPECT_EQ(values(quantize(kScalar, Precision::kInt8, &ranges)),
            (std::vector<int>{127, -128, 127, 88, -128, 126, 127, -90, 63, -1, 127, 12}));
}

TEST(Quantize, CalibrationRangesArePerDimensionMinAndMax) {
  const auto r = calibration_ranges(kScalar);
  EXPECT_EQ(r.min, (std::vector<float>{-0.2F, -0.5F, 0.3F, -0.7F}));
  EXPECT_EQ(r.max, (std::vector<float>{0.1F, 0.25F, 0.3F, 0.7F}));
  QuantizationRanges wrong;
  wrong.min = {0.0F};
  wrong.max = {1.0F};
  EXPECT_THROW((void)quantize(kScalar, Precision::kInt8, &wrong), Error);
}

TEST(Quantize, BinaryPacksSignBitsPerRowMostSignificantFirst) {
  // Ten dimensions: two bytes a row, the second zero-padded.
  const auto b = make(3, 10, {0.1F, -1, 0,  2,  3,  -4, 5,  6,  -7, 8,   //
                              -1,   -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                              1,    0,  1,  0,  1,  0,  1,  0,  1,  1});
  const auto u = quantize(b, Precision::kUbinary);
  EXPECT_EQ(u.row_bytes, 2U);
  EXPECT_EQ(values(u), (std::vector<int>{155, 64, 0, 0, 170, 192}));
  EXPECT_EQ(values(quantize(b, Precision::kBinary)), (std::vector<int>{27, -64, -128, -128, 42, 64}));
}

TEST(Quantize, Float16RoundsToNearestEven) {
  const std::vector<float> in = {0.1F,    -2.5F, 65504.0F, 65519.0F,        65520.0F,        1e-8F,      3e-5F,
                                 6.1e-5F, 1e5F,  -0.0F,    2.98023224e-08F, 5.96046448e-08F, 1.0F / 3.0F};
  const std::vector<int> expected = {11878, 49408, 31743, 31743, 31744, 0, 503, 1023, 31744, 32768, 0, 1, 13653};
  const auto q = quantize(make(1, in.size(), in), Precision::kFloat16);
  ASSERT_EQ(q.row_bytes, in.size() * 2);
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(float_to_half(in[i]), expected[i]) << in[i];
    EXPECT_EQ(q.value(0, i), half_to_float(float_to_half(in[i])));
  }
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(half_to_float(11878), 0.0999755859375F);
}

TEST(Quantize, Float32KeepsTheValues) {
  const auto q = quantize(kScalar, Precision::kFloat32);
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(q.value(i / 4, i % 4), kScalar.data[i]);
}

TEST(Quantize, PrecisionNames) {
  for (const auto p : {Precision::kFloat32, Precision::kFloat16, Precision::kInt8, Precision::kUint8,
                       Precision::kBinary, Precision::kUbinary}) {
    EXPECT_EQ(parse_precision(to_string(p)), p);
  }
  EXPECT_THROW((void)parse_precision("int4"), Error);
}

TEST(Quantize, EmptyInput) {
  const auto q = quantize(make(0, 4, {}), Precision::kInt8);
  EXPECT_EQ(q.rows, 0U);
  EXPECT_TRUE(q.data.empty());
}

}  // namespace
}  // namespace sieve
