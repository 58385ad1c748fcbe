#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <unordered_map>

#include "search/connection_pool.hpp"
#include "search/postgres.hpp"
#include "search/storage.hpp"
#include "search/text_match.hpp"
#include "sieve/error.hpp"
#include "sieve/text.hpp"

namespace sieve::search {
namespace {

using pg::Connection;
using pg::Param;
using pg::Result;

constexpr const char* kSchemaVersion = "1";
// pgvector's HNSW indexes vectors of up to 2,000 dimensions; beyond, search is exact.
constexpr std::size_t kMaxHnswDimension = 2000;
// How chunks' tsvectors hold words (meta bm25_words): Porter stems. Indexes without it hold folded words.
constexpr const char* kBm25Words = "porter";
// tsvector's limits: positions up to 16,383, 256 of them per word, words up to 2,046 bytes.
constexpr std::size_t kMaxPosition = 16383;
constexpr std::size_t kMaxPositions = 256;
constexpr std::size_t kMaxLexemeBytes = 2046;
// ... and their lexemes together under 1 MiB.
constexpr std::size_t kMaxTsvectorLexemeBytes = (std::size_t{1} << 20) - 1;

std::string number(double value) {
  std::array<char, 32> text{};
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value);
  return {text.data(), error == std::errc() ? end : text.data()};
}

std::string number(float value) {
  std::array<char, 32> text{};
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value);
  return {text.data(), error == std::errc() ? end : text.data()};
}

// pgvector's text form: [1.5,2,...]; the shortest text that reads back as the same float.
std::string vector_text(std::span<const float> vector) {
  std::string out = "[";
  for (std::size_t i = 0; i < vector.size(); ++i) {
    if (i) out += ',';
    out += number(vector[i]);
  }
  out += ']';
  return out;
}

// sparsevec's text form: {index:value,...}/dimension, indices from 1.
std::string sparse_text(const SparseVector& vector, std::size_t dimension) {
  std::string out = "{";
  for (std::size_t i = 0; i < vector.ids.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(static_cast<std::uint64_t>(vector.ids[i]) + 1);
    out += ':';
    out += number(vector.weights[i]);
  }
  out += "}/";
  out += std::to_string(dimension);
  return out;
}

void quote_lexeme(std::string& out, std::string_view word) {
  out += '\'';
  for (const char c : word) {
    if (c == '\'') out += '\'';
    if (c == '\\') out += '\\';
    out += c;
  }
  out += '\'';
}

// The query's distinct words.
std::vector<std::string> query_words(std::string_view query) {
  std::set<std::string> words;
  for (const auto& word : split_words(query)) {
    std::string lexeme = stem(word.key);
    if (lexeme.size() <= kMaxLexemeBytes) words.insert(std::move(lexeme));
  }
  return {words.begin(), words.end()};
}

// A tsquery matching any of `words`.
std::string any_of(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += " | ";
    quote_lexeme(out, word);
  }
  return out;
}

// A text[] literal.
std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (const auto& item : items) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (const char c : item) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

std::string id_array(std::span<const std::int64_t> ids) {
  std::string out = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(ids[i]);
  }
  out += '}';
  return out;
}

class PostgresStorage;

class PostgresWriterLock final : public WriterLock {
 public:
  PostgresWriterLock(const pg::Location& location, const std::string& schema_name) {
    connection_ = std::make_unique<Connection>(location);
    const auto taken = connection_->exec("SELECT pg_try_advisory_lock(hashtext($1))", {schema_name});
    if (taken.text(0, 0) != "t") {
      throw Error(ErrorCode::kOverloaded,
                  "another process is writing to the index " + location.index + " at " + location.shown);
    }
  }

 private:
  // The session's lock ends with the connection.
  std::unique_ptr<Connection> connection_;
};

class PostgresWriter final : public StorageWriter {
 public:
  PostgresWriter(Connection& connection, std::unique_lock<std::mutex> lock, const PostgresStorage& storage);

  std::optional<std::pair<std::string, std::string>> document(std::string_view key) override {
    const auto found =
        db_->exec("SELECT content_hash, source FROM " + table("documents") + " WHERE key = $1", {std::string(key)});
    if (found.rows() == 0) return std::nullopt;
    return std::make_pair(std::string(found.text(0, 0)), std::string(found.text(0, 1)));
  }

  std::size_t remove_document(std::string_view key) override {
    const auto removed = db_->exec("WITH gone AS (DELETE FROM " + table("chunks") +
                                       " WHERE document_id = (SELECT id FROM " + table("documents") +
                                       " WHERE key = $1) RETURNING word_count) SELECT count(*), "
                                       "coalesce(sum(word_count), 0) FROM gone",
                                   {std::string(key)});
    db_->exec("DELETE FROM " + table("documents") + " WHERE key = $1", {std::string(key)});
    add_words(-removed.integer(0, 1));
    return static_cast<std::size_t>(removed.integer(0, 0));
  }

