#include <cstring>
#include <string_view>
#include <vector>

#include "capi/handles.hpp"
#include "capi/options.hpp"
#include "capi/status.hpp"
#include "sieve/error.hpp"
#include "sieve/registry.hpp"
#include "sieve/text.hpp"

namespace sieve::capi {
namespace {

const sieve_model& model_of(const sieve_model* model, const char* function) {
  return *require_not_null(model, function, "model is NULL");
}

// The calls that serve a model of `kind`, for a message that refuses another.
const char* serving_calls(sieve_model_kind kind) {
  switch (kind) {
    case SIEVE_KIND_RERANKER: return "sieve_rerank, sieve_score or sieve_classify";
    case SIEVE_KIND_MULTI_VECTOR: return "sieve_rerank or sieve_score";
    case SIEVE_KIND_SPARSE: return "sieve_embed_sparse";
    case SIEVE_KIND_AUTO:
    case SIEVE_KIND_EMBEDDING: break;
  }
  return "sieve_embed";
}

[[noreturn]] void wrong_kind(const sieve_model& m, const char* function, const char* wanted) {
  throw CapiError(SIEVE_WRONG_KIND, std::string(function) + ": " + m.folder + " is " + kind_noun(m.kind) + ", not " +
                                        wanted + ": its results come from " + serving_calls(m.kind));
}

// The dense embedder of sieve_embed and sieve_embed_size.
const Embedder& embedder_of(const sieve_model* model, const char* function) {
  const sieve_model& m = model_of(model, function);
  if (m.kind != SIEVE_KIND_EMBEDDING || !m.embedder) wrong_kind(m, function, "a dense embedding model");
  return *m.embedder;
}

// The sparse embedder of sieve_embed_sparse: a SPLADE model, or BGE-M3's lexical weights.
const Embedder& sparse_embedder_of(const sieve_model* model, const char* function) {
  const sieve_model& m = model_of(model, function);
  if (!m.embedder || (m.kind != SIEVE_KIND_SPARSE && !m.embedder->info().bge_m3.lexical)) {
    wrong_kind(m, function, "a sparse (SPLADE) embedding model");
  }
  return *m.embedder;
}

const Reranker& reranker_of(const sieve_model* model, const char* function) {
  const sieve_model& m = model_of(model, function);
  if (!m.reranker) wrong_kind(m, function, "a reranker");
  return *m.reranker;
}

// The classifier of sieve_classify and sieve_model_label: a reranker-kind model (a ColBERT model scores, but has no
// labels).
const Reranker& classifier_of(const sieve_model* model, const char* function) {
  const sieve_model& m = model_of(model, function);
  if (!m.reranker || m.kind == SIEVE_KIND_MULTI_VECTOR) wrong_kind(m, function, "a classifier");
  return *m.reranker;
}

}  // namespace

// What a kind is called in messages.
const char* kind_noun(sieve_model_kind kind) {
  switch (kind) {
    case SIEVE_KIND_RERANKER: return "a reranker";
    case SIEVE_KIND_SPARSE: return "a sparse (SPLADE) embedding model";
    case SIEVE_KIND_MULTI_VECTOR: return "a late-interaction (ColBERT) model";
    case SIEVE_KIND_AUTO:
    case SIEVE_KIND_EMBEDDING: break;
  }
  return "a dense embedding model";
}

namespace {

// The caller's sparse options (NULL: defaults), checked.
SparseOptions sparse_options(const sieve_sparse_options* options, const char* function) {
  sieve_sparse_options opts;
  sieve_sparse_options_init(&opts, sizeof opts);
  if (options != nullptr) {
    read_versioned(options, options->struct_size, &opts, sizeof opts, function, "sieve_sparse_options");
  }
  // NaN fails this comparison too.
  if (!(opts.min_weight >= 0.0F)) {
    throw CapiError(SIEVE_INVALID_ARGUMENT,
                    std::string(function) + ": min_weight must be 0 or more, not " + std::to_string(opts.min_weight));
  }
  SparseOptions result;
  result.top_k = opts.top_k;
  result.min_weight = opts.min_weight;
  return result;
}

std::vector<std::string_view> views(const sieve_text* texts, std::size_t count, const char* function) {
  require(texts != nullptr || count == 0, function, "texts is NULL");
  std::vector<std::string_view> result;
  result.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    result.push_back(text_view(texts[i], function, ("text " + std::to_string(i)).c_str()));
  }
  return result;
}

void require_capacity(std::size_t needed, std::size_t capacity, const char* function, const char* unit) {
  if (capacity < needed) {
    throw CapiError(SIEVE_BUFFER_TOO_SMALL, std::string(function) + ": the output needs " + std::to_string(needed) +
                                                " " + unit + ", the buffer holds " + std::to_string(capacity));
  }
}

}  // namespace

