#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "search/ann_graph.hpp"
#include "search/connection_pool.hpp"
#include "search/digest.hpp"
#include "search/graph_file.hpp"
#include "search/sqlite.hpp"
#include "search/storage.hpp"
#include "search/text_match.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDatabaseFile = "index.sqlite";
// Version 2 is version 1 plus the sparse model and its posting lists: an
// index without a sparse model stays at 1, readable by earlier Sieves, and
// one with a sparse model is refused by them instead of losing postings.
constexpr const char* kSchemaVersion = "1";
constexpr const char* kSparseSchemaVersion = "2";

// Deleting a chunk logs its id, so that the graph, which only marks
// deletions, can catch up; and FTS5's external-content table follows the
// chunks through triggers.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources(path TEXT PRIMARY KEY, content_hash TEXT NOT NULL, bytes INTEGER NOT NULL,
  indexed_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
  title TEXT NOT NULL, content_hash TEXT NOT NULL, metadata TEXT NOT NULL, format TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS documents_by_source ON documents(source);
CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY AUTOINCREMENT, document_id INTEGER NOT NULL,
  ordinal INTEGER NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL, text TEXT NOT NULL,
  vector BLOB NOT NULL, section TEXT NOT NULL DEFAULT '', UNIQUE(document_id, ordinal));
