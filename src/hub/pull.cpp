// Staging, resumption and atomic placement of a pulled model folder.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "hub/download.hpp"
#include "hub/environment.hpp"
#include "hub/file_selection.hpp"
#include "hub/http_client.hpp"
#include "hub/hub_api.hpp"
#include "hub/hub_errors.hpp"
#include "hub/manifest.hpp"
#include "sieve/error.hpp"
#include "sieve/hub.hpp"
#include "sieve/logging.hpp"
#include "sieve/text.hpp"

namespace sieve {

namespace fs = std::filesystem;

namespace {

using hub::PullSettings;

class SilentProgress final : public ProgressSink {
 public:
  void file_started(const std::string&, std::uint64_t, std::uint64_t) override {}
  void file_progress(const std::string&, std::uint64_t, std::uint64_t) override {}
  void file_done(const std::string&, std::uint64_t, std::uint64_t, double) override {}
  void note(const std::string&) override {}
  // Without a sink a warning still reaches the log.
  void warning(const std::string& message) override { log_warn(message); }
};

hub::HttpClient make_client(const PullSettings& s) {
  return hub::HttpClient({s.token, s.connect_timeout_s, s.stall_timeout_s});
}

hub::RequestContext context_of(const PullSettings& s, std::string file = {}) {
  return {s.repo_id, s.revision, s.endpoint, std::move(file), !s.token.empty()};
}

hub::RepoInfo fetch_repo_info(hub::HttpClient& client, const PullSettings& s, ProgressSink& progress) {
  const std::string url = hub::metadata_url(s.endpoint, s.repo_id, s.revision);
  for (int attempt = 0;; ++attempt) {
    try {
      const hub::HttpResponse response = client.get(url);
      if (response.status == 200) return hub::parse_repo_info(response.body, url);
      if (hub::transient_status(response.status)) {
        throw hub::NetworkError(ErrorCode::kRuntime, url + ": HTTP " + std::to_string(response.status), true);
      }
      throw hub::status_error(response, context_of(s));
    } catch (const hub::NetworkError& e) {
      if (!e.retryable() || attempt >= s.retries) {
        throw Error(e.code(), "cannot fetch the metadata of " + s.repo_id + ": " + e.what() +
                                  (attempt > 0 ? " (gave up after " + std::to_string(attempt) + " retries)" : ""));
      }
      progress.note("retrying the metadata request (" + std::to_string(attempt + 1) + " of " +
                    std::to_string(s.retries) + "): " + e.what());
      hub::retry_pause(attempt + 1);
    }
  }
}

[[noreturn]] void fail_io(const fs::path& path, const std::string& what, int error, const PullSettings& s) {
  std::string message = path.string() + ": " + what + ": " + std::strerror(error);
  if (error == ENOSPC || error == EDQUOT)
    message = s.dest.string() + ": " + std::strerror(error) + " (" + message + ")";
  throw Error(ErrorCode::kRuntime, message);
}

// One pull at a time per staging folder. The lock file is unlinked when the
// pull ends; a pull that locked a file since unlinked locks the new one.
class StagingLock {
 public:
  StagingLock(const fs::path& file, const PullSettings& s) : file_(file) {
    for (;;) {
      fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd_ < 0) fail_io(file, "cannot create the lock file", errno, s);
      if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        ::close(fd_);
        if (error == EWOULDBLOCK) {
          throw Error(ErrorCode::kRuntime, "another sieve pull is downloading " + s.repo_id + " into " +
                                               s.dest.string() + " (lock " + file.string() + ")");
        }
        fail_io(file, "cannot lock", error, s);
      }
      struct stat held {};
      struct stat named {};
      if (::fstat(fd_, &held) == 0 && ::stat(file.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
          held.st_dev == named.st_dev) {
        return;
      }
      ::close(fd_);
    }
  }
  StagingLock(const StagingLock&) = delete;
  StagingLock& operator=(const StagingLock&) = delete;
  ~StagingLock() {
    ::unlink(file_.c_str());
    ::close(fd_);
  }

