#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/reranker.hpp"

namespace sieve {

// Which loader serves a model folder: a coarse view of its ModelType (include/sieve/model_info.hpp), decided by
// model::resolve_model() (src/model/model_spec.hpp) from its ONNX outputs and its config.json "architectures".
enum class ModelKind {
  kEmbedding,        // token states (rank 3), pooled by Sieve
  kPooledEmbedding,  // one vector per input (rank 2, e.g. "sentence_embedding")
  kReranker,         // a cross-encoder: *ForSequenceClassification, logits per pair
  kSparseEmbedding,  // a learned sparse (SPLADE) model: one weight per vocabulary entry
  kLateInteraction,  // a ColBERT model (PyLate's layout): token vectors; reranks by MaxSim, loaded as a Reranker
};
// The kinds loaded as a Reranker (cross-encoders, LLM rerankers, ColBERT).
constexpr bool loads_as_reranker(ModelKind kind) noexcept {
  return kind == ModelKind::kReranker || kind == ModelKind::kLateInteraction;
}
const char* to_string(ModelKind kind) noexcept;

// The kind of the model in `folder`, read from its files without loading it.
// Throws sieve::Error when the folder is not a model folder.
ModelKind detect_model_kind(const std::filesystem::path& folder);

struct RegistryOptions {
  // Upper bound, in bytes, on the estimated memory of the loaded models; 0:
  // no bound. A model's estimate is the size of its ONNX file plus its
  // external data files plus its tokenizer.json: ORT keeps the weights in
  // memory about once, so the file sizes are the dominant term (activations
  // and ORT's arena come on top and are not counted). Least recently used
  // models that nobody holds are evicted to stay under it; models still
  // held are never evicted, so the bound can be exceeded while they are.
  std::size_t memory_budget = 0;
  // Options the models are loaded with (their runtime options included).
  EmbedderOptions embedder;
  RerankerOptions reranker;
  // Sets runtime.shared_thread_pool for both kinds: every model of the
  // registry runs on one process-wide ORT thread pool.
  bool shared_thread_pool = false;
};

// One model of the registry, as list() reports it.
struct RegistryEntry {
  std::string name;  // path under the root, '/'-separated
  // The hub repository `sieve pull` got the folder from ("org/name"), which names the model too; empty when the
  // folder was not pulled.
  std::string repository;
  ModelKind kind = ModelKind::kEmbedding;
  ModelType type = ModelType::kDense;  // what the model is; `kind` groups types by the loader that serves them
  // Embedding size; for a reranker, the number of labels (logits per pair).
  std::size_t dimension = 0;
  std::size_t max_length = 0;
  // Loaded: the providers the session really uses. Not loaded: the ones the
  // options ask for, in order, "cpu" last.
  std::vector<std::string> providers;
  bool loaded = false;
  std::size_t estimated_bytes = 0;
  // Set when the folder could not be described; the other fields are then empty.
  std::string error;
};

// Many models in one process, addressed by name: a name is a folder under
// the models root ("minilm", "org/model"). A model is loaded on first use,
// exactly once however many threads ask for it at the same time, and its
// one ORT session is shared by every caller (runs are thread-safe). The
// handles are shared_ptrs: a model evicted or unloaded stays valid for the
// callers that still hold it and is freed when the last one lets go.
// All member functions are thread-safe.
class ModelRegistry {
 public:
  explicit ModelRegistry(std::filesystem::path root, RegistryOptions options = {});
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;
  ~ModelRegistry();

  // The model `name`, loaded if needed. Throws when the name is invalid, the
  // folder missing, or the model of the other kind.
  [[nodiscard]] std::shared_ptr<const Embedder> embedder(std::string_view name);
  [[nodiscard]] std::shared_ptr<const Reranker> reranker(std::string_view name);
  // Loads a model of either kind (a no-op when it is loaded).
  void load(std::string_view name);

  // Every model folder under the root (a folder with model.onnx or
  // onnx/model.onnx and tokenizer.json), sorted by name; nothing is loaded.
  [[nodiscard]] std::vector<RegistryEntry> list() const;
  // One model, described without loading it.
  [[nodiscard]] RegistryEntry describe(std::string_view name) const;
  // Drops the registry's reference; false when the model was not loaded.
  bool unload(std::string_view name);

  // The folder a name stands for, after validation: not empty, relative, no
  // "." or ".." parts, an existing folder that resolves (symlinks followed)
  // inside the root. Files inside a model folder may link elsewhere (the
  // Hugging Face cache links snapshots to blobs); the folder may not.
  [[nodiscard]] std::filesystem::path resolve(std::string_view name) const;

  [[nodiscard]] const std::filesystem::path& root() const noexcept;
  // Sum of the estimates of the loaded (and loading) models, in bytes.
  [[nodiscard]] std::size_t resident_bytes() const;
  // How many models have been loaded since construction (reloads included).
  [[nodiscard]] std::size_t load_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sieve
