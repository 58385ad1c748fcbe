#include "search/watcher.hpp"

#include <fnmatch.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "search/ingest.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace watching {

namespace fs = std::filesystem;

// Whether `path` is `root` or lies below it (component by component).
bool at_or_below(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

bool hidden_name(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.size() > 1 && name[0] == '.' && name != "..";
}

// As `sieve index add` matches --exclude: a pattern without "/" against the
// name, one with "/" against the path below the folder given.
bool excluded(const std::vector<std::string>& patterns, const fs::path& path, const fs::path& root) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& pattern) {
    if (pattern.find('/') == std::string::npos) return ::fnmatch(pattern.c_str(), path.filename().c_str(), 0) == 0;
    return ::fnmatch(pattern.c_str(), path.lexically_relative(root).generic_string().c_str(), 0) == 0;
  });
}

// An absolute path without "." and ".." parts or a trailing separator.
fs::path normalized(const fs::path& path) {
  fs::path out = fs::absolute(path).lexically_normal();
  if (out.filename().empty() && out.has_parent_path() && out != out.root_path()) out = out.parent_path();
  return out;
}

std::string watches_limit() {
  std::ifstream in("/proc/sys/fs/inotify/max_user_watches");
  std::string value;
  in >> value;
  return value.empty() ? std::string("?") : value;
}

constexpr std::uint32_t kFolderEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
                                        IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

std::size_t files_read(const IngestReport& report) {
  std::size_t read = 0;
  for (const auto& [format, count] : report.files_by_format) read += count;
  return read;
}

}  // namespace watching

void ChangeBatcher::touch(WatchClock::time_point now) {
  if (!pending_) {
    pending_ = true;
    first_ = now;
  }
  last_ = now;
}

void ChangeBatcher::note(const std::filesystem::path& path, WatchClock::time_point now) {
  paths_.insert(path);
  touch(now);
}

void ChangeBatcher::note_rescan(WatchClock::time_point now) {
  rescan_ = true;
  touch(now);
}

std::optional<WatchClock::time_point> ChangeBatcher::due() const {
  if (!pending_) return std::nullopt;
  return std::min(last_ + settle_, first_ + max_delay_);
}

ChangeBatcher::Batch ChangeBatcher::take() {
  Batch batch;
  batch.rescan = rescan_;
  if (!rescan_) {
    // Sorted part by part, a folder comes right before what lies below it.
    for (const auto& path : paths_) {
      if (batch.paths.empty() || !watching::at_or_below(path, batch.paths.back())) batch.paths.push_back(path);
    }
  }
  paths_.clear();
  rescan_ = false;
  pending_ = false;
  return batch;
}

FolderWatches::FolderWatches(std::vector<std::filesystem::path> roots, const IngestOptions& options, Warn warn)
    : roots_(std::move(roots)), options_(options), warn_(std::move(warn)) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    throw Error(ErrorCode::kRuntime, std::string("cannot follow file changes (inotify): ") + std::strerror(error) +
                                         (error == EMFILE ? " (the limit of inotify instances per user is reached: "
                                                            "/proc/sys/fs/inotify/max_user_instances)"
                                                          : ""));
  }
}

FolderWatches::~FolderWatches() {
  if (fd_ >= 0) ::close(fd_);
}

bool FolderWatches::relevant(const std::filesystem::path& path) const {
  return std::any_of(roots_.begin(), roots_.end(),
                     [&](const std::filesystem::path& root) { return watching::at_or_below(path, root); });
}

bool FolderWatches::followed_folder(const std::filesystem::path& path) const {
  for (const auto& root : roots_) {
    if (!watching::at_or_below(path, root)) continue;
    std::error_code error;
    const std::filesystem::path base = std::filesystem::is_directory(root, error) ? root : root.parent_path();
    std::filesystem::path at = root;
    for (const auto& part : path.lexically_relative(root)) {
      if (part.empty() || part == ".") continue;
      at /= part;
      if (watching::hidden_name(at) || watching::excluded(options_.exclude, at, base)) return false;
    }
    return true;
  }
  return false;
}

