#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model_folder.hpp"
#include "sieve/registry.hpp"

namespace sieve::model {

// A graph input or output as the ONNX file declares it; -1 marks a
// dynamic axis. elem_type is ONNX's TensorProto.DataType (1 float, 10 float16, 6 int32,
// 7 int64).
struct OnnxTensor {
  std::string name;
  int elem_type = 0;
  std::vector<std::int64_t> shape;
};

// What the registry needs of an ONNX file without loading it into ONNX
// Runtime: the graph's inputs and outputs and the external data files its
// initializers name. Read straight from the protobuf wire format, seeking
// over node and weight payloads, so it costs a few reads even for large files.
struct OnnxSummary {
  std::vector<OnnxTensor> inputs;
  std::vector<OnnxTensor> outputs;
  std::vector<std::filesystem::path> external_data;  // unique, relative to the ONNX file's folder
  std::map<std::string, int> operators;              // op_type -> nodes in the main graph
  // How many token ids input_ids may hold: the rows of the embedding matrix
  // the graph looks them up in (an initializer that a Gather, or a fused
  // EmbedLayerNormalization, indexes with input_ids, possibly through a
  // Cast or a reshape, and possibly quantized); the smallest where several
  // do. Unset when the graph does not tell (no such lookup, or a computed
  // table). `id_table` names the initializer and its shape.
  std::optional<std::uint64_t> id_vocabulary;
  std::string id_table;
};

OnnxSummary read_onnx_summary(const std::filesystem::path& onnx_file);

// The kind: late interaction for a ColBERT (PyLate) folder; a reranker where llm_reranker.json describes a prompted
// causal LM; else from config.json "architectures" (*ForSequenceClassification is a cross-encoder); a sparse (SPLADE)
// model where modules.json has SpladePooling or the graph gives "sparse_embedding"; and then from the outputs: a rank-2
// float output "sentence_embedding" is a pooled embedding, a rank-3 float output token states, a lone rank-2 "logits" a
// cross-encoder, any other rank-2 float output a pooled embedding.
ModelKind detect_kind(const ModelFolder& folder, const OnnxSummary& onnx);

// A folder detect_kind finds a reranker (ModelKind::kReranker), in words for a message that refuses it elsewhere: "an
// LLM reranker (llm_reranker.json)", "a cross-encoder or classifier (config.json: BertForSequenceClassification)" or
// "a cross-encoder (its graph gives logits)".
std::string describe_reranker(const ModelFolder& folder);

// The most tokens an input of a model of `kind` may have, decided one way for the registry (before loading) and the
// loaders: `requested` when given (an Error, kInvalidArgument, when it exceeds config.json's max_position_embeddings);
// else the model card's (a ColBERT model's document_length, an LLM reranker's max_length); else, for an embedding
// model, sentence-transformers' max_seq_length (a cross-encoder truncates as CrossEncoder does, to the tokenizer's
// limit); else tokenizer_config.json's model_max_length; else the positions; else 512. Never above the positions.
std::size_t resolve_max_length(const ModelFolder& folder, ModelKind kind, std::optional<std::size_t> requested);

// Estimated memory of a loaded model in bytes: the ONNX file, its external
// data and tokenizer.json, by file size (see RegistryOptions::memory_budget).
std::size_t estimate_bytes(const ModelFolder& folder, const OnnxSummary& onnx);

}  // namespace sieve::model
