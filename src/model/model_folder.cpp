#include "model/model_folder.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "sieve/error.hpp"

namespace sieve::model {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> optional_string(const nlohmann::json& doc, const char* key, const fs::path& file) {
  return string_field(doc, key, file);
}

// modules.json's entries, each made by the factory of its class, and their
// order checked: the transformer first, then at most one pooling, then
// modules on the pooled vector.
void read_modules(const fs::path& modules_file, const nlohmann::json& modules, ModelFolder& folder) {
  const fs::path& root = folder.root;
  const bool colbert = std::any_of(modules.begin(), modules.end(), [](const nlohmann::json& m) {
    return m.is_object() && m.contains("type") && m["type"].is_string() &&
           m["type"].get<std::string>().starts_with("pylate.");
  });
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const auto& m = modules[i];
    if (!m.is_object() || !m.contains("type") || !m["type"].is_string()) {
      throw Error(ErrorCode::kParse, modules_file.string() + ": /" + std::to_string(i) + ": expected {\"type\": ...}");
    }
    ModuleSpec spec;
    spec.modules_file = modules_file;
    spec.index = i;
    spec.type = m["type"].get<std::string>();
    spec.class_name = spec.type.substr(spec.type.rfind('.') + 1);
    if (const auto path = m.find("path"); path != m.end() && !path->is_null()) {
      if (!path->is_string())
        throw Error(ErrorCode::kParse, modules_file.string() + ": /" + std::to_string(i) + "/path: expected a string");
      spec.path = path->get<std::string>();
    }
    // A path leaving the folder would read another model's files.
    const fs::path relative = fs::path(spec.path).lexically_normal();
    if (relative.is_absolute() || (!relative.empty() && *relative.begin() == "..")) {
      throw Error(ErrorCode::kParse, module_where(spec) + ": its path leaves the model folder");
    }
    spec.folder = spec.path.empty() ? root : root / relative;
    auto module = make_module(spec);
    const ModuleRole role = module->role();
    if (folder.modules.empty() && role != ModuleRole::kTransformer) {
      throw Error(ErrorCode::kUnsupported, module->where() +
                                               ": the first module is not a Transformer, so its input "
                                               "is not what the ONNX graph gives");
    }
    if (!folder.modules.empty() && role == ModuleRole::kTransformer) {
      throw Error(ErrorCode::kUnsupported, module->where() + ": a second Transformer is not supported");
    }
    if (folder.splade_pooling) {
      throw Error(ErrorCode::kUnsupported, module->where() + ": a module after SpladePooling is not supported");
    }
    const bool fill_mask = !folder.modules.empty() && folder.modules.front()->transformer_task() == "fill-mask";
    if (role == ModuleRole::kSparsePooling) {
      if (!fill_mask || folder.pooling) {
        throw Error(ErrorCode::kUnsupported, module->where() +
                                                 ": SpladePooling pools masked-language-model logits, so it must "
                                                 "follow a fill-mask Transformer (MLMTransformer) directly");
      }
      folder.splade_pooling = std::static_pointer_cast<const SpladePoolingModule>(module);
    }
    if (fill_mask && role != ModuleRole::kSparsePooling && role != ModuleRole::kTransformer) {
      throw Error(ErrorCode::kUnsupported, module->where() +
                                               ": a fill-mask Transformer gives vocabulary logits, which only "
                                               "SpladePooling turns into an embedding");
    }
    if (role == ModuleRole::kPooling) {
      if (folder.pooling) throw Error(ErrorCode::kUnsupported, module->where() + ": a second Pooling is not supported");
      folder.pooling = std::static_pointer_cast<const PoolingModule>(module);
    }
    if (colbert && role != ModuleRole::kTransformer && module->spec().type != kPylateDense) {
      throw Error(ErrorCode::kUnsupported, module->where() +
                                               ": a ColBERT (PyLate) model's modules after the Transformer must "
                                               "be PyLate Dense projections of each token");
    }
    if (colbert && role == ModuleRole::kVector) {
      folder.token_modules.push_back(std::static_pointer_cast<const VectorModule>(module));
    } else if (role == ModuleRole::kVector) {
      if (!folder.pooling) {
        throw Error(ErrorCode::kUnsupported, module->where() +
                                                 ": it comes before any Pooling, so it would act on "
                                                 "token states; Sieve applies it to pooled vectors only");
      }
      folder.vector_modules.push_back(std::static_pointer_cast<const VectorModule>(module));
      if (module->spec().class_name == "Normalize") folder.has_normalize_module = true;
    }
    folder.modules.push_back(std::move(module));
  }
  if (!folder.modules.empty() && folder.modules.front()->transformer_task() == "fill-mask" && !folder.splade_pooling) {
    throw Error(ErrorCode::kUnsupported, folder.modules.front()->where() +
                                             ": a fill-mask Transformer without SpladePooling after it gives no "
                                             "embedding");
  }
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

// PyLate's keys of config_sentence_transformers.json.
void read_colbert_settings(const fs::path& file, ModelFolder& folder) {
  ColbertSettings c;
  c.skiplist_words.clear();
  // Python's string.punctuation, PyLate's default skip list.
  for (const char ch : std::string_view("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")) c.skiplist_words.emplace_back(1, ch);
  if (const auto doc = read_json_file(file)) {
    if (auto v = optional_string(*doc, "query_prefix", file)) c.query_prefix = *v;
    if (auto v = optional_string(*doc, "document_prefix", file)) c.document_prefix = *v;
    if (auto v = positive_int_field(*doc, "query_length", file)) c.query_length = *v;
    if (auto v = positive_int_field(*doc, "document_length", file)) c.document_length = *v;
    if (auto v = bool_field(*doc, "do_query_expansion", file)) c.query_expansion = *v;
    if (auto v = bool_field(*doc, "attend_to_expansion_tokens", file)) c.attend_to_expansion_tokens = *v;
    if (const auto it = doc->find("skiplist_words"); it != doc->end() && !it->is_null()) {
      if (!it->is_array()) throw Error(ErrorCode::kParse, file.string() + ": /skiplist_words: expected a list");
      c.skiplist_words.clear();
      for (const auto& word : *it) {
        if (!word.is_string()) {
          throw Error(ErrorCode::kParse, file.string() + ": /skiplist_words: expected strings");
        }
        c.skiplist_words.push_back(word.get<std::string>());
      }
    }
  }
  // Without expansion nothing is attended to beyond the text (as PyLate).
  if (!c.query_expansion) c.attend_to_expansion_tokens = false;
  const std::size_t floor = 3;  // the first token, the prefix and one more
  if (c.query_length < floor || c.document_length < floor) {
    throw Error(ErrorCode::kParse, file.string() + ": query_length and document_length must be at least 3");
  }
  folder.colbert = std::move(c);
}

}  // namespace

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
    folder.has_sentence_transformers_files = true;
    read_modules(modules_file, *modules_doc, folder);
  } else if (fs::exists(root / "1_Pooling/config.json")) {
    ModuleSpec spec;
    spec.modules_file = modules_file;
    spec.type = "sentence_transformers.models.Pooling";
    spec.class_name = "Pooling";
    spec.path = "1_Pooling";
    spec.folder = root / "1_Pooling";
    folder.pooling = read_pooling_module(spec);
  }
  if (folder.pooling) folder.pooling_include_prompt = folder.pooling->include_prompt();

  if (const auto st = read_json_file(root / "sentence_bert_config.json")) {
    folder.max_seq_length = positive_int_field(*st, "max_seq_length", root / "sentence_bert_config.json");
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
    folder.max_position_embeddings = positive_int_field(*config, "max_position_embeddings", root / "config.json");
    folder.hidden_size = positive_int_field(*config, "hidden_size", root / "config.json");
    // Only a fallback for the token-id check (check_token_ids): read where it is a plain positive integer.
    if (const auto it = config->find("vocab_size"); it != config->end() && it->is_number_unsigned()) {
      if (const auto v = it->get<std::uint64_t>(); v > 0) folder.vocab_size = static_cast<std::size_t>(v);
    }
    if (auto arch = config->find("architectures"); arch != config->end() && arch->is_array()) {
      for (const auto& a : *arch) {
        if (a.is_string()) folder.architectures.push_back(a.get<std::string>());
      }
    }
  }
  read_prompts(root / "config_sentence_transformers.json", folder);
  if (!folder.token_modules.empty()) read_colbert_settings(root / "config_sentence_transformers.json", folder);
  return folder;
}

std::string pulled_repository(const std::filesystem::path& folder) {
  std::ifstream in(folder / kPullManifestName, std::ios::binary);
  if (!in) return {};
  try {
    const auto doc = nlohmann::json::parse(in);
    std::string name = doc.at("repo").get<std::string>();
    const std::string variant = doc.value("variant", std::string("fp32"));
    if (!variant.empty() && variant != "fp32") name += "-" + variant;
    return name;
  } catch (const nlohmann::json::exception&) {
    return {};
  }
}

}  // namespace sieve::model