  void add_document(const NewDocument& document) override;

  std::vector<std::string> documents_of_source(std::string_view source) override {
    const auto found =
        db_->exec("SELECT key FROM " + table("documents") + " WHERE source = $1 ORDER BY key", {std::string(source)});
    std::vector<std::string> keys;
    for (int r = 0; r < found.rows(); ++r) keys.emplace_back(found.text(r, 0));
    return keys;
  }

  void set_source(std::string_view source, std::string_view content_hash, std::uint64_t bytes) override {
    db_->exec("INSERT INTO " + table("sources") +
                  "(path, content_hash, bytes) VALUES ($1, $2, $3) ON CONFLICT (path) DO UPDATE SET "
                  "content_hash = excluded.content_hash, bytes = excluded.bytes, indexed_at = now()",
              {std::string(source), std::string(content_hash), std::to_string(bytes)});
  }

  void remove_source(std::string_view source) override {
    db_->exec("DELETE FROM " + table("sources") + " WHERE path = $1", {std::string(source)});
  }

  void commit() override { transaction_.commit(); }

 private:
  [[nodiscard]] std::string table(std::string_view name) const { return schema_ + "." + std::string(name); }

  // BM25 needs the average chunk length: the total is kept with the chunks, in the same transaction.
  void add_words(std::int64_t words) {
    if (words == 0) return;
    db_->exec("UPDATE " + table("meta") + " SET value = (value::bigint + $1)::text WHERE key = 'total_words'",
              {std::to_string(words)});
  }

  std::unique_lock<std::mutex> lock_;
  Connection* db_;
  pg::Transaction transaction_;
  std::string schema_;
  std::optional<std::size_t> sparse_dimension_;
};

class PostgresStorage final : public IndexStorage {
 public:
  PostgresStorage(std::string_view location, const std::optional<StorageConfig>& create)
      : location_(pg::parse_location(location)) {
    writer_ = connect();
    auto& db = *writer_;
    {
      pg::Transaction transaction(db);
      // Two processes creating the same index at once: one creates, the other waits and reads it.
      db.exec("SELECT pg_advisory_xact_lock(hashtext($1))", {schema_name()});
      const bool exists = db.exec("SELECT 1 FROM pg_namespace WHERE nspname = $1", {schema_name()}).rows() > 0;
      if (!exists && !create) {
        throw Error(ErrorCode::kNotFound, "no search index named " + location_.index + " at " + location_.shown +
                                              " (create one with sieve index add)");
      }
      if (!exists) {
        make_schema(db, *create);
        transaction.commit();
      }
    }
    const auto version = meta_of(db, "schema_version");
    if (!version) {
      throw Error(ErrorCode::kParse,
                  "schema " + schema_name() + " at " + location_.shown + " is not a Sieve index (no schema_version)");
    }
    if (*version != kSchemaVersion) {
      throw Error(ErrorCode::kUnsupported, "the index " + location_.index + " at " + location_.shown + " has schema " +
                                               *version + "; this Sieve reads " + kSchemaVersion);
    }
    // Indexes made before chunks knew their section (page, slide, sheet) get the column, empty for their
    // chunks until their files are read again; checked first, so that an index that has it takes no lock.
    if (db.exec("SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'chunks' AND "
                "column_name = 'section'",
                {schema_name()})
            .rows() == 0) {
      db.exec("ALTER TABLE " + table("chunks") + " ADD COLUMN IF NOT EXISTS section text NOT NULL DEFAULT ''");
    }
    // Indexes made before documents knew their format get the column, their documents' formats guessed
    // from their file names.
    if (db.exec("SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'documents' AND "
                "column_name = 'format'",
                {schema_name()})
            .rows() == 0) {
      db.exec("ALTER TABLE " + table("documents") + " ADD COLUMN IF NOT EXISTS format text NOT NULL DEFAULT ''");
      const auto documents = db.exec("SELECT id, key, source FROM " + table("documents") + " WHERE format = ''");
      for (int r = 0; r < documents.rows(); ++r) {
        db.exec("UPDATE " + table("documents") + " SET format = $1 WHERE id = $2",
                {format_by_name(documents.text(r, 1), documents.text(r, 2)), std::string(documents.text(r, 0))});
      }
    }
    stem_words(db);
    config_ = read_config(db);
  }

  [[nodiscard]] const StorageConfig& config() const override { return config_; }

