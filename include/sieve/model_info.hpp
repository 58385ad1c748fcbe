#pragma once

// What Sieve knows about a model: its type, decided once from the folder (src/model/model_spec.hpp), and what a
// loaded model tells (Embedder::info(), Reranker::info()).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve {

// What a model is, decided once from its folder and its graph's outputs (src/model/model_spec.hpp): every entry point
// (the libraries, the CLI, the server, the C ABI and the bindings) asks it and refuses what the type cannot serve.
// The registry's ModelKind and the C ABI's sieve_model_kind are coarser views of it.
enum class ModelType {
  kDense,         // one vector per text: token states pooled by Sieve, or pooled by the graph
  kSparse,        // a learned sparse (SPLADE) model: a weight per vocabulary entry
  kMultiVector,   // a ColBERT model (PyLate's layout): a vector per token; reranks by MaxSim
  kBgeM3,         // BGE-M3: dense vectors, and lexical weights and token vectors from the same run
  kCrossEncoder,  // a sequence classifier with one label: a relevance score per (query, document) pair
  kClassifier,    // a sequence classifier with several labels (sentiment, NLI, ...); it reranks by a chosen label
  kLlmReranker,   // a causal LM prompted for "yes" or "no" (llm_reranker.json)
};
// "dense", "sparse", "multi-vector", "bge-m3", "cross-encoder", "classifier", "llm-reranker".
const char* to_string(ModelType type) noexcept;

// The types that give vectors (Embedder), and those that score texts or pairs of texts (Reranker).
constexpr bool gives_vectors(ModelType type) noexcept {
  return type == ModelType::kDense || type == ModelType::kSparse || type == ModelType::kMultiVector ||
         type == ModelType::kBgeM3;
}

// What a model gives for one input: a dense vector, a learned sparse one
// with a weight per vocabulary entry (SPLADE), or a vector per token (ColBERT,
// late interaction).
enum class OutputKind { kDense, kSparse, kMultiVector };

// How token states become one vector, as sentence-transformers' Pooling module.
enum class Pooling { kMean, kCls, kMax, kMeanSqrtLen, kLastToken, kWeightedMean };
const char* to_string(Pooling pooling) noexcept;
Pooling parse_pooling(std::string_view name);

// How a sparse (SPLADE) model turns masked-language-model logits into one
// weight per vocabulary entry, as sentence-transformers' SpladePooling:
// log1p(relu(logit)) (log1p twice with double_log, its "log1p_relu"),
// pooled over the real tokens by max, or by sum.
struct SparsePooling {
  bool sum = false;
  bool double_log = false;
};

// How a late-interaction (ColBERT) model encodes, from its PyLate configuration.
struct MultiVectorInfo {
  std::string query_prefix;  // marker token after the first one ("" for none)
  std::string document_prefix;
  std::size_t query_length = 0;  // tokens, marker included
  std::size_t document_length = 0;
  bool query_expansion = false;  // queries padded to query_length with the mask token, which count
  bool attend_to_expansion_tokens = false;
  std::size_t skiplist_tokens = 0;  // token ids left out of documents' vectors
};

// How a cross-encoder's logits become one score per pair, as
// sentence-transformers' CrossEncoder does it.
enum class ScoreActivation {
  kAuto,     // the model's configuration decides (sigmoid for one label, as CrossEncoder's default)
  kNone,     // raw logit
  kSigmoid,  // one label
  kSoftmax,  // several labels: the chosen label's probability
};
const char* to_string(ScoreActivation activation) noexcept;
// "auto", "none" (also "identity", "raw"), "sigmoid", "softmax".
ScoreActivation parse_score_activation(std::string_view name);

struct TensorInfo {
  std::string name;
  std::string type;                 // "float32", "int64", ...
  std::vector<std::int64_t> shape;  // -1: dynamic
};

// Dense vectors (dense models and BGE-M3's dense vectors): how token states become one vector, and the prompts.
struct DenseInfo {
  Pooling pooling = Pooling::kMean;  // meaningful when not pooled_by_model: the first of pooling_modes
  // Every mode of the model's Pooling module, in order: their vectors are
  // concatenated, as sentence-transformers does. One mode for most models.
  std::vector<Pooling> pooling_modes{Pooling::kMean};
  // From config_sentence_transformers.json (prompts sorted by name).
  std::vector<std::pair<std::string, std::string>> prompts;
  std::optional<std::string> default_prompt_name;
  std::string similarity_fn_name = "cosine";
  std::string prompt;             // the prompt put before every input ("" for none)
  std::size_t prompt_length = 0;  // its tokens left out of pooling (include_prompt false), else 0
};

