#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/head_config.hpp"
#include "model/llm_reranker.hpp"
#include "model/model_folder.hpp"
#include "model/onnx_summary.hpp"
#include "sieve/registry.hpp"

namespace sieve::model {

// Every kind of model Sieve runs (the public ModelType). A model's kind is decided once, by resolve_model(); the
// registry's ModelKind, the C ABI's sieve_model_kind, the server's roles and `sieve info` are views of it.
using Kind = ModelType;

// "a dense embedding model", "a cross-encoder", ... for messages.
const char* kind_noun(Kind kind) noexcept;
// The commands that serve a model of `kind`, for a message that refuses another: "sieve embed, sieve similarity or
// sieve index", "sieve embed --sparse", "sieve rerank", ...
const char* kind_commands(Kind kind) noexcept;
// The kinds loaded as a Reranker (pair scorers, and ColBERT models, which rerank by MaxSim).
bool loads_as_reranker(Kind kind) noexcept;
// The kinds that score (query, document) pairs with a head (cross-encoders, classifiers, LLM rerankers).
bool scores_pairs(Kind kind) noexcept;

// What the caller decides about a model, beside its folder.
struct SpecOptions {
  std::optional<std::size_t> max_length;
  std::optional<Pooling> pooling;  // a dense model's pooling instead of the folder's
};

// What a model folder is and how Sieve runs it, decided from its files and its graph's outputs.
struct ModelSpec {
  Kind kind = Kind::kDense;
  // The graph output the model's head reads (its index among the graph's outputs) and its name.
  std::size_t output = 0;
  std::string output_name;
  // The output is one row per input (a pooled vector, a sparse vector or a pair's logits), not one per token.
  bool pooled_by_model = false;
  // The output's last axis: its width where fixed, else config.json's hidden_size (a SPLADE model's vocabulary);
  // 0: not known.
  std::size_t graph_width = 0;
  // What the model gives: a dense vector's width after its modules (before truncation), a sparse model's vocabulary,
  // a ColBERT token vector's width, or a pair scorer's number of labels.
  std::size_t dimension = 0;
  std::size_t max_length = 0;

  // Dense kinds: the pooling modes (their vectors concatenated) and the modules Sieve applies to each pooled vector:
  // modules.json's vector modules less a trailing Normalize (trailing_normalize) or Dropout.
  std::vector<Pooling> pooling_modes;
  std::vector<const VectorModule*> vector_modules;
  bool trailing_normalize = false;
  // kMultiVector: the modules applied to each token's vector (PyLate's Dense).
  std::vector<const VectorModule*> token_modules;
  // kBgeM3: the lexical weights ("sparse_weights") and token vectors ("colbert_vectors") beside the token states.
  std::optional<std::size_t> sparse_output;
  std::optional<std::size_t> token_output;
  std::size_t token_dimension = 0;  // of the token vectors; 0: not known
  // Pair scorers: config.json's head, and an LLM reranker's prompt.
  HeadConfig head;
  std::optional<LlmRerankerConfig> llm;

  // The registry's view of the kind.
  [[nodiscard]] ModelKind public_kind() const noexcept;
};

// The kind as the files tell it before resolve_model() checks them; every pair scorer is kCrossEncoder here (the
// labels, counted later, tell a classifier). Enough to choose the loader.
Kind detect_kind(const ModelFolder& folder, const OnnxSummary& onnx);

// The registry's view of the kind as the files tell it (detect_kind(), and for a dense model whether its graph
// pools), without the checks resolve_model() makes.
ModelKind public_kind(const ModelFolder& folder, const OnnxSummary& onnx);

// Decides what the model in `folder` is from its files and its graph's outputs (as read_onnx_summary() reads them):
// the kind, the output and heads it reads, max length, dimension or labels, pooling. The registry calls it before
// loading and the loaders when loading, so that they cannot disagree. A folder Sieve cannot run as any kind, or
// whose files and graph disagree, is an Error that says what is wrong and what to do.
ModelSpec resolve_model(const ModelFolder& folder, const OnnxSummary& onnx, const SpecOptions& options = {});

// The most tokens an input of a model of `kind` may have: `requested` when given (an Error, kInvalidArgument, when
// it exceeds config.json's max_position_embeddings); else the model card's (a ColBERT model's document_length, an
// LLM reranker's max_length); else, for an embedding model, sentence-transformers' max_seq_length (a cross-encoder
// truncates as CrossEncoder does, to the tokenizer's limit); else tokenizer_config.json's model_max_length; else the
// positions; else 512. Never above the positions.
std::size_t resolve_max_length(const ModelFolder& folder, Kind kind, const std::optional<LlmRerankerConfig>& llm,
                               std::optional<std::size_t> requested);

// The graph's outputs, for messages: " logits:float32[?, 2] ...".
std::string describe_outputs(const OnnxSummary& onnx);

// The model's kind in words, with what told it, for a message that refuses it: "an LLM reranker
// (llm_reranker.json)", "a cross-encoder or classifier (config.json: BertForSequenceClassification)", "a
// cross-encoder (its graph gives logits)", "a sparse (SPLADE) model", ...
std::string describe_kind(const ModelFolder& folder, Kind kind);

}  // namespace sieve::model
