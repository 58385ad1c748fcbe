#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/search.hpp"

namespace sieve::search {

// How a nearest-neighbour graph holds each vector in memory (VectorCodes), and the distances between them.
//
// int8: dimension i of a vector v is round(v[i] / scale[i]) clamped to [-127, 127], where scale[i] is the largest
// |v[i]| of the vectors the graph was built from over 127 (kept with the graph's record, so later additions use the
// same scale). binary: bit i is set when v[i] > 0. The graph links codes by their own inner product (int8: sum of
// scale[i]^2 c[i] d[i]; binary: the Hamming distance), and a query, kept in float, meets them as it is: its inner
// product with the decoded vector (binary: with the sign vector over sqrt(dimension)), the asymmetric distance FAISS
// and the binary-quantization literature use, which ranks far better than quantizing the query too.
class VectorCodec {
 public:
  VectorCodec(VectorCodes kind, std::size_t dimension, std::vector<float> scales = {});
  // int8's scales fitted to vectors (rows of `dimension`): each dimension's largest magnitude over 127.
  static std::vector<float> fit_scales(std::size_t dimension, std::span<const float> vectors,
                                       std::vector<float> scales = {});

  [[nodiscard]] VectorCodes kind() const noexcept { return kind_; }
  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  [[nodiscard]] const std::vector<float>& scales() const noexcept { return scales_; }
  // Bytes of one code (float32: the vector itself).
  [[nodiscard]] std::size_t code_bytes() const noexcept;

  // The code of a vector `dimension` wide, into `code_bytes()` bytes.
  void encode(std::span<const float> vector, std::uint8_t* code) const;
  // A query in the form distance_to_query() reads: int8, q[i] * scale[i]; binary, for each byte of a code, the
  // query's partial inner product for each of its 256 values; float32, the query.
  [[nodiscard]] std::vector<float> query_form(std::span<const float> query) const;

  // 1 - the inner product of two codes (as the graph links them).
  [[nodiscard]] float distance(const std::uint8_t* a, const std::uint8_t* b) const noexcept;
  // 1 - the inner product of a query (in query_form()) and a code: 1 - the cosine for normalized vectors.
  [[nodiscard]] float distance_to_query(const float* query, const std::uint8_t* code) const noexcept;

  // int8's scales as the index records them ("" for the others) and read back; a text that does not hold
  // `dimension` positive numbers is kParse.
  [[nodiscard]] std::string scales_text() const;
  static std::vector<float> parse_scales(std::string_view text, std::size_t dimension);

 private:
  VectorCodes kind_;
  std::size_t dimension_;
  std::vector<float> scales_;   // int8
  std::vector<float> weights_;  // int8: scale[i]^2
};

}  // namespace sieve::search
