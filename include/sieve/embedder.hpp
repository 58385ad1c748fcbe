#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/runtime_options.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve {

// How token states become one vector, as sentence-transformers' Pooling module.
enum class Pooling { kMean, kCls, kMax, kMeanSqrtLen, kLastToken };
const char* to_string(Pooling pooling) noexcept;
Pooling parse_pooling(std::string_view name);

struct EmbedderOptions {
  RuntimeOptions runtime;
  // Unset: taken from the model folder's sentence-transformers files.
  std::optional<bool> normalize;
  std::optional<Pooling> pooling;
  std::optional<std::size_t> max_length;
  std::size_t batch_size = 32;
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kError;
};

struct TensorInfo {
  std::string name;
  std::string type;                 // "float32", "int64", ...
  std::vector<std::int64_t> shape;  // -1: dynamic
};

struct ModelInfo {
  std::filesystem::path folder;
  std::filesystem::path onnx_file;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  std::string output;                // the output Sieve reads
  bool pooled_by_model = false;      // the output is already one vector per input
  Pooling pooling = Pooling::kMean;  // meaningful when not pooled_by_model
  bool normalize = false;
  std::size_t max_length = 0;
  std::size_t dimension = 0;
  std::vector<std::string> providers;
  int intra_op_threads = 0;
  std::string onnxruntime_version;
};

// Row-major float32 vectors, one row per input, in input order.
struct Embeddings {
  std::size_t rows = 0;
  std::size_t dimension = 0;
  std::vector<float> data;
  [[nodiscard]] std::span<const float> row(std::size_t i) const {
    return std::span<const float>(data).subspan(i * dimension, dimension);
  }
};

// Where the time of one embed call went; for benchmarks.
struct EmbedTimings {
  double tokenize_seconds = 0;
  double prepare_seconds = 0;  // padding and tensor filling
  double run_seconds = 0;      // inside ORT
  double pool_seconds = 0;     // pooling, normalization, copying out
  std::size_t batches = 0;
  std::size_t tokens = 0;         // real tokens
  std::size_t padded_tokens = 0;  // tokens fed to ORT, padding included
};

// A sentence embedding model loaded from a model folder. embed() is const
// and safe to call from many threads at once.
class Embedder {
 public:
  static Embedder load(const std::filesystem::path& folder, const EmbedderOptions& options = {});

  Embedder(Embedder&&) noexcept;
  Embedder& operator=(Embedder&&) noexcept;
  ~Embedder();

  [[nodiscard]] Embeddings embed(std::span<const std::string_view> texts, EmbedTimings* timings = nullptr) const;
  [[nodiscard]] Embeddings embed(const std::vector<std::string>& texts, EmbedTimings* timings = nullptr) const;
  [[nodiscard]] const ModelInfo& info() const noexcept;
  [[nodiscard]] const Tokenizer& tokenizer() const noexcept;

 private:
  struct Impl;
  explicit Embedder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sieve
