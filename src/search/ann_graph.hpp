#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "search/storage.hpp"

namespace sieve::search {

// An hnswlib graph over normalized vectors (inner product), labelled by chunk id.
// hnswlib (Debian's libhnswlib-dev): header-only, no BLAS or OpenMP to carry,
// incremental inserts and deletion marks, which an index that grows file by
// file needs; FAISS's HNSW has no deletions and USearch is not packaged.
class AnnGraph {
 public:
  AnnGraph(std::size_t dimension, std::size_t capacity, std::size_t m, std::size_t ef_construction);
  // Reads a graph saved by save(); the caller has checked the file's hash.
  AnnGraph(const std::filesystem::path& file, std::size_t dimension);
  AnnGraph(const AnnGraph&) = delete;
  AnnGraph& operator=(const AnnGraph&) = delete;
  ~AnnGraph();

  // Rows of `vectors` (row-major, dimension wide) labelled by `labels`, on `threads` threads.
  void add(std::span<const std::int64_t> labels, std::span<const float> vectors, std::size_t threads);
  // Marks a chunk deleted; unknown labels are ignored.
  void remove(std::int64_t label);
  [[nodiscard]] std::vector<ScoredChunk> search(std::span<const float> query, std::size_t n, std::size_t ef) const;
  [[nodiscard]] bool contains(std::int64_t label) const;
  [[nodiscard]] std::size_t elements() const;  // including those marked deleted
  [[nodiscard]] std::size_t deleted() const;
  // Writes the graph and flushes it to disk.
  void save(const std::filesystem::path& file) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sieve::search