CREATE TABLE IF NOT EXISTS document_metadata(document_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(document_id, key)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS metadata_lookup ON document_metadata(key, value);
CREATE TABLE IF NOT EXISTS removed_chunks(seq INTEGER PRIMARY KEY AUTOINCREMENT, chunk_id INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, content='chunks', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS chunks_added AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_removed AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO removed_chunks(chunk_id) VALUES (old.id);
END;
)sql";

// BM25 compares words by their stems (FTS5's porter tokenizer around
// unicode61): "quantize" finds "quantization".
constexpr const char* kFtsTokenizer = "porter unicode61 remove_diacritics 2";

// A posting list per vocabulary term: the chunks whose sparse vector has a
// weight for it. Keyed by term for queries, indexed by chunk for removals.
constexpr const char* kSparseSchema = R"sql(
CREATE TABLE IF NOT EXISTS sparse_postings(term INTEGER NOT NULL, chunk_id INTEGER NOT NULL, weight REAL NOT NULL,
  PRIMARY KEY(term, chunk_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sparse_postings_by_chunk ON sparse_postings(chunk_id);
CREATE TRIGGER IF NOT EXISTS chunks_removed_postings AFTER DELETE ON chunks BEGIN
  DELETE FROM sparse_postings WHERE chunk_id = old.id;
END;
)sql";

std::string now_utc() {
  std::array<char, 32> text{};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

// The vectors of chunks in memory, for exact search; valid for one state of the data.
struct VectorCache {
  std::int64_t max_chunk = -1;
  std::int64_t removed = -1;
  std::vector<std::int64_t> ids;
  std::vector<float> data;
};

class SqliteStorage;

// One writer per index folder across processes, by a lock on a file beside
// the database (SQLite's own lock would make a second add wait instead).
class FolderWriterLock final : public WriterLock {
 public:
  explicit FolderWriterLock(const fs::path& folder) {
    const fs::path file = folder / "write.lock";
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(ErrorCode::kRuntime, "cannot open " + file.string() + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw Error(ErrorCode::kOverloaded, "another process is writing to the index in " + folder.string());
    }
  }
  FolderWriterLock(const FolderWriterLock&) = delete;
  FolderWriterLock& operator=(const FolderWriterLock&) = delete;
  ~FolderWriterLock() override { ::close(fd_); }

 private:
  int fd_ = -1;
};

class SqliteWriter final : public StorageWriter {
 public:
  SqliteWriter(Database& db, std::unique_lock<std::mutex> lock, bool sparse)
      : lock_(std::move(lock)), db_(&db), transaction_(db, Transaction::Kind::kWrite), sparse_(sparse) {}

  std::optional<std::pair<std::string, std::string>> document(std::string_view key) override {
    auto statement = db_->prepare("SELECT content_hash, source FROM documents WHERE key = ?");
    statement.bind(1, key);
    if (!statement.step()) return std::nullopt;
    return std::make_pair(statement.text(0), statement.text(1));
  }

  std::size_t remove_document(std::string_view key) override {
    auto find = db_->prepare("SELECT id FROM documents WHERE key = ?");
    find.bind(1, key);
    if (!find.step()) return 0;
    const std::int64_t id = find.integer(0);
    auto remove_chunks = db_->prepare("DELETE FROM chunks WHERE document_id = ?");
    remove_chunks.bind(1, id).run();
    const auto removed = static_cast<std::size_t>(db_->changes());
    db_->prepare("DELETE FROM document_metadata WHERE document_id = ?").bind(1, id).run();
    db_->prepare("DELETE FROM documents WHERE id = ?").bind(1, id).run();
    return removed;
  }

  void add_document(const NewDocument& document) override {
    nlohmann::json metadata = nlohmann::json::object();
    for (const auto& [key, value] : document.metadata) metadata[key] = value;
    auto insert = db_->prepare(
        "INSERT INTO documents(key, source, title, content_hash, metadata, format) VALUES (?, ?, ?, ?, ?, ?)");
    insert.bind(1, document.key).bind(2, document.source).bind(3, document.title).bind(4, document.content_hash);
    insert.bind(5, metadata.dump()).bind(6, document.format).run();
    const std::int64_t id = db_->last_insert_rowid();
    auto insert_metadata = db_->prepare("INSERT OR REPLACE INTO document_metadata VALUES (?, ?, ?)");
    for (const auto& [key, value] : document.metadata) insert_metadata.bind(1, id).bind(2, key).bind(3, value).run();
    auto insert_chunk = db_->prepare(
        "INSERT INTO chunks(document_id, ordinal, start_byte, end_byte, text, vector, section) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)");
    std::optional<Statement> insert_posting;
    if (sparse_) insert_posting.emplace(db_->prepare("INSERT INTO sparse_postings VALUES (?, ?, ?)"));
    for (std::size_t i = 0; i < document.chunks.size(); ++i) {
      const auto& chunk = document.chunks[i];
      insert_chunk.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, static_cast<std::int64_t>(chunk.begin));
      insert_chunk.bind(4, static_cast<std::int64_t>(chunk.end)).bind(5, chunk.text).bind_blob(6, chunk.vector);
      insert_chunk.bind(7, chunk.section).run();
      if (!insert_posting) {
        if (!chunk.sparse.ids.empty()) {
          throw Error(ErrorCode::kInvalidArgument, "a sparse vector for an index without a sparse model");
        }
        continue;
      }
      const std::int64_t chunk_id = db_->last_insert_rowid();
      for (std::size_t t = 0; t < chunk.sparse.ids.size(); ++t) {
        insert_posting->bind(1, static_cast<std::int64_t>(chunk.sparse.ids[t])).bind(2, chunk_id);
        insert_posting->bind(3, static_cast<double>(chunk.sparse.weights[t])).run();
      }
    }
  }

  std::vector<std::string> documents_of_source(std::string_view source) override {
    auto statement = db_->prepare("SELECT key FROM documents WHERE source = ? ORDER BY key");
    statement.bind(1, source);
    std::vector<std::string> keys;
    while (statement.step()) keys.push_back(statement.text(0));
    return keys;
  }

  void set_source(std::string_view source, std::string_view content_hash, std::uint64_t bytes) override {
    auto statement = db_->prepare("INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?)");
    statement.bind(1, source).bind(2, content_hash).bind(3, static_cast<std::int64_t>(bytes)).bind(4, now_utc()).run();
  }

  void remove_source(std::string_view source) override {
    db_->prepare("DELETE FROM sources WHERE path = ?").bind(1, source).run();
  }

  void commit() override { transaction_.commit(); }

 private:
  std::unique_lock<std::mutex> lock_;
  Database* db_;
  Transaction transaction_;
  bool sparse_ = false;
};

class SqliteStorage final : public IndexStorage {
 public:
  SqliteStorage(fs::path folder, const std::optional<StorageConfig>& create) : folder_(std::move(folder)) {
    const fs::path file = folder_ / kDatabaseFile;
    const bool exists = fs::exists(file);
    if (!exists && !create) {
      throw Error(ErrorCode::kNotFound,
                  "no search index in " + folder_.string() + " (create one with sieve index add)");
    }
    if (!exists) {
      // Made under another name and renamed: a process killed while creating
      // leaves no half-made index behind.
      fs::create_directories(folder_);
      const fs::path temporary = folder_ / (std::string(kDatabaseFile) + ".creating");
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(temporary.string() + suffix);
      {
        Database fresh(temporary, Database::Mode::kReadWrite);
        fresh.exec("PRAGMA journal_mode=WAL");
        Transaction transaction(fresh, Transaction::Kind::kWrite);
        fresh.exec(kSchema);
        if (create->sparse_model) fresh.exec(kSparseSchema);
        write_config(fresh, *create);
        transaction.commit();
      }
      fs::rename(temporary, file);
      sync_directory(folder_);
    }
    writer_db_ = std::make_unique<Database>(file, Database::Mode::kReadWrite);
    auto& db = *writer_db_;
    // WAL: readers keep their snapshot while a writer commits. NORMAL
    // synchronisation loses nothing when a process is killed, only the last
    // commits on power loss, which the next add redoes.
    db.exec("PRAGMA journal_mode=WAL");
    db.exec("PRAGMA synchronous=NORMAL");
    {
      const auto version = meta("schema_version");
      if (!version) throw Error(ErrorCode::kParse, file.string() + " is not a Sieve index (no schema_version)");
      if (*version != kSchemaVersion && *version != kSparseSchemaVersion) {
        throw Error(ErrorCode::kUnsupported, file.string() + " has index schema " + *version + "; this Sieve reads " +
                                                 kSchemaVersion + " and " + kSparseSchemaVersion);
      }
    }
    // Indexes made before chunks knew their section (page, slide, sheet) get the column, empty for their
    // chunks until their files are read again.
    if (!db.prepare("SELECT 1 FROM pragma_table_info('chunks') WHERE name = 'section'").step()) {
      db.exec("ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT ''");
    }
    // Indexes made before documents knew their format get the column, their documents' formats guessed
    // from their file names.
    if (!db.prepare("SELECT 1 FROM pragma_table_info('documents') WHERE name = 'format'").step()) {
      Transaction transaction(db, Transaction::Kind::kWrite);
      // Another process may have added it meanwhile.
      if (!db.prepare("SELECT 1 FROM pragma_table_info('documents') WHERE name = 'format'").step()) {
        db.exec("ALTER TABLE documents ADD COLUMN format TEXT NOT NULL DEFAULT ''");
      }
      std::vector<std::pair<std::int64_t, std::string>> formats;
      auto documents = db.prepare("SELECT id, key, source FROM documents");
      while (documents.step()) {
        formats.emplace_back(documents.integer(0), format_by_name(documents.text(1), documents.text(2)));
      }
      auto update = db.prepare("UPDATE documents SET format = ? WHERE id = ?");
      for (const auto& [id, format] : formats) {
        update.bind(1, format).bind(2, id).run();
      }
      transaction.commit();
    }
    stem_keyword_index(db);
    config_ = read_config_from(db);
    graphs_ = std::make_unique<GraphFiles>(folder_, config_.model.dimension, config_.options.vectors,
                                           config_.options.graph_dimensions);
  }

  [[nodiscard]] const GraphFiles& graphs() const { return *graphs_; }

  std::optional<std::string> meta(std::string_view key) const override {
    auto lease = reader();
    return meta_of(*lease.db, key);
  }

  std::optional<std::string> source_hash(std::string_view source) const override {
    auto lease = reader();
    auto statement = lease.db->prepare("SELECT content_hash FROM sources WHERE path = ?");
    statement.bind(1, source);
    if (!statement.step()) return std::nullopt;
    return statement.text(0);
  }

  std::vector<std::string> sources_with_prefix(std::string_view prefix) const override {
    auto lease = reader();
    // substr rather than a range of paths: what sorts between "dir/" and "dir0" depends on the collation.
    auto statement = lease.db->prepare("SELECT path FROM sources WHERE substr(path, 1, length(?1)) = ?1");
    statement.bind(1, prefix);
    std::vector<std::string> paths;
    while (statement.step()) paths.push_back(statement.text(0));
    return paths;
  }

  std::optional<std::pair<std::string, std::string>> document(std::string_view key) const override {
    auto lease = reader();
    auto statement = lease.db->prepare("SELECT content_hash, source FROM documents WHERE key = ?");
    statement.bind(1, key);
    if (!statement.step()) return std::nullopt;
    return std::make_pair(statement.text(0), statement.text(1));
  }

  std::unique_ptr<StorageWriter> begin_write() override {
    std::unique_lock lock(writer_mutex_);
    return std::make_unique<SqliteWriter>(*writer_db_, std::move(lock), config_.sparse_model.has_value());
  }

  std::unique_ptr<WriterLock> lock_writers() override { return std::make_unique<FolderWriterLock>(folder_); }

  std::unique_ptr<StorageSnapshot> snapshot() const override;

  std::size_t refresh_graph() override;
  IndexStats stats() const override;
  CheckReport check() const override;

  const StorageConfig& config() const override { return config_; }

  // A read connection of the pool, returned on destruction.
  using Lease = ConnectionPool<Database>::Lease;
  Lease reader() const { return readers_.lease(); }

  static std::optional<std::string> meta_of(Database& db, std::string_view key) {
    auto statement = db.prepare("SELECT value FROM meta WHERE key = ?");
    statement.bind(1, key);
    if (!statement.step()) return std::nullopt;
    return statement.text(0);
  }

  static GraphRecord graph_record(Database& db) {
    GraphRecord record;
    record.file = meta_of(db, "graph_file").value_or("");
    record.sha256 = meta_of(db, "graph_sha256").value_or("");
    record.covers_chunk = std::stoll(meta_of(db, "graph_covers_chunk").value_or("0"));
    record.covers_removed = std::stoll(meta_of(db, "graph_covers_removed").value_or("0"));
    record.scales = meta_of(db, "graph_scales").value_or("");
    return record;
  }

  static std::int64_t sequence(Database& db, std::string_view table) {
    auto statement = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?");
    statement.bind(1, table);
    return statement.step() ? statement.integer(0) : 0;
  }

  static std::int64_t count(Database& db, std::string_view sql) {
    auto statement = db.prepare(sql);
    return statement.step() ? statement.integer(0) : 0;
  }

  std::shared_ptr<const VectorCache> all_vectors(Database& db, std::int64_t max_chunk, std::int64_t removed) const {
    {
      const std::scoped_lock lock(cache_mutex_);
      if (cache_ && cache_->max_chunk == max_chunk && cache_->removed == removed) return cache_;
    }
    auto cache = std::make_shared<VectorCache>();
    cache->max_chunk = max_chunk;
    cache->removed = removed;
    auto statement = db.prepare("SELECT id, vector FROM chunks ORDER BY id");
    const std::size_t dimension = config_.model.dimension;
    while (statement.step()) {
      const auto vector = statement.floats(1);
      if (vector.size() != dimension) continue;  // check() reports it
      cache->ids.push_back(statement.integer(0));
      cache->data.insert(cache->data.end(), vector.begin(), vector.end());
    }
    const std::scoped_lock lock(cache_mutex_);
    cache_ = cache;
    return cache;
  }

  fs::path folder_;
  StorageConfig config_;
  std::unique_ptr<Database> writer_db_;
  std::mutex writer_mutex_;
  ConnectionPool<Database> readers_{
      [this] { return std::make_unique<Database>(folder_ / kDatabaseFile, Database::Mode::kReadOnly); }};
  std::unique_ptr<GraphFiles> graphs_;  // made once the dimension is known
  mutable std::mutex cache_mutex_;
  mutable std::shared_ptr<const VectorCache> cache_;

 private:
  // Indexes made before BM25 stemmed words get their FTS5 table rebuilt with the porter tokenizer, in one
  // transaction: a crash leaves the old table, and the next open rebuilds it again.
  static void stem_keyword_index(Database& db) {
    const auto uses_porter = [&db] {
      auto statement = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chunks_fts'");
      return !statement.step() || statement.text(0).find("porter") != std::string::npos;
    };
    if (uses_porter()) return;
    Transaction transaction(db, Transaction::Kind::kWrite);
    if (uses_porter()) return;  // another process got there first
    db.exec("DROP TABLE chunks_fts");
    db.exec(std::string("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id', "
                        "tokenize='") +
            kFtsTokenizer + "')");
    db.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')");
    transaction.commit();
  }

  static void write_config(Database& db, const StorageConfig& config) {
    auto set = db.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)");
    const auto put = [&](std::string_view key, const std::string& value) { set.bind(1, key).bind(2, value).run(); };
    put("schema_version", config.sparse_model ? kSparseSchemaVersion : kSchemaVersion);
    for (const auto& [key, value] : config_entries(config)) put(key, value);
    put("created_at", now_utc());
  }

  static StorageConfig read_config_from(Database& db) {
    const auto get = [&](std::string_view key) {
      auto value = meta_of(db, key);
      if (!value) throw Error(ErrorCode::kParse, db.file().string() + ": the index records no " + std::string(key));
      return *value;
    };
    StorageConfig config = config_from(
        get, [&](std::string_view key) { return meta_of(db, key); }, get("schema_version") == kSparseSchemaVersion);
    if (config.model.dimension == 0) throw Error(ErrorCode::kParse, db.file().string() + ": dimension 0");
    return config;
  }
};

class SqliteSnapshot final : public StorageSnapshot {
 public:
  explicit SqliteSnapshot(const SqliteStorage& storage)
      : storage_(&storage), lease_(storage.reader()), transaction_(*lease_.db, Transaction::Kind::kRead) {
    auto& db = *lease_.db;
    graph_ = SqliteStorage::graph_record(db);
    max_chunk_ = SqliteStorage::sequence(db, "chunks");
    removed_ = SqliteStorage::sequence(db, "removed_chunks");
  }

  AllowedChunks filter(const ChunkFilter& filter) override {
    const auto ids_of = [](Statement& statement) {
      std::vector<std::int64_t> ids;
      while (statement.step()) ids.push_back(statement.integer(0));
      return ids;
    };
    FilterLookups lookups;
    lookups.metadata = [&](const std::string& key, const std::string& value) {
      auto statement =
          key == "source"
              ? lease_.db->prepare(
                    "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.source = ?2 "
                    "AND ?1 = 'source' ORDER BY c.id")
              : lease_.db->prepare(
                    "SELECT c.id FROM chunks c JOIN document_metadata m ON m.document_id = c.document_id "
                    "WHERE m.key = ?1 AND m.value = ?2 ORDER BY c.id");
      statement.bind(1, key).bind(2, value);
      return ids_of(statement);
    };
    lookups.formats = [&](const std::vector<std::string>& formats) {
      auto statement = lease_.db->prepare(
          "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
          "WHERE d.format IN (SELECT value FROM json_each(?1)) ORDER BY c.id");
      statement.bind(1, nlohmann::json(formats).dump());
      return ids_of(statement);
    };
    lookups.below = [&](const std::string& folder, const std::string& prefix) {
      // substr rather than a range of paths: what sorts between "dir/" and "dir0" depends on the collation.
      auto statement = lease_.db->prepare(
          "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
          "WHERE d.source = ?1 OR substr(d.source, 1, length(?2)) = ?2 ORDER BY c.id");
      statement.bind(1, folder).bind(2, prefix);
      return ids_of(statement);
    };
    return allowed_chunks(filter, lookups);
  }

  std::vector<ScoredChunk> nearest(std::span<const float> query, std::size_t n, const AllowedChunks& allowed,
                                   bool exact, std::size_t ef, bool* used_ann) override {
    if (used_ann) *used_ann = false;
    const std::size_t threshold = storage_->config().options.exact_threshold;
    std::shared_ptr<const LoadedGraph> graph;
    // A graph is kept (and recorded) only while the index holds at least `threshold` chunks: counting them here
    // would cost every search a scan of the chunks (5 ms at a million).
    if (!exact) graph = storage_->graphs().load(graph_);
    if (allowed && allowed->size() <= threshold) graph = nullptr;
    if (!graph) {
      if (allowed) return exact_over(query, n, *allowed);
      const auto cache = storage_->all_vectors(*lease_.db, max_chunk_, removed_);
      return exact_cache(query, n, *cache);
    }
    if (used_ann) *used_ann = true;
    // Removed since the graph was saved: still live in the graph.
    std::unordered_set<std::int64_t> removed;
    {
      auto statement = lease_.db->prepare("SELECT chunk_id FROM removed_chunks WHERE seq > ?");
      statement.bind(1, graph_.covers_removed);
      while (statement.step()) removed.insert(statement.integer(0));
    }
    const auto keep = [&](std::int64_t id) {
      if (removed.contains(id)) return false;
      return !allowed || std::binary_search(allowed->begin(), allowed->end(), id);
    };
    // Chunks added since the graph was saved.
    const auto tail = [&](const std::function<void(std::int64_t, std::span<const float>)>& each) {
      auto statement = lease_.db->prepare("SELECT id, vector FROM chunks WHERE id > ?");
      statement.bind(1, graph_.covers_chunk);
      while (statement.step()) each(statement.integer(0), statement.floats(1));
    };
    const auto& options = storage_->config().options;
    const std::size_t factor = options.rescore.value_or(0);
    if (factor == 0) {
      return GraphFiles::search(*graph, graph_, query, n, ef, removed.size(), allowed.has_value(), keep, tail);
    }
    // The graph's best candidates scored again with their whole float32 vectors.
    const auto rescore = [&](std::vector<ScoredChunk>& candidates) {
      auto statement = lease_.db->prepare("SELECT vector FROM chunks WHERE id = ?");
      std::erase_if(candidates, [&](ScoredChunk& candidate) {
        statement.bind(1, candidate.id);
        const bool stored = statement.step() && statement.floats(0).size() == query.size();
        if (stored) candidate.score = inner_product(query, statement.floats(0).data());
        statement.reset();
        return !stored;
      });
    };
    return GraphFiles::search(*graph, graph_, query, n, ef, removed.size(), allowed.has_value(), keep, tail, n * factor,
                              rescore);
  }

  std::vector<ScoredChunk> keyword(std::string_view query, std::size_t n, const AllowedChunks& allowed) override {
    std::vector<ScoredChunk> found;
    const std::string match = fts_query(query);
    if (match.empty() || n == 0) return found;
    auto statement = lease_.db->prepare(
        "SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?");
    for (std::size_t limit = allowed ? n * 8 : n;; limit *= 4) {
      found.clear();
      statement.bind(1, match).bind(2, static_cast<std::int64_t>(limit));
      std::size_t rows = 0;
      while (statement.step()) {
        ++rows;
        const std::int64_t id = statement.integer(0);
        if (allowed && !std::binary_search(allowed->begin(), allowed->end(), id)) continue;
        // FTS5's bm25() is lower-is-better.
        if (found.size() < n) found.push_back({id, -statement.real(1)});
      }
      statement.reset();
      if (found.size() >= n || rows < limit) break;
    }
    return found;
  }

  std::vector<ScoredChunk> sparse(const SparseVector& query, std::size_t n, const AllowedChunks& allowed) override {
    if (!storage_->config().sparse_model) {
      throw Error(ErrorCode::kInvalidArgument, "this index stores no sparse vectors");
    }
    // Term at a time: each of the query's terms adds its weight times the
    // chunk's to every chunk of its posting list.
    std::unordered_map<std::int64_t, double> scores;
    auto statement = lease_.db->prepare("SELECT chunk_id, weight FROM sparse_postings WHERE term = ?");
    for (std::size_t t = 0; t < query.ids.size(); ++t) {
      statement.bind(1, static_cast<std::int64_t>(query.ids[t]));
      const double weight = query.weights[t];
      while (statement.step()) scores[statement.integer(0)] += weight * statement.real(1);
      statement.reset();
    }
    std::vector<ScoredChunk> found;
    found.reserve(scores.size());
    for (const auto& [id, score] : scores) {
      if (!allowed || std::binary_search(allowed->begin(), allowed->end(), id)) found.push_back({id, score});
    }
    keep_best(found, n);
    return found;
  }

  // The current row of a query selecting kChunkColumns.
  static StoredChunk stored_chunk(const Statement& statement) {
    return chunk_from_row([&](int i) { return statement.integer(i); }, [&](int i) { return statement.text_view(i); });
  }

  std::vector<StoredChunk> chunks(std::span<const std::int64_t> ids) override {
    std::vector<StoredChunk> result;
    auto statement = lease_.db->prepare(std::string("SELECT ") + std::string(kChunkColumns) +
                                        " FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?");
    for (const std::int64_t id : ids) {
      statement.bind(1, id);
      if (statement.step()) {
        result.push_back(stored_chunk(statement));
      }
      statement.reset();
    }
    return result;
  }

  std::vector<StoredChunk> document_chunks(std::string_view key) override {
    std::vector<StoredChunk> result;
    auto statement = lease_.db->prepare(
        std::string("SELECT ") + std::string(kChunkColumns) +
        " FROM documents d JOIN chunks c ON c.document_id = d.id WHERE d.key = ? ORDER BY c.ordinal");
    statement.bind(1, key);
    while (statement.step()) {
      result.push_back(stored_chunk(statement));
    }
    return result;
  }

  std::vector<DocumentSummary> documents_after(std::string_view after, std::size_t limit) override {
    std::vector<DocumentSummary> result;
    auto statement = lease_.db->prepare("SELECT key, source, title FROM documents WHERE key > ? ORDER BY key LIMIT ?");
    statement.bind(1, after).bind(2, static_cast<std::int64_t>(limit));
    while (statement.step()) result.push_back({statement.text(0), statement.text(1), statement.text(2)});
    return result;
  }

 private:
  std::vector<ScoredChunk> exact_over(std::span<const float> query, std::size_t n,
                                      const std::vector<std::int64_t>& ids) {
    std::vector<ScoredChunk> found;
    auto statement = lease_.db->prepare("SELECT vector FROM chunks WHERE id = ?");
    for (const std::int64_t id : ids) {
      statement.bind(1, id);
      if (statement.step()) {
        const auto vector = statement.floats(0);
        if (vector.size() == query.size()) found.push_back({id, inner_product(query, vector.data())});
      }
      statement.reset();
    }
    keep_best(found, n);
    return found;
  }

  static std::vector<ScoredChunk> exact_cache(std::span<const float> query, std::size_t n, const VectorCache& cache) {
    std::vector<ScoredChunk> found(cache.ids.size());
    const std::size_t dimension = query.size();
    for (std::size_t i = 0; i < cache.ids.size(); ++i) {
      found[i] = {cache.ids[i], inner_product(query, cache.data.data() + i * dimension)};
    }
    keep_best(found, n);
    return found;
  }

  const SqliteStorage* storage_;
  SqliteStorage::Lease lease_;
  Transaction transaction_;
  GraphRecord graph_;
  std::int64_t max_chunk_ = 0;
  std::int64_t removed_ = 0;
};

std::unique_ptr<StorageSnapshot> SqliteStorage::snapshot() const {
  return std::make_unique<SqliteSnapshot>(*this);
}

std::size_t SqliteStorage::refresh_graph() {
  auto& db = *writer_db_;
  const std::scoped_lock lock(writer_mutex_);
  GraphRecord record;
  std::int64_t max_chunk = 0;
  std::int64_t removed = 0;
  std::size_t chunk_count = 0;
  {
    Transaction read(db, Transaction::Kind::kRead);
    record = graph_record(db);
    max_chunk = sequence(db, "chunks");
    removed = sequence(db, "removed_chunks");
    chunk_count = static_cast<std::size_t>(count(db, "SELECT count(*) FROM chunks"));
  }
  if (chunk_count < config_.options.exact_threshold) {
    if (!record.file.empty()) {
      Transaction write(db, Transaction::Kind::kWrite);
      db.exec("DELETE FROM meta WHERE key LIKE 'graph_%'");
      db.exec("DELETE FROM removed_chunks");
      write.commit();
    }
    graphs_->remove_stale("");
    return 0;
  }
  const auto current = graphs_->load(record);
  if (current && record.covers_chunk == max_chunk && record.covers_removed == removed) return chunk_count;
  std::vector<std::int64_t> removals;
  if (current) {
    Transaction read(db, Transaction::Kind::kRead);
    auto statement = db.prepare("SELECT chunk_id FROM removed_chunks WHERE seq > ? AND seq <= ?");
    statement.bind(1, record.covers_removed).bind(2, removed);
    while (statement.step()) removals.push_back(statement.integer(0));
  }
  const auto vectors = [&](std::int64_t after, std::int64_t upto,
                           const std::function<void(std::int64_t, std::span<const float>)>& each) {
    Transaction read(db, Transaction::Kind::kRead);
    auto statement = db.prepare("SELECT id, vector FROM chunks WHERE id > ? AND id <= ? ORDER BY id");
    statement.bind(1, after).bind(2, upto);
    while (statement.step()) each(statement.integer(0), statement.floats(1));
  };
  const auto [saved, graph] =
      graphs_->update(record, current.get(), max_chunk, removed, chunk_count, removals, config_.options, vectors);
  {
    Transaction write(db, Transaction::Kind::kWrite);
    auto set = db.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)");
    set.bind(1, std::string_view("graph_file")).bind(2, saved.file).run();
    set.bind(1, std::string_view("graph_sha256")).bind(2, saved.sha256).run();
    set.bind(1, std::string_view("graph_covers_chunk")).bind(2, std::to_string(max_chunk)).run();
    set.bind(1, std::string_view("graph_covers_removed")).bind(2, std::to_string(removed)).run();
    set.bind(1, std::string_view("graph_scales")).bind(2, saved.scales).run();
    db.prepare("DELETE FROM removed_chunks WHERE seq <= ?").bind(1, removed).run();
    write.commit();
  }
  graphs_->make_current(graph);
  graphs_->remove_stale(saved.file);
  return chunk_count;
}

