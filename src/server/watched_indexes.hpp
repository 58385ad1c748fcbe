#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/served_indexes.hpp"
#include "sieve/search.hpp"

namespace sieve::server {

// The watches of `sieve serve --watch`: one thread per index keeps it in
// step with its folders (SearchIndex::watch) with the model the server
// loaded for it; searches see the changes as each batch commits.
class IndexWatchers {
 public:
  // `watches`: (index name, file or folder); names are served indexes'.
  IndexWatchers(const ServedIndexes& indexes,
                const std::vector<std::pair<std::string, std::filesystem::path>>& watches);
  IndexWatchers(const IndexWatchers&) = delete;
  IndexWatchers& operator=(const IndexWatchers&) = delete;
  ~IndexWatchers();

  // Ends every watch (after the group of documents being stored) and waits for them.
  void stop();

 private:
  struct Watch {
    const ServedIndex* served = nullptr;
    std::vector<std::filesystem::path> paths;
    std::unique_ptr<WatchStop> stop;
    std::thread thread;
  };
  std::vector<Watch> watches_;
};

// `--watch [NAME=]PATH` as (index name, path): NAME one of `names`; a bare
// PATH (or one whose part before "=" names no index) belongs to the only
// index served. sieve::Error (invalid argument) otherwise.
std::pair<std::string, std::filesystem::path> parse_watch_spec(const std::string& spec,
                                                               const std::vector<std::string>& names);

}  // namespace sieve::server
