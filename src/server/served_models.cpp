#include "server/served_models.hpp"

#include "model/model_spec.hpp"

#include <chrono>
#include <functional>

#include "server/http_error.hpp"
#include "server/metrics.hpp"
#include "sieve/logging.hpp"
#include "sieve/text.hpp"

namespace sieve::server {

const ModelInfo& ServedModel::info() const {
  return reranker ? reranker->reranker().info() : embedding->embedder().info();
}

const Tokenizer& ServedModel::tokenizer() const {
  return reranker ? reranker->reranker().tokenizer() : embedding->embedder().tokenizer();
}

namespace {

// The service that gives a model's token vectors; null when it gives none.
EmbeddingService* token_service(const ServedModel& m) {
  if (m.late) return m.late.get();
  return m.embedding && m.info().bge_m3.token_vectors ? m.embedding.get() : nullptr;
}

}  // namespace

std::vector<TokenInput> ServedModel::encode_tokens(std::span<const std::string_view> texts, TextRole role,
                                                   bool truncate, const std::string& field) const {
  const EmbeddingService* service = token_service(*this);
  if (service == nullptr) throw HttpError(400, "the model `" + name + "` gives no token vectors", "model");
  try {
    return service->encode_tokens(texts, role, truncate);
  } catch (const Error& e) {
    throw to_http_error(e, field);
  }
}

std::vector<TokenVectors> ServedModel::token_vectors(std::vector<TokenInput> inputs, ServiceClock::time_point deadline,
                                                     const std::function<bool()>& abandoned) const {
  EmbeddingService* service = token_service(*this);
  if (service == nullptr) throw HttpError(400, "the model `" + name + "` gives no token vectors", "model");
  return service->embed_tokens(std::move(inputs), deadline, abandoned);
}

MaxSimScores ServedModel::maxsim_scores(std::string_view query, std::span<const std::string_view> documents,
                                        const std::string& documents_field, ServiceClock::time_point deadline,
                                        const std::function<bool()>& abandoned) const {
  // The query and the documents in one request: they share runs.
  const std::string_view queries[] = {query};
  std::vector<TokenInput> inputs = encode_tokens(queries, TextRole::kQuery, true, "query");
  std::vector<TokenInput> docs = encode_tokens(documents, TextRole::kDocument, true, documents_field);
  inputs.insert(inputs.end(), std::make_move_iterator(docs.begin()), std::make_move_iterator(docs.end()));
  const std::vector<TokenVectors> vectors = token_vectors(std::move(inputs), deadline, abandoned);
  const std::span<const TokenVectors> d = std::span<const TokenVectors>(vectors).subspan(1);
  MaxSimScores out{maxsim_each(vectors.front(), d), vectors.front().rows};
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
    const RegistryEntry entry = registry.describe(name);
    model.repository = entry.repository;
    model.kind = entry.kind;
    model.type = entry.type;
    const auto observe = [&metrics, name](const BatchReport& report) { metrics.observe_batch(name, report); };
    if (loads_as_reranker(model.kind)) {
      std::shared_ptr<const Reranker> reranker = registry.reranker(name);
      if (const Embedder* late = reranker->late_interaction_model()) {
        // Shares the reranker's ownership of the model.
        model.late =
            std::make_shared<EmbeddingService>(std::shared_ptr<const Embedder>(reranker, late), scheduling, observe);
      }
      model.reranker = std::make_shared<RerankService>(std::move(reranker), scheduling, observe);
    } else {
      model.embedding = std::make_shared<EmbeddingService>(registry.embedder(name), scheduling, observe);
    }
    model.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics.set_model_load_seconds(name, model.load_seconds);
    models_.push_back(std::move(model));
  }
}

