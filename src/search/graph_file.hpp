#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "search/ann_graph.hpp"
#include "search/storage.hpp"

namespace sieve::search {

// Where a store's nearest-neighbour graph stands, as the store records it.
struct GraphRecord {
  std::string file;  // empty: no graph (exact search)
  std::string sha256;
  std::int64_t covers_chunk = 0;    // every chunk id up to this was added...
  std::int64_t covers_removed = 0;  // ...and every removal logged up to this applied
  std::string scales;               // int8 codes' scales (VectorCodec::scales_text()); "" for the others
};

struct LoadedGraph {
  std::string file;
  std::unique_ptr<AnnGraph> graph;
};

// The HNSW graph of a store's vectors, in a file beside the store, whose record (file name, SHA-256, what it covers)
// the store keeps with its data: each snapshot searches the graph its record names. A graph is never changed in
// place: an update writes a new file, so readers of the old one go on. Chunks added since a graph was saved are
// searched exactly, and chunks removed since are skipped, until the next update. Thread-safe.
class GraphFiles {
 public:
  // `codes`, `prefix`: how the graph holds each vector (VectorCodec).
  GraphFiles(std::filesystem::path folder, std::size_t dimension, VectorCodes codes, std::size_t prefix);

  // The graph a record names, loaded once and shared; nullptr when there is none, or its file is gone (a writer
  // replaced it since), does not match its recorded SHA-256 or cannot be read (`problem` says which).
  [[nodiscard]] std::shared_ptr<const LoadedGraph> load(const GraphRecord& record,
                                                        std::string* problem = nullptr) const;

  // The n nearest chunks: those of `graph` (ids up to record.covers_chunk) that `keep` accepts, the search widened
  // until n are found or the graph is exhausted (`skipped`: how many of its nodes are known to be skipped; with
  // `filtered`, `keep` accepts few, so the search widens faster), and the chunks added since, given by `tail`
  // (id, vector) and searched exactly.
  // With `rescore` (a graph of codes), the graph's best `candidates` (at least n) are taken and `rescore` gives each
  // its float32 score (leaving out those no longer stored) before the best n are kept.
  using Tail = std::function<void(const std::function<void(std::int64_t, std::span<const float>)>&)>;
  using Rescore = std::function<void(std::vector<ScoredChunk>&)>;
  static std::vector<ScoredChunk> search(const LoadedGraph& graph, const GraphRecord& record,
                                         std::span<const float> query, std::size_t n, std::size_t ef,
                                         std::size_t skipped, bool filtered,
                                         const std::function<bool(std::int64_t)>& keep, const Tail& tail,
                                         std::size_t candidates = 0, const Rescore& rescore = {});

  // The chunks' vectors with after < id <= upto, in id order, given to `each`.
  using Vectors = std::function<void(std::int64_t after, std::int64_t upto,
                                     const std::function<void(std::int64_t, std::span<const float>)>& each)>;
  // The graph brought to cover every chunk up to `max_chunk` and every removal up to `removed`: the current one
  // (`record`'s) extended, its new removals (`removals`) marked, or rebuilt from every chunk when there is none or a
  // quarter of it would be dead. It is saved in a new file, flushed, and returned with its record; once the store
  // keeps the record, it calls make_current() with the graph and remove_stale() with the record's file.
  // `current`: the record's graph as load() gave it (null: none).
  std::pair<GraphRecord, std::shared_ptr<const LoadedGraph>> update(const GraphRecord& record,
                                                                    const LoadedGraph* current, std::int64_t max_chunk,
                                                                    std::int64_t removed, std::size_t chunk_count,
                                                                    const std::vector<std::int64_t>& removals,
                                                                    const IndexCreateOptions& options,
                                                                    const Vectors& vectors);

  // The graph searches share from now on.
  void make_current(std::shared_ptr<const LoadedGraph> graph) const;

  // Deletes every graph file in the folder but `keep` ("" for all).
  void remove_stale(const std::string& keep) const;

 private:
  std::filesystem::path folder_;
  std::size_t dimension_;
  VectorCodes codes_;
  std::size_t prefix_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const LoadedGraph> current_;
};

// The inner product of a query and a stored vector as wide (normalized vectors: their cosine).
double inner_product(std::span<const float> query, const float* vector);

// Makes a rename or a new file in `folder` durable.
void sync_directory(const std::filesystem::path& folder);

}  // namespace sieve::search