bool FolderWatches::watch_one(const std::filesystem::path& folder, bool strict) {
  std::error_code error;
  const bool link = std::filesystem::is_symlink(std::filesystem::symlink_status(folder, error));
  const bool root = std::find(roots_.begin(), roots_.end(), folder) != roots_.end();
  // A link is followed where `sieve index add` follows it: a root, or --follow-links.
  const int wd =
      ::inotify_add_watch(fd_, folder.c_str(), watching::kFolderEvents | (link && root ? 0U : IN_DONT_FOLLOW));
  if (wd < 0) {
    const int code = errno;
    if (code == ENOENT || code == ENOTDIR) return false;  // gone, or not a folder: the batch reads what is there
    std::string message = "cannot follow changes in " + folder.string() + ": ";
    if (code == ENOSPC) {
      message += "the limit of inotify watches is reached (this watch follows " + std::to_string(paths_.size()) +
                 (paths_.size() == 1 ? " folder" : " folders") + "; /proc/sys/fs/inotify/max_user_watches is " +
                 watching::watches_limit() +
                 " for all of this user's programs together: raise it, e.g. sysctl fs.inotify.max_user_watches=524288, "
                 "or watch fewer folders)";
      if (strict) throw Error(ErrorCode::kRuntime, message);
      if (limit_warned_) return false;
      limit_warned_ = true;
    } else {
      message += std::strerror(code);
    }
    if (warn_) warn_(message);
    return false;
  }
  const auto [it, inserted] = paths_.emplace(wd, folder);
  // The same folder reached a second way (a link): followed once.
  return inserted || it->second == folder;
}

void FolderWatches::watch_tree(const std::filesystem::path& top, bool strict) {
  std::vector<std::filesystem::path> pending{top};
  while (!pending.empty()) {
    const std::filesystem::path folder = std::move(pending.back());
    pending.pop_back();
    if (!watch_one(folder, strict)) continue;
    std::error_code error;
    std::filesystem::directory_iterator it(folder, std::filesystem::directory_options::skip_permission_denied, error);
    for (; !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
      const auto& path = it->path();
      std::error_code entry_error;
      const auto own = it->symlink_status(entry_error);
      if (entry_error || !followed_folder(path)) continue;
      // A link is followed with --follow-links; without, one that add follows leads within the roots,
      // followed there already.
      const bool linked_folder = std::filesystem::is_symlink(own) && options_.follow_links &&
                                 std::filesystem::is_directory(std::filesystem::status(path, entry_error));
      if (std::filesystem::is_directory(own) || linked_folder) pending.push_back(path);
    }
  }
}

void FolderWatches::unwatch_tree(const std::filesystem::path& folder) {
  for (auto it = paths_.begin(); it != paths_.end();) {
    if (watching::at_or_below(it->second, folder)) {
      ::inotify_rm_watch(fd_, it->first);
      it = paths_.erase(it);
    } else {
      ++it;
    }
  }
}

void FolderWatches::watch_roots(bool strict) {
  for (const auto& root : roots_) {
    std::error_code error;
    if (std::filesystem::is_directory(root, error)) {
      watch_tree(root, strict);
    } else if (!watch_one(root.parent_path(), strict) && strict) {
      throw Error(ErrorCode::kRuntime, "cannot follow changes of " + root.string());
    }
  }
}

void FolderWatches::read(ChangeBatcher& batcher, WatchClock::time_point now) {
  alignas(inotify_event) std::array<char, 1 << 16> buffer{};
  while (true) {
    const ssize_t got = ::read(fd_, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return;
      throw Error(ErrorCode::kRuntime, std::string("cannot read file change events: ") + std::strerror(errno));
    }
    if (got == 0) return;
    for (std::size_t at = 0; at + sizeof(inotify_event) <= static_cast<std::size_t>(got);) {
      inotify_event event{};
      std::memcpy(&event, buffer.data() + at, sizeof event);
      const char* name_start = buffer.data() + at + sizeof event;
      const std::string name(name_start, ::strnlen(name_start, event.len));
      at += sizeof event + event.len;
      if ((event.mask & IN_Q_OVERFLOW) != 0U) {
        batcher.note_rescan(now);
        continue;
      }
      const auto watched = paths_.find(event.wd);
      if (watched == paths_.end()) continue;
      const std::filesystem::path folder = watched->second;
      if ((event.mask & IN_IGNORED) != 0U) {
        paths_.erase(watched);
        continue;
      }
      if ((event.mask & (IN_DELETE_SELF | IN_MOVE_SELF)) != 0U) {
        if (std::find(roots_.begin(), roots_.end(), folder) != roots_.end()) {
          if (warn_) {
            warn_(folder.string() + " was " + ((event.mask & IN_MOVE_SELF) != 0U ? "moved" : "deleted") +
                  ": its documents are removed, and it is no longer followed");
          }
          unwatch_tree(folder);
          batcher.note(folder, now);
        }
        continue;
      }
      if (name.empty()) continue;
      const std::filesystem::path path = folder / name;
      // Hidden and excluded files and folders (editors' swap files among them) are never read.
      if (!relevant(path) || !followed_folder(path)) continue;
      if ((event.mask & IN_ISDIR) != 0U) {
        if ((event.mask & (IN_MOVED_FROM | IN_DELETE)) != 0U) unwatch_tree(path);
        // What it holds is read with the batch, after its watches are in place.
        if ((event.mask & (IN_CREATE | IN_MOVED_TO)) != 0U) watch_tree(path, false);
      } else if ((event.mask & (IN_CREATE | IN_MOVED_TO)) != 0U && options_.follow_links) {
        std::error_code error;
        if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, error)) &&
            std::filesystem::is_directory(std::filesystem::status(path, error))) {
          watch_tree(path, false);
        }
      }
      batcher.note(path, now);
    }
  }
}