IndexStats SqliteStorage::stats() const {
  IndexStats stats = stats_of(config_);
  stats.folder = folder_;
  auto lease = reader();
  auto& db = *lease.db;
  Transaction read(db, Transaction::Kind::kRead);
  stats.sources = static_cast<std::size_t>(count(db, "SELECT count(*) FROM sources"));
  stats.documents = static_cast<std::size_t>(count(db, "SELECT count(*) FROM documents"));
  stats.chunks = static_cast<std::size_t>(count(db, "SELECT count(*) FROM chunks"));
  {
    auto formats = db.prepare("SELECT format, count(*) FROM documents GROUP BY format");
    while (formats.step()) stats.documents_by_format[formats.text(0)] = static_cast<std::size_t>(formats.integer(1));
  }
  if (config_.sparse_model) {
    stats.sparse_postings = static_cast<std::size_t>(count(db, "SELECT count(*) FROM sparse_postings"));
  }
  std::error_code error;
  for (const char* suffix : {"", "-wal"}) {
    const auto size = fs::file_size(folder_ / (std::string(kDatabaseFile) + suffix), error);
    if (!error) stats.database_bytes += size;
  }
  const GraphRecord record = graph_record(db);
  if (!record.file.empty()) {
    const auto size = fs::file_size(folder_ / record.file, error);
    if (!error) stats.ann_bytes = size;
    stats.ann_elements = static_cast<std::size_t>(
        count(db, ("SELECT count(*) FROM chunks WHERE id <= " + std::to_string(record.covers_chunk)).c_str()));
    const VectorCodec shape(VectorCodes::kFloat32, config_.model.dimension, {}, config_.options.graph_dimensions);
    const std::size_t coded = shape.coded_dimension();
    stats.ann_vector_bytes =
        static_cast<std::uint64_t>(stats.ann_elements) *
        VectorCodec(config_.options.vectors, config_.model.dimension, std::vector<float>(coded, 1.0F), coded)
            .code_bytes();
  }
  return stats;
}