 private:
  fs::path file_;
  int fd_ = -1;
};

// Any name under the root that says whose files these are; the commit
// keeps an interrupted pull of an older commit from mixing into a newer one.
std::string staging_key(const PullSettings& s, const std::string& commit) {
  std::string repo = s.repo_id;
  for (auto& c : repo) {
    if (c == '/') c = '~';
  }
  return repo + "@" + commit + "@" + s.variant;
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Puts the complete staging folder in place. A new folder is one rename; an
// existing one is swapped with the staging folder in one renameat2 call, so
// readers see the old folder or the new one, never a mix, and the old one is
// deleted afterwards.
void place(const fs::path& staging, const PullSettings& s, ProgressSink& progress) {
  std::error_code ec;
  fs::create_directories(s.folder.parent_path(), ec);
  if (ec) fail_io(s.folder.parent_path(), "cannot create the folder", ec.value(), s);
  if (!fs::exists(s.folder, ec)) {
    if (std::rename(staging.c_str(), s.folder.c_str()) != 0)
      fail_io(s.folder, "cannot move the model into place", errno, s);
  } else if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, s.folder.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(staging, ec);
    if (ec) progress.note("could not delete the replaced folder " + staging.string() + ": " + ec.message());
  } else if (errno == EINVAL || errno == ENOSYS) {
    // A file system without RENAME_EXCHANGE: the old folder is moved aside
    // first, so the name is missing for the moment between the two renames.
    fs::path aside = staging;
    aside += ".old";
    if (std::rename(s.folder.c_str(), aside.c_str()) != 0)
      fail_io(s.folder, "cannot move the old folder aside", errno, s);
    if (std::rename(staging.c_str(), s.folder.c_str()) != 0) {
      const int error = errno;
      std::rename(aside.c_str(), s.folder.c_str());
      fail_io(s.folder, "cannot move the model into place", error, s);
    }
    fs::remove_all(aside, ec);
  } else {
    fail_io(s.folder, "cannot swap in the new folder", errno, s);
  }
  sync_directory(s.folder.parent_path());
}

// The folder holds something: ours (a manifest) or the user's, which a pull never replaces.
std::optional<hub::Manifest> existing_manifest(const PullSettings& s) {
  std::error_code ec;
  if (!fs::exists(s.folder, ec)) return std::nullopt;
  auto manifest = hub::read_manifest(s.folder);
  if (!manifest) {
    throw Error(ErrorCode::kInvalidArgument, s.folder.string() + " exists and was not made by sieve pull (no " +
                                                 hub::kManifestName +
                                                 "); remove it, or choose another --name or --dest");
  }
  return manifest;
}

PullResult offline_pull(const PullSettings& s, ProgressSink& progress) {
  std::error_code ec;
  const auto manifest = fs::is_directory(s.folder, ec) ? hub::read_manifest(s.folder) : std::nullopt;
  const std::string what = s.repo_id + (s.variant == "fp32" ? "" : " (variant " + s.variant + ")");
  if (!manifest) {
    throw Error(ErrorCode::kNotFound, "offline and " + what + " is not in " + s.dest.string() + " (no pulled folder " +
                                          s.folder.string() + ")");
  }
  if (manifest->repo_id != s.repo_id || manifest->variant != s.variant) {
    throw Error(ErrorCode::kNotFound, "offline and " + what + " is not in " + s.dest.string() + ": " +
                                          s.folder.string() + " holds " + manifest->repo_id + " variant " +
                                          manifest->variant);
  }
  if (s.revision_given && s.revision != manifest->revision && !manifest->commit.starts_with(s.revision)) {
    throw Error(ErrorCode::kNotFound, "offline and " + what + " at revision " + s.revision + " is not in " +
                                          s.dest.string() + ": " + s.folder.string() + " holds " + manifest->revision +
                                          " (commit " + manifest->commit + ")");
  }
  if (const auto problem = hub::check_sizes(s.folder, *manifest)) {
    throw Error(ErrorCode::kRuntime,
                "offline and " + s.folder.string() + " is incomplete: " + *problem + "; pull it again when online");
  }
  progress.note("offline: " + s.repo_id + " at commit " + manifest->commit + " is in " + s.folder.string());
  return {s.folder, s.repo_id, manifest->commit, s.variant, true, 0, manifest->files.size()};
}

// A file the hub lists without a size or without a checksum cannot be told
// from a different or endless one: refused, unless the caller allows it
// (then each is named in a warning).
void check_verifiable(const std::vector<hub::SelectedFile>& files, const PullSettings& s, ProgressSink& progress) {
  std::vector<std::string> problems;
  for (const auto& file : files) {
    const hub::Sibling& f = file.source;
    const bool sized = f.lfs_size || f.size;
    const bool hashed = f.lfs_sha256 || f.blob_id;
    if (sized && hashed) continue;
    const std::string what = !sized && !hashed ? "size or checksum" : (sized ? "checksum" : "size");
    if (s.allow_unverified) {
      progress.warning(f.path + ": the hub lists no " + what + " for it: accepted UNVERIFIED (--allow-unverified)");
    } else {
      problems.push_back(f.path + " (no " + what + ")");
    }
  }
  if (!problems.empty()) {
    throw Error(ErrorCode::kRuntime, s.repo_id + " on " + s.endpoint + ": the hub lists " + join(problems, ", ") +
                                         ", so the download cannot be verified; nothing was downloaded (pass "
                                         "--allow-unverified to install such files anyway)");
  }
}

}  // namespace