sieve_model_kind to_kind(ModelKind kind) {
  switch (kind) {
    case ModelKind::kReranker: return SIEVE_KIND_RERANKER;
    // A ColBERT model reranks through the C ABI (MaxSim); token vectors are not exposed there yet.
    case ModelKind::kLateInteraction: return SIEVE_KIND_MULTI_VECTOR;
    case ModelKind::kSparseEmbedding: return SIEVE_KIND_SPARSE;
    case ModelKind::kEmbedding:
    case ModelKind::kPooledEmbedding: return SIEVE_KIND_EMBEDDING;
  }
  return SIEVE_KIND_EMBEDDING;
}

std::string join_comma(const std::vector<std::string>& values) {
  return join(values, ",");
}

std::unique_ptr<sieve_model> make_model(std::shared_ptr<const Embedder> embedder,
                                        std::shared_ptr<const Reranker> reranker) {
  auto model = std::make_unique<sieve_model>();
  const ModelInfo& info = embedder ? embedder->info() : reranker->info();
  model->kind = reranker ? (reranker->is_late_interaction() ? SIEVE_KIND_MULTI_VECTOR : SIEVE_KIND_RERANKER)
                : info.output_kind == OutputKind::kSparse ? SIEVE_KIND_SPARSE
                                                          : SIEVE_KIND_EMBEDDING;
  model->tokenizer.tokenizer = embedder ? &embedder->tokenizer() : &reranker->tokenizer();
  model->pooling = embedder ? pooling_name(info) : "";
  model->providers = join_comma(info.providers);
  model->folder = info.folder.string();
  model->onnx_file = info.onnx_file.string();
  model->embedder = std::move(embedder);
  model->reranker = std::move(reranker);
  return model;
}

}  // namespace sieve::capi

using sieve::capi::CapiError;
using sieve::capi::guarded;
using sieve::capi::require;

extern "C" {

sieve_status* sieve_model_load(const char* folder, const sieve_model_options* options, sieve_model** out) {
  static constexpr const char* kFunction = "sieve_model_load";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    require(folder != nullptr, kFunction, "folder is NULL");
    const sieve_model_options opts = sieve::capi::read_model_options(options, kFunction);
    const sieve_model_kind kind = sieve::capi::to_kind(sieve::detect_model_kind(folder));
    // Asking for a kind is asking to fail early, before a model of another
    // kind is loaded for nothing.
    // A ColBERT model reranks: asking for a reranker accepts one.
    const bool reranks = kind == SIEVE_KIND_RERANKER || kind == SIEVE_KIND_MULTI_VECTOR;
    if (opts.kind != SIEVE_KIND_AUTO && opts.kind != kind && !(opts.kind == SIEVE_KIND_RERANKER && reranks)) {
      throw CapiError(SIEVE_WRONG_KIND, std::string(kFunction) + ": " + folder + " holds " +
                                            sieve::capi::kind_noun(kind) + ", not " +
                                            sieve::capi::kind_noun(opts.kind));
    }
    std::unique_ptr<sieve_model> model;
    if (!reranks) {
      auto embedder =
          std::make_shared<const sieve::Embedder>(sieve::Embedder::load(folder, sieve::capi::embedder_options(opts)));
      model = sieve::capi::make_model(std::move(embedder), nullptr);
    } else {
      auto reranker =
          std::make_shared<const sieve::Reranker>(sieve::Reranker::load(folder, sieve::capi::reranker_options(opts)));
      model = sieve::capi::make_model(nullptr, std::move(reranker));
    }
    *out = model.release();
  });
}

void sieve_model_destroy(sieve_model* model) {
  delete model;
}

