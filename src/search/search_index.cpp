#include <unistd.h>

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "search/digest.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"
#include "search/ingest.hpp"
#include "search/retrieval.hpp"
#include "search/storage.hpp"
#include "search/watcher.hpp"
#include "sieve/error.hpp"
#include "sieve/search.hpp"

namespace sieve {
namespace {

// How an index records a model's pooling: what the stored vectors depend on
// besides the ONNX file.
std::string recorded_pooling(const ModelInfo& info, bool sparse) {
  return sparse ? pooling_name(info) : info.pooled_by_model ? "model" : to_string(info.dense.pooling);
}

namespace fs = std::filesystem;

// Hashing a 90 MB model costs a quarter of a second per search command:
// the hash is kept beside the index, valid while the file's identity
// (device, inode, size, modification time) is unchanged.
std::string cached_fingerprint(const fs::path& index_folder, const fs::path& onnx_file) {
  struct stat info {};
  if (::stat(onnx_file.c_str(), &info) != 0) {
    throw Error(ErrorCode::kNotFound, "cannot read " + onnx_file.string() + ": " + std::strerror(errno));
  }
  const nlohmann::json identity = {{"file", fs::absolute(onnx_file).string()},
                                   {"device", info.st_dev},
                                   {"inode", info.st_ino},
                                   {"size", info.st_size},
                                   {"mtime_ns", info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec}};
  const fs::path cache = index_folder / "model-fingerprint.json";
  {
    std::ifstream in(cache);
    const auto stored = nlohmann::json::parse(in, nullptr, false);
    if (stored.is_object() && stored.value("identity", nlohmann::json()) == identity &&
        stored.value("sha256", nlohmann::json()).is_string()) {
      return stored["sha256"].get<std::string>();
    }
  }
  const std::string sha256 = search::file_sha256(onnx_file);
  // Best effort: a read-only index folder just hashes every time.
  const fs::path temporary = cache.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary);
    out << nlohmann::json{{"identity", identity}, {"sha256", sha256}}.dump();
  }
  std::error_code error;
  fs::rename(temporary, cache, error);
  if (error) fs::remove(temporary, error);
  return sha256;
}

// Indexes hold one dense vector per chunk, and a sparse one beside it when
// they have a sparse model.
void require_dense(const ModelInfo& info) {
  if (info.output_kind != OutputKind::kDense) {
    throw Error(ErrorCode::kUnsupported, info.folder.string() +
                                             " is a sparse (SPLADE) model; a search index needs a dense embedding "
                                             "model, and stores sparse vectors beside its dense ones when it is "
                                             "created with a sparse model too (sieve index add --sparse-model)");
  }
}

void require_sparse(const ModelInfo& info) {
  if (info.output_kind != OutputKind::kSparse) {
    throw Error(ErrorCode::kInvalidArgument,
                info.folder.string() +
                    " is a dense embedding model, not a sparse (SPLADE) one; --sparse-model takes a "
                    "model whose sieve info kind is \"sparse embedding\"");
  }
}

IndexModel describe(const Embedder& embedder, bool sparse = false) {
  const auto& info = embedder.info();
  if (sparse) {
    require_sparse(info);
  } else {
    require_dense(info);
  }
  IndexModel model;
  model.path = fs::absolute(info.folder).lexically_normal().string();
  while (!model.path.empty() && model.path.back() == '/') model.path.pop_back();
  model.name = fs::path(model.path).filename().string();
  model.onnx_sha256 = search::file_sha256(info.onnx_file);
  model.dimension = info.dimension;
  model.pooling = recorded_pooling(info, sparse);
  model.normalize = info.normalize;
  return model;
}

// Where an index is: a folder, or a PostgreSQL URI given as it is, or read
// from an environment variable (env:NAME) or a file's first line
// (file:PATH), so that a password need not appear on a command line.
std::string resolve_location(const fs::path& given) {
  const std::string text = given.string();
  std::string location = text;
  if (text.starts_with("env:")) {
    const char* value = std::getenv(text.c_str() + 4);
    if (!value || !*value) {
      throw Error(ErrorCode::kInvalidArgument, "the index location " + text + " names an unset environment variable");
    }
    location = value;
  } else if (text.starts_with("file:")) {
    std::ifstream in(text.substr(5));
    if (!in) throw Error(ErrorCode::kNotFound, "cannot read the index location from " + text.substr(5));
    std::getline(in, location);
    while (!location.empty() && (location.back() == '\r' || location.back() == ' ')) location.pop_back();
  } else {
    return text;
  }
  if (!search::is_postgres_location(location)) {
    throw Error(ErrorCode::kInvalidArgument,
                text + " does not hold a postgresql:// URI (folders are given as they are)");
  }
  return location;
}

