#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/storage.hpp"
#include "sieve/embedder.hpp"
#include "sieve/search.hpp"

namespace sieve::search {

using WatchClock = std::chrono::steady_clock;

// Gathers changed paths into batches: a batch is due once no change came
// for `settle` (a file being written keeps changing), or `max_delay` after
// its first change however busy the folders stay.
class ChangeBatcher {
 public:
  ChangeBatcher(WatchClock::duration settle, WatchClock::duration max_delay) : settle_(settle), max_delay_(max_delay) {}

  void note(const std::filesystem::path& path, WatchClock::time_point now);
  // Everything must be read again (changes were lost).
  void note_rescan(WatchClock::time_point now);
  // When the pending batch is due; nullopt when nothing is pending.
  [[nodiscard]] std::optional<WatchClock::time_point> due() const;

  struct Batch {
    bool rescan = false;
    // Each path once, and none below another one (a folder is read whole).
    std::vector<std::filesystem::path> paths;
  };
  // The pending changes; the batcher is empty after.
  Batch take();

 private:
  void touch(WatchClock::time_point now);

  WatchClock::duration settle_;
  WatchClock::duration max_delay_;
  std::set<std::filesystem::path> paths_;
  bool rescan_ = false;
  bool pending_ = false;
  WatchClock::time_point first_{};
  WatchClock::time_point last_{};
};

// The folders followed with inotify, by watch descriptor. Folders (and
// files, through their folder) at or below the roots; hidden and excluded
// folders are not followed, as a walk of the roots does not enter them.
class FolderWatches {
 public:
  using Warn = std::function<void(const std::string&)>;
  // `roots`: absolute, normalized paths of files and folders.
  FolderWatches(std::vector<std::filesystem::path> roots, const IngestOptions& options, Warn warn);
  FolderWatches(const FolderWatches&) = delete;
  FolderWatches& operator=(const FolderWatches&) = delete;
  ~FolderWatches();

  [[nodiscard]] int fd() const noexcept { return fd_; }
  // Follows every root (again: after a lost queue, folders may have come).
  // `strict`: a folder that cannot be followed is an error, not a warning.
  void watch_roots(bool strict);
  // Reads the events waiting and notes what they name.
  void read(ChangeBatcher& batcher, WatchClock::time_point now);
  [[nodiscard]] std::size_t size() const noexcept { return paths_.size(); }

 private:
  void watch_tree(const std::filesystem::path& folder, bool strict);
  bool watch_one(const std::filesystem::path& folder, bool strict);
  void unwatch_tree(const std::filesystem::path& folder);
  // Whether a change of `path` concerns the roots, and a folder there is one to follow.
  [[nodiscard]] bool relevant(const std::filesystem::path& path) const;
  [[nodiscard]] bool followed_folder(const std::filesystem::path& path) const;

  int fd_ = -1;
  std::vector<std::filesystem::path> roots_;
  const IngestOptions& options_;
  Warn warn_;
  std::map<int, std::filesystem::path> paths_;
  bool limit_warned_ = false;
};

// Holds `storage`'s writer lock, reads `paths` as SearchIndex::add does,
// then follows their changes until `stop` (see SearchIndex::watch).
void watch(IndexStorage& storage, const std::vector<std::filesystem::path>& paths, const Embedder& embedder,
           const WatchOptions& options, const WatchStop& stop, const Embedder* sparse);

}  // namespace sieve::search