  // Indexes made before BM25 stemmed words get their chunks' tsvectors rebuilt from stems, in one
  // transaction (a crash leaves the old words, and the next open starts again).
  void stem_words(Connection& db) {
    if (meta_of(db, "bm25_words") == kBm25Words) return;
    pg::Transaction transaction(db);
    db.exec("SELECT pg_advisory_xact_lock(hashtext($1))", {schema_name()});
    if (meta_of(db, "bm25_words") == kBm25Words) return;  // another process got there first
    const auto rows = db.exec("SELECT id, text FROM " + table("chunks") + " ORDER BY id");
    constexpr int kBatch = 500;
    for (int first = 0; first < rows.rows(); first += kBatch) {
      std::vector<std::int64_t> ids;
      std::vector<std::string> words;
      for (int r = first; r < std::min(rows.rows(), first + kBatch); ++r) {
        ids.push_back(rows.integer(r, 0));
        std::size_t count = 0;
        words.push_back(pg::tsvector_text(rows.text(r, 1), &count));
      }
      db.exec("UPDATE " + table("chunks") +
                  " c SET words = u.words::tsvector FROM unnest($1::bigint[], $2::text[]) AS u(id, words) "
                  "WHERE c.id = u.id",
              {id_array(ids), text_array(words)});
    }
    db.exec("INSERT INTO " + table("meta") + " VALUES ('bm25_words', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
            {std::string(kBm25Words)});
    transaction.commit();
  }

  [[nodiscard]] std::optional<std::string> meta(std::string_view key) const override {
    auto lease = reader();
    return meta_of(*lease.db, key);
  }

  [[nodiscard]] std::optional<std::string> source_hash(std::string_view source) const override {
    auto lease = reader();
    const auto found =
        lease.db->exec("SELECT content_hash FROM " + table("sources") + " WHERE path = $1", {std::string(source)});
    if (found.rows() == 0) return std::nullopt;
    return std::string(found.text(0, 0));
  }

  [[nodiscard]] std::vector<std::string> sources_with_prefix(std::string_view prefix) const override {
    auto lease = reader();
    // starts_with rather than a range of paths: what sorts between "dir/" and "dir0" depends on the collation.
    const auto found =
        lease.db->exec("SELECT path FROM " + table("sources") + " WHERE starts_with(path, $1)", {std::string(prefix)});
    std::vector<std::string> paths;
    for (int row = 0; row < found.rows(); ++row) paths.emplace_back(found.text(row, 0));
    return paths;
  }

  [[nodiscard]] std::optional<std::pair<std::string, std::string>> document(std::string_view key) const override {
    auto lease = reader();
    const auto found = lease.db->exec("SELECT content_hash, source FROM " + table("documents") + " WHERE key = $1",
                                      {std::string(key)});
    if (found.rows() == 0) return std::nullopt;
    return std::make_pair(std::string(found.text(0, 0)), std::string(found.text(0, 1)));
  }

  std::unique_ptr<StorageWriter> begin_write() override {
    std::unique_lock lock(writer_mutex_);
    if (!writer_->healthy()) writer_ = connect();
    return std::make_unique<PostgresWriter>(*writer_, std::move(lock), *this);
  }

  std::unique_ptr<WriterLock> lock_writers() override {
    return std::make_unique<PostgresWriterLock>(location_, schema_name());
  }

  [[nodiscard]] std::unique_ptr<StorageSnapshot> snapshot() const override;

  // pgvector keeps its HNSW index up to date in every transaction.
  std::size_t refresh_graph() override {
    auto lease = reader();
    return static_cast<std::size_t>(count(*lease.db, "SELECT count(*) FROM " + table("chunks")));
  }

  [[nodiscard]] IndexStats stats() const override;
  [[nodiscard]] CheckReport check() const override;

  [[nodiscard]] std::string table(std::string_view name) const { return location_.schema + "." + std::string(name); }
  [[nodiscard]] std::string schema_name() const { return "sieve_" + location_.index; }
  // A meta value as the transaction on `db` sees it.
  std::optional<std::string> meta_in(Connection& db, std::string_view key) const { return meta_of(db, key); }
  [[nodiscard]] const pg::Location& location() const noexcept { return location_; }

  using Lease = ConnectionPool<Connection>::Lease;
  Lease reader() const { return readers_.lease(); }

  static std::int64_t count(Connection& db, const std::string& sql, const std::vector<Param>& params = {}) {
    const auto result = db.exec(sql, params);
    return result.rows() > 0 && !result.null(0, 0) ? result.integer(0, 0) : 0;
  }

 private:
  [[nodiscard]] std::unique_ptr<Connection> connect() const { return std::make_unique<Connection>(location_); }

  std::optional<std::string> meta_of(Connection& db, std::string_view key) const {
    const auto found = db.exec("SELECT value FROM " + table("meta") + " WHERE key = $1", {std::string(key)});
    if (found.rows() == 0) return std::nullopt;
    return std::string(found.text(0, 0));
  }

