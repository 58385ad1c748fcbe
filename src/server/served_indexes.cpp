#include "server/served_indexes.hpp"

#include <system_error>

#include "server/http_error.hpp"
#include "server/served_models.hpp"
#include "sieve/error.hpp"

namespace sieve::server {
namespace {

namespace fs = std::filesystem;

// Whether two model folders are the same folder (through links and relative paths).
bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code error;
  const bool same = fs::equivalent(a, b, error);
  return !error && same;
}

ServedIndex open_index(const std::string& name, const fs::path& folder, const std::vector<ServedModel>& models,
                       const EmbedderOptions& embedder_options) {
  ServedIndex served;
  served.name = name;
  served.folder = folder;
  served.index = std::make_unique<SearchIndex>(SearchIndex::open(folder));
  const IndexModel& recorded = served.index->model();
  for (const ServedModel& m : models) {
    if (m.embedding && same_folder(m.info().folder, recorded.path)) {
      served.embedder = &m.embedding->embedder();
      served.embedder_source = "served model " + m.name;
      break;
    }
  }
  if (served.embedder == nullptr) {
    served.owned_embedder = std::make_shared<const Embedder>(Embedder::load(recorded.path, embedder_options));
    served.embedder = served.owned_embedder.get();
    served.embedder_source = recorded.path;
  }
  served.index->check_model(*served.embedder);
  if (const auto& sparse = served.index->sparse_model()) {
    for (const ServedModel& m : models) {
      if (m.embedding && same_folder(m.info().folder, sparse->path)) {
        served.sparse = &m.embedding->embedder();
        break;
      }
    }
    if (served.sparse == nullptr) {
      served.owned_sparse = std::make_shared<const Embedder>(Embedder::load(sparse->path, embedder_options));
      served.sparse = served.owned_sparse.get();
    }
    served.index->check_sparse_model(*served.sparse);
  }
  return served;
}

}  // namespace

std::pair<std::string, fs::path> parse_index_spec(const std::string& spec) {
  const auto equals = spec.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size()) {
    throw Error(ErrorCode::kInvalidArgument, "--index takes NAME=DIR, not '" + spec + "'");
  }
  std::string name = spec.substr(0, equals);
  if (name.find('/') != std::string::npos) {
    throw Error(ErrorCode::kInvalidArgument, "--index " + spec + ": the name must not contain '/'");
  }
  return {std::move(name), fs::path(spec.substr(equals + 1))};
}

SearchResult ServedIndex::search(std::string_view query, const SearchOptions& options, const Reranker* reranker) const {
  return index->search(query, options, embedder, reranker, sparse);
}

ServedIndexes::ServedIndexes(const std::vector<std::pair<std::string, fs::path>>& indexes,
                             const EmbedderOptions& embedder_options)
    : ServedIndexes(indexes, std::vector<ServedModel>{}, embedder_options) {}

ServedIndexes::ServedIndexes(const std::vector<std::pair<std::string, fs::path>>& indexes, const ServedModels& models,
                             const EmbedderOptions& embedder_options)
    : ServedIndexes(indexes, models.all(), embedder_options) {}

ServedIndexes::ServedIndexes(const std::vector<std::pair<std::string, fs::path>>& indexes,
                             const std::vector<ServedModel>& models, const EmbedderOptions& embedder_options) {
  for (const auto& [name, folder] : indexes) {
    for (const ServedIndex& other : indexes_) {
      if (other.name == name) throw Error(ErrorCode::kInvalidArgument, "--index " + name + " is given twice");
    }
    try {
      indexes_.push_back(open_index(name, folder, models, embedder_options));
    } catch (const Error& e) {
      throw Error(e.code(), "index " + name + " (" + shown_index_location(folder.string()) + "): " + e.message());
    }
  }
}

const ServedIndex& ServedIndexes::find(const std::optional<std::string>& name) const {
  if (!name) {
    if (indexes_.size() == 1) return indexes_.front();
    if (indexes_.empty()) throw HttpError(404, "no search index is served (sieve serve --index NAME=DIR)", "index");
    throw HttpError(400, "`index` is required: " + std::to_string(indexes_.size()) + " indexes are served", "index");
  }
  for (const ServedIndex& served : indexes_) {
    if (served.name == *name) return served;
  }
  throw HttpError(404, "the index `" + *name + "` does not exist", "index", "index_not_found");
}

}  // namespace sieve::server