std::unique_ptr<search::IndexStorage> open_storage(const std::string& location,
                                                   const std::optional<search::StorageConfig>& create) {
  if (search::is_postgres_location(location)) return search::open_postgres_storage(location, create);
  return search::open_sqlite_storage(location, create);
}

}  // namespace

// Candidates per hit wanted that a search may rescore: beyond it a graph of codes gains nothing on exact search.
constexpr std::size_t kMaxRescore = 100;

const char* to_string(SearchMode mode) noexcept {
  switch (mode) {
    case SearchMode::kVector: return "vector";
    case SearchMode::kBm25: return "bm25";
    case SearchMode::kSparse: return "sparse";
    case SearchMode::kHybrid: return "hybrid";
  }
  return "?";
}

SearchMode parse_search_mode(std::string_view name) {
  if (name == "vector") return SearchMode::kVector;
  if (name == "bm25") return SearchMode::kBm25;
  if (name == "sparse") return SearchMode::kSparse;
  if (name == "hybrid") return SearchMode::kHybrid;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown search mode '" + std::string(name) + "' (vector, bm25, sparse, hybrid)");
}

const char* to_string(SearchFusion fusion) noexcept {
  switch (fusion) {
    case SearchFusion::kWeighted: return "weighted";
    case SearchFusion::kReciprocalRank: return "rrf";
  }
  return "?";
}

SearchFusion parse_search_fusion(std::string_view name) {
  if (name == "weighted") return SearchFusion::kWeighted;
  if (name == "rrf") return SearchFusion::kReciprocalRank;
  throw Error(ErrorCode::kInvalidArgument, "unknown fusion '" + std::string(name) + "' (weighted, rrf)");
}

std::string shown_index_location(std::string_view location) {
  return search::shown_location(location);
}

std::string model_fingerprint(const Embedder& embedder) {
  return search::file_sha256(embedder.info().onnx_file);
}

struct SearchIndex::Impl {
  std::string location;
  std::unique_ptr<search::IndexStorage> storage;
  // For messages: "in FOLDER" or "at postgresql://...", a password hidden.
  [[nodiscard]] std::string where() const {
    return (search::is_postgres_location(location) ? "at " : "in ") + search::shown_location(location);
  }
  // The model file's SHA-256; cached beside a folder's index.
  [[nodiscard]] std::string fingerprint(const fs::path& onnx_file) const {
    if (search::is_postgres_location(location)) return search::file_sha256(onnx_file);
    return cached_fingerprint(location, onnx_file);
  }
};

SearchIndex::SearchIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SearchIndex::SearchIndex(SearchIndex&&) noexcept = default;
SearchIndex& SearchIndex::operator=(SearchIndex&&) noexcept = default;
SearchIndex::~SearchIndex() = default;

