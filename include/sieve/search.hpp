#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/reranker.hpp"

namespace sieve {

// A local search index: a folder holding an SQLite database (documents,
// chunks, metadata, vectors, FTS5 for BM25, and, when the index has a sparse
// model, posting lists of each chunk's learned sparse vector) and an
// approximate nearest-neighbour graph (hnswlib) derived from the stored
// vectors.
//
// The database is the source of truth; the graph is a cache that is rebuilt
// or caught up from it, so a crash at any moment loses at most the work of
// the unfinished transaction.

struct ChunkingOptions {
  std::size_t chunk_tokens = 256;  // tokens per chunk (capped by the model's max length)
  std::size_t overlap_tokens = 32;
  // Late chunking: each document is encoded once and each chunk's vector pooled from its own tokens' states
  // (Embedder::embed_late_chunks()), so that it knows the text around it.
  bool late_chunking = false;
};

// How the nearest-neighbour graph holds the vectors in memory. kFloat32: as they are (4 bytes a dimension). kInt8: a
// byte a dimension, each dimension scaled by the largest value it takes (a quarter of float32's memory). kBinary: a
// bit a dimension, its sign (a 32nd). The float32 vectors stay on disk either way: with codes, the graph's best
// candidates are scored again with them (IndexCreateOptions::rescore).
enum class VectorCodes { kFloat32, kInt8, kBinary };
const char* to_string(VectorCodes codes) noexcept;
// "float32", "int8" or "binary".
VectorCodes parse_vector_codes(std::string_view name);
// Candidates rescored per hit wanted, by default (IndexCreateOptions::rescore): for codes, or a graph of a prefix.
std::size_t default_rescore(VectorCodes codes, bool prefix = false) noexcept;

struct IndexCreateOptions {
  ChunkingOptions chunking;
  // Below this many chunks search is exact and no graph is kept.
  std::size_t exact_threshold = 20000;
  std::size_t hnsw_m = 16;
  std::size_t hnsw_ef_construction = 100;
  VectorCodes vectors = VectorCodes::kFloat32;
  // The graph holds only each vector's first graph_dimensions dimensions, normalized again (a Matryoshka model's
  // prefix: less memory and faster search, the whole vectors rescoring); 0: all of them.
  std::size_t graph_dimensions = 0;
  // With int8 or binary codes, or a prefix: the graph's best rescore x n candidates for n hits are scored again
  // with their whole float32 vectors read from disk (as sentence-transformers' rescore_multiplier); 0 keeps the
  // graph's own scores. Must be 0 for whole float32 vectors. nullopt: default_rescore().
  std::optional<std::size_t> rescore;
};

// The embedding model an index was built with.
struct IndexModel {
  std::string name;  // folder name, for messages
  std::string path;  // absolute folder path at creation
  std::string onnx_sha256;
  std::size_t dimension = 0;
  std::string pooling;
  bool normalize = false;
};

struct IngestProgress {
  std::size_t files_total = 0;
  std::size_t files_done = 0;
  std::uint64_t bytes_total = 0;
  std::uint64_t bytes_done = 0;
  std::size_t documents_indexed = 0;
  std::size_t chunks_indexed = 0;
  std::string current;  // the file being read
};
using IngestProgressCallback = std::function<void(const IngestProgress&)>;

// The largest file `SearchIndex::add` reads unless told otherwise: a
// document's chunks and vectors are held in memory until it is stored
// (measured: about 3.5 bytes per byte of text with a small model, see
// docs/search.md), so the limit bounds what one file can cost.
inline constexpr std::uint64_t kDefaultMaxFileBytes = std::uint64_t{256} << 20;

struct IngestOptions {
  // Documents embedded per ORT call group; each group is committed in one transaction.
  std::size_t commit_chunks = 256;
  IngestProgressCallback progress;
  // A larger file is not read: an error names it, and the others still go in.
  std::uint64_t max_file_bytes = kDefaultMaxFileBytes;
  // Symbolic links met in a folder are followed wherever they point. By
  // default a link is followed only when its target lies within the paths
  // given; one pointing elsewhere is skipped and reported.
  bool follow_links = false;
  // Glob patterns (fnmatch(3): *, ?, [...]). A pattern without "/" is matched against a file's or folder's name,
  // one with "/" against its path below the folder given. With `include`, only files matching one of them are
  // read; a file or folder matching an `exclude` pattern is left out (a folder with all it holds).
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  // Files read before that no longer exist under the paths given are removed from the index (their documents
  // with them); with keep_missing they stay.
  bool keep_missing = false;
};

struct IngestReport {
  std::size_t files_seen = 0;
  std::size_t files_unchanged = 0;  // skipped by content hash
  std::size_t files_skipped = 0;    // not a supported format, or not read (see skipped and errors)
  std::size_t documents_added = 0;  // new or changed
  std::size_t documents_unchanged = 0;
  std::size_t documents_removed = 0;  // gone from a re-read file, or with a file that no longer exists
  std::size_t files_removed = 0;      // read before, no longer there: removed with their documents
  std::size_t chunks_added = 0;
  std::size_t chunks_removed = 0;
  double seconds = 0;
  // Files left out that are not failures: "path: why" (a named file of no supported format, a link to
  // outside the paths given, a FIFO or device found in a folder).
  std::vector<std::string> skipped;
  // Files that could not or must not be read, or not parsed: "path: what" (too large, special files and
  // /dev, /proc, /sys named or reached through a followed link, malformed content), and members of archives
  // that could not be read ("archive!member: what").
  std::vector<std::string> errors;
  // The files removed because they no longer exist (see files_removed).
  std::vector<std::string> removed;
  // Files read in a way the user should know of: "path: what" (an encoding guessed, a member left out).
  std::vector<std::string> warnings;
  // Files read (unchanged ones included), by format ("plain text", "PDF", "gzip-compressed file").
  std::map<std::string, std::size_t> files_by_format;
  // Files and archive members not read, by reason ("binary file", "hidden", "error").
  std::map<std::string, std::size_t> skipped_by_reason;
};

struct IndexStats {
  std::filesystem::path folder;
  IndexModel model;
  std::optional<IndexModel> sparse_model;  // dimension: its vocabulary size
  std::size_t sparse_postings = 0;         // (term, chunk) weights stored
  ChunkingOptions chunking;
  std::size_t sources = 0;
  std::size_t documents = 0;
  std::size_t chunks = 0;
  std::uint64_t database_bytes = 0;             // the SQLite file and its WAL
  std::uint64_t ann_bytes = 0;                  // the graph file
  std::size_t ann_elements = 0;                 // chunks the graph covers (0: exact search only)
  VectorCodes vectors = VectorCodes::kFloat32;  // how the graph holds them
  std::size_t graph_dimensions = 0;             // of each vector (0: all)
  std::size_t rescore = 0;                      // candidates rescored per hit (IndexCreateOptions::rescore)
  std::uint64_t ann_vector_bytes = 0;           // the graph's vectors (or codes) in memory, links left out
  std::size_t exact_threshold = 0;
  // Documents by the format their reader names ("pdf", "text", "markdown"...).
  std::map<std::string, std::size_t> documents_by_format;
};

struct CheckReport {
  std::vector<std::string> problems;  // empty: consistent
  std::vector<std::string> notes;     // facts that are not faults (a graph behind the data)
  [[nodiscard]] bool ok() const noexcept { return problems.empty(); }
};

// kHybrid fuses the ranked lists of SearchOptions::fuse (by default vector,
// BM25 and, in an index with a sparse model, sparse), as SearchOptions::fusion says.
enum class SearchMode { kVector, kBm25, kSparse, kHybrid };
const char* to_string(SearchMode mode) noexcept;
SearchMode parse_search_mode(std::string_view name);

// How hybrid search fuses its lists. kWeighted: each list's scores scaled to
// [0, 1] (its best 1, its last 0), weighted and summed (a chunk missing from a
// list gets 0 there). kReciprocalRank: each list adds 1 / (rrf_k + rank).
enum class SearchFusion { kWeighted, kReciprocalRank };
const char* to_string(SearchFusion fusion) noexcept;
// "weighted" or "rrf".
SearchFusion parse_search_fusion(std::string_view name);

// Hits of one document a search returns by default (SearchOptions::per_document).
inline constexpr std::size_t kDefaultHitsPerDocument = 2;
// Candidates a reranker scores by default (SearchOptions::rerank_candidates).
inline constexpr std::size_t kDefaultRerankCandidates = 20;

struct SearchOptions {
  std::size_t k = 10;
  SearchMode mode = SearchMode::kHybrid;
  // key=value pairs on document metadata; all must hold.
  std::vector<std::pair<std::string, std::string>> filters;
  // Documents of one of these formats, as readers name them ("pdf", "markdown", "text"; see
  // IndexStats::documents_by_format); empty: any.
  std::vector<std::string> formats;
  // Documents from files in one of these folders (or these files): an absolute path matches itself and
  // what lies below it, on path boundaries ("/a/b" holds "/a/b/c.txt", not "/a/bc.txt"); empty: any.
  std::vector<std::string> folders;
  // Hits skipped before the k returned: offset k gives the second page of the same ranking.
  std::size_t offset = 0;
  // At most this many hits of one document, its best chunks first; 0: no
  // limit. The lists are searched deeper so that k hits still come back when
  // the index has enough documents.
  std::size_t per_document = kDefaultHitsPerDocument;
  // With a reranker: how many candidates it scores (at least k), each on the
  // passage around its matches (SearchHit::rerank_begin, rerank_end).
  std::size_t rerank_candidates = kDefaultRerankCandidates;
  SearchFusion fusion = SearchFusion::kWeighted;
  // kWeighted's weight of each list (only the lists fused count).
  double vector_weight = 0.6;
  double bm25_weight = 0.4;
  double sparse_weight = 0.4;
  // Reciprocal rank fusion's constant (Cormack et al. use 60).
  double rrf_k = 60;
  // About how many bytes of text a hit's snippet shows.
  std::size_t snippet_bytes = 240;
  // About how many bytes around its matches a reranker reads of each
  // candidate (a cross-encoder's time grows with them: 240 bytes are some 60
  // tokens of English).
  std::size_t rerank_window_bytes = 240;
  // The lists kHybrid fuses (two or more of kVector, kBm25, kSparse); empty:
  // every list the index has.
  std::vector<SearchMode> fuse;
  // Search every stored vector instead of the graph (for recall measurements).
  bool exact = false;
  // hnswlib's ef at query time (at least the number of neighbours wanted).
  std::size_t ef_search = 64;
};

struct SearchHit {
  // 1 for the best hit.
  std::size_t rank = 0;
  // The score as a person reads it, in [0, 1]: the reranker's probability
  // when reranked; for vector search the cosine (0 when negative); for BM25,
  // sparse and hybrid search the score over the best hit's.
  double relevance = 0;
  double score = 0;  // of the mode (cosine, BM25, fused), or the reranker's
  std::optional<double> vector_score;
  std::optional<double> bm25_score;
  std::optional<double> sparse_score;  // the dot product of the query's and the chunk's sparse vectors
  std::optional<double> rerank_score;
  std::string document_id;
  std::string source;  // the file it came from
  std::string title;
  std::string format;  // of the document, as its reader names it ("pdf", "markdown")
  std::int64_t chunk_id = 0;
  std::size_t chunk_index = 0;
  // Byte offsets of the chunk in its document's text.
  std::size_t chunk_begin = 0;
  std::size_t chunk_end = 0;
  // Where in the document the chunk starts: "page 3", "slide 2", "sheet Budget", "chapter 4"; "" when the
  // document has no parts.
  std::string section;
  std::string text;
  // Byte spans in `text` of words of the query (compared by stem; stop words
  // only when the query has nothing else).
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  // About SearchOptions::snippet_bytes of `text` around its densest cluster
  // of matches (its start when there are none), cut at whitespace, with "…"
  // where text was cut away; snippet_matches are byte spans of `snippet`.
  std::string snippet;
  std::vector<std::pair<std::size_t, std::size_t>> snippet_matches;
  // Where the snippet's text lies in `text` (bytes, without the "…" marks).
  std::size_t snippet_begin = 0;
  std::size_t snippet_end = 0;
  // When reranked: the span of `text` the reranker scored.
  std::optional<std::pair<std::size_t, std::size_t>> rerank_span;
  std::vector<std::pair<std::string, std::string>> metadata;
};

// One stored document's text as it was indexed (from its chunks), or a
// span of it.
struct DocumentView {
  std::string id;
  std::string source;
  std::string title;
  std::string format;
  std::vector<std::pair<std::string, std::string>> metadata;
  // The text of [begin, end) in bytes; end is at most `length`. Runs of
  // whitespace that fell between chunks are given as one space.
  std::string text;
  std::size_t begin = 0;
  std::size_t end = 0;
  // The byte length of the whole indexed text.
  std::size_t length = 0;
  std::size_t chunks = 0;
  // Where each part of the document starts (byte offset, "page 2"...), in order.
  std::vector<std::pair<std::size_t, std::string>> sections;
};

struct DocumentListing {
  struct Entry {
    std::string id;
    std::string source;
    std::string title;
  };
  std::vector<Entry> documents;
  // Give it as `after` for the next page; "" when there is none.
  std::string next;
};

// A document's original file as it is now, when it is the file indexed.
struct OriginalFile {
  std::filesystem::path path;
  std::string format;      // its reader's name ("pdf", "html")
  std::string media_type;  // for Content-Type: "application/pdf", "text/plain; charset=utf-8"
  std::uint64_t size = 0;
  // The file, open for reading at its start: the very file whose bytes were checked (it is read in blocks,
  // never held in memory). Closed with its last copy.
  std::shared_ptr<const int> descriptor;
};

struct SearchResult {
  std::vector<SearchHit> hits;
  bool used_ann = false;  // the graph answered (else: exact)
  double seconds = 0;
};

// Ends a SearchIndex::watch: request() may be called from any thread, and
// from a signal handler.
class WatchStop {
 public:
  WatchStop();
  WatchStop(const WatchStop&) = delete;
  WatchStop& operator=(const WatchStop&) = delete;
  ~WatchStop();
  void request() const noexcept;
  [[nodiscard]] bool requested() const noexcept { return requested_.load(); }
  // Readable once requested (for poll).
  [[nodiscard]] int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
  mutable std::atomic<bool> requested_{false};
};

// One batch of changes a watch applied.
struct WatchBatch {
  // The paths were read whole: at start, or after changes were lost (the
  // kernel's event queue overflowed).
  bool rescan = false;
  std::size_t paths = 0;          // changed files and folders the batch looked at
  std::size_t files_changed = 0;  // files read whose content was new
  IngestReport report;
};

struct WatchOptions {
  // How files are read, as SearchIndex::add reads them.
  IngestOptions ingest;
  // A batch is applied once no change came for `settle`, or `max_delay`
  // after its first change while changes keep coming.
  std::chrono::milliseconds settle{500};
  std::chrono::milliseconds max_delay{3000};
  // Called after each batch (the start's rescan included).
  std::function<void(const WatchBatch&)> on_batch;
  // Folders that cannot be followed, a watched path gone.
  std::function<void(const std::string&)> on_warning;
};

class SearchIndex {
 public:
  // Creates the folder's index for `model` (and `sparse_model`, a SPLADE
  // model whose vectors it also stores) if it has none, else opens it and
  // checks that the models are the ones it was built with.
  static SearchIndex create(const std::filesystem::path& folder, const Embedder& model,
                            const IndexCreateOptions& options = {}, const Embedder* sparse_model = nullptr);
  // Opens an existing index (read and write); kNotFound if there is none.
  static SearchIndex open(const std::filesystem::path& folder);