  void make_schema(Connection& db, const StorageConfig& config) const {
    try {
      db.exec("CREATE EXTENSION IF NOT EXISTS vector");
    } catch (const Error& e) {
      throw Error(ErrorCode::kUnsupported, std::string("the database needs the pgvector extension (0.7 or later), "
                                                       "which could not be enabled: ") +
                                               e.what());
    }
    const std::string& s = location_.schema;
    const std::size_t dimension = config.model.dimension;
    std::string sql = "CREATE SCHEMA " + s + ";";
    sql += "CREATE TABLE " + s + ".meta(key text PRIMARY KEY, value text NOT NULL);";
    sql += "CREATE TABLE " + s +
           ".sources(path text PRIMARY KEY, content_hash text NOT NULL, bytes bigint NOT NULL, "
           "indexed_at timestamptz NOT NULL DEFAULT now());";
    sql += "CREATE TABLE " + s +
           ".documents(id bigserial PRIMARY KEY, key text NOT NULL UNIQUE, source text NOT NULL, title text NOT "
           "NULL, content_hash text NOT NULL, metadata text NOT NULL, format text NOT NULL DEFAULT '');";
    sql += "CREATE INDEX documents_by_source ON " + s + ".documents(source);";
    sql += "CREATE TABLE " + s + ".document_metadata(document_id bigint NOT NULL REFERENCES " + s +
           ".documents(id) ON DELETE CASCADE, key text NOT NULL, value text NOT NULL, PRIMARY KEY(document_id, "
           "key));";
    sql += "CREATE INDEX metadata_lookup ON " + s + ".document_metadata(key, value);";
    sql += "CREATE TABLE " + s + ".chunks(id bigserial PRIMARY KEY, document_id bigint NOT NULL REFERENCES " + s +
           ".documents(id) ON DELETE CASCADE, ordinal integer NOT NULL, start_byte bigint NOT NULL, end_byte "
           "bigint NOT NULL, text text NOT NULL, section text NOT NULL DEFAULT '', words tsvector NOT NULL, "
           "word_count integer NOT NULL, embedding "
           "vector(" +
           std::to_string(dimension) + ") NOT NULL";
    if (config.sparse_model) {
      sql += ", sparse sparsevec(" + std::to_string(config.sparse_model->dimension) +
             "), sparse_terms integer NOT NULL DEFAULT 0";
    }
    sql += ", UNIQUE(document_id, ordinal));";
    sql += "CREATE INDEX chunks_by_document ON " + s + ".chunks(document_id);";
    sql += "CREATE INDEX chunks_words ON " + s + ".chunks USING gin(words);";
    if (dimension <= kMaxHnswDimension) {
      sql += "CREATE INDEX chunks_embedding ON " + s +
             ".chunks USING hnsw(embedding vector_ip_ops) WITH (m = " + std::to_string(config.options.hnsw_m) +
             ", ef_construction = " + std::to_string(config.options.hnsw_ef_construction) + ");";
    }
    db.script(sql);
    const auto put = [&](std::string_view key, const std::string& value) {
      db.exec("INSERT INTO " + s + ".meta VALUES ($1, $2)", {std::string(key), value});
    };
    put("schema_version", kSchemaVersion);
    put("store", "postgresql");
    for (const auto& [key, value] : config_entries(config)) put(key, value);
    put("total_words", "0");
    put("bm25_words", kBm25Words);
    put("created_at", std::string(db.exec("SELECT to_char(now(), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')").text(0, 0)));
  }

  StorageConfig read_config(Connection& db) const {
    const auto get = [&](std::string_view key) {
      auto value = meta_of(db, key);
      if (!value) {
        throw Error(ErrorCode::kParse,
                    "the index " + location_.index + " at " + location_.shown + " records no " + std::string(key));
      }
      return *value;
    };
    return config_from(
        get, [&](std::string_view key) { return meta_of(db, key); }, meta_of(db, "sparse_model_name").has_value());
  }

  pg::Location location_;
  StorageConfig config_;
  std::unique_ptr<Connection> writer_;
  std::mutex writer_mutex_;
  // A connection left inside a transaction (an error mid-way) or cut off is not reused.
  ConnectionPool<Connection> readers_{[this] { return connect(); }, [](const Connection& db) { return db.healthy(); }};
};

PostgresWriter::PostgresWriter(Connection& connection, std::unique_lock<std::mutex> lock,
                               const PostgresStorage& storage)
    : lock_(std::move(lock)), db_(&connection), transaction_(connection), schema_(storage.location().schema) {
  if (storage.config().sparse_model) sparse_dimension_ = storage.config().sparse_model->dimension;
}