SearchIndex SearchIndex::create(const fs::path& folder, const Embedder& model, const IndexCreateOptions& options,
                                const Embedder* sparse_model) {
  if (options.chunking.chunk_tokens == 0) {
    throw Error(ErrorCode::kInvalidArgument, "chunk size must be at least one token");
  }
  if (options.chunking.overlap_tokens >= options.chunking.chunk_tokens) {
    throw Error(ErrorCode::kInvalidArgument, "chunk overlap must be smaller than the chunk size");
  }
  if (options.chunking.late_chunking) {
    // A model that cannot (it pools inside its graph, or by CLS) says why before anything is made; preparing a
    // probe checks the model and tokenizes, without running it.
    constexpr std::string_view kProbe = "late chunking";
    const TextSpan whole{0, kProbe.size()};
    (void)model.prepare_late_chunks(kProbe, std::span<const TextSpan>(&whole, 1));
  }
  const std::size_t dimension = model.info().dimension;
  const bool prefix = options.graph_dimensions > 0 && options.graph_dimensions < dimension;
  if (options.graph_dimensions > dimension) {
    throw Error(ErrorCode::kInvalidArgument, "the graph cannot hold " + std::to_string(options.graph_dimensions) +
                                                 " dimensions of the model's " + std::to_string(dimension));
  }
  if (options.vectors == VectorCodes::kFloat32 && !prefix && options.rescore.value_or(0) > 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "rescoring needs int8 or binary vectors, or a prefix of each vector, in the graph; whole float32 "
                "vectors are searched as they are");
  }
  if (options.rescore.value_or(0) > kMaxRescore) {
    throw Error(ErrorCode::kInvalidArgument,
                "rescore at most " + std::to_string(kMaxRescore) + " candidates for each hit wanted");
  }
  auto impl = std::make_unique<Impl>();
  impl->location = resolve_location(folder);
  if ((options.vectors != VectorCodes::kFloat32 || prefix) && search::is_postgres_location(impl->location)) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string("an index in PostgreSQL keeps whole float32 vectors in pgvector's HNSW graph; ") +
                    (prefix ? "a graph of a prefix" : std::string(to_string(options.vectors)) + " vectors") +
                    " is for an index in a folder");
  }
  search::StorageConfig config{describe(model), std::nullopt, options};
  config.options.graph_dimensions = prefix ? options.graph_dimensions : 0;
  config.options.rescore = options.rescore.value_or(default_rescore(options.vectors, prefix));
  if (sparse_model) config.sparse_model = describe(*sparse_model, true);
  if (!search::is_postgres_location(impl->location)) {
    std::error_code error;
    fs::create_directories(folder, error);
    if (error) throw Error(ErrorCode::kRuntime, "cannot create " + folder.string() + ": " + error.message());
  }
  impl->storage = open_storage(impl->location, config);
  SearchIndex index(std::move(impl));
  index.check_model(model);
  if (sparse_model) index.check_sparse_model(*sparse_model);
  return index;
}

SearchIndex SearchIndex::open(const fs::path& folder) {
  auto impl = std::make_unique<Impl>();
  impl->location = resolve_location(folder);
  impl->storage = open_storage(impl->location, std::nullopt);
  return SearchIndex(std::move(impl));
}

const IndexModel& SearchIndex::model() const noexcept {
  return impl_->storage->config().model;
}

const std::optional<IndexModel>& SearchIndex::sparse_model() const noexcept {
  return impl_->storage->config().sparse_model;
}

std::vector<SearchMode> SearchIndex::lists(const SearchOptions& options) const {
  return search::lists_of(options, impl_->storage->config());
}

namespace {

void require_recorded(const std::string& where, const std::string& fingerprint, const IndexModel& recorded,
                      const ModelInfo& info, bool sparse) {
  const char* what = sparse ? "the sparse model " : "";
  if (info.dimension != recorded.dimension || fingerprint != recorded.onnx_sha256) {
    throw Error(ErrorCode::kInvalidArgument, "the index " + where + " was built with " + what + recorded.name + " (" +
                                                 recorded.path + ", dimension " + std::to_string(recorded.dimension) +
                                                 ", ONNX sha256 " + recorded.onnx_sha256.substr(0, 12) + "); " +
                                                 info.folder.string() + " is another model (dimension " +
                                                 std::to_string(info.dimension) + ", ONNX sha256 " +
                                                 fingerprint.substr(0, 12) + ")");
  }
  const std::string pooling = recorded_pooling(info, sparse);
  if (pooling != recorded.pooling || info.normalize != recorded.normalize) {
    const auto described = [](const std::string& p, bool normalized) {
      return "pooling " + p + (normalized ? ", normalized" : ", not normalized");
    };
    throw Error(ErrorCode::kInvalidArgument,
                "the index " + where + " was built with " + what + recorded.name + " with " +
                    described(recorded.pooling, recorded.normalize) + "; the model given has " +
                    described(pooling, info.normalize) +
                    ", so its vectors would not compare with the stored ones (load it with the index's options)");
  }
}

}  // namespace

void SearchIndex::check_model(const Embedder& embedder) const {
  require_dense(embedder.info());
  const auto& info = embedder.info();
  require_recorded(impl_->where(),
                   info.dimension == model().dimension ? impl_->fingerprint(info.onnx_file) : "(not computed)", model(),
                   info, false);
}