void watch(IndexStorage& storage, const std::vector<std::filesystem::path>& paths, const Embedder& embedder,
           const WatchOptions& options, const WatchStop& stop, const Embedder* sparse) {
  const auto lock = storage.lock_writers();
  std::vector<std::filesystem::path> roots;
  for (const auto& path : paths) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      throw Error(ErrorCode::kNotFound, "no such file or folder: " + path.string());
    }
    roots.push_back(watching::normalized(path));
  }
  IngestOptions ingest_options = options.ingest;
  ingest_options.progress = [&stop, &options](const IngestProgress& progress) {
    if (stop.requested()) throw Error(ErrorCode::kCancelled, "the watch was stopped");
    if (options.ingest.progress) options.ingest.progress(progress);
  };
  FolderWatches watches(roots, ingest_options, options.on_warning);
  // Followed before the first read: a change made while it reads is not lost.
  watches.watch_roots(true);

  // Whether the batch ran to its end (not stopped).
  const auto apply = [&](bool rescan, const std::vector<std::filesystem::path>& changed, bool start) {
    WatchBatch batch;
    batch.rescan = rescan;
    batch.paths = changed.size();
    try {
      batch.report = start ? ingest(storage, roots, embedder, ingest_options, sparse)
                           : ingest_changes(storage, roots, changed, embedder, ingest_options, sparse);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCancelled) throw;
      // The groups stored stay (the next watch's rescan finishes the rest): the graph catches up with them.
      storage.refresh_graph();
      return false;
    }
    batch.files_changed = watching::files_read(batch.report) - batch.report.files_unchanged;
    if (options.on_batch) options.on_batch(batch);
    return true;
  };
  if (!apply(true, roots, true)) return;

  ChangeBatcher batcher(options.settle, options.max_delay);
  while (!stop.requested()) {
    int timeout_ms = -1;
    if (const auto due = batcher.due()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*due - WatchClock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<std::int64_t>(left, 0, 60000));
    }
    std::array<pollfd, 2> fds{pollfd{watches.fd(), POLLIN, 0}, pollfd{stop.fd(), POLLIN, 0}};
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kRuntime, std::string("cannot wait for file changes: ") + std::strerror(errno));
    }
    if (stop.requested()) break;
    if ((fds[0].revents & POLLIN) != 0) watches.read(batcher, WatchClock::now());
    const auto due = batcher.due();
    if (!due || *due > WatchClock::now()) continue;
    auto batch = batcher.take();
    if (batch.rescan) {
      // Events were lost: folders made meanwhile are followed, and everything is read again.
      watches.watch_roots(false);
      if (!apply(true, roots, false)) return;
    } else if (!apply(false, batch.paths, false)) {
      return;
    }
  }
}

}  // namespace sieve::search

namespace sieve {

WatchStop::WatchStop() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0)
    throw Error(ErrorCode::kRuntime, std::string("cannot make an event descriptor: ") + std::strerror(errno));
}

WatchStop::~WatchStop() {
  ::close(fd_);
}

void WatchStop::request() const noexcept {
  requested_.store(true);
  const std::uint64_t one = 1;
  // Async-signal-safe; a full counter already wakes the watch.
  [[maybe_unused]] const ssize_t written = ::write(fd_, &one, sizeof one);
}

}  // namespace sieve
