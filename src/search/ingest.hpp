#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "search/storage.hpp"
#include "sieve/embedder.hpp"
#include "sieve/search.hpp"

namespace sieve::search {

// Reads, chunks, embeds and stores files. Each group of documents is one
// transaction, and a file's record (its content hash) is written only after
// all its documents, so a run stopped at any point is finished by the next.
// `sparse` (an index with a sparse model needs it) adds each chunk's sparse vector.
IngestReport ingest(IndexStorage& storage, const std::vector<std::filesystem::path>& paths, const Embedder& embedder,
                    const IngestOptions& options, const Embedder* sparse = nullptr);

// What `ingest` of `roots` would do for the files and folders in `changed`
// (at or below the roots, as a walk of them names them: hidden, excluded
// and not included files are left out): reads those that exist, and removes
// the documents of files read before at or below those that no longer do.
IngestReport ingest_changes(IndexStorage& storage, const std::vector<std::filesystem::path>& roots,
                            const std::vector<std::filesystem::path>& changed, const Embedder& embedder,
                            const IngestOptions& options, const Embedder* sparse = nullptr);

// Removes sources (files, by path) or documents (by id); returns documents removed.
std::size_t remove_documents(IndexStorage& storage, const std::vector<std::string>& sources_or_ids);

// A source file opened for reading as `sieve index add` opens it: a regular file (not a FIFO or device, not
// on the kernel's file systems), its size in `size`; the caller closes the descriptor. sieve::Error
// (kNotFound when it cannot be opened) otherwise.
int open_source_file(const std::filesystem::path& path, std::uint64_t& size);

// How a path is recorded as a source: absolute and normalized.
std::string source_key(const std::filesystem::path& path);

}  // namespace sieve::search