void SearchIndex::check_sparse_model(const Embedder& embedder) const {
  require_sparse(embedder.info());
  const auto& recorded = sparse_model();
  if (!recorded) {
    throw Error(ErrorCode::kInvalidArgument,
                "the index " + impl_->where() +
                    " stores no sparse vectors: it was created without a sparse model, and chunks already in it "
                    "would have none (create a new index with --sparse-model)");
  }
  const auto& info = embedder.info();
  require_recorded(impl_->where(),
                   info.dimension == recorded->dimension ? impl_->fingerprint(info.onnx_file) : "(not computed)",
                   *recorded, info, true);
}

void SearchIndex::check_writer_models(const Embedder& embedder, const Embedder* sparse) const {
  check_model(embedder);
  if (sparse) {
    check_sparse_model(*sparse);
  } else if (const auto& recorded = sparse_model()) {
    throw Error(ErrorCode::kInvalidArgument, "the index " + impl_->where() +
                                                 " also stores sparse vectors: adding to it needs its sparse model " +
                                                 recorded->name + " (" + recorded->path + ")");
  }
}

IngestReport SearchIndex::add(const std::vector<fs::path>& paths, const Embedder& embedder,
                              const IngestOptions& options, const Embedder* sparse) {
  check_writer_models(embedder, sparse);
  const auto lock = impl_->storage->lock_writers();
  return search::ingest(*impl_->storage, paths, embedder, options, sparse);
}

void SearchIndex::watch(const std::vector<fs::path>& paths, const Embedder& embedder, const WatchOptions& options,
                        const WatchStop& stop, const Embedder* sparse) {
  check_writer_models(embedder, sparse);
  search::watch(*impl_->storage, paths, embedder, options, stop, sparse);
}

std::size_t SearchIndex::remove(const std::vector<std::string>& sources_or_ids) {
  const auto lock = impl_->storage->lock_writers();
  return search::remove_documents(*impl_->storage, sources_or_ids);
}

std::optional<DocumentView> SearchIndex::document(std::string_view id, std::size_t begin, std::size_t end) const {
  const auto chunks = impl_->storage->snapshot()->document_chunks(id);
  if (chunks.empty()) return std::nullopt;
  DocumentView view;
  view.id = chunks.front().document_key;
  view.source = chunks.front().source;
  view.title = chunks.front().title;
  view.format = chunks.front().format;
  view.metadata = chunks.front().metadata;
  view.chunks = chunks.size();
  // Chunks overlap and cover the text but for whitespace between them:
  // each adds what lies beyond the text so far.
  std::string text;
  for (const auto& chunk : chunks) {
    if (!chunk.section.empty() && (view.sections.empty() || view.sections.back().second != chunk.section)) {
      view.sections.emplace_back(chunk.begin, chunk.section);
    }
    if (chunk.end <= text.size()) continue;
    if (chunk.begin > text.size()) {
      if (!text.empty())
        text.append(chunk.begin - text.size(), ' ');
      else
        text.append(chunk.begin, ' ');
    }
    const std::size_t skip = text.size() - chunk.begin;
    if (skip < chunk.text.size()) text.append(chunk.text, skip);
  }
  view.length = text.size();
  const auto boundary = [&text](std::size_t at) {
    at = std::min(at, text.size());
    while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0U) == 0x80U) --at;
    return at;
  };
  view.begin = boundary(begin);
  view.end = std::max(view.begin, boundary(end));
  view.text = text.substr(view.begin, view.end - view.begin);
  return view;
}