sieve_status* sieve_model_get_info(const sieve_model* model, sieve_model_info* info) {
  static constexpr const char* kFunction = "sieve_model_get_info";
  return guarded(kFunction, [&] {
    const sieve_model& m = sieve::capi::model_of(model, kFunction);
    require(info != nullptr, kFunction, "info is NULL");
    const sieve::ModelInfo& source = m.embedder ? m.embedder->info() : m.reranker->info();
    sieve_model_info result{};
    result.struct_size = sizeof result;
    result.kind = m.kind;
    // A pair scorer's dimension is its number of labels (sieve.h).
    result.dimension = m.embedder ? source.dimension : m.reranker->num_labels();
    result.max_length = source.max_length;
    result.normalize = m.embedder && source.normalize ? 1 : 0;
    result.pooling = m.pooling.c_str();
    result.providers = m.providers.c_str();
    result.folder = m.folder.c_str();
    result.onnx_file = m.onnx_file.c_str();
    sieve::capi::write_versioned(info, &result, sizeof result, kFunction, "sieve_model_info");
  });
}

sieve_status* sieve_embed_size(const sieve_model* model, size_t count, size_t* out_floats) {
  static constexpr const char* kFunction = "sieve_embed_size";
  return guarded(kFunction, [&] {
    const sieve::Embedder& embedder = sieve::capi::embedder_of(model, kFunction);
    require(out_floats != nullptr, kFunction, "out_floats is NULL");
    const std::size_t dimension = embedder.info().dimension;
    require(dimension == 0 || count <= SIZE_MAX / dimension, kFunction, "count * dimension overflows size_t");
    *out_floats = count * dimension;
  });
}

sieve_status* sieve_embed(const sieve_model* model, const sieve_text* texts, size_t count, float* out,
                          size_t out_capacity) {
  static constexpr const char* kFunction = "sieve_embed";
  return guarded(kFunction, [&] {
    const sieve::Embedder& embedder = sieve::capi::embedder_of(model, kFunction);
    const std::size_t dimension = embedder.info().dimension;
    require(dimension == 0 || count <= SIZE_MAX / dimension, kFunction, "count * dimension overflows size_t");
    const std::size_t needed = count * dimension;
    sieve::capi::require_capacity(needed, out_capacity, kFunction, "floats");
    require(out != nullptr || needed == 0, kFunction, "out is NULL");
    const auto inputs = sieve::capi::views(texts, count, kFunction);
    if (needed == 0) return;  // no texts (a model has at least one dimension)
    const sieve::Embeddings embeddings = embedder.embed(std::span<const std::string_view>(inputs));
    std::memcpy(out, embeddings.data.data(), needed * sizeof(float));
  });
}

void sieve_sparse_options_init(sieve_sparse_options* options, size_t struct_size) {
  if (options == nullptr || struct_size < sizeof(std::size_t)) return;
  const sieve_sparse_options defaults{};
  sieve::capi::init_versioned(options, struct_size, &defaults, sizeof defaults);
}

sieve_status* sieve_embed_sparse(const sieve_model* model, const sieve_text* texts, size_t count,
                                 const sieve_sparse_options* options, sieve_sparse_embeddings** out) {
  static constexpr const char* kFunction = "sieve_embed_sparse";
  return guarded(kFunction, [&] {
    require(out != nullptr, kFunction, "out is NULL");
    *out = nullptr;
    const sieve::Embedder& embedder = sieve::capi::sparse_embedder_of(model, kFunction);
    const sieve::SparseOptions opts = sieve::capi::sparse_options(options, kFunction);
    const auto inputs = sieve::capi::views(texts, count, kFunction);
    auto result = std::make_unique<sieve_sparse_embeddings>();
    if (count > 0) result->vectors = embedder.embed_sparse(std::span<const std::string_view>(inputs), opts);
    *out = result.release();
  });
}

size_t sieve_sparse_embeddings_count(const sieve_sparse_embeddings* embeddings) {
  return embeddings ? embeddings->vectors.size() : 0;
}

sieve_status* sieve_sparse_embeddings_get(const sieve_sparse_embeddings* embeddings, size_t index, const uint32_t** ids,
                                          const float** weights, size_t* size) {
  static constexpr const char* kFunction = "sieve_sparse_embeddings_get";
  return guarded(kFunction, [&] {
    require(embeddings != nullptr, kFunction, "embeddings is NULL");
    require(ids != nullptr, kFunction, "ids is NULL");
    require(weights != nullptr, kFunction, "weights is NULL");
    require(size != nullptr, kFunction, "size is NULL");
    if (index >= embeddings->vectors.size()) {
      throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(kFunction) + ": index " + std::to_string(index) +
                                                  " is past the list's " + std::to_string(embeddings->vectors.size()) +
                                                  " vectors");
    }
    const sieve::SparseVector& vector = embeddings->vectors[index];
    const bool empty = vector.ids.empty();
    *ids = empty ? nullptr : vector.ids.data();
    *weights = empty ? nullptr : vector.weights.data();
    *size = vector.ids.size();
  });
}

