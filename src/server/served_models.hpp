#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/registry.hpp"
#include "sieve/serving.hpp"

namespace sieve::server {

class Metrics;

// A ColBERT model's scores, and the tokens they were computed from: the
// query's (with its expansion) and each document's scored tokens.
struct MaxSimScores {
  std::vector<float> scores;
  std::size_t tokens = 0;
};

// One model the server answers for, loaded at start-up.
struct ServedModel {
  std::string name;
  std::string repository;  // the hub repository a pulled folder came from, which names it too (or empty)
  ModelKind kind = ModelKind::kEmbedding;
  ModelType type = ModelType::kDense;           // what the model is: the routes it serves follow from it
  std::shared_ptr<EmbeddingService> embedding;  // set for the embedding kinds
  std::shared_ptr<RerankService> reranker;      // set for rerankers
  // A ColBERT model's token vectors (for /embed_all and its MaxSim scores), scheduled as embeddings are.
  std::shared_ptr<EmbeddingService> late;
  double load_seconds = 0;

  [[nodiscard]] bool is_reranker() const noexcept { return reranker != nullptr; }
  [[nodiscard]] bool is_sparse() const noexcept { return type == ModelType::kSparse; }
  // A ColBERT model: served as a reranker, and its token vectors by /embed_all.
  [[nodiscard]] bool is_late_interaction() const noexcept { return type == ModelType::kMultiVector; }
  // A ColBERT model, or an embedding model with a ColBERT head (BGE-M3).
  [[nodiscard]] bool gives_token_vectors() const {
    return is_late_interaction() || (embedding && info().bge_m3.token_vectors);
  }
  // A ColBERT model's MaxSim score of each document, its inputs queued as token vectors are (documents cut to the
  // model's length, as PyLate cuts them); an input that cannot be encoded is an HttpError naming "query" or
  // `documents_field`.
  [[nodiscard]] MaxSimScores maxsim_scores(std::string_view query, std::span<const std::string_view> documents,
                                           const std::string& documents_field, ServiceClock::time_point deadline,
                                           const std::function<bool()>& abandoned) const;
  // Token vectors in two parts (ColBERT, BGE-M3): the texts encoded once (errors name `field`; with `truncate`
  // false a BGE-M3 input longer than the model's maximum is refused), then queued and waited for.
  [[nodiscard]] std::vector<TokenInput> encode_tokens(std::span<const std::string_view> texts, TextRole role,
                                                      bool truncate, const std::string& field) const;
  [[nodiscard]] std::vector<TokenVectors> token_vectors(std::vector<TokenInput> inputs,
                                                        ServiceClock::time_point deadline,
                                                        const std::function<bool()>& abandoned) const;
  [[nodiscard]] const ModelInfo& info() const;
  [[nodiscard]] const Tokenizer& tokenizer() const;
};

// The models of a registry the server serves, each behind its own batch
// scheduler. Clients can only name these; nothing is loaded from a path a
// request gives.
class ServedModels {
 public:
  // Every model of the registry, or only `names` when given. Throws when a
  // name is unknown or a model fails to load.
  ServedModels(ModelRegistry& registry, const std::vector<std::string>& names, const SchedulerOptions& scheduling,
               Metrics& metrics);
  ServedModels(const ServedModels&) = delete;
  ServedModels& operator=(const ServedModels&) = delete;

  [[nodiscard]] const std::vector<ServedModel>& all() const noexcept { return models_; }
  // The model `name`, or with no name the first model of the kind asked
  // for. HttpError 404 (or 400 for the other kind) otherwise.
  [[nodiscard]] const ServedModel& embedding(const std::optional<std::string>& name) const;
  [[nodiscard]] const ServedModel& sparse(const std::optional<std::string>& name) const;
  [[nodiscard]] const ServedModel& reranker(const std::optional<std::string>& name) const;
  // A model that gives token vectors (ColBERT, BGE-M3), named or the first served.
  [[nodiscard]] const ServedModel& late_interaction(const std::optional<std::string>& name) const;
  // Either kind (tokenize, decode, info).
  [[nodiscard]] const ServedModel& any(const std::optional<std::string>& name) const;
  [[nodiscard]] std::size_t queued() const;
  // Stops the schedulers after their queued work.
  void stop();

 private:
  enum class Role { kEmbedding, kSparse, kReranker };
  [[nodiscard]] const ServedModel& find(const std::optional<std::string>& name, Role role) const;
  std::vector<ServedModel> models_;
};

}  // namespace sieve::server