namespace original_files {

bool is_utf8(std::string_view bytes) {
  try {
    search::text::require_utf8(bytes, "");
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::string media_type_of(std::string_view format, std::string_view content) {
  static const std::map<std::string_view, std::string_view> kBinary = {
      {"pdf", "application/pdf"},
      {"epub", "application/epub+zip"},
      {"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
      {"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
      {"pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
      {"odt", "application/vnd.oasis.opendocument.text"},
      {"ods", "application/vnd.oasis.opendocument.spreadsheet"},
      {"odp", "application/vnd.oasis.opendocument.presentation"},
      {"zip", "application/zip"},
      {"tar", "application/x-tar"},
      {"gzip", "application/gzip"},
      {"bzip2", "application/x-bzip2"},
      {"xz", "application/x-xz"},
      {"email", "message/rfc822"},
      {"mbox", "application/mbox"},
  };
  if (const auto it = kBinary.find(format); it != kBinary.end()) return std::string(it->second);
  // Text: HTML as HTML, the rest (Markdown, source code, manual pages...) as plain text, in UTF-8 when
  // that is what the bytes are.
  std::string type = format == "html" ? "text/html" : "text/plain";
  // `content` is the file's first bytes: a character cut at their end does not count.
  std::size_t end = content.size();
  if (end == search::kSniffBytes) {
    while (end > 0 && (static_cast<unsigned char>(content[end - 1]) & 0xC0U) == 0x80U) --end;
    if (end > 0 && static_cast<unsigned char>(content[end - 1]) >= 0xC0U) --end;
  }
  if (is_utf8(content.substr(0, end))) type += "; charset=utf-8";
  return type;
}

}  // namespace original_files

OriginalFile SearchIndex::original(std::string_view id, std::uint64_t max_bytes) const {
  const auto stored = impl_->storage->document(id);
  if (!stored) throw Error(ErrorCode::kNotFound, "no document " + std::string(id) + " in this index");
  const std::string& source = stored->second;
  // A member of an archive, an attachment or a record of a JSONL file has no file of its own.
  if (source != id) {
    throw Error(ErrorCode::kNotFound, "document " + std::string(id) + " is a part of " + source +
                                          ", not a file of its own: only its indexed text can be shown");
  }
  const auto recorded = impl_->storage->source_hash(source);
  if (!recorded) throw Error(ErrorCode::kNotFound, source + " is not a file this index has read");
  OriginalFile original;
  original.path = source;
  try {
    std::uint64_t size = 0;
    const int fd = search::open_source_file(original.path, size);
    original.descriptor = std::shared_ptr<const int>(new int(fd), [](const int* owned) {
      ::close(*owned);
      delete owned;  // NOLINT(cppcoreguidelines-owning-memory): the descriptor's own deleter
    });
    if (size > max_bytes) {
      throw Error(ErrorCode::kNotFound, "it is " + std::to_string(size) + " bytes, more than the " +
                                            std::to_string(max_bytes) +
                                            " served as an original file: its indexed text can be shown");
    }
    // The bytes served are the bytes checked: read again from the same open file.
    if (search::descriptor_sha256(fd, original.size) != *recorded) {
      throw Error(ErrorCode::kNotFound,
                  "it has changed since it was indexed: run sieve index add again to index what it holds now");
    }
    std::string head(search::kSniffBytes, '\0');
    const ssize_t got = ::pread(fd, head.data(), head.size(), 0);
    head.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    if (::lseek(fd, 0, SEEK_SET) != 0) throw Error(ErrorCode::kInvalidInput, "cannot read it again");
    const auto detection = search::detect_format(original.path.filename().string(), head);
    if (detection.format == nullptr || detection.format->name == "jsonl") {
      throw Error(ErrorCode::kNotFound, "it holds more than one document: only their indexed text can be shown");
    }
    original.format = detection.format->name;
    original.media_type = original_files::media_type_of(original.format, head);
  } catch (const Error& e) {
    throw Error(ErrorCode::kNotFound, source + ": " + e.what());
  }
  return original;
}

DocumentListing SearchIndex::documents(std::string_view after, std::size_t limit) const {
  DocumentListing listing;
  auto found = impl_->storage->snapshot()->documents_after(after, limit + 1);
  if (found.size() > limit) {
    found.resize(limit);
    listing.next = found.back().key;
  }
  for (auto& document : found) {
    listing.documents.push_back({std::move(document.key), std::move(document.source), std::move(document.title)});
  }
  return listing;
}

IndexStats SearchIndex::stats() const {
  return impl_->storage->stats();
}
CheckReport SearchIndex::check() const {
  return impl_->storage->check();
}

SearchResult SearchIndex::search(std::string_view query, const SearchOptions& options, const Embedder* embedder,
                                 const Reranker* reranker, const Embedder* sparse) const {
  return search::retrieve(*impl_->storage, query, options, {embedder, sparse, reranker});
}

}  // namespace sieve