std::vector<Variant> list_variants(const PullOptions& options) {
  const PullSettings s = hub::resolve_settings(options);
  if (s.offline) {
    throw Error(ErrorCode::kInvalidArgument,
                "listing the variants of " + s.repo_id +
                    " needs the hub, and offline mode is on (--offline or HF_HUB_OFFLINE)");
  }
  SilentProgress silent;
  auto client = make_client(s);
  const auto info = fetch_repo_info(client, s, silent);
  auto variants = hub::find_variants(info.siblings);
  if (variants.empty()) {
    // select_files says why, in the same words as a pull.
    (void)hub::select_files(info.siblings, s.variant, s.repo_id);
  }
  return variants;
}

PullResult pull_model(const PullOptions& options, ProgressSink* progress_sink) {
  SilentProgress silent;
  ProgressSink& progress = progress_sink != nullptr ? *progress_sink : silent;
  const PullSettings s = hub::resolve_settings(options);
  // Offline mode decides before any network code runs: no handle, no connection.
  if (s.offline) return offline_pull(s, progress);

  auto client = make_client(s);
  const hub::RepoInfo info = fetch_repo_info(client, s, progress);
  const auto files = hub::select_files(info.siblings, s.variant, s.repo_id);
  const auto current = existing_manifest(s);
  if (current && current->repo_id == s.repo_id && current->commit == info.commit && current->variant == s.variant &&
      !hub::check_sizes(s.folder, *current)) {
    progress.note(s.folder.string() + " is up to date (" + s.repo_id + " at commit " + info.commit + ")");
    return {s.folder, s.repo_id, info.commit, s.variant, true, 0, current->files.size()};
  }

  check_verifiable(files, s, progress);

  const fs::path staging_root = s.dest / ".sieve-pull";
  std::error_code ec;
  fs::create_directories(staging_root, ec);
  if (ec) fail_io(staging_root, "cannot create the staging folder", ec.value(), s);
  const std::string key = staging_key(s, info.commit);
  PullResult result{s.folder, s.repo_id, info.commit, s.variant, false, 0, files.size()};
  {  // the lock is released before the staging root is removed
    StagingLock lock(staging_root / (key + ".lock"), s);
    const fs::path staging = staging_root / key;
    fs::create_directories(staging, ec);
    if (ec) fail_io(staging, "cannot create the staging folder", ec.value(), s);

    hub::Manifest manifest{s.repo_id, s.revision, info.commit, s.variant, s.endpoint, {}, {}};
    for (const auto& file : files) {
      hub::FetchRequest request{hub::resolve_url(s.endpoint, s.repo_id, info.commit, file.source.path),
                                file.source,
                                staging / file.local_path,
                                file.source.path,
                                s.dest,
                                context_of(s, file.source.path),
                                s.retries};
      const hub::FetchedFile fetched = hub::fetch_file(client, request, progress);
      result.bytes_downloaded += fetched.fetched;
      manifest.files.push_back({file.local_path, file.source.path, fetched.size, fetched.sha256});
    }
    try {
      hub::write_manifest(staging, manifest);
    } catch (const Error&) {
      fail_io(staging / hub::kManifestName, "cannot write", errno, s);
    }
    sync_directory(staging);
    // Someone may have made the folder while this pull ran: never replace a folder of theirs.
    (void)existing_manifest(s);
    place(staging, s, progress);
  }
  fs::remove(staging_root, ec);  // only when no other pull left anything there
  return result;
}

}  // namespace sieve
