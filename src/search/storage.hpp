#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sieve/search.hpp"

namespace sieve::search {

// The contract between the index logic (ingest, retrieval) and where the
// data lives. SqliteStorage is the embedded default; a server-based engine
// implements the same three interfaces.

using Metadata = std::vector<std::pair<std::string, std::string>>;

struct NewChunk {
  std::size_t begin = 0;  // byte offsets in the document's text
  std::size_t end = 0;
  std::string text;
  std::vector<float> vector;
  SparseVector sparse;  // empty unless the index has a sparse model
  std::string section;  // where the chunk starts: "page 3", "slide 2", "sheet Budget"; "" for one-part documents
};

struct NewDocument {
  std::string key;
  std::string source;
  std::string title;
  std::string content_hash;
  std::string format;  // its reader's name ("pdf", "text")
  Metadata metadata;
  std::vector<NewChunk> chunks;
  std::string text;  // the whole text, kept until its chunks are embedded by late chunking (else empty)
};

struct StoredChunk {
  std::int64_t id = 0;
  std::string document_key;
  std::string source;
  std::string title;
  std::string format;
  std::size_t ordinal = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string text;
  Metadata metadata;
  std::string section;
};

struct DocumentSummary {
  std::string key;
  std::string source;
  std::string title;
};

struct ScoredChunk {
  std::int64_t id = 0;
  double score = 0;  // higher is better
};

// Chunk ids allowed by a filter, sorted; nullopt: no filter.
using AllowedChunks = std::optional<std::vector<std::int64_t>>;

// What a search is restricted to; every part given must hold.
struct ChunkFilter {
  std::vector<std::pair<std::string, std::string>> metadata;  // key=value, all of them
  std::vector<std::string> formats;                           // any of them
  std::vector<std::string> folders;                           // below any of them (see folder_prefixes)
  [[nodiscard]] bool empty() const { return metadata.empty() && formats.empty() && folders.empty(); }
};

// The folders of SearchOptions::folders as (path, path + "/") pairs a source
// must equal or start with: "/a/b/" and "/a/b" both give ("/a/b", "/a/b/"),
// so "/a/b" holds "/a/b/c" but not "/a/bc"; "/" holds everything.
std::vector<std::pair<std::string, std::string>> folder_prefixes(const std::vector<std::string>& folders);

// Narrows `allowed` (nullopt: everything) to the sorted `ids`.
void narrow(AllowedChunks& allowed, std::vector<std::int64_t> ids);
// The sorted union of two sorted lists.
std::vector<std::int64_t> united(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// The chunk ids each part of a filter allows, as a store looks them up: each list sorted by id.
struct FilterLookups {
  // Chunks of documents whose metadata `key` is `value` ("source": of documents read from that file).
  std::function<std::vector<std::int64_t>(const std::string& key, const std::string& value)> metadata;
  std::function<std::vector<std::int64_t>(const std::vector<std::string>& formats)> formats;
  // Chunks of documents whose source is `folder` or starts with `prefix` (folder_prefixes()).
  std::function<std::vector<std::int64_t>(const std::string& folder, const std::string& prefix)> below;
};
// What a filter allows, every part of it intersected (the folders united): nullopt for an empty filter.
AllowedChunks allowed_chunks(const ChunkFilter& filter, const FilterLookups& lookups);

// The chunk columns chunk_from_row() reads, in its order; a query selects them from "chunks c" and "documents d".
inline constexpr std::string_view kChunkColumns =
    "c.id, d.key, d.source, d.title, c.ordinal, c.start_byte, c.end_byte, c.text, d.metadata, c.section, d.format";
Metadata parse_metadata(std::string_view json_text);  // (below)
// A row of a query selecting kChunkColumns: `integer(i)` and `text(i)` read its column i.
template <typename Integer, typename Text>
StoredChunk chunk_from_row(Integer integer, Text text) {
  StoredChunk chunk;
  chunk.id = integer(0);
  chunk.document_key = std::string(text(1));
  chunk.source = std::string(text(2));
  chunk.title = std::string(text(3));
  chunk.ordinal = static_cast<std::size_t>(integer(4));
  chunk.begin = static_cast<std::size_t>(integer(5));
  chunk.end = static_cast<std::size_t>(integer(6));
  chunk.text = std::string(text(7));
  chunk.metadata = parse_metadata(text(8));
  chunk.section = std::string(text(9));
  chunk.format = std::string(text(10));
  return chunk;
}

// The checks both stores make with the same SQL, on tables named by `table` ("chunks" -> the store's name for it):
// chunks of no document, chunks not numbered 0 to n - 1, a chunk stored twice. `rows(sql)` runs a query and gives
// its rows as text.
void check_chunk_rows(CheckReport& report, const std::function<std::string(std::string_view)>& table,
                      const std::function<std::vector<std::vector<std::string>>(const std::string&)>& rows);

// A document's format guessed from its id and file (for documents indexed
// before formats were recorded): by the file name's ending, else "text".
std::string format_by_name(std::string_view key, std::string_view source);

// One write transaction; rolled back unless committed.
class StorageWriter {
 public:
  virtual ~StorageWriter() = default;
  // The content hash and source of a stored document.
  virtual std::optional<std::pair<std::string, std::string>> document(std::string_view key) = 0;
  // Returns the number of chunks removed (0 when there was no such document).
  virtual std::size_t remove_document(std::string_view key) = 0;
  virtual void add_document(const NewDocument& document) = 0;
  [[nodiscard]] virtual std::vector<std::string> documents_of_source(std::string_view source) = 0;
  virtual void set_source(std::string_view source, std::string_view content_hash, std::uint64_t bytes) = 0;
  virtual void remove_source(std::string_view source) = 0;
  virtual void commit() = 0;
};

// A consistent view of the index at one moment.
class StorageSnapshot {
 public:
  virtual ~StorageSnapshot() = default;
  virtual AllowedChunks filter(const ChunkFilter& filter) = 0;
  // Nearest chunks by inner product of normalized vectors.
  virtual std::vector<ScoredChunk> nearest(std::span<const float> query, std::size_t n, const AllowedChunks& allowed,
                                           bool exact, std::size_t ef, bool* used_ann) = 0;
  // Best chunks by BM25 for the words of `query`.
  virtual std::vector<ScoredChunk> keyword(std::string_view query, std::size_t n, const AllowedChunks& allowed) = 0;
  // Best chunks by the dot product of their sparse vectors with `query`'s
  // (chunks sharing no term with it are left out).
  virtual std::vector<ScoredChunk> sparse(const SparseVector& query, std::size_t n, const AllowedChunks& allowed) = 0;
  // The chunks with these ids, in that order; ids no longer stored are left out.
  virtual std::vector<StoredChunk> chunks(std::span<const std::int64_t> ids) = 0;
  // Every chunk of one document (by its key), in order; empty when there is no such document.
  virtual std::vector<StoredChunk> document_chunks(std::string_view key) = 0;
  // Up to `limit` documents whose keys sort after `after` (byte order), in that order.
  virtual std::vector<DocumentSummary> documents_after(std::string_view after, std::size_t limit) = 0;
};

struct StorageConfig {
  IndexModel model;
  std::optional<IndexModel> sparse_model;
  IndexCreateOptions options;
};

// Held while one process adds to or removes from an index: a second writer
// is refused at once (kOverloaded) instead of waiting for a long add.
class WriterLock {
 public:
  virtual ~WriterLock() = default;
};

class IndexStorage {
 public:
  virtual ~IndexStorage() = default;
  // The model and options the index was created with.
  [[nodiscard]] virtual const StorageConfig& config() const = 0;
  [[nodiscard]] virtual std::optional<std::string> meta(std::string_view key) const = 0;
  [[nodiscard]] virtual std::optional<std::string> source_hash(std::string_view source) const = 0;
  // The sources (files read) whose path starts with `prefix`.
  [[nodiscard]] virtual std::vector<std::string> sources_with_prefix(std::string_view prefix) const = 0;
  // The content hash and source of a stored document.
  [[nodiscard]] virtual std::optional<std::pair<std::string, std::string>> document(std::string_view key) const = 0;
  virtual std::unique_ptr<StorageWriter> begin_write() = 0;
  virtual std::unique_ptr<WriterLock> lock_writers() = 0;
  [[nodiscard]] virtual std::unique_ptr<StorageSnapshot> snapshot() const = 0;
  // Brings the nearest-neighbour graph up to date with the stored vectors
  // (writers call it after their changes). Returns the chunks it now covers.
  virtual std::size_t refresh_graph() = 0;
  [[nodiscard]] virtual IndexStats stats() const = 0;
  [[nodiscard]] virtual CheckReport check() const = 0;
};

// What both stores share.
// The n best of `scored`, best first, ties by id for a stable order.
void keep_best(std::vector<ScoredChunk>& scored, std::size_t n);
// The statistics an index's configuration gives (model, sparse model, chunking, exact threshold).
IndexStats stats_of(const StorageConfig& config);
// A document's metadata as stored (a JSON object), values as strings.
Metadata parse_metadata(std::string_view json_text);
// The model and options an index records, as (key, value) pairs of its
// meta table (without schema_version, which each store writes itself).
std::vector<std::pair<std::string, std::string>> config_entries(const StorageConfig& config);
// The same read back: `get` returns a key's value or throws naming what is
// missing; `sparse` says whether the index has a sparse model.
// `find`: an entry that indexes made before it existed may lack.
StorageConfig config_from(const std::function<std::string(std::string_view)>& get,
                          const std::function<std::optional<std::string>(std::string_view)>& find, bool sparse);

// Opens the SQLite storage in `folder`; with `create`, makes it (recording
// `create`'s model and options) when the folder holds none.
std::unique_ptr<IndexStorage> open_sqlite_storage(const std::filesystem::path& folder,
                                                  const std::optional<StorageConfig>& create);

// A PostgreSQL location: postgresql://[user@]host[:port]/database[?index=NAME&...]
// (libpq's URI; the password from PGPASSWORD or ~/.pgpass, or in the URI).
// The index's tables live in the schema sieve_NAME (NAME: "default" unless
// given); the database needs pgvector.
bool is_postgres_location(std::string_view location);
std::unique_ptr<IndexStorage> open_postgres_storage(std::string_view location,
                                                    const std::optional<StorageConfig>& create);
// The location as messages show it: a PostgreSQL password hidden.
std::string shown_location(std::string_view location);

}  // namespace sieve::search