// BGE-M3's export: beside its dense vectors, per-token sparse weights ("sparse_weights") and ColBERT vectors
// ("colbert_vectors") from the same run; Embedder::embed_sparse() and embed_tokens() read those.
struct BgeM3Info {
  bool lexical = false;             // the graph gives the lexical (sparse) weights
  bool token_vectors = false;       // the graph gives the token vectors
  std::size_t token_dimension = 0;  // of the token vectors, with token_vectors
};

// Models that score a text or a pair of texts (cross-encoders, classifiers, LLM rerankers).
struct PairInfo {
  // Logits per input: 1 for a cross-encoder, one per class for a classifier, 2 ("no" and "yes") for an LLM
  // reranker.
  std::size_t labels = 0;
  std::vector<std::string> label_names;                    // config.json's id2label ("LABEL_<i>" where it has none)
  std::size_t label = 0;                                   // the label whose score rerank() reports
  ScoreActivation activation = ScoreActivation::kSigmoid;  // rerank()'s, never kAuto
  ScoreActivation classification_activation = ScoreActivation::kSoftmax;  // classify()'s, never kAuto
  bool llm = false;  // a causal LM scored by its "yes" and "no" logits (llm_reranker.json)
};

// What a loaded model is: the part every model has, the part every model that gives vectors has, and each type's
// own part. A part that does not apply to the model's type (`type` says which do) keeps its defaults: no field
// means one thing for one type and another thing for another.
// The nodes of a model's graph one execution provider runs (after ONNX Runtime's basic optimizations).
struct ProviderNodes {
  std::string provider;  // Sieve's name: "cpu", "openvino", ...
  std::size_t nodes = 0;
  // Groups the provider compiles as one unit (OpenVINO: one per contiguous part of the graph it takes); for a
  // provider that runs node by node (CPU), one per node.
  std::size_t subgraphs = 0;
  std::map<std::string, std::size_t> operators;  // node count per operator type
  // Empty where ONNX Runtime placed the nodes. Otherwise what ran the whole ONNX graph itself ("OpenVINO runtime
  // 2026.4.1 on CPU at bf16"), and the nodes and operators are the ONNX file's.
  std::string engine;
};

// One line for `sieve info` and the log: "openvino: 352 nodes in 1 subgraph" or "cpu: 8 nodes (Attention 6,
// Gather 2)"; a provider that took no node says so.
std::string describe_nodes(const ProviderNodes& nodes);

struct ModelInfo {
  // Every model.
  std::filesystem::path folder;
  std::filesystem::path onnx_file;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  ModelType type = ModelType::kDense;  // what the model is
  std::string output;                  // the output Sieve reads
  std::size_t max_length = 0;
  std::vector<std::string> providers;
  // How ONNX Runtime placed the graph's nodes, one entry per provider in use; a node a provider does not
  // take runs on the next (CPU last).
  std::vector<ProviderNodes> partition;
  int intra_op_threads = 0;
  std::string onnxruntime_version;
  // The graph's fused transformer operators (Attention, SkipLayerNormalization,
  // BiasGelu, ...) with their node counts, as the ONNX file holds them.
  std::vector<std::pair<std::string, int>> fused_operators;
  // Non-empty when the graph's attention is left unfused: what and how to fix it.
  std::string fusion_note;
  // A quantized variant's accuracy as `sieve-export quantize` measured and recorded it in the folder
  // (sieve_accuracy.json), one line; empty without a record. `accuracy_below_threshold`: the variant was
  // written (--force) although it fell below its threshold; loading it logs a warning.
  std::string recorded_accuracy;
  bool accuracy_below_threshold = false;

  // Models that give vectors (dense, sparse, multi-vector, BGE-M3); zero or empty for the others.
  OutputKind output_kind = OutputKind::kDense;
  // The width of each vector the model gives: a dense vector's (after --dimensions), a sparse model's vocabulary,
  // a multi-vector model's token vector.
  std::size_t dimension = 0;
  std::size_t model_dimension = 0;  // before truncation
  bool pooled_by_model = false;     // the output is already one vector per input
  bool normalize = false;
  // What the model folder's modules.json applies, in order, one line each
  // ("Pooling mean", "Dense 768 -> 256, bias, Tanh", ...); empty without one.
  std::vector<std::string> modules;

  // Each type's own part.
  DenseInfo dense;               // kDense, kBgeM3
  SparsePooling sparse_pooling;  // kSparse: Sieve pools by it when the graph does not
  MultiVectorInfo multi_vector;  // kMultiVector
  BgeM3Info bge_m3;              // kBgeM3
  PairInfo pairs;                // kCrossEncoder, kClassifier, kLlmReranker
};

// "model" when the model pools, else its modes joined by '+' ("cls+mean"),
// or a sparse model's "splade max" / "splade sum".
std::string pooling_name(const ModelInfo& info);

}  // namespace sieve
