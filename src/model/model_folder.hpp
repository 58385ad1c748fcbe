#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/json_file.hpp"
#include "model/modules/module.hpp"
#include "model/modules/pooling_module.hpp"
#include "model/modules/splade_pooling_module.hpp"
#include "sieve/embedder.hpp"

namespace sieve::model {

// A ColBERT model's settings, from config_sentence_transformers.json as
// PyLate writes it (PyLate's defaults where a key is missing).
struct ColbertSettings {
  std::string query_prefix = "[unused0]";  // a token put after the first one; "" for none
  std::string document_prefix = "[unused1]";
  std::size_t query_length = 32;  // tokens, prefix included
  std::size_t document_length = 180;
  bool query_expansion = true;              // queries padded to query_length with the mask token
  bool attend_to_expansion_tokens = false;  // whether the encoder attends to that padding
  // Tokens (as the vocabulary spells them) dropped from documents' vectors.
  std::vector<std::string> skiplist_words;
};

// What a model folder says about itself, read from the files Hugging Face
// optimum and sentence-transformers write. Every field is optional except
// the ONNX file and the tokenizer.
struct ModelFolder {
  std::filesystem::path root;
  std::filesystem::path onnx_file;  // model.onnx or onnx/model.onnx
  std::filesystem::path tokenizer_file;
  // modules.json, in its order; each module was read and checked (a module
  // Sieve would not apply as sentence-transformers does is refused).
  std::vector<std::shared_ptr<const Module>> modules;
  // The Pooling module (via modules.json, or 1_Pooling/config.json alone); null without one.
  std::shared_ptr<const PoolingModule> pooling;
  // SpladePooling after a fill-mask Transformer: a sparse (SPLADE) model.
  std::shared_ptr<const SpladePoolingModule> splade_pooling;
  // The modules after pooling (Dense, LayerNorm, Normalize, ...), in order.
  std::vector<std::shared_ptr<const VectorModule>> vector_modules;
  // A ColBERT (late interaction) model in PyLate's layout: its modules after
  // the Transformer (PyLate's Dense) apply to every token's state.
  std::optional<ColbertSettings> colbert;
  std::vector<std::shared_ptr<const VectorModule>> token_modules;
  bool has_normalize_module = false;  // modules.json lists Normalize
  bool has_sentence_transformers_files = false;
  std::optional<std::size_t> max_seq_length;           // sentence_bert_config.json
  std::optional<std::size_t> model_max_length;         // tokenizer_config.json
  std::optional<std::size_t> max_position_embeddings;  // config.json
  std::optional<std::size_t> hidden_size;              // config.json
  std::optional<std::size_t> vocab_size;               // config.json (a positive integer, else unset)
  std::vector<std::string> architectures;              // config.json
  // config_sentence_transformers.json: named prompts (sorted by name), the one
  // used when the caller names none, and the model's similarity function.
  std::vector<std::pair<std::string, std::string>> prompts;
  std::optional<std::string> default_prompt_name;
  std::optional<std::string> similarity_fn_name;
  // The Pooling module's include_prompt: false means the prompt's tokens
  // are left out of pooling (INSTRUCTOR-style models).
  bool pooling_include_prompt = true;
};

// Reads and checks a model folder's files; an Error names what is wrong
// (or unsupported) and what to do.
ModelFolder read_model_folder(const std::filesystem::path& root);

// The file `sieve pull` leaves in a folder it made (src/hub/manifest.hpp).
inline constexpr const char* kPullManifestName = ".sieve-pull.json";
// The hub repository a pulled folder came from: "org/name", or "org/name-VARIANT" for a variant other than fp32,
// as `sieve pull` names it; empty for a folder without a readable pull manifest.
std::string pulled_repository(const std::filesystem::path& folder);

}  // namespace sieve::model
