#include "hub/file_selection.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "sieve/error.hpp"
#include "sieve/text.hpp"

namespace sieve::hub {
namespace {

struct PathParts {
  std::string_view folder;  // "" at the root
  std::string_view name;
};

PathParts split(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return {{}, path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

// "fp32" for model.onnx, X for model_X.onnx; nothing for other files
// (encoder_model.onnx and the like belong to other kinds of export).
std::optional<std::string> variant_of(std::string_view path) {
  const auto [folder, name] = split(path);
  if (!folder.empty() && folder != "onnx") return std::nullopt;
  if (!name.ends_with(".onnx")) return std::nullopt;
  const auto stem = name.substr(0, name.size() - 5);
  if (stem == "model") return "fp32";
  if (stem.starts_with("model_") && stem.size() > 6) return std::string(stem.substr(6));
  return std::nullopt;
}

// External data of an ONNX file: beside it, named after it. Exporters write
// model.onnx_data, model.onnx.data or model_data (sometimes numbered).
bool is_external_data(std::string_view onnx_path, std::string_view path) {
  const auto [onnx_folder, onnx_name] = split(onnx_path);
  const PathParts file = split(path);
  if (file.folder != onnx_folder || file.name.ends_with(".onnx")) return false;
  const auto stem = std::string(onnx_name.substr(0, onnx_name.size() - 5));
  static constexpr std::array<std::string_view, 3> kSuffixes = {".onnx_data", ".onnx.data", "_data"};
  return std::any_of(kSuffixes.begin(), kSuffixes.end(),
                     [&](std::string_view suffix) { return file.name.starts_with(stem + std::string(suffix)); });
}

// Small files of the model folder, by name at the root.
bool is_config_file(std::string_view path) {
  static constexpr std::array<std::string_view, 14> kRootFiles = {"tokenizer.json",
                                                                  "tokenizer_config.json",
                                                                  "special_tokens_map.json",
                                                                  "config.json",
                                                                  "vocab.txt",
                                                                  "vocab.json",
                                                                  "merges.txt",
                                                                  "added_tokens.json",
                                                                  "spiece.model",
                                                                  "sentencepiece.bpe.model",
                                                                  "tokenizer.model",
                                                                  "modules.json",
                                                                  "sentence_bert_config.json",
                                                                  "config_sentence_transformers.json"};
  if (std::find(kRootFiles.begin(), kRootFiles.end(), path) != kRootFiles.end()) return true;
  // sentence-transformers modules: 1_Pooling/config.json, 2_Dense/config.json, ...
  const auto [folder, name] = split(path);
  if (name != "config.json" || folder.find('/') != std::string_view::npos) return false;
  const auto underscore = folder.find('_');
  return underscore != std::string_view::npos && underscore > 0 &&
         std::all_of(folder.begin(), folder.begin() + static_cast<std::ptrdiff_t>(underscore),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::uint64_t size_of(const Sibling& s) {
  return s.lfs_size.value_or(s.size.value_or(0));
}

}  // namespace

std::vector<Variant> find_variants(const std::vector<Sibling>& siblings) {
  std::vector<Variant> variants;
  // The root comes first, as in the loader, so that it wins a name both have.
  std::vector<const Sibling*> onnx_files;
  for (const auto& s : siblings) {
    if (variant_of(s.path)) onnx_files.push_back(&s);
  }
  std::stable_sort(onnx_files.begin(), onnx_files.end(), [](const Sibling* a, const Sibling* b) {
    return (a->path.find('/') == std::string::npos) > (b->path.find('/') == std::string::npos);
  });
  for (const auto* s : onnx_files) {
    std::string name = *variant_of(s->path);
    if (std::any_of(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == name; })) continue;
    Variant v{std::move(name), s->path, size_of(*s)};
    for (const auto& other : siblings) {
      if (is_external_data(s->path, other.path)) v.bytes += size_of(other);
    }
    variants.push_back(std::move(v));
  }
  std::sort(variants.begin(), variants.end(), [](const Variant& a, const Variant& b) {
    if ((a.name == "fp32") != (b.name == "fp32")) return a.name == "fp32";
    return a.name < b.name;
  });
  return variants;
}

std::vector<SelectedFile> select_files(const std::vector<Sibling>& siblings, std::string_view variant,
                                       std::string_view repo_id) {
  const auto variants = find_variants(siblings);
  if (variants.empty()) {
    throw Error(ErrorCode::kUnsupported, std::string(repo_id) +
                                             " has no ONNX export (model.onnx or onnx/model*.onnx); export it "
                                             "with sieve-export first");
  }
  const auto chosen =
      std::find_if(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == variant; });
  if (chosen == variants.end()) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string(repo_id) + " has no ONNX variant \"" + escape_control(variant) +
                    "\"; available: " + join(variants, ", ", [](const Variant& v) { return escape_control(v.name); }));
  }
  if (std::none_of(siblings.begin(), siblings.end(), [](const Sibling& s) { return s.path == "tokenizer.json"; })) {
    throw Error(ErrorCode::kUnsupported, std::string(repo_id) +
                                             " has no tokenizer.json (Sieve reads the fast tokenizer's file); "
                                             "export the model with sieve-export, which writes one");
  }
  std::vector<SelectedFile> files;
  for (const auto& s : siblings) {
    if (s.path == chosen->onnx_file) {
      files.push_back({s, "model.onnx"});
    } else if (is_external_data(chosen->onnx_file, s.path)) {
      // The graph names its data files by base name: they go beside model.onnx.
      files.push_back({s, std::string(split(s.path).name)});
    } else if (is_config_file(s.path)) {
      files.push_back({s, s.path});
    }
  }
  for (const auto& f : files) {
    validate_repo_path(f.source.path);
    validate_repo_path(f.local_path);
  }
  return files;
}

}  // namespace sieve::hub
