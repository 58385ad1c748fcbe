#include "sieve/similarity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sieve/embedder.hpp"
#include "sieve/error.hpp"

namespace sieve {
namespace {

void check_sizes(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) {
    throw Error(ErrorCode::kInvalidArgument, "vectors of different dimensions (" + std::to_string(a.size()) + " and " +
                                                 std::to_string(b.size()) + ") cannot be compared");
  }
}

}  // namespace

const char* to_string(Similarity similarity) noexcept {
  switch (similarity) {
    case Similarity::kCosine: return "cosine";
    case Similarity::kDot: return "dot";
    case Similarity::kEuclidean: return "euclidean";
    case Similarity::kManhattan: return "manhattan";
  }
  return "cosine";
}

Similarity parse_similarity(std::string_view name) {
  if (name == "cosine" || name == "cos") return Similarity::kCosine;
  if (name == "dot" || name == "dot_product") return Similarity::kDot;
  if (name == "euclidean") return Similarity::kEuclidean;
  if (name == "manhattan") return Similarity::kManhattan;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown similarity \"" + std::string(name) + "\" (expected cosine, dot, euclidean or manhattan)");
}

double dot_product(std::span<const float> a, std::span<const float> b) {
  check_sizes(a, b);
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

double cosine_similarity(std::span<const float> a, std::span<const float> b) {
  // torch.nn.functional.normalize divides by max(norm, 1e-12), so a zero
  // vector scores 0 against everything instead of NaN.
  const double na = std::max(std::sqrt(dot_product(a, a)), 1e-12);
  const double nb = std::max(std::sqrt(dot_product(b, b)), 1e-12);
  return dot_product(a, b) / (na * nb);
}

double euclidean_distance(std::span<const float> a, std::span<const float> b) {
  check_sizes(a, b);
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return std::sqrt(sum);
}

double manhattan_distance(std::span<const float> a, std::span<const float> b) {
  check_sizes(a, b);
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += std::abs(static_cast<double>(a[i]) - b[i]);
  return sum;
}

double similarity(std::span<const float> a, std::span<const float> b, Similarity function) {
  switch (function) {
    case Similarity::kCosine: return cosine_similarity(a, b);
    case Similarity::kDot: return dot_product(a, b);
    case Similarity::kEuclidean: return -euclidean_distance(a, b);
    case Similarity::kManhattan: return -manhattan_distance(a, b);
  }
  return 0;
}

std::vector<double> similarity_matrix(const Embeddings& a, const Embeddings& b, Similarity function) {
  if (a.rows > 0 && b.rows > 0 && a.dimension != b.dimension) {
    throw Error(ErrorCode::kInvalidArgument, "embeddings of different dimensions (" + std::to_string(a.dimension) +
                                                 " and " + std::to_string(b.dimension) + ") cannot be compared");
  }
  std::vector<double> out(a.rows * b.rows);
  for (std::size_t i = 0; i < a.rows; ++i) {
    for (std::size_t j = 0; j < b.rows; ++j) out[i * b.rows + j] = similarity(a.row(i), b.row(j), function);
  }
  return out;
}

float maxsim(const TokenVectors& query, const TokenVectors& document) {
  if (query.dimension != document.dimension && query.rows != 0 && document.rows != 0) {
    throw Error(ErrorCode::kInvalidArgument, "token vectors of width " + std::to_string(query.dimension) + " and " +
                                                 std::to_string(document.dimension) + " cannot be compared");
  }
  if (document.rows == 0) return 0;
  double total = 0;
  for (std::size_t i = 0; i < query.rows; ++i) {
    const float* q = query.data.data() + i * query.dimension;
    float best = -std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < document.rows; ++j) {
      const float* d = document.data.data() + j * document.dimension;
      float dot = 0;
      for (std::size_t k = 0; k < query.dimension; ++k) dot += q[k] * d[k];
      best = std::max(best, dot);
    }
    total += best;
  }
  return static_cast<float>(total);
}

std::vector<float> maxsim_each(const TokenVectors& query, std::span<const TokenVectors> documents) {
  std::vector<float> scores;
  scores.reserve(documents.size());
  for (const TokenVectors& document : documents) scores.push_back(maxsim(query, document));
  return scores;
}

}  // namespace sieve
