#include "registry/model_folder.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "sieve/error.hpp"

namespace sieve::registry {
namespace {

namespace fs = std::filesystem;

std::optional<std::size_t> positive_int(const nlohmann::json& doc, const char* key, const fs::path& file) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) {
    throw Error(ErrorCode::kParse, file.string() + ": /" + key + ": expected a positive integer");
  }
  return static_cast<std::size_t>(it->get<std::int64_t>());
}

bool flag(const nlohmann::json& doc, const char* key, const fs::path& file) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return false;
  if (!it->is_boolean()) throw Error(ErrorCode::kParse, file.string() + ": /" + key + ": expected a boolean");
  return it->get<bool>();
}

Pooling read_pooling(const fs::path& file, bool& include_prompt) {
  const auto doc = read_json_file(file);
  if (!doc)
    throw Error(ErrorCode::kNotFound, file.string() + ": pooling configuration named in modules.json is missing");
  // sentence-transformers' Pooling defaults include_prompt to true.
  if (auto it = doc->find("include_prompt"); it != doc->end() && !it->is_null()) {
    if (!it->is_boolean()) throw Error(ErrorCode::kParse, file.string() + ": /include_prompt: expected a boolean");
    include_prompt = it->get<bool>();
  }
  if (auto mode = doc->find("pooling_mode"); mode != doc->end() && mode->is_string()) {
    return parse_pooling(mode->get<std::string>());
  }
  if (flag(*doc, "pooling_mode_cls_token", file)) return Pooling::kCls;
  if (flag(*doc, "pooling_mode_max_tokens", file)) return Pooling::kMax;
  if (flag(*doc, "pooling_mode_mean_sqrt_len_tokens", file)) return Pooling::kMeanSqrtLen;
  if (flag(*doc, "pooling_mode_lasttoken", file)) return Pooling::kLastToken;
  if (flag(*doc, "pooling_mode_weightedmean_tokens", file)) {
    throw Error(ErrorCode::kUnsupported, file.string() + ": weighted-mean pooling is not supported");
  }
  if (flag(*doc, "pooling_mode_mean_tokens", file)) return Pooling::kMean;
  throw Error(ErrorCode::kParse, file.string() + ": no pooling mode is enabled");
}

std::optional<std::string> optional_string(const nlohmann::json& doc, const char* key, const fs::path& file) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw Error(ErrorCode::kParse, file.string() + ": /" + key + ": expected a string");
  return it->get<std::string>();
}

// The prompts sentence-transformers' encode(prompt_name=...) looks up.
void read_prompts(const fs::path& file, ModelFolder& folder) {
  const auto doc = read_json_file(file);
  if (!doc) return;
  if (auto it = doc->find("prompts"); it != doc->end() && !it->is_null()) {
    if (!it->is_object()) throw Error(ErrorCode::kParse, file.string() + ": /prompts: expected an object");
    for (const auto& [name, text] : it->items()) {
      if (!text.is_string()) {
        throw Error(ErrorCode::kParse, file.string() + ": /prompts/" + name + ": expected a string");
      }
      folder.prompts.emplace_back(name, text.get<std::string>());
    }
  }
  folder.default_prompt_name = optional_string(*doc, "default_prompt_name", file);
  if (folder.default_prompt_name) {
    const bool known = std::any_of(folder.prompts.begin(), folder.prompts.end(),
                                   [&](const auto& p) { return p.first == *folder.default_prompt_name; });
    // sentence-transformers refuses such a configuration when it loads the model.
    if (!known) {
      throw Error(ErrorCode::kParse, file.string() + ": /default_prompt_name: \"" + *folder.default_prompt_name +
                                         "\" is not one of the prompts");
    }
  }
  folder.similarity_fn_name = optional_string(*doc, "similarity_fn_name", file);
}

}  // namespace

std::optional<nlohmann::json> read_json_file(const std::filesystem::path& file, nlohmann::json::value_t expected) {
  if (!fs::exists(file)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, file.string() + ": cannot open");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorCode::kParse, file.string() + ": invalid JSON at byte " + std::to_string(e.byte));
  }
  if (doc.type() != expected) {
    throw Error(ErrorCode::kParse, file.string() + ": expected a JSON " +
                                       (expected == nlohmann::json::value_t::array ? "array" : "object"));
  }
  return doc;
}

ModelFolder read_model_folder(const fs::path& root) {
  if (!fs::is_directory(root)) throw Error(ErrorCode::kNotFound, root.string() + ": model folder not found");
  ModelFolder folder;
  folder.root = root;
  for (const auto* candidate : {"model.onnx", "onnx/model.onnx"}) {
    if (fs::is_regular_file(root / candidate)) {
      folder.onnx_file = root / candidate;
      break;
    }
  }
  if (folder.onnx_file.empty()) {
    throw Error(ErrorCode::kNotFound,
                (root / "model.onnx").string() + ": no model.onnx (nor onnx/model.onnx) in the folder");
  }
  folder.tokenizer_file = root / "tokenizer.json";
  if (!fs::is_regular_file(folder.tokenizer_file)) {
    throw Error(ErrorCode::kNotFound, folder.tokenizer_file.string() + ": tokenizer.json is missing");
  }

  const fs::path modules_file = root / "modules.json";
  if (const auto modules_doc = read_json_file(modules_file, nlohmann::json::value_t::array)) {
    const auto& modules = *modules_doc;
    folder.has_sentence_transformers_files = true;
    for (std::size_t i = 0; i < modules.size(); ++i) {
      const auto& m = modules[i];
      if (!m.is_object() || !m.contains("type") || !m["type"].is_string()) {
        throw Error(ErrorCode::kParse,
                    modules_file.string() + ": /" + std::to_string(i) + ": expected {\"type\": ...}");
      }
      const std::string type = m["type"].get<std::string>();
      const std::string path = m.value("path", std::string());
      if (type.ends_with(".Pooling")) {
        folder.pooling = read_pooling(root / path / "config.json", folder.pooling_include_prompt);
      } else if (type.ends_with(".Normalize")) {
        folder.has_normalize_module = true;
      }
    }
  } else if (fs::exists(root / "1_Pooling/config.json")) {
    folder.pooling = read_pooling(root / "1_Pooling/config.json", folder.pooling_include_prompt);
  }

  if (const auto st = read_json_file(root / "sentence_bert_config.json")) {
    folder.max_seq_length = positive_int(*st, "max_seq_length", root / "sentence_bert_config.json");
  }
  if (const auto tc = read_json_file(root / "tokenizer_config.json")) {
    const auto it = tc->find("model_max_length");
    // Tokenizers without a limit store a huge sentinel (1e30) here.
    if (it != tc->end() && it->is_number_integer() && it->get<std::int64_t>() > 0 &&
        it->get<std::int64_t>() < 1'000'000) {
      folder.model_max_length = static_cast<std::size_t>(it->get<std::int64_t>());
    }
  }
  if (const auto config = read_json_file(root / "config.json")) {
    folder.max_position_embeddings = positive_int(*config, "max_position_embeddings", root / "config.json");
    folder.hidden_size = positive_int(*config, "hidden_size", root / "config.json");
    if (auto arch = config->find("architectures"); arch != config->end() && arch->is_array()) {
      for (const auto& a : *arch) {
        if (a.is_string()) folder.architectures.push_back(a.get<std::string>());
      }
    }
  }
  read_prompts(root / "config_sentence_transformers.json", folder);
  return folder;
}

}  // namespace sieve::registry
