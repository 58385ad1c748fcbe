#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "sieve/batch_scheduler.hpp"
#include "sieve/embedder.hpp"
#include "sieve/reranker.hpp"

namespace sieve {

using ServiceClock = std::chrono::steady_clock;

// How long a request waits before `abandoned` is first asked, and how often
// after that: finding out costs more than a fast request takes.
inline constexpr std::chrono::milliseconds kAbandonedFirstCheck{200};
inline constexpr std::chrono::milliseconds kAbandonedCheckEvery{100};

// An embedding model behind a BatchScheduler: many callers' inputs share
// model runs. Tokenizing (encode*) happens on the caller's thread, so the
// workers only run the model. Thread-safe.
class EmbeddingService {
 public:
  EmbeddingService(std::shared_ptr<const Embedder> embedder, const SchedulerOptions& options,
                   std::function<void(const BatchReport&)> observer = {});

  [[nodiscard]] std::vector<EncodedText> encode(std::span<const std::string_view> texts,
                                                const EncodeOptions& options) const;
  // Token ids given by the client, used as they are (special tokens
  // included, as Tokenizer::encode gives them). An id outside the vocabulary
  // is an Error (kInvalidInput) naming the input; so is an input longer than
  // max_length unless `truncate`, which keeps its first max_length ids.
  [[nodiscard]] std::vector<EncodedText> encode_ids(std::span<const std::vector<std::uint32_t>> inputs,
                                                    bool truncate) const;
  // Queues the inputs and waits for their vectors: `dimensions` wide
  // (0: the model's), L2-normalized when `normalize`. Throws Error
  // kOverloaded when the queue is full, kTimeout past the deadline, and
  // kCancelled when `abandoned` (asked now and then while the request
  // waits) says the caller has gone; the request's queued inputs are then
  // dropped.
  [[nodiscard]] Embeddings embed(std::vector<EncodedText> inputs, std::size_t dimensions, bool normalize,
                                 ServiceClock::time_point deadline, const std::function<bool()>& abandoned = {});
  // A sparse model's vectors, or BGE-M3's lexical weights, as embed() queues and waits for them.
  [[nodiscard]] std::vector<SparseVector> embed_sparse(std::vector<EncodedText> inputs, const SparseOptions& options,
                                                       ServiceClock::time_point deadline,
                                                       const std::function<bool()>& abandoned = {});
  // A ColBERT model's or BGE-M3's token vectors: encode_tokens() tokenizes on the caller's thread (one tokenization,
  // which also refuses BGE-M3's inputs too long unless `truncate`; a ColBERT model cuts each side to its length),
  // embed_tokens() queues them as embed() does. Queries and documents may share a request and a run.
  [[nodiscard]] std::vector<TokenInput> encode_tokens(std::span<const std::string_view> texts, TextRole role,
                                                      bool truncate) const;
  [[nodiscard]] std::vector<TokenVectors> embed_tokens(std::vector<TokenInput> inputs,
                                                       ServiceClock::time_point deadline,
                                                       const std::function<bool()>& abandoned = {});

  // Late chunking (Embedder::embed_late_chunks()) through a queue of its own: the document is checked and tokenized
  // on the caller's thread, its windows run with other requests' windows, and its chunks are pooled on the
  // caller's thread. Errors as embed_late_chunks() and embed() give them.
  // `tokens`, where given, gets the tokens the document's windows took. The second form takes the chunks
  // themselves, joined by options.separator.
  [[nodiscard]] Embeddings embed_late_chunks(std::string_view document, std::span<const TextSpan> spans,
                                             const LateChunkOptions& options, ServiceClock::time_point deadline,
                                             const std::function<bool()>& abandoned = {},
                                             std::size_t* tokens = nullptr);
  [[nodiscard]] Embeddings embed_late_chunks(std::span<const std::string_view> chunks, const LateChunkOptions& options,
                                             ServiceClock::time_point deadline,
                                             const std::function<bool()>& abandoned = {},
                                             std::size_t* tokens = nullptr);

  [[nodiscard]] const Embedder& embedder() const noexcept { return *embedder_; }
  // Inputs queued for every output of the model.
  [[nodiscard]] std::size_t queued() const;
  void stop();

 private:
  std::shared_ptr<const Embedder> embedder_;
  // One scheduler per output the model gives, each with the options' limits: pooled rows (dense and SPLADE
  // vectors), token vectors (ColBERT, BGE-M3) and BGE-M3's lexical weights.
  std::unique_ptr<BatchScheduler<EncodedText, std::vector<float>>> scheduler_;
  std::unique_ptr<BatchScheduler<TokenInput, TokenVectors>> tokens_;
  std::unique_ptr<BatchScheduler<EncodedText, SparseVector>> lexical_;
  // Late chunking's windows, for a dense model that gives token states and pools them by mean or max.
  std::unique_ptr<BatchScheduler<Encoding, std::vector<float>>> windows_;
};

// A cross-encoder behind a BatchScheduler. Thread-safe.
class RerankService {
 public:
  RerankService(std::shared_ptr<const Reranker> reranker, const SchedulerOptions& options,
                std::function<void(const BatchReport&)> observer = {});

  [[nodiscard]] std::vector<Encoding> encode(std::string_view query, std::span<const std::string_view> documents,
                                             bool truncate) const;
  // One score per pair, in order: the model's activation, or with `raw` the logit.
  [[nodiscard]] std::vector<float> score(std::vector<Encoding> pairs, bool raw, ServiceClock::time_point deadline,
                                         const std::function<bool()>& abandoned = {});
  // Classification: every label's score for each input (encoded with the
  // reranker's encode_texts or encode_pairs), row by row; the model's
  // classification activation, or with `raw` the logits.
  [[nodiscard]] std::vector<std::vector<float>> classify(std::vector<Encoding> inputs, bool raw,
                                                         ServiceClock::time_point deadline,
                                                         const std::function<bool()>& abandoned = {});

  [[nodiscard]] const Reranker& reranker() const noexcept { return *reranker_; }
  [[nodiscard]] std::size_t queued() const { return scheduler_ ? scheduler_->queued() : 0; }
  void stop() {
    if (scheduler_) scheduler_->stop();
  }

 private:
  // The pairs' scheduler; a ColBERT model, which scores by MaxSim, has none.
  BatchScheduler<Encoding, std::vector<float>>& pair_scheduler();
  std::shared_ptr<const Reranker> reranker_;
  std::unique_ptr<BatchScheduler<Encoding, std::vector<float>>> scheduler_;
};

}  // namespace sieve