  SearchIndex(SearchIndex&&) noexcept;
  SearchIndex& operator=(SearchIndex&&) noexcept;
  ~SearchIndex();

  [[nodiscard]] const IndexModel& model() const noexcept;
  // The sparse model, in an index that stores sparse vectors.
  [[nodiscard]] const std::optional<IndexModel>& sparse_model() const noexcept;
  // The lists a search with `options` ranks by (vector, BM25, sparse): the
  // mode's own, or those hybrid fuses; which models it needs follows.
  [[nodiscard]] std::vector<SearchMode> lists(const SearchOptions& options) const;
  // kInvalidArgument naming both models when `embedder` is not the index's model.
  void check_model(const Embedder& embedder) const;
  // The same for the sparse model (kInvalidArgument too when the index has none).
  void check_sparse_model(const Embedder& embedder) const;

  // Reads files and folders (recursively), each file by its format as
  // detected from its content and name (docs/search.md); only regular
  // files, never below /dev, /proc or /sys, each at most
  // options.max_file_bytes; symbolic links as options.follow_links says. One writer at a time: a second gets
  // kOverloaded. An index with a sparse model needs it as `sparse`.
  IngestReport add(const std::vector<std::filesystem::path>& paths, const Embedder& embedder,
                   const IngestOptions& options = {}, const Embedder* sparse = nullptr);
  // Keeps the index in step with `paths`: reads them as add does (what
  // changed while no one watched), then follows their changes with inotify
  // and applies them in batches (WatchOptions) until `stop` is requested.
  // Holds the writer lock throughout (a second writer gets kOverloaded);
  // each batch is crash-safe as add is. A stop during a batch ends it after
  // the group being stored: the next watch's rescan completes it.
  void watch(const std::vector<std::filesystem::path>& paths, const Embedder& embedder, const WatchOptions& options,
             const WatchStop& stop, const Embedder* sparse = nullptr);
  // Removes the documents of these files (or document ids); returns how many.
  std::size_t remove(const std::vector<std::string>& sources_or_ids);

