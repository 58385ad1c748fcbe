#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/search.hpp"

namespace sieve::server {

class ServedModels;
struct ServedModel;

// One search index the server answers for, opened at start-up with the
// embedding model it was built with.
struct ServedIndex {
  std::string name;
  std::filesystem::path folder;
  std::unique_ptr<SearchIndex> index;
  // The index's model: a served model's when one has the index's folder,
  // else loaded for this index alone (owned).
  std::shared_ptr<const Embedder> owned_embedder;
  const Embedder* embedder = nullptr;
  std::string embedder_source;  // "served model NAME" or the folder it was loaded from, for the log
  // The index's sparse model, where it has one (found or loaded the same way).
  std::shared_ptr<const Embedder> owned_sparse;
  const Embedder* sparse = nullptr;

  // Searches the index with its models (POST /v1/search and the MCP search
  // tool alike); `reranker` may be null.
  [[nodiscard]] SearchResult search(std::string_view query, const SearchOptions& options,
                                    const Reranker* reranker) const;
};

// The indexes of `sieve serve --index NAME=DIR`. Searching is const and
// safe from many threads at once.
class ServedIndexes {
 public:
  // Opens every index and checks its model; throws (sieve::Error) when a
  // name repeats, a folder holds no index, or its model cannot be loaded.
  ServedIndexes(const std::vector<std::pair<std::string, std::filesystem::path>>& indexes, const ServedModels& models,
                const EmbedderOptions& embedder_options);
  // The same without served models: each index loads its own (sieve mcp).
  ServedIndexes(const std::vector<std::pair<std::string, std::filesystem::path>>& indexes,
                const EmbedderOptions& embedder_options);
  ServedIndexes(const ServedIndexes&) = delete;
  ServedIndexes& operator=(const ServedIndexes&) = delete;

  [[nodiscard]] const std::vector<ServedIndex>& all() const noexcept { return indexes_; }
  // The index `name`, or with no name the only index served. HttpError 404
  // for an unknown name, 400 without a name when several are served, 404
  // when none is.
  [[nodiscard]] const ServedIndex& find(const std::optional<std::string>& name) const;

 private:
  ServedIndexes(const std::vector<std::pair<std::string, std::filesystem::path>>& indexes,
                const std::vector<ServedModel>& models, const EmbedderOptions& embedder_options);
  std::vector<ServedIndex> indexes_;
};

// "NAME=DIR" as the pair; sieve::Error (invalid argument) when malformed.
std::pair<std::string, std::filesystem::path> parse_index_spec(const std::string& spec);

}  // namespace sieve::server