CheckReport SqliteStorage::check() const {
  CheckReport report;
  auto lease = reader();
  auto& db = *lease.db;
  {
    auto statement = db.prepare("PRAGMA integrity_check");
    while (statement.step()) {
      const std::string line = statement.text(0);
      if (line != "ok") report.problems.push_back("SQLite integrity: " + line);
    }
  }
  Transaction read(db, Transaction::Kind::kRead);
  const auto each = [&](std::string_view sql, const std::function<void(Statement&)>& row) {
    auto statement = db.prepare(sql);
    while (statement.step()) row(statement);
  };
  const std::size_t dimension = config_.model.dimension;
  each("SELECT id, length(vector) FROM chunks WHERE length(vector) != " + std::to_string(dimension * sizeof(float)),
       [&](Statement& row) {
         report.problems.push_back("chunk " + std::to_string(row.integer(0)) + " has a vector of " +
                                   std::to_string(row.integer(1)) + " bytes, not " +
                                   std::to_string(dimension * sizeof(float)));
       });
  check_chunk_rows(
      report, [](std::string_view name) { return std::string(name); },
      [&](const std::string& sql) {
        std::vector<std::vector<std::string>> rows;
        auto statement = db.prepare(sql);
        while (statement.step()) {
          auto& row = rows.emplace_back();
          for (int i = 0; i < statement.columns(); ++i) row.push_back(statement.text(i));
        }
        return rows;
      });
  if (config_.sparse_model) {
    each(
        "SELECT p.chunk_id, count(*) FROM sparse_postings p LEFT JOIN chunks c ON c.id = p.chunk_id "
        "WHERE c.id IS NULL GROUP BY p.chunk_id",
        [&](Statement& row) {
          report.problems.push_back("the sparse postings hold " + std::to_string(row.integer(1)) +
                                    " weights of chunk " + std::to_string(row.integer(0)) + ", which is not stored");
        });
    each("SELECT count(*), min(term), max(term) FROM sparse_postings WHERE term < 0 OR term >= " +
             std::to_string(config_.sparse_model->dimension) + " OR NOT weight > 0 HAVING count(*) > 0",
         [&](Statement& row) {
           report.problems.push_back(std::to_string(row.integer(0)) + " sparse weights are not positive or name a " +
                                     "term outside the vocabulary of " +
                                     std::to_string(config_.sparse_model->dimension) + " (terms " +
                                     std::to_string(row.integer(1)) + " to " + std::to_string(row.integer(2)) + ")");
         });
    const auto without = count(db,
                               "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                               "(SELECT 1 FROM sparse_postings p WHERE p.chunk_id = c.id)");
    if (without > 0) {
      report.notes.push_back(std::to_string(without) + " chunks have an empty sparse vector (no term of the sparse " +
                             "model's vocabulary has a weight); sparse search never finds them");
    }
  }
  const auto fts_rows = count(db, "SELECT count(*) FROM chunks_fts");
  const auto chunk_rows = count(db, "SELECT count(*) FROM chunks");
  if (fts_rows != chunk_rows) {
    report.problems.push_back("the BM25 index holds " + std::to_string(fts_rows) + " rows for " +
                              std::to_string(chunk_rows) + " chunks");
  }
  const auto unfinished = count(db,
                                "SELECT count(DISTINCT source) FROM documents WHERE source NOT IN "
                                "(SELECT path FROM sources)");
  if (unfinished > 0) {
    report.notes.push_back(std::to_string(unfinished) +
                           " source(s) were being read when indexing stopped; their finished documents are "
                           "searchable and the next sieve index add completes them");
  }
  const GraphRecord record = graph_record(db);
  if (record.file.empty()) {
    report.notes.push_back("no nearest-neighbour graph: " + std::to_string(chunk_rows) + " chunks, searched exactly");
  } else {
    std::string problem;
    const auto graph = graphs_->load(record, &problem);
    if (!graph) {
      report.problems.push_back(problem);
    } else {
      std::size_t missing = 0;
      std::size_t differ = 0;
      auto statement = db.prepare("SELECT id, vector FROM chunks WHERE id <= ?");
      statement.bind(1, record.covers_chunk);
      while (statement.step()) {
        const std::int64_t id = statement.integer(0);
        if (!graph->graph->contains(id)) {
          ++missing;
        } else if (!graph->graph->holds(id, statement.floats(1))) {
          ++differ;
        }
      }
      if (missing > 0) {
        report.problems.push_back(std::to_string(missing) + " chunks the graph should cover are not in it");
      }
      if (differ > 0) {
        report.problems.push_back("the graph holds " + std::to_string(differ) + " chunks' " +
                                  to_string(config_.options.vectors) + " vectors unlike the ones stored");
      }
      const auto tail = count(db, ("SELECT count(*) FROM chunks WHERE id > " + std::to_string(record.covers_chunk)));
      if (tail > 0) {
        report.notes.push_back(std::to_string(tail) +
                               " chunks were added after the graph was saved; they are searched exactly until the "
                               "next sieve index add");
      }
    }
  }
  // FTS5 checks its own structure against the chunks table.
  try {
    Database writer(folder_ / kDatabaseFile, Database::Mode::kReadWrite);
    Transaction transaction(writer, Transaction::Kind::kWrite);
    writer.exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)");
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kParse) {
      report.problems.push_back(std::string("BM25 index: ") + e.what());
    } else {
      report.notes.push_back(std::string("BM25 index not checked: ") + e.what());
    }
  }
  return report;
}

}  // namespace

std::unique_ptr<IndexStorage> open_sqlite_storage(const std::filesystem::path& folder,
                                                  const std::optional<StorageConfig>& create) {
  return std::make_unique<SqliteStorage>(folder, create);
}

}  // namespace sieve::search