  // The document with this id (a search hit's document_id), its text cut to
  // the byte span [begin, end) (moved back to the nearest character
  // boundaries); nullopt when there is no such document.
  [[nodiscard]] std::optional<DocumentView> document(std::string_view id, std::size_t begin = 0,
                                                     std::size_t end = static_cast<std::size_t>(-1)) const;
  // The original file of the document with this id, opened and checked now: only for a document that is a
  // whole file (not an archive member, an attachment or a record of a JSONL file), a regular file of at most
  // `max_bytes` whose content is still the one indexed (its SHA-256 as recorded). Throws sieve::Error
  // (kNotFound) saying why not otherwise.
  [[nodiscard]] OriginalFile original(std::string_view id, std::uint64_t max_bytes) const;
  // Up to `limit` documents whose ids sort after `after` (byte order).
  [[nodiscard]] DocumentListing documents(std::string_view after, std::size_t limit) const;

  [[nodiscard]] IndexStats stats() const;
  [[nodiscard]] CheckReport check() const;

  // One consistent snapshot of the index, even while another process adds.
  // `embedder` for the vector list, `sparse` (the index's sparse model) for
  // the sparse one; each is needed when the mode (or fusion) uses its list.
  [[nodiscard]] SearchResult search(std::string_view query, const SearchOptions& options, const Embedder* embedder,
                                    const Reranker* reranker = nullptr, const Embedder* sparse = nullptr) const;

