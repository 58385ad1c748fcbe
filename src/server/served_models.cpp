#include "server/served_models.hpp"

#include <chrono>

#include "server/http_error.hpp"
#include "server/metrics.hpp"
#include "sieve/logging.hpp"

namespace sieve::server {

const ModelInfo& ServedModel::info() const {
  return reranker ? reranker->reranker().info() : embedding->embedder().info();
}

const Tokenizer& ServedModel::tokenizer() const {
  return reranker ? reranker->reranker().tokenizer() : embedding->embedder().tokenizer();
}

std::vector<TokenVectors> ServedModel::token_vectors(std::span<const std::string_view> texts, TextRole role,
                                                     const std::string& field) const {
  const Embedder* model = reranker ? reranker->reranker().late_interaction_model() : &embedding->embedder();
  if (model == nullptr || (!reranker && !model->info().token_head)) {
    throw HttpError(400, "the model `" + name + "` gives no token vectors", "model");
  }
  try {
    return model->embed_tokens(texts, role);
  } catch (const Error& e) {
    throw to_http_error(e, field);
  }
}

MaxSimScores ServedModel::maxsim_scores(std::string_view query, std::span<const std::string_view> documents,
                                        const std::string& documents_field) const {
  const std::string_view queries[] = {query};
  const std::vector<TokenVectors> q = token_vectors(queries, TextRole::kQuery, "query");
  const std::vector<TokenVectors> d = token_vectors(documents, TextRole::kDocument, documents_field);
  MaxSimScores out{maxsim_each(q.front(), d), q.front().rows};
  for (const TokenVectors& document : d) out.tokens += document.rows;
  return out;
}

ServedModels::ServedModels(ModelRegistry& registry, const std::vector<std::string>& names,
                           const SchedulerOptions& scheduling, Metrics& metrics) {
  std::vector<std::string> chosen = names;
  if (chosen.empty()) {
    for (const RegistryEntry& entry : registry.list()) {
      if (entry.error.empty()) {
        chosen.push_back(entry.name);
      } else {
        log_warn("skipping model folder " + entry.name + ": " + entry.error);
      }
    }
  }
  if (chosen.empty()) {
    throw Error(ErrorCode::kNotFound, "no model folder under " + registry.root().string());
  }
  for (const std::string& name : chosen) {
    const auto start = std::chrono::steady_clock::now();
    ServedModel model;
    model.name = name;
    model.kind = registry.describe(name).kind;
    const auto observe = [&metrics, name](const BatchReport& report) { metrics.observe_batch(name, report); };
    if (loads_as_reranker(model.kind)) {
      model.reranker = std::make_shared<RerankService>(registry.reranker(name), scheduling, observe);
    } else {
      model.embedding = std::make_shared<EmbeddingService>(registry.embedder(name), scheduling, observe);
    }
    model.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics.set_model_load_seconds(name, model.load_seconds);
    models_.push_back(std::move(model));
  }
}

const ServedModel& ServedModels::find(const std::optional<std::string>& name, Role role) const {
  const auto role_of = [](const ServedModel& m) {
    return m.is_reranker() ? Role::kReranker : m.is_sparse() ? Role::kSparse : Role::kEmbedding;
  };
  // BGE-M3 is an embedding model that gives sparse vectors too.
  const auto serves = [&](const ServedModel& m, Role r) {
    return role_of(m) == r || (r == Role::kSparse && m.embedding && m.info().sparse_head);
  };
  const auto described = [](Role r) {
    return r == Role::kReranker ? "a reranker" : r == Role::kSparse ? "a sparse embedding model" : "an embedding model";
  };
  if (!name || name->empty()) {
    for (const ServedModel& m : models_) {
      if (serves(m, role)) return m;
    }
    const char* what = role == Role::kReranker ? "reranking" : role == Role::kSparse ? "sparse embedding" : "embedding";
    throw HttpError(404, std::string("no ") + what + " model is served", "model", "model_not_found");
  }
  for (const ServedModel& m : models_) {
    if (m.name != *name) continue;
    if (!serves(m, role)) {
      throw HttpError(400, "the model `" + *name + "` is " + described(role_of(m)) + ", not " + described(role),
                      "model", "model_kind_mismatch");
    }
    return m;
  }
  throw HttpError(404, "the model `" + *name + "` does not exist", "model", "model_not_found");
}

const ServedModel& ServedModels::embedding(const std::optional<std::string>& name) const {
  return find(name, Role::kEmbedding);
}

const ServedModel& ServedModels::sparse(const std::optional<std::string>& name) const {
  return find(name, Role::kSparse);
}

const ServedModel& ServedModels::reranker(const std::optional<std::string>& name) const {
  return find(name, Role::kReranker);
}

const ServedModel& ServedModels::late_interaction(const std::optional<std::string>& name) const {
  if (!name || name->empty()) {
    for (const ServedModel& m : models_) {
      if (m.gives_token_vectors()) return m;
    }
    throw HttpError(404, "no late-interaction (ColBERT) model is served; token vectors come from ColBERT models",
                    "model", "model_not_found");
  }
  const ServedModel& m = any(name);
  if (!m.gives_token_vectors()) {
    throw HttpError(
        400,
        "the model `" + *name + "` is not a late-interaction (ColBERT) model; token vectors come from ColBERT models",
        "model", "model_kind_mismatch");
  }
  return m;
}

const ServedModel& ServedModels::any(const std::optional<std::string>& name) const {
  if (!name || name->empty()) return models_.front();
  for (const ServedModel& m : models_) {
    if (m.name == *name) return m;
  }
  throw HttpError(404, "the model `" + *name + "` does not exist", "model", "model_not_found");
}

std::size_t ServedModels::queued() const {
  std::size_t n = 0;
  for (const ServedModel& m : models_) n += m.reranker ? m.reranker->queued() : m.embedding->queued();
  return n;
}

void ServedModels::stop() {
  for (ServedModel& m : models_) {
    if (m.reranker) m.reranker->stop();
    if (m.embedding) m.embedding->stop();
  }
}

}  // namespace sieve::server