void PostgresWriter::add_document(const NewDocument& document) {
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [key, value] : document.metadata) metadata[key] = value;
  const auto inserted = db_->exec(
      "INSERT INTO " + table("documents") +
          "(key, source, title, content_hash, metadata, format) VALUES ($1, $2, $3, $4, $5, $6) "
          "RETURNING id",
      {document.key, document.source, document.title, document.content_hash, metadata.dump(), document.format});
  const std::string id(inserted.text(0, 0));
  for (const auto& [key, value] : document.metadata) {
    db_->exec("INSERT INTO " + table("document_metadata") +
                  " VALUES ($1, $2, $3) ON CONFLICT (document_id, key) DO UPDATE SET value = excluded.value",
              {id, key, value});
  }
  const std::string insert_dense = "INSERT INTO " + table("chunks") +
                                   "(document_id, ordinal, start_byte, end_byte, text, words, word_count, embedding, "
                                   "section) VALUES ($1, $2, $3, $4, $5, $6::tsvector, $7, $8::vector, $9)";
  const std::string insert_sparse = "INSERT INTO " + table("chunks") +
                                    "(document_id, ordinal, start_byte, end_byte, text, words, word_count, embedding, "
                                    "section, sparse, sparse_terms) VALUES ($1, $2, $3, $4, $5, $6::tsvector, $7, "
                                    "$8::vector, $9, $10::sparsevec, $11)";
  std::int64_t total_words = 0;
  for (std::size_t i = 0; i < document.chunks.size(); ++i) {
    const auto& chunk = document.chunks[i];
    std::size_t words = 0;
    std::string tsvector = pg::tsvector_text(chunk.text, &words);
    total_words += static_cast<std::int64_t>(words);
    std::vector<Param> params{id,           std::to_string(i),   std::to_string(chunk.begin), std::to_string(chunk.end),
                              chunk.text,   std::move(tsvector), std::to_string(words),       vector_text(chunk.vector),
                              chunk.section};
    if (!sparse_dimension_) {
      if (!chunk.sparse.ids.empty()) {
        throw Error(ErrorCode::kInvalidArgument, "a sparse vector for an index without a sparse model");
      }
      db_->exec(insert_dense, params);
      continue;
    }
    params.emplace_back(sparse_text(chunk.sparse, *sparse_dimension_));
    params.emplace_back(std::to_string(chunk.sparse.ids.size()));
    db_->exec(insert_sparse, params);
  }
  add_words(total_words);
}

class PostgresSnapshot final : public StorageSnapshot {
 public:
  explicit PostgresSnapshot(const PostgresStorage& storage)
      : storage_(&storage),
        lease_(storage.reader()),
        transaction_(*lease_.db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
    chunk_count_ =
        static_cast<std::size_t>(PostgresStorage::count(*lease_.db, "SELECT count(*) FROM " + table("chunks")));
  }

  AllowedChunks filter(const ChunkFilter& filter) override {
    const auto ids_of = [](const auto& found) {
      std::vector<std::int64_t> ids;
      ids.reserve(static_cast<std::size_t>(found.rows()));
      for (int r = 0; r < found.rows(); ++r) ids.push_back(found.integer(r, 0));
      return ids;
    };
    const std::string chunks = table("chunks") + " c JOIN " + table("documents") + " d ON d.id = c.document_id";
    FilterLookups lookups;
    lookups.metadata = [&](const std::string& key, const std::string& value) {
      return ids_of(key == "source"
                        ? db().exec("SELECT c.id FROM " + chunks + " WHERE d.source = $1 ORDER BY c.id", {value})
                        : db().exec("SELECT c.id FROM " + table("chunks") + " c JOIN " + table("document_metadata") +
                                        " m ON m.document_id = c.document_id WHERE m.key = $1 AND m.value = $2 "
                                        "ORDER BY c.id",
                                    {key, value}));
    };
    lookups.formats = [&](const std::vector<std::string>& formats) {
      return ids_of(db().exec("SELECT c.id FROM " + chunks +
                                  " WHERE d.format IN (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY c.id",
                              {nlohmann::json(formats).dump()}));
    };
    lookups.below = [&](const std::string& folder, const std::string& prefix) {
      // starts_with rather than a range of paths: what sorts between "dir/" and "dir0" depends on the collation.
      return ids_of(db().exec("SELECT c.id FROM " + chunks +
                                  " WHERE d.source = $1 OR starts_with(d.source, $2) "
                                  "ORDER BY c.id",
                              {folder, prefix}));
    };
    return allowed_chunks(filter, lookups);
  }