namespace {

// The routes that serve model `m`, for a message that refuses another.
std::string serving_routes(const ServedModel& m) {
  std::string routes = "/info";
  switch (m.type) {
    case ModelType::kDense: routes = "/embed and /v1/embeddings"; break;
    case ModelType::kSparse: routes = "/embed_sparse"; break;
    case ModelType::kMultiVector: routes = "/embed_all, /rerank and /v1/rerank"; break;
    case ModelType::kBgeM3:
      // Only the outputs its export has.
      routes = std::string("/embed, /v1/embeddings") + (m.info().bge_m3.lexical ? ", /embed_sparse" : "") +
               (m.info().bge_m3.token_vectors ? ", /embed_all" : "");
      break;
    case ModelType::kCrossEncoder:
    case ModelType::kClassifier: routes = "/rerank, /v1/rerank and /predict"; break;
    case ModelType::kLlmReranker: routes = "/rerank and /v1/rerank"; break;
  }
  return std::string(" (") + model::kind_noun(m.type) + ": it serves " + routes + ")";
}

// A 404 for a name no served model has, with the closest name of those `eligible` ("did you mean"), else the list
// of them (`noun`: what they are).
[[noreturn]] void not_found(const std::vector<ServedModel>& models, const std::string& name,
                            const std::function<bool(const ServedModel&)>& eligible, const std::string& noun) {
  std::vector<std::string> names;
  for (const ServedModel& m : models) {
    if (!eligible(m)) continue;
    names.push_back(m.name);
    if (!m.repository.empty()) names.push_back(m.repository);
  }
  std::string message = "the model `" + name + "` does not exist";
  if (const std::string near = closest_match(name, names); !near.empty()) {
    message += "; did you mean `" + near + "`?";
  } else if (!names.empty()) {
    message += "; " + noun + "s served here: " + join(names, ", ");
  }
  throw HttpError(404, message, "model", "model_not_found");
}

}  // namespace

const ServedModel& ServedModels::find(const std::optional<std::string>& name, Role role) const {
  const auto role_of = [](const ServedModel& m) {
    return m.is_reranker() ? Role::kReranker : m.is_sparse() ? Role::kSparse : Role::kEmbedding;
  };
  // BGE-M3 is an embedding model that gives sparse vectors too.
  const auto serves = [&](const ServedModel& m, Role r) {
    return role_of(m) == r || (r == Role::kSparse && m.embedding && m.info().bge_m3.lexical);
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
  const ServedModel* named = nullptr;
  for (const ServedModel& m : models_) {
    if (m.name == *name) named = &m;
  }
  // A pulled folder answers to its repository too, unless another folder has that name.
  for (const ServedModel& m : models_) {
    if (named == nullptr && !m.repository.empty() && m.repository == *name) named = &m;
  }
  for (const ServedModel& m : models_) {
    if (&m != named) continue;
    if (!serves(m, role)) {
      throw HttpError(
          400, "the model `" + *name + "` is " + described(role_of(m)) + ", not " + described(role) + serving_routes(m),
          "model", "model_kind_mismatch");
    }
    return m;
  }
  const std::string noun = described(role);
  not_found(
      models_, *name, [&](const ServedModel& m) { return serves(m, role); }, noun.substr(noun.find(' ') + 1));
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
    throw HttpError(400,
                    "the model `" + *name +
                        "` is not a late-interaction (ColBERT) model; token vectors come from ColBERT models" +
                        serving_routes(m),
                    "model", "model_kind_mismatch");
  }
  return m;
}

const ServedModel& ServedModels::any(const std::optional<std::string>& name) const {
  if (!name || name->empty()) return models_.front();
  for (const ServedModel& m : models_) {
    if (m.name == *name) return m;
  }
  for (const ServedModel& m : models_) {
    if (!m.repository.empty() && m.repository == *name) return m;
  }
  not_found(
      models_, *name, [](const ServedModel&) { return true; }, "model");
}

std::size_t ServedModels::queued() const {
  std::size_t n = 0;
  for (const ServedModel& m : models_) {
    if (m.reranker) n += m.reranker->queued();
    if (m.embedding) n += m.embedding->queued();
    if (m.late) n += m.late->queued();
  }
  return n;
}

void ServedModels::stop() {
  for (ServedModel& m : models_) {
    if (m.reranker) m.reranker->stop();
    if (m.embedding) m.embedding->stop();
    if (m.late) m.late->stop();
  }
}

}  // namespace sieve::server
