#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/runtime_options.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve {

struct RerankerOptions {
  RuntimeOptions runtime;
  // Unset: the tokenizer's (or the model configuration's) maximum length.
  std::optional<std::size_t> max_length;
  TruncationStrategy truncation = TruncationStrategy::kLongestFirst;
  ScoreActivation activation = ScoreActivation::kAuto;
  // With several labels: the label whose score is reported.
  std::size_t label = 0;
  std::size_t batch_size = 32;
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kError;
};

struct RerankResult {
  std::size_t index = 0;  // position of the document in the input
  float score = 0;
};

// Positions of `scores`, best first; ties keep input order, and NaN (a
// broken model) ranks last instead of breaking the ordering.
std::vector<std::size_t> rank_by_score(std::span<const float> scores);

// A sequence-classification model loaded from a model folder: a
// cross-encoder (rerank, score), a classifier (classify: sentiment, NLI,
// ...) or both, and a causal LM prompted for "yes" or "no" (the
// Qwen3-Reranker kind, a folder with llm_reranker.json: rerank and score
// only), or a late-interaction (ColBERT) model that scores by MaxSim of
// token vectors (rerank and score only). Every method is const and safe to
// call from many threads at once.
class Reranker {
 public:
  static Reranker load(const std::filesystem::path& folder, const RerankerOptions& options = {});

  Reranker(Reranker&&) noexcept;
  Reranker& operator=(Reranker&&) noexcept;
  ~Reranker();

  // One score per document, in input order.
  [[nodiscard]] std::vector<float> score(std::string_view query, std::span<const std::string_view> documents) const;
  // One score per (query, document) pair, in input order, each as score() gives it (the activation of a
  // cross-encoder or an LLM reranker, a ColBERT model's MaxSim), over length-sorted batches of `batch_size` pairs
  // at most (0: the model's RerankerOptions::batch_size; a ColBERT model batches as its embedder does). Pairs
  // longer than max_length are cut.
  [[nodiscard]] std::vector<float> score_pairs(std::span<const TextPair> pairs, std::size_t batch_size = 0) const;
  // The top_k best documents (all when top_k is 0), best first; ties keep input order.
  [[nodiscard]] std::vector<RerankResult> rerank(std::string_view query, std::span<const std::string_view> documents,
                                                 std::size_t top_k = 0) const;

  // score() in three parts, for callers that batch pairs of many requests
  // together (the server's scheduler). encode() tokenizes (query, document)
  // pairs; with `truncate` false a pair longer than max_length is an Error
  // (kInvalidInput) naming the document's index.
  [[nodiscard]] std::vector<Encoding> encode(std::string_view query, std::span<const std::string_view> documents,
                                             bool truncate = true, std::size_t threads = 0) const;
  // classify() in parts, as encode() is for score(): single texts or pairs
  // tokenized as the model's tokenizer does (special tokens added).
  [[nodiscard]] std::vector<Encoding> encode_texts(std::span<const std::string_view> texts, bool truncate = true,
                                                   std::size_t threads = 0) const;
  [[nodiscard]] std::vector<Encoding> encode_pairs(std::span<const TextPair> pairs, bool truncate = true,
                                                   std::size_t threads = 0) const;
  // One ORT run over `pairs`, in their order: num_labels() logits per pair.
  [[nodiscard]] std::vector<float> run_batch(std::span<const Encoding* const> pairs) const;
  // A pair's score from its logits: the activation's, or with `raw` the
  // chosen label's logit.
  [[nodiscard]] float score_from_logits(std::span<const float> logits, bool raw = false) const;

  // Every label's score for each input (one text, or a pair such as an NLI
  // premise and hypothesis), row-major [inputs x num_labels()]:
  // classification_activation() applied, or the logits with `raw`.
  [[nodiscard]] std::vector<float> classify(std::span<const std::string_view> texts, bool raw = false) const;
  [[nodiscard]] std::vector<float> classify(std::span<const TextPair> pairs, bool raw = false) const;
  // One input's label scores from its logits, as classify() gives them.
  [[nodiscard]] std::vector<float> label_scores(std::span<const float> logits, bool raw = false) const;
  // Label names from config.json's id2label ("LABEL_<i>" where it has none).
  [[nodiscard]] const std::vector<std::string>& labels() const noexcept;
  // As transformers' text-classification pipeline chooses it: none for
  // problem_type "regression", sigmoid for "multi_label_classification" or
  // one label, softmax otherwise. Never kAuto.
  [[nodiscard]] ScoreActivation classification_activation() const noexcept;
  // A causal LM scored by its "yes" and "no" logits (llm_reranker.json).
  [[nodiscard]] bool is_llm_reranker() const noexcept;
  // A ColBERT model: score() and rerank() embed the query and the documents
  // and sum MaxSim; the pair and classification methods are refused.
  [[nodiscard]] bool is_late_interaction() const noexcept;
  // The ColBERT model itself (token vectors for queries and documents); null otherwise.
  [[nodiscard]] const Embedder* late_interaction_model() const noexcept;

  // info().output is the logits output; info().pairs the labels and activations (a ColBERT model's info() is its
  // embedder's).
  [[nodiscard]] const ModelInfo& info() const noexcept;
  [[nodiscard]] const Tokenizer& tokenizer() const noexcept;
  // The activation in use, never kAuto: with kAuto, the model configuration's
  // sentence-transformers activation_fn, else sigmoid for one label and
  // softmax (CrossEncoder's apply_softmax) for several.
  [[nodiscard]] ScoreActivation activation() const noexcept;
  [[nodiscard]] std::size_t num_labels() const noexcept;

 private:
  struct Impl;
  explicit Reranker(std::unique_ptr<Impl> impl);
  explicit Reranker(std::unique_ptr<Embedder> late);
  // The logits of every encoding, in their order, over length-sorted batches.
  [[nodiscard]] std::vector<float> run_all(const std::vector<Encoding>& encodings, std::size_t batch_size = 0) const;
  // (query, document) pairs tokenized for scoring: an LLM reranker's prompt around each, else as pairs.
  [[nodiscard]] std::vector<Encoding> encode_for_scoring(std::span<const TextPair> pairs, bool truncate,
                                                         std::size_t threads) const;
  // impl_ for a pair scorer; for a ColBERT model, pair_scorer() refuses.
  [[nodiscard]] const Impl& pair_scorer() const;
  // The one that is not null says the kind: impl_ (pair scoring) or late_.
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Embedder> late_;
};

}  // namespace sieve
