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
//
// With a prefix (a Matryoshka model's leading dimensions), the graph holds only the first `prefix` dimensions of
// each vector, normalized again, coded as above; rescoring then compares the whole vectors.
class VectorCodec {
 public:
  // `dimension`: the vectors' width; `prefix`: the dimensions coded (0: all of them).
  VectorCodec(VectorCodes kind, std::size_t dimension, std::vector<float> scales = {}, std::size_t prefix = 0);
  // int8's scales grown to cover vectors (rows of `dimension`, of which the first `prefix` are coded; 0: all):
  // each coded dimension's largest magnitude over 127.
  static std::vector<float> fit_scales(std::size_t dimension, std::size_t prefix, std::span<const float> vectors,
                                       std::vector<float> scales = {});

  [[nodiscard]] VectorCodes kind() const noexcept { return kind_; }
  // The width of the vectors coded (a stored vector's, the query's).
  [[nodiscard]] std::size_t dimension() const noexcept { return input_; }
  // The dimensions the codes hold: the prefix, or all.
  [[nodiscard]] std::size_t coded_dimension() const noexcept { return dimension_; }
  [[nodiscard]] bool prefixed() const noexcept { return dimension_ < input_; }
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
  // `dimension` (the coded dimensions) numbers of at least 0 is kParse.
  [[nodiscard]] std::string scales_text() const;
  static std::vector<float> parse_scales(std::string_view text, std::size_t dimension);

 private:
  // The dimensions coded: `vector` itself, or its prefix normalized again (in `buffer`).
  std::span<const float> coded(std::span<const float> vector, std::vector<float>& buffer) const;

  VectorCodes kind_;
  std::size_t input_;
  std::size_t dimension_;
  std::vector<float> scales_;   // int8
  std::vector<float> weights_;  // int8: scale[i]^2
};

}  // namespace sieve::search
