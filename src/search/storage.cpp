#include "search/storage.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace sieve::search {

void keep_best(std::vector<ScoredChunk>& scored, std::size_t n) {
  const auto better = [](const ScoredChunk& a, const ScoredChunk& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  };
  if (scored.size() > n) {
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end(), better);
    scored.resize(n);
  } else {
    std::sort(scored.begin(), scored.end(), better);
  }
}

Metadata parse_metadata(std::string_view json_text) {
  Metadata metadata;
  const auto parsed = nlohmann::json::parse(json_text, nullptr, false);
  if (!parsed.is_object()) return metadata;
  for (const auto& [key, value] : parsed.items()) {
    metadata.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return metadata;
}

std::vector<std::pair<std::string, std::string>> config_entries(const StorageConfig& config) {
  std::vector<std::pair<std::string, std::string>> out{
      {"model_name", config.model.name},
      {"model_path", config.model.path},
      {"model_sha256", config.model.onnx_sha256},
      {"dimension", std::to_string(config.model.dimension)},
      {"pooling", config.model.pooling},
      {"normalize", config.model.normalize ? "true" : "false"},
      {"chunk_tokens", std::to_string(config.options.chunking.chunk_tokens)},
      {"overlap_tokens", std::to_string(config.options.chunking.overlap_tokens)},
      {"exact_threshold", std::to_string(config.options.exact_threshold)},
      {"hnsw_m", std::to_string(config.options.hnsw_m)},
      {"hnsw_ef_construction", std::to_string(config.options.hnsw_ef_construction)}};
  if (config.sparse_model) {
    out.emplace_back("sparse_model_name", config.sparse_model->name);
    out.emplace_back("sparse_model_path", config.sparse_model->path);
    out.emplace_back("sparse_model_sha256", config.sparse_model->onnx_sha256);
    out.emplace_back("sparse_dimension", std::to_string(config.sparse_model->dimension));
    out.emplace_back("sparse_pooling", config.sparse_model->pooling);
  }
  return out;
}

StorageConfig config_from(const std::function<std::string(std::string_view)>& get, bool sparse) {
  StorageConfig config;
  const auto size = [&](std::string_view key) { return static_cast<std::size_t>(std::stoull(get(key))); };
  config.model.name = get("model_name");
  config.model.path = get("model_path");
  config.model.onnx_sha256 = get("model_sha256");
  config.model.dimension = size("dimension");
  config.model.pooling = get("pooling");
  config.model.normalize = get("normalize") == "true";
  config.options.chunking.chunk_tokens = size("chunk_tokens");
  config.options.chunking.overlap_tokens = size("overlap_tokens");
  config.options.exact_threshold = size("exact_threshold");
  config.options.hnsw_m = size("hnsw_m");
  config.options.hnsw_ef_construction = size("hnsw_ef_construction");
  if (sparse) {
    IndexModel model;
    model.name = get("sparse_model_name");
    model.path = get("sparse_model_path");
    model.onnx_sha256 = get("sparse_model_sha256");
    model.dimension = size("sparse_dimension");
    model.pooling = get("sparse_pooling");
    config.sparse_model = std::move(model);
  }
  return config;
}

}  // namespace sieve::search
