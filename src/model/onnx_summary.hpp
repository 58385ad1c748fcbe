#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model_folder.hpp"

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

// Estimated memory of a loaded model in bytes: the ONNX file, its external
// data and tokenizer.json, by file size (see RegistryOptions::memory_budget).
std::size_t estimate_bytes(const ModelFolder& folder, const OnnxSummary& onnx);

}  // namespace sieve::model
