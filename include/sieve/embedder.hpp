#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sieve/model_info.hpp"
#include "sieve/runtime_options.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve {

// Which side of a late-interaction model's encoding a text is: queries and
// documents get different marker tokens, lengths and token filters.
enum class TextRole { kQuery, kDocument };

// A ColBERT text's token vectors, row-major [rows x dimension], each
// L2-normalized, and the token id each row came from.
struct TokenVectors {
  std::size_t rows = 0;
  std::size_t dimension = 0;
  std::vector<float> data;
  std::vector<std::uint32_t> ids;
  [[nodiscard]] std::span<const float> row(std::size_t i) const {
    return std::span<const float>(data).subspan(i * dimension, dimension);
  }
};

// ColBERT's late-interaction score: for each query token, its best dot
// product with any document token, summed over the query's tokens. A
// document without tokens scores 0; the widths must agree.
float maxsim(const TokenVectors& query, const TokenVectors& document);
// maxsim() of one query against each document, in the documents' order.
std::vector<float> maxsim_each(const TokenVectors& query, std::span<const TokenVectors> documents);

// A learned sparse vector: its non-zero weights, by ascending token id.
struct SparseVector {
  std::vector<std::uint32_t> ids;
  std::vector<float> weights;
};

// A text encoded for its token vectors (Embedder::encode_tokens()), as a query or as a document.
struct TokenInput {
  Encoding encoding;
  TextRole role = TextRole::kDocument;
};

// Pruning of sparse vectors.
struct SparseOptions {
  std::size_t top_k = 0;  // keep the k largest weights (ties: the smaller id); 0: all
  float min_weight = 0;   // drop weights at or below it; 0 keeps every non-zero one
};