  std::vector<ScoredChunk> nearest(std::span<const float> query, std::size_t n, const AllowedChunks& allowed,
                                   bool exact, std::size_t ef, bool* used_ann) override {
    const std::size_t threshold = storage_->config().options.exact_threshold;
    bool ann = !exact && chunk_count_ >= threshold && storage_->config().model.dimension <= kMaxHnswDimension;
    if (allowed && allowed->size() <= threshold) ann = false;
    if (used_ann) *used_ann = ann;
    if (allowed && allowed->empty()) return {};
    std::vector<Param> params{vector_text(query), std::to_string(n)};
    std::string where;
    if (allowed) {
      params.emplace_back(id_array(*allowed));
      where = " WHERE id = ANY($3::bigint[])";
    }
    if (ann) {
      // ef as hnswlib's: at least the neighbours wanted; iterative scans keep
      // going until enough chunks pass a filter.
      db().exec("SELECT set_config('hnsw.ef_search', $1, true)",
                {std::to_string(std::clamp<std::size_t>(std::max(ef, n), 1, 1000))});
      db().exec(std::string("SELECT set_config('hnsw.iterative_scan', $1, true)"),
                {std::string(allowed ? "strict_order" : "off")});
    } else {
      // Exact: every stored vector is compared (no index scan reaches the HNSW graph).
      db().exec("SELECT set_config('enable_indexscan', 'off', true)");
    }
    std::vector<ScoredChunk> found;
    try {
      const auto rows = db().exec("SELECT id, -(embedding <#> $1::vector) FROM " + table("chunks") + where +
                                      " ORDER BY embedding <#> $1::vector, id LIMIT $2",
                                  params);
      found.reserve(static_cast<std::size_t>(rows.rows()));
      for (int r = 0; r < rows.rows(); ++r) found.push_back({rows.integer(r, 0), rows.real(r, 1)});
    } catch (...) {
      restore_scans(ann);
      throw;
    }
    restore_scans(ann);
    keep_best(found, n);
    return found;
  }

  // BM25 as FTS5's bm25() computes it (k1 1.2, b 0.75, its idf floored at
  // 1e-6), over the same words: the GIN index finds the chunks holding any
  // query word, and the scores are summed from their tsvectors' positions.
  std::vector<ScoredChunk> keyword(std::string_view query, std::size_t n, const AllowedChunks& allowed) override {
    std::vector<ScoredChunk> found;
    const std::vector<std::string> words = query_words(query);
    if (words.empty() || n == 0 || chunk_count_ == 0 || (allowed && allowed->empty())) return found;
    const auto chunks = static_cast<double>(chunk_count_);
    std::vector<std::string> idfs;
    for (const auto& word : words) {
      std::string lexeme;
      quote_lexeme(lexeme, word);
      const auto hits = static_cast<double>(PostgresStorage::count(
          db(), "SELECT count(*) FROM " + table("chunks") + " WHERE words @@ $1::tsquery", {lexeme}));
      const double idf = std::log((chunks - hits + 0.5) / (hits + 0.5));
      idfs.push_back(number(idf > 0 ? idf : 1e-6));
    }
    const double average_words =
        static_cast<double>(std::stoll(storage_->meta_in(db(), "total_words").value_or("0"))) / chunks;
    std::vector<Param> params{any_of(words), std::to_string(n), text_array(words), "{" + join(idfs, ",") + "}",
                              number(average_words > 0 ? average_words : 1.0)};
    std::string where = " WHERE c.words @@ $1::tsquery";
    if (allowed) {
      params.emplace_back(id_array(*allowed));
      where += " AND c.id = ANY($6::bigint[])";
    }
    const auto rows = db().exec(
        "SELECT c.id, sum(t.idf * (cardinality(u.positions) * 2.2) / (cardinality(u.positions) + 1.2 * (0.25 + "
        "0.75 * c.word_count / $5::float8))) AS score FROM " +
            table("chunks") +
            " c CROSS JOIN LATERAL unnest(c.words) AS u(lexeme, positions, weights) JOIN unnest($3::text[], "
            "$4::float8[]) AS t(term, idf) ON t.term = u.lexeme" +
            where + " GROUP BY c.id ORDER BY score DESC, c.id LIMIT $2",
        params);
    for (int r = 0; r < rows.rows(); ++r) found.push_back({rows.integer(r, 0), rows.real(r, 1)});
    return found;
  }

  std::vector<ScoredChunk> sparse(const SparseVector& query, std::size_t n, const AllowedChunks& allowed) override {
    const auto& model = storage_->config().sparse_model;
    if (!model) throw Error(ErrorCode::kInvalidArgument, "this index stores no sparse vectors");
    std::vector<ScoredChunk> found;
    if (query.ids.empty() || n == 0 || (allowed && allowed->empty())) return found;
    std::vector<Param> params{sparse_text(query, model->dimension), std::to_string(n)};
    std::string where = " WHERE sparse IS NOT NULL AND (sparse <#> $1::sparsevec) < 0";
    if (allowed) {
      params.emplace_back(id_array(*allowed));
      where += " AND id = ANY($3::bigint[])";
    }
    const auto rows = db().exec("SELECT id, -(sparse <#> $1::sparsevec) FROM " + table("chunks") + where +
                                    " ORDER BY sparse <#> $1::sparsevec, id LIMIT $2",
                                params);
    for (int r = 0; r < rows.rows(); ++r) found.push_back({rows.integer(r, 0), rows.real(r, 1)});
    keep_best(found, n);
    return found;
  }