void sieve_sparse_embeddings_destroy(sieve_sparse_embeddings* embeddings) {
  delete embeddings;
}

sieve_status* sieve_score(const sieve_model* model, sieve_text query, const sieve_text* documents, size_t count,
                          float* scores, size_t scores_capacity) {
  static constexpr const char* kFunction = "sieve_score";
  return guarded(kFunction, [&] {
    const sieve::Reranker& reranker = sieve::capi::reranker_of(model, kFunction);
    sieve::capi::require_capacity(count, scores_capacity, kFunction, "scores");
    require(scores != nullptr || count == 0, kFunction, "scores is NULL");
    const std::string_view q = sieve::capi::text_view(query, kFunction, "query");
    const auto docs = sieve::capi::views(documents, count, kFunction);
    if (count == 0) return;
    const std::vector<float> result = reranker.score(q, docs);
    std::memcpy(scores, result.data(), count * sizeof(float));
  });
}

sieve_status* sieve_rerank(const sieve_model* model, sieve_text query, const sieve_text* documents, size_t count,
                           size_t top_k, sieve_rerank_result* results, size_t results_capacity, size_t* out_count) {
  static constexpr const char* kFunction = "sieve_rerank";
  return guarded(kFunction, [&] {
    const sieve::Reranker& reranker = sieve::capi::reranker_of(model, kFunction);
    require(out_count != nullptr, kFunction, "out_count is NULL");
    *out_count = 0;
    const std::size_t needed = top_k == 0 ? count : std::min(count, top_k);
    sieve::capi::require_capacity(needed, results_capacity, kFunction, "results");
    require(results != nullptr || needed == 0, kFunction, "results is NULL");
    const std::string_view q = sieve::capi::text_view(query, kFunction, "query");
    const auto docs = sieve::capi::views(documents, count, kFunction);
    if (count == 0) return;
    const std::vector<sieve::RerankResult> ranked = reranker.rerank(q, docs, top_k);
    for (std::size_t i = 0; i < ranked.size(); ++i) results[i] = sieve_rerank_result{ranked[i].index, ranked[i].score};
    *out_count = ranked.size();
  });
}

sieve_status* sieve_classify(const sieve_model* model, const sieve_text* texts, const sieve_text* pairs, size_t count,
                             int32_t raw_scores, float* out, size_t out_capacity) {
  static constexpr const char* kFunction = "sieve_classify";
  return guarded(kFunction, [&] {
    const sieve::Reranker& reranker = sieve::capi::classifier_of(model, kFunction);
    const std::size_t labels = reranker.num_labels();
    require(count <= SIZE_MAX / labels, kFunction, "count * labels overflows size_t");
    const std::size_t needed = count * labels;
    sieve::capi::require_capacity(needed, out_capacity, kFunction, "floats");
    require(out != nullptr || needed == 0, kFunction, "out is NULL");
    const auto firsts = sieve::capi::views(texts, count, kFunction);
    if (count == 0) return;
    std::vector<float> scores;
    if (pairs == nullptr) {
      scores = reranker.classify(std::span<const std::string_view>(firsts), raw_scores != 0);
    } else {
      const auto seconds = sieve::capi::views(pairs, count, kFunction);
      std::vector<sieve::TextPair> both(count);
      for (std::size_t i = 0; i < count; ++i) both[i] = {firsts[i], seconds[i]};
      scores = reranker.classify(std::span<const sieve::TextPair>(both), raw_scores != 0);
    }
    std::memcpy(out, scores.data(), needed * sizeof(float));
  });
}

sieve_status* sieve_model_label(const sieve_model* model, size_t index, const char** out) {
  static constexpr const char* kFunction = "sieve_model_label";
  return guarded(kFunction, [&] {
    const sieve::Reranker& reranker = sieve::capi::classifier_of(model, kFunction);
    require(out != nullptr, kFunction, "out is NULL");
    const auto& labels = reranker.labels();
    if (index >= labels.size()) {
      const std::string what =
          "index: label " + std::to_string(index) + " does not exist; the model has " + std::to_string(labels.size());
      sieve::capi::throw_invalid_argument(kFunction, what.c_str());
    }
    *out = labels[index].c_str();
  });
}

const sieve_tokenizer* sieve_model_tokenizer(const sieve_model* model) {
  return model == nullptr ? nullptr : &model->tokenizer;
}

}  // extern "C"
