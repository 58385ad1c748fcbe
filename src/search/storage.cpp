#include "search/storage.hpp"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "search/formats/formats.hpp"
#include "sieve/error.hpp"

namespace sieve::search {

std::vector<std::pair<std::string, std::string>> folder_prefixes(const std::vector<std::string>& folders) {
  std::vector<std::pair<std::string, std::string>> prefixes;
  for (std::string folder : folders) {
    if (folder.empty() || folder.front() != '/') {
      throw Error(ErrorCode::kInvalidArgument,
                  "a folder to search in must be an absolute path, not \"" + folder + "\"");
    }
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    std::string below = folder == "/" ? folder : folder + "/";
    prefixes.emplace_back(std::move(folder), std::move(below));
  }
  return prefixes;
}

void narrow(AllowedChunks& allowed, std::vector<std::int64_t> ids) {
  if (!allowed) {
    allowed = std::move(ids);
    return;
  }
  std::vector<std::int64_t> both;
  std::set_intersection(allowed->begin(), allowed->end(), ids.begin(), ids.end(), std::back_inserter(both));
  allowed = std::move(both);
}

std::vector<std::int64_t> united(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  std::vector<std::int64_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::string format_by_name(std::string_view key, std::string_view source) {
  // A record of a JSONL file has an id of its own; a member or an attachment is named after the "!".
  const std::string_view path = key != source && key.find('!') == std::string_view::npos ? source : key;
  const std::size_t cut = path.find_last_of("/!");
  const FileFormat* format = format_for_name(cut == std::string_view::npos ? path : path.substr(cut + 1));
  return format != nullptr ? std::string(format->name) : std::string("text");
}

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
      {"late_chunking", config.options.chunking.late_chunking ? "true" : "false"},
      {"exact_threshold", std::to_string(config.options.exact_threshold)},
      {"hnsw_m", std::to_string(config.options.hnsw_m)},
      {"hnsw_ef_construction", std::to_string(config.options.hnsw_ef_construction)},
      {"vectors", to_string(config.options.vectors)},
      {"graph_dimensions", std::to_string(config.options.graph_dimensions)},
      {"rescore", std::to_string(config.options.rescore.value_or(0))}};
  if (config.sparse_model) {
    out.emplace_back("sparse_model_name", config.sparse_model->name);
    out.emplace_back("sparse_model_path", config.sparse_model->path);
    out.emplace_back("sparse_model_sha256", config.sparse_model->onnx_sha256);
    out.emplace_back("sparse_dimension", std::to_string(config.sparse_model->dimension));
    out.emplace_back("sparse_pooling", config.sparse_model->pooling);
  }
  return out;
}

StorageConfig config_from(const std::function<std::string(std::string_view)>& get,
                          const std::function<std::optional<std::string>(std::string_view)>& find, bool sparse) {
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
  config.options.chunking.late_chunking = find("late_chunking") == "true";
  config.options.exact_threshold = size("exact_threshold");
  config.options.hnsw_m = size("hnsw_m");
  config.options.hnsw_ef_construction = size("hnsw_ef_construction");
  // Indexes made before codes existed keep float32.
  config.options.vectors = parse_vector_codes(find("vectors").value_or("float32"));
  config.options.graph_dimensions = static_cast<std::size_t>(std::stoull(find("graph_dimensions").value_or("0")));
  config.options.rescore = static_cast<std::size_t>(std::stoull(find("rescore").value_or("0")));
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

IndexStats stats_of(const StorageConfig& config) {
  IndexStats stats;
  stats.model = config.model;
  stats.sparse_model = config.sparse_model;
  stats.chunking = config.options.chunking;
  stats.exact_threshold = config.options.exact_threshold;
  stats.vectors = config.options.vectors;
  stats.graph_dimensions = config.options.graph_dimensions;
  stats.rescore = config.options.rescore.value_or(0);
  return stats;
}

AllowedChunks allowed_chunks(const ChunkFilter& filter, const FilterLookups& lookups) {
  if (filter.empty()) return std::nullopt;
  AllowedChunks allowed;
  for (const auto& [key, value] : filter.metadata) narrow(allowed, lookups.metadata(key, value));
  if (!filter.formats.empty()) narrow(allowed, lookups.formats(filter.formats));
  if (!filter.folders.empty()) {
    std::vector<std::int64_t> below;
    for (const auto& [folder, prefix] : folder_prefixes(filter.folders))
      below = united(below, lookups.below(folder, prefix));
    narrow(allowed, std::move(below));
  }
  return allowed;
}

void check_chunk_rows(CheckReport& report, const std::function<std::string(std::string_view)>& table,
                      const std::function<std::vector<std::vector<std::string>>(const std::string&)>& rows) {
  const std::string chunks = table("chunks") + " c JOIN " + table("documents") + " d ON d.id = c.document_id";
  for (const auto& row : rows("SELECT c.id FROM " + table("chunks") + " c LEFT JOIN " + table("documents") +
                              " d ON d.id = c.document_id WHERE d.id IS NULL")) {
    report.problems.push_back("chunk " + row[0] + " belongs to no document");
  }
  for (const auto& row : rows("SELECT d.key, count(*), min(c.ordinal), max(c.ordinal) FROM " + chunks +
                              " GROUP BY d.key HAVING min(c.ordinal) != 0 OR max(c.ordinal) != count(*) - 1")) {
    const long long n = std::stoll(row[1]);
    report.problems.push_back("document " + row[0] + ": its " + row[1] + " chunks are not numbered 0 to " +
                              std::to_string(n - 1));
  }
  for (const auto& row : rows("SELECT d.key, c.start_byte, count(*) FROM " + chunks +
                              " GROUP BY d.key, c.start_byte, c.end_byte HAVING count(*) > 1")) {
    report.problems.push_back("document " + row[0] + " holds the chunk at byte " + row[1] + " " + row[2] + " times");
  }
}

}  // namespace sieve::search