  // Row r of a query selecting kChunkColumns.
  static StoredChunk stored_chunk(const Result& rows, int r) {
    return chunk_from_row([&](int i) { return rows.integer(r, i); }, [&](int i) { return rows.text(r, i); });
  }

  std::vector<StoredChunk> chunks(std::span<const std::int64_t> ids) override {
    std::vector<StoredChunk> result;
    if (ids.empty()) return result;
    const auto rows =
        db().exec(std::string("SELECT ") + std::string(kChunkColumns) + " FROM " + table("chunks") + " c JOIN " +
                      table("documents") + " d ON d.id = c.document_id WHERE c.id = ANY($1::bigint[])",
                  {id_array(ids)});
    std::unordered_map<std::int64_t, int> row_of;
    for (int r = 0; r < rows.rows(); ++r) row_of.emplace(rows.integer(r, 0), r);
    for (const std::int64_t id : ids) {
      const auto it = row_of.find(id);
      if (it == row_of.end()) continue;
      const int r = it->second;
      result.push_back(stored_chunk(rows, r));
    }
    return result;
  }

  std::vector<StoredChunk> document_chunks(std::string_view key) override {
    std::vector<StoredChunk> result;
    const auto rows =
        db().exec(std::string("SELECT ") + std::string(kChunkColumns) + " FROM " + table("documents") + " d JOIN " +
                      table("chunks") + " c ON c.document_id = d.id WHERE d.key = $1 ORDER BY c.ordinal",
                  {std::string(key)});
    for (int r = 0; r < rows.rows(); ++r) {
      result.push_back(stored_chunk(rows, r));
    }
    return result;
  }

  std::vector<DocumentSummary> documents_after(std::string_view after, std::size_t limit) override {
    std::vector<DocumentSummary> result;
    // Byte order whatever the database's collation, as SQLite orders keys.
    const auto rows = db().exec("SELECT key, source, title FROM " + table("documents") +
                                    " WHERE key COLLATE \"C\" > $1 ORDER BY key COLLATE \"C\" LIMIT $2",
                                {std::string(after), std::to_string(limit)});
    for (int r = 0; r < rows.rows(); ++r)
      result.push_back({std::string(rows.text(r, 0)), std::string(rows.text(r, 1)), std::string(rows.text(r, 2))});
    return result;
  }

 private:
  Connection& db() { return *lease_.db; }
  [[nodiscard]] std::string table(std::string_view name) const { return storage_->table(name); }

  void restore_scans(bool ann) {
    if (!ann) db().exec("SELECT set_config('enable_indexscan', 'on', true)");
  }

  const PostgresStorage* storage_;
  PostgresStorage::Lease lease_;
  pg::Transaction transaction_;
  std::size_t chunk_count_ = 0;
};

std::unique_ptr<StorageSnapshot> PostgresStorage::snapshot() const {
  return std::make_unique<PostgresSnapshot>(*this);
}

