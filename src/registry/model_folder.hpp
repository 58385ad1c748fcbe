#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sieve/embedder.hpp"

namespace sieve::registry {

// What a model folder says about itself, read from the files Hugging Face
// optimum and sentence-transformers write. Every field is optional except
// the ONNX file and the tokenizer.
struct ModelFolder {
  std::filesystem::path root;
  std::filesystem::path onnx_file;  // model.onnx or onnx/model.onnx
  std::filesystem::path tokenizer_file;
  std::optional<Pooling> pooling;     // 1_Pooling/config.json (via modules.json)
  bool has_normalize_module = false;  // modules.json lists Normalize
  bool has_sentence_transformers_files = false;
  std::optional<std::size_t> max_seq_length;           // sentence_bert_config.json
  std::optional<std::size_t> model_max_length;         // tokenizer_config.json
  std::optional<std::size_t> max_position_embeddings;  // config.json
  std::optional<std::size_t> hidden_size;              // config.json
  std::vector<std::string> architectures;              // config.json
  // config_sentence_transformers.json: named prompts (sorted by name), the one
  // used when the caller names none, and the model's similarity function.
  std::vector<std::pair<std::string, std::string>> prompts;
  std::optional<std::string> default_prompt_name;
  std::optional<std::string> similarity_fn_name;
  // 1_Pooling/config.json "include_prompt": false means the prompt's tokens
  // are left out of pooling (INSTRUCTOR-style models).
  bool pooling_include_prompt = true;
};

ModelFolder read_model_folder(const std::filesystem::path& root);

// Reads an optional JSON file of a model folder (absent: nullopt); a file
// that is not JSON of the expected type is an error naming it.
std::optional<nlohmann::json> read_json_file(const std::filesystem::path& file,
                                             nlohmann::json::value_t expected = nlohmann::json::value_t::object);

}  // namespace sieve::registry
