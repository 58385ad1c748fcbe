#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "sieve/embedder.hpp"

namespace sieve {

// The similarity functions of sentence-transformers (SimilarityFunction):
// larger is more similar for all four, so the distances are negated as
// sentence-transformers' euclidean_sim and manhattan_sim negate them.
//   cosine     a.b / (max(|a|, 1e-12) max(|b|, 1e-12))   (0 for a zero vector)
//   dot        a.b
//   euclidean  -sqrt(sum (a_i - b_i)^2)
//   manhattan  -sum |a_i - b_i|
enum class Similarity { kCosine, kDot, kEuclidean, kManhattan };
const char* to_string(Similarity similarity) noexcept;
// Accepts sentence-transformers' names: cosine, dot (dot_product), euclidean, manhattan.
Similarity parse_similarity(std::string_view name);

// Sums in double precision; throws when the lengths differ.
double cosine_similarity(std::span<const float> a, std::span<const float> b);
double dot_product(std::span<const float> a, std::span<const float> b);
double euclidean_distance(std::span<const float> a, std::span<const float> b);
double manhattan_distance(std::span<const float> a, std::span<const float> b);
double similarity(std::span<const float> a, std::span<const float> b, Similarity function);

// Row-major [a.rows, b.rows] scores of every row of a against every row of
// b, as sentence-transformers' model.similarity(a, b).
std::vector<double> similarity_matrix(const Embeddings& a, const Embeddings& b, Similarity function);

}  // namespace sieve