IndexStats PostgresStorage::stats() const {
  IndexStats stats = stats_of(config_);
  stats.folder = location_.shown;
  auto lease = reader();
  auto& db = *lease.db;
  pg::Transaction read(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  stats.sources = static_cast<std::size_t>(count(db, "SELECT count(*) FROM " + table("sources")));
  stats.documents = static_cast<std::size_t>(count(db, "SELECT count(*) FROM " + table("documents")));
  stats.chunks = static_cast<std::size_t>(count(db, "SELECT count(*) FROM " + table("chunks")));
  {
    const auto formats = db.exec("SELECT format, count(*) FROM " + table("documents") + " GROUP BY format");
    for (int r = 0; r < formats.rows(); ++r) {
      stats.documents_by_format[std::string(formats.text(r, 0))] = static_cast<std::size_t>(formats.integer(r, 1));
    }
  }
  if (config_.sparse_model) {
    stats.sparse_postings = static_cast<std::size_t>(count(db, "SELECT sum(sparse_terms) FROM " + table("chunks")));
  }
  stats.database_bytes = static_cast<std::uint64_t>(
      count(db,
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = "
            "c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
            {schema_name()}));
  if (config_.model.dimension <= kMaxHnswDimension) {
    stats.ann_bytes = static_cast<std::uint64_t>(
        count(db, "SELECT pg_relation_size(to_regclass($1))", {location_.schema + ".chunks_embedding"}));
    // As the SQLite store reports it: the chunks a graph search reaches (0: searched exactly).
    if (stats.chunks >= config_.options.exact_threshold) stats.ann_elements = stats.chunks;
  }
  return stats;
}

CheckReport PostgresStorage::check() const {
  CheckReport report;
  auto lease = reader();
  auto& db = *lease.db;
  pg::Transaction read(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  const auto each = [&](const std::string& sql, const std::function<void(const Result&, int)>& row) {
    const auto rows = db.exec(sql);
    for (int r = 0; r < rows.rows(); ++r) row(rows, r);
  };
  each(
      "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = "
      "c.relnamespace WHERE n.nspname = '" +
          schema_name() + "' AND NOT (i.indisvalid AND i.indisready)",
      [&](const Result& rows, int r) {
        report.problems.push_back("the index " + std::string(rows.text(r, 0)) +
                                  " is not valid (an interrupted build: REINDEX it)");
      });
  check_chunk_rows(
      report, [&](std::string_view name) { return table(name); },
      [&](const std::string& sql) {
        std::vector<std::vector<std::string>> out;
        const auto rows = db.exec(sql);
        for (int r = 0; r < rows.rows(); ++r) {
          auto& row = out.emplace_back();
          for (int i = 0; i < rows.columns(); ++i) row.emplace_back(rows.text(r, i));
        }
        return out;
      });
  const auto chunk_rows = count(db, "SELECT count(*) FROM " + table("chunks"));
  const auto words = count(db, "SELECT coalesce(sum(word_count), 0) FROM " + table("chunks"));
  const auto recorded_words = std::stoll(meta_of(db, "total_words").value_or("-1"));
  if (words != recorded_words) {
    report.problems.push_back("the index records " + std::to_string(recorded_words) +
                              " words for BM25; its chunks hold " + std::to_string(words));
  }
  if (config_.sparse_model) {
    const auto without = count(db, "SELECT count(*) FROM " + table("chunks") + " WHERE sparse_terms = 0");
    if (without > 0) {
      report.notes.push_back(std::to_string(without) + " chunks have an empty sparse vector (no term of the sparse " +
                             "model's vocabulary has a weight); sparse search never finds them");
    }
  }
  const auto unfinished = count(db, "SELECT count(DISTINCT source) FROM " + table("documents") +
                                        " WHERE source NOT IN (SELECT path FROM " + table("sources") + ")");
  if (unfinished > 0) {
    report.notes.push_back(std::to_string(unfinished) +
                           " source(s) were being read when indexing stopped; their finished documents are "
                           "searchable and the next sieve index add completes them");
  }
  if (config_.model.dimension > kMaxHnswDimension) {
    report.notes.push_back("vectors of " + std::to_string(config_.model.dimension) +
                           " dimensions are beyond pgvector's HNSW limit of 2,000: " + std::to_string(chunk_rows) +
                           " chunks, searched exactly");
  } else if (static_cast<std::size_t>(chunk_rows) < config_.options.exact_threshold) {
    report.notes.push_back(std::to_string(chunk_rows) + " chunks, searched exactly (the HNSW index is used from " +
                           std::to_string(config_.options.exact_threshold) + ")");
  }
  return report;
}

}  // namespace

namespace pg {

std::string tsvector_text(std::string_view text, std::size_t* count) {
  std::map<std::string, std::vector<std::size_t>> positions;
  std::size_t position = 0;
  std::size_t lexeme_bytes = 0;
  const auto words = split_words(text);
  *count = words.size();
  for (const auto& word : words) {
    position = std::min(position + 1, kMaxPosition);
    // Lexemes are stems, as FTS5's porter tokenizer makes them: "quantization" is found by "quantize".
    std::string lexeme = stem(word.key);
    // split_words keeps no empty word; an empty lexeme ('') would make the whole literal invalid.
    if (lexeme.empty() || lexeme.size() > kMaxLexemeBytes) continue;
    auto found = positions.find(lexeme);
    if (found == positions.end()) {
      // Beyond tsvector's size limit a chunk's further distinct words go unindexed rather than the chunk.
      if (lexeme_bytes + lexeme.size() > kMaxTsvectorLexemeBytes) continue;
      lexeme_bytes += lexeme.size();
      found = positions.emplace(std::move(lexeme), std::vector<std::size_t>()).first;
    }
    auto& list = found->second;
    if (list.size() < kMaxPositions && (list.empty() || list.back() != position)) list.push_back(position);
  }
  std::string out;
  for (const auto& [word, list] : positions) {
    if (!out.empty()) out += ' ';
    quote_lexeme(out, word);
    out += ':';
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(list[i]);
    }
  }
  return out;
}

}  // namespace pg

bool is_postgres_location(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string shown_location(std::string_view location) {
  return is_postgres_location(location) ? pg::redact(location) : std::string(location);
}

std::unique_ptr<IndexStorage> open_postgres_storage(std::string_view location,
                                                    const std::optional<StorageConfig>& create) {
  return std::make_unique<PostgresStorage>(location, create);
}

}  // namespace sieve::search