 private:
  struct Impl;
  explicit SearchIndex(std::unique_ptr<Impl> impl);
  void check_writer_models(const Embedder& embedder, const Embedder* sparse) const;
  std::unique_ptr<Impl> impl_;
};

// The model folder's ONNX file's SHA-256, as an index records it.
std::string model_fingerprint(const Embedder& embedder);

// An index location as messages and logs may show it: a folder as it is, a
// PostgreSQL URI with its password hidden.
std::string shown_index_location(std::string_view location);

}  // namespace sieve

namespace sieve {

// The JSON a search answers with (sieve search --json, POST /v1/search):
// {"query", "mode", "used_ann", "seconds", "hits": [{"rank", "relevance", "score", "vector_score",
// "bm25_score", "sparse_score", "rerank_score", "document_id", "source", "title", "chunk_id",
// "chunk_index", "chunk_begin", "chunk_end", "section", "text", "matches", "snippet", "snippet_matches",
// "snippet_begin", "snippet_end", "rerank_span", "metadata"}]}.
std::string search_result_json(const SearchResult& result, std::string_view query, SearchMode mode);
std::string index_stats_json(const IndexStats& stats);
// {"id", "source", "title", "metadata", "begin", "end", "length", "chunks",
// "sections": [{"begin", "name"}], "text"}.
std::string document_json(const DocumentView& document);
std::string ingest_report_json(const IngestReport& report);
std::string check_report_json(const CheckReport& report);

}  // namespace sieve
