#include "hub/download.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include "hub/checksum.hpp"

namespace sieve::hub {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }
  // close(2) can report a write error of its own (NFS); it must not go unseen.
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

std::optional<std::uint64_t> expected_size(const Sibling& s) {
  return s.lfs_size ? s.lfs_size : s.size;
}

// "bytes 100-999/1000" -> 100.
std::optional<std::uint64_t> range_start(const HttpResponse& r) {
  const auto it = r.headers.find("content-range");
  if (it == r.headers.end() || !it->second.starts_with("bytes ")) return std::nullopt;
  try {
    return std::stoull(it->second.substr(6));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The size of the whole file as the response declares it: Content-Length
// of a 200 (from `position` 0), the total of a 206's Content-Range.
std::optional<std::uint64_t> declared_length(const HttpResponse& r, std::uint64_t position) {
  try {
    if (r.status == 206) {
      const auto it = r.headers.find("content-range");
      if (it == r.headers.end()) return std::nullopt;
      const auto slash = it->second.rfind('/');
      if (slash == std::string::npos || it->second.substr(slash + 1) == "*") return std::nullopt;
      return std::stoull(it->second.substr(slash + 1));
    }
    const auto it = r.headers.find("content-length");
    if (it == r.headers.end()) return std::nullopt;
    return position + std::stoull(it->second);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Error write_error(int error, const FetchRequest& request, const fs::path& part) {
  if (error == ENOSPC || error == EDQUOT) {
    return Error(ErrorCode::kRuntime, request.dest.string() + ": " + std::strerror(error) + " while writing " +
                                          request.display + "; the partial download is kept in " +
                                          part.parent_path().string() +
                                          " (free some space and run again to resume, or delete it)");
  }
  return Error(ErrorCode::kRuntime, part.string() + ": cannot write: " + std::strerror(error));
}

// The part file is complete: check it, then give it its final name.
FetchedFile verify(const FetchRequest& request, const fs::path& part) {
  const FileDigests digests = digest_file(part);
  const auto expected = expected_size(request.source);
  std::string problem;
  if (expected && digests.size != *expected) {
    problem = "size mismatch: expected " + std::to_string(*expected) + " bytes, got " + std::to_string(digests.size);
  } else if (request.source.lfs_sha256 && digests.sha256 != *request.source.lfs_sha256) {
    problem = "checksum mismatch: expected sha256 " + *request.source.lfs_sha256 + ", got " + digests.sha256;
  } else if (!request.source.lfs_sha256 && request.source.blob_id && digests.git_sha1 != *request.source.blob_id) {
    problem = "checksum mismatch: expected git blob sha1 " + *request.source.blob_id + ", got " + digests.git_sha1;
  }
  if (!problem.empty()) {
    std::error_code ec;
    fs::remove(part, ec);
    throw Error(ErrorCode::kRuntime,
                request.display + ": " + problem + " (the download was deleted; run again to fetch it anew)");
  }
  fs::rename(part, request.target);
  return {digests.size, 0, digests.sha256};
}

}  // namespace

void retry_pause(int attempt) {
  const auto ms = std::min(8000, 500 << std::min(attempt - 1, 4));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

FetchedFile fetch_file(HttpClient& client, const FetchRequest& request, ProgressSink& progress) {
  const auto expected = expected_size(request.source);
  const auto started = Clock::now();
  std::error_code ec;
  // Verified by an earlier run (its checksum was checked before the rename).
  if (fs::is_regular_file(request.target, ec)) {
    const auto size = fs::file_size(request.target, ec);
    if (!ec && (!expected || size == *expected)) {
      FetchedFile done{size, 0, digest_file(request.target).sha256};
      progress.file_done(request.display, size, 0, 0);
      return done;
    }
    fs::remove(request.target, ec);
  }
  fs::create_directories(request.target.parent_path(), ec);
  if (ec) throw write_error(ec.value(), request, request.target);
  fs::path part = request.target;
  part += ".part";
  FileDescriptor fd(::open(part.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw write_error(errno, request, part);
  std::uint64_t offset = static_cast<std::uint64_t>(::lseek(fd.get(), 0, SEEK_END));
  if (expected && offset > *expected) {
    // Longer than the file can be: not a prefix of it.
    if (::ftruncate(fd.get(), 0) != 0) throw write_error(errno, request, part);
    offset = 0;
  }
  const std::uint64_t total = expected.value_or(0);
  std::uint64_t fetched = 0;
  // More bytes than the hub announced: the file is not the one listed, and
  // a server that never stops must not fill the disk. Nothing past the
  // announced size is written.
  const auto oversized = [&](const std::string& sent) {
    return request.display + ": the hub announced " + std::to_string(*expected) + " bytes, but the server sent " +
           sent + "; the download was stopped and deleted";
  };
  progress.file_started(request.display, offset, total);
  // A part of the full size needs no request (a 416 would say the same).
  for (int attempt = 0; !(expected && offset == *expected && offset > 0); ++attempt) {
    std::uint64_t position = offset;
    bool first = true;
    int error = 0;
    std::string refusal;
    bool discard = false;  // the part is not a prefix of the listed file
    const BodySink sink = [&](const HttpResponse& head, std::string_view chunk) {
      if (first) {
        first = false;
        if (head.status == 206) {
          if (range_start(head) != offset) {
            refusal = request.display + ": the server answered a range request with another range (" +
                      (head.headers.count("content-range") ? head.headers.at("content-range") : "none") + ")";
            return false;
          }
        } else {
          // A 200 is the whole file again: the part starts over.
          if (offset > 0 && ::ftruncate(fd.get(), 0) != 0) {
            error = errno;
            return false;
          }
          position = 0;
        }
        // A length the server declares beyond the announced size is refused before a byte is written.
        if (const auto length = declared_length(head, position); expected && length && *length > *expected) {
          refusal = oversized(std::to_string(*length) + " bytes");
          discard = true;
          return false;
        }
      }
      if (expected && chunk.size() > *expected - std::min(position, *expected)) {
        refusal = oversized("more (" + std::to_string(position + chunk.size()) + " bytes so far)");
        discard = true;
        return false;
      }
      for (std::size_t done = 0; done < chunk.size();) {
        const ssize_t n = ::pwrite(fd.get(), chunk.data() + done, chunk.size() - done, static_cast<off_t>(position));
        if (n < 0) {
          if (errno == EINTR) continue;
          error = errno;
          return false;
        }
        done += static_cast<std::size_t>(n);
        position += static_cast<std::uint64_t>(n);
      }
      fetched += chunk.size();
      progress.file_progress(request.display, position, total);
      return true;
    };
    try {
      const HttpResponse response = client.download(request.url, offset, sink);
      if (response.aborted) {
        if (!refusal.empty()) {
          if (discard) fs::remove(part, ec);
          throw Error(ErrorCode::kRuntime, refusal);
        }
        throw write_error(error, request, part);
      }
      if (response.status == 416 && offset > 0) break;  // nothing after `offset`: the part is whole
      if (response.status == 200 && first && offset > 0) {
        // An empty 200 body: the file is empty.
        if (::ftruncate(fd.get(), 0) != 0) throw write_error(errno, request, part);
      }
      if (response.status >= 200 && response.status < 300) break;
      if (transient_status(response.status)) {
        throw NetworkError(ErrorCode::kRuntime,
                           request.url + ": HTTP " + std::to_string(response.status) + " from the server", true);
      }
      throw status_error(response, request.context);
    } catch (const NetworkError& e) {
      if (!e.retryable() || attempt >= request.retries) {
        throw Error(e.code(), request.display + ": " + e.what() +
                                  (attempt > 0 ? " (gave up after " + std::to_string(attempt) + " retries)" : "") +
                                  "; the partial download is kept in " + part.parent_path().string() +
                                  " and the next run resumes it");
      }
      // Resume from what reached the disk.
      offset = static_cast<std::uint64_t>(::lseek(fd.get(), 0, SEEK_END));
      progress.note("retrying " + request.display + " from byte " + std::to_string(offset) + " (" +
                    std::to_string(attempt + 1) + " of " + std::to_string(request.retries) + "): " + e.what());
      retry_pause(attempt + 1);
    }
  }
  // On disk before the rename makes it count as verified.
  if (::fdatasync(fd.get()) != 0 || fd.close() != 0) throw write_error(errno, request, part);
  FetchedFile result = verify(request, part);
  result.fetched = fetched;
  progress.file_done(request.display, result.size, fetched,
                     std::chrono::duration<double>(Clock::now() - started).count());
  return result;
}

}  // namespace sieve::hub