struct EmbedderOptions {
  RuntimeOptions runtime;
  // Unset: taken from the model folder's sentence-transformers files.
  std::optional<bool> normalize;
  std::optional<Pooling> pooling;
  std::optional<std::size_t> max_length;
  std::size_t batch_size = 32;
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kError;
  // Text put before every input, as sentence-transformers'
  // encode(prompt=...). It wins over prompt_name; an empty prompt turns the
  // model's default prompt off.
  std::optional<std::string> prompt;
  // A prompt of the model folder's config_sentence_transformers.json, as
  // encode(prompt_name=...). Unset: the file's default_prompt_name, if any.
  std::optional<std::string> prompt_name;
  // Matryoshka truncation: keep the first N dimensions (then normalize when
  // normalization is on), as sentence-transformers' truncate_dim. Unset: all.
  std::optional<std::size_t> dimensions;
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

// Per-call choices of Embedder::encode(): what a server lets each request vary
// without reloading the model.
struct EncodeOptions {
  // A prompt of the model folder's configuration, by name (as
  // sentence-transformers' encode(prompt_name=...)); unset: the embedder's prompt.
  std::optional<std::string> prompt_name;
  // Text put before every input (as encode(prompt=...)); it wins over
  // prompt_name, and "" turns the embedder's prompt off.
  std::optional<std::string> prompt;
  // false: an input longer than max_length is an Error (kInvalidInput, with
  // the input's index) instead of being cut.
  bool truncate = true;
  Direction truncation_direction = Direction::kRight;
  std::size_t threads = 0;  // tokenizing threads; 0: one per core
};

// Per-call choices of Embedder::embed(), as sentence-transformers' encode()
// lets each call vary them; those left unset are the embedder's.
struct EmbedOptions {
  std::optional<std::string> prompt_name;
  std::optional<std::string> prompt;  // wins over prompt_name; "" for none
  std::optional<bool> normalize;
  std::optional<std::size_t> dimensions;  // Matryoshka truncation (then normalization, when on)
  std::size_t batch_size = 0;             // 0: the embedder's
  // Called after each batch with the inputs embedded so far and their total;
  // returning false stops the call with an Error (kCancelled).
  std::function<bool(std::size_t done, std::size_t total)> progress;
};

// A part of a text: bytes [begin, end).
struct TextSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Embedder::embed_late_chunks(): how the chunks make one document and how a long document is run.
struct LateChunkOptions {
  // Put between consecutive chunks in the document (as the chunks' own text would have them).
  std::string separator = " ";
  // Text tokens that consecutive windows of a document longer than the model's maximum length share (each token's
  // state comes from the window where it has the most context); unset: a quarter of a window; at most half of it.
  std::optional<std::size_t> overlap;
  // At most this many windows per document (0: no limit): a longer document is an Error (kInvalidInput) before
  // its windows are made, so that one input cannot take memory without bound.
  std::size_t max_windows = 0;
  // prompt, prompt_name, normalize, dimensions as embed() takes them; batch_size: windows per run.
  EmbedOptions embed;
};

// A document prepared for late chunking by Embedder::prepare_late_chunks(): the windows of its encoding to run
// (Embedder::run_window_states(), alone or with other documents' windows), and how each chunk's vector is pooled
// from their token states (Embedder::pool_late_chunks()). embed_late_chunks() is the three in one call.
struct LateChunkWork {
  std::vector<Encoding> windows;
  // How pool_late_chunks() reads the windows' states; filled by prepare_late_chunks().
  std::vector<std::size_t> window_tokens;              // each window's length (its windows may have moved on)
  std::size_t leading = 0;                             // special tokens before each window's content
  std::vector<std::size_t> window_first;               // each window's first content token
  std::vector<std::size_t> owner;                      // per content token, the window whose state it takes
  std::vector<std::vector<std::size_t>> chunk_tokens;  // per chunk, its content tokens
  std::size_t dimensions = 0;                          // kept per vector
  bool normalize = true;
};

// One tokenized input, ready for Embedder::run_batch().
struct EncodedText {
  Encoding encoding;
  std::size_t prompt_tokens = 0;  // leading tokens left out of pooling (a prompt with include_prompt false)
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
  [[nodiscard]] Embeddings embed(std::span<const std::string_view> texts, const EmbedOptions& options,
                                 EmbedTimings* timings = nullptr) const;
  // Late chunking: `chunks`, consecutive parts of one document, joined by options.separator and encoded once (in
  // overlapping windows of the model's maximum length when longer); each chunk's vector is the model's pooling over
  // the token states of its own tokens (a token belongs to the chunk holding its last byte), then the model's modules,
  // Matryoshka truncation and normalization, so that a chunk's vector knows the text around it. One vector per chunk,
  // in their order. The model must give token states and pool them by mean or max (not pool inside its graph, nor by
  // CLS or last token: kUnsupported); a chunk without a token is an Error (kInvalidInput) naming its index.
  [[nodiscard]] Embeddings embed_late_chunks(std::span<const std::string_view> chunks,
                                             const LateChunkOptions& options = {},
                                             EmbedTimings* timings = nullptr) const;
  // Late chunking of chunks given as spans of `document` (in any order; they may overlap, as a search index's
  // chunks do): one vector per span, in their order. options.separator is not used.
  [[nodiscard]] Embeddings embed_late_chunks(std::string_view document, std::span<const TextSpan> spans,
                                             const LateChunkOptions& options = {},
                                             EmbedTimings* timings = nullptr) const;
  // embed_late_chunks() in three parts, for callers that run many documents' windows together (the server's
  // scheduler): prepare_late_chunks() checks the model and the spans and tokenizes (the errors embed_late_chunks()
  // gives), run_window_states() is one model run over windows (each window's token states, [its tokens x the
  // states' width], row-major), pool_late_chunks() pools each chunk from its document's window states (in the
  // order of work.windows) and finishes it.
  [[nodiscard]] LateChunkWork prepare_late_chunks(std::string_view document, std::span<const TextSpan> spans,
                                                  const LateChunkOptions& options = {},
                                                  EmbedTimings* timings = nullptr) const;
  [[nodiscard]] std::vector<std::vector<float>> run_window_states(std::span<const Encoding* const> windows,
                                                                  EmbedTimings* timings = nullptr) const;
  [[nodiscard]] Embeddings pool_late_chunks(const LateChunkWork& work, std::span<const std::vector<float>> states,
                                            EmbedTimings* timings = nullptr) const;
  // A sparse model's vectors, one per input in input order (embed() refuses
  // a sparse model, and embed_sparse() a dense one).
  [[nodiscard]] std::vector<SparseVector> embed_sparse(std::span<const std::string_view> texts,
                                                       const SparseOptions& options = {},
                                                       EmbedTimings* timings = nullptr) const;
  // A late-interaction (ColBERT) model's token vectors, one set per input
  // in input order, encoded as queries or as documents.
  [[nodiscard]] std::vector<TokenVectors> embed_tokens(std::span<const std::string_view> texts, TextRole role,
                                                       EmbedTimings* timings = nullptr) const;
  // embed() in two halves, for callers that batch inputs of many requests
  // together (the server's scheduler): encode() tokenizes, run_batch() runs
  // one batch and pools, finish() truncates and normalizes one vector.
  [[nodiscard]] std::vector<EncodedText> encode(std::span<const std::string_view> texts,
                                                const EncodeOptions& options = {}) const;
  // One ORT run over `inputs`, in their order: one pooled vector per input,
  // info().model_dimension wide, before Matryoshka truncation and normalization.
  [[nodiscard]] std::vector<float> run_batch(std::span<const EncodedText* const> inputs,
                                             EmbedTimings* timings = nullptr) const;
  // The first `dimensions` values of a pooled vector into `out`, L2-normalized
  // when `normalize` (sentence-transformers truncates, then normalizes).
  static void finish(std::span<const float> pooled, std::size_t dimensions, bool normalize, float* out);
  // A sparse model's pooled row (run_batch()) as a SparseVector, pruned by `options`.
  static SparseVector sparsify(std::span<const float> pooled, const SparseOptions& options);
  // Drops the weights at or below options.min_weight and keeps the top_k heaviest (ties: the smaller id).
  static void prune(SparseVector& vector, const SparseOptions& options);

  // embed_tokens() in two parts, as encode() and run_batch() are for embed(): the texts encoded as `role` (a
  // ColBERT model's marker token and query expansion, each side cut to its length as PyLate cuts it; BGE-M3's as
  // encode() does, so that with `truncate` false an input longer than max_length is an Error, kInvalidInput, naming
  // it), and one run over encoded inputs of either role, in their order.
  [[nodiscard]] std::vector<TokenInput> encode_tokens(std::span<const std::string_view> texts, TextRole role,
                                                      bool truncate = true, std::size_t threads = 0) const;
  [[nodiscard]] std::vector<TokenVectors> run_token_batch(std::span<const TokenInput* const> inputs,
                                                          EmbedTimings* timings = nullptr) const;
  // BGE-M3's lexical weights (embed_sparse()) of one run over encode()d inputs, in their order: every positive
  // weight, for prune() to cut as a request asks.
  [[nodiscard]] std::vector<SparseVector> run_lexical_batch(std::span<const EncodedText* const> inputs,
                                                            EmbedTimings* timings = nullptr) const;

  [[nodiscard]] const ModelInfo& info() const noexcept;
  [[nodiscard]] const Tokenizer& tokenizer() const noexcept;

 private:
  struct Impl;
  explicit Embedder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sieve
