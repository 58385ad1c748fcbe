#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "search/storage.hpp"
#include "search/vector_codes.hpp"

namespace sieve::search {

// An hnswlib graph over normalized vectors (inner product), labelled by chunk id, holding each vector as `codec`
// says (float32 as it is; int8 and binary codes through a space of hnswlib's own interface, which keeps the graph,
// its deletion marks and its file the same for every representation).
// hnswlib (Debian's libhnswlib-dev): header-only, no BLAS or OpenMP to carry,
// incremental inserts and deletion marks, which an index that grows file by
// file needs; FAISS's HNSW has no deletions and USearch is not packaged.
class AnnGraph {
 public:
  AnnGraph(VectorCodec codec, std::size_t capacity, std::size_t m, std::size_t ef_construction);
  // Reads a graph saved by save(); the caller has checked the file's hash. A file whose vectors are not `codec`'s
  // width is kParse.
  AnnGraph(const std::filesystem::path& file, VectorCodec codec);
  AnnGraph(const AnnGraph&) = delete;
  AnnGraph& operator=(const AnnGraph&) = delete;
  ~AnnGraph();

  [[nodiscard]] const VectorCodec& codec() const;
  // Rows of `vectors` (row-major, dimension wide) labelled by `labels`, on `threads` threads.
  void add(std::span<const std::int64_t> labels, std::span<const float> vectors, std::size_t threads);
  // Marks a chunk deleted; unknown labels are ignored.
  void remove(std::int64_t label);
  [[nodiscard]] std::vector<ScoredChunk> search(std::span<const float> query, std::size_t n, std::size_t ef) const;
  [[nodiscard]] bool contains(std::int64_t label) const;
  // Whether the graph holds `label` with the code of `vector` (for checks).
  [[nodiscard]] bool holds(std::int64_t label, std::span<const float> vector) const;
  [[nodiscard]] std::size_t elements() const;  // including those marked deleted
  [[nodiscard]] std::size_t deleted() const;
  // Writes the graph and flushes it to disk.
  void save(const std::filesystem::path& file) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sieve::search
