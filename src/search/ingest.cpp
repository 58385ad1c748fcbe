#include "search/ingest.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "search/chunker.hpp"
#include "search/digest.hpp"
#include "search/extract.hpp"
#include "search/formats/formats.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {

namespace fs = std::filesystem;

std::string document_hash(const ExtractedDocument& document) {
  nlohmann::json fields = {{"title", document.title}, {"text", document.text}, {"metadata", document.metadata}};
  // Sections count only where there are any, so that the documents of indexes made before them keep their hash.
  if (!document.sections.empty()) {
    nlohmann::json sections = nlohmann::json::array();
    for (const auto& section : document.sections) sections.push_back({section.begin, section.label});
    fields["sections"] = std::move(sections);
  }
  return sha256_hex(fields.dump());
}

// The label of the section (page, slide, sheet) a byte of the text lies in: the last one starting at or before it.
std::string section_at(const std::vector<Section>& sections, std::size_t offset) {
  const auto after = std::upper_bound(sections.begin(), sections.end(), offset,
                                      [](std::size_t at, const Section& section) { return at < section.begin; });
  return after == sections.begin() ? std::string() : std::prev(after)->label;
}

struct SourceFile {
  fs::path path;
  std::string key;
  std::uint64_t bytes = 0;
};

// Whether a glob matches the name (a pattern without "/") or the path below the folder given.
bool matches(const std::string& pattern, const fs::path& path, const fs::path& root) {
  if (pattern.find('/') == std::string::npos) return ::fnmatch(pattern.c_str(), path.filename().c_str(), 0) == 0;
  const std::string relative = path.lexically_relative(root).generic_string();
  return ::fnmatch(pattern.c_str(), relative.c_str(), 0) == 0;
}

bool matches_any(const std::vector<std::string>& patterns, const fs::path& path, const fs::path& root) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return matches(pattern, path, root); });
}

bool hidden(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.size() > 1 && name[0] == '.' && name != "..";
}

// Whether `path` is `root` or lies below it (both absolute and canonical).
bool within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

// The kernel's own file systems: their files describe the machine or the
// process (its environment, its memory), are endless or block, and are
// never documents.
bool system_path(const fs::path& canonical) {
  return within(canonical, "/dev") || within(canonical, "/proc") || within(canonical, "/sys");
}

bool system_file_system(const struct statfs& info) {
  switch (static_cast<unsigned long>(info.f_type)) {
    case 0x9fa0UL:      // proc
    case 0x62656572UL:  // sysfs
    case 0x64626720UL:  // debugfs
    case 0x74726163UL:  // tracefs
    case 0x73636673UL:  // securityfs
    case 0x62656570UL:  // configfs
    case 0xde5e81e4UL:  // efivarfs
    case 0x27e0ebUL:    // cgroup
    case 0x63677270UL:  // cgroup2
    case 0x1cd1UL:      // devpts
    case 0xcafe4a11UL:  // bpf
    case 0x6165676cUL:  // pstore
      return true;
    default: return false;
  }
}

// Whether a file listed no longer exists (by that name).
bool gone(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

const char* file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a folder";
  return "not a regular file";
}

std::string mib(std::uint64_t bytes) {
  const double value = static_cast<double>(bytes) / static_cast<double>(1 << 20);
  char text[32];
  std::snprintf(text, sizeof text, value < 10 ? "%.2f MiB" : "%.0f MiB", value);
  return text;
}

std::string too_large(std::uint64_t bytes, std::uint64_t limit) {
  return std::to_string(bytes) + " bytes (" + mib(bytes) + "), more than the limit of " + std::to_string(limit) +
         " bytes (" + mib(limit) + ") per file (--max-file-bytes)";
}

// Finds the files to read: the paths given, and the files below the folders
// given (their formats are decided when they are read). What is left out is
// counted by reason, and reported where the user could not otherwise tell (a
// link not followed, a special file); what must not be read and was asked for
// is an error.
class Collector {
 public:
  Collector(const IngestOptions& options, IngestReport& report) : options_(options), report_(report) {}

  std::vector<SourceFile> collect(const std::vector<fs::path>& paths) {
    for (const auto& path : paths) {
      std::error_code error;
      const auto status = fs::status(path, error);
      if (error || !fs::exists(status)) throw Error(ErrorCode::kNotFound, "no such file or folder: " + path.string());
      roots_.push_back(fs::canonical(path, error));
      if (error) throw Error(ErrorCode::kNotFound, "cannot resolve " + path.string() + ": " + error.message());
    }
    for (const auto& path : paths) {
      std::error_code error;
      if (fs::is_directory(fs::status(path, error))) {
        root_ = path;
        walk(path);
      } else {
        root_ = path.parent_path();
        consider(path, true);
      }
    }
    return sorted_files();
  }

  // The files among `changed` (files and folders at or below `roots`) that a
  // walk of the roots would read now; paths that no longer exist are passed over.
  std::vector<SourceFile> collect_changes(const std::vector<fs::path>& roots, const std::vector<fs::path>& changed) {
    for (const auto& root : roots) {
      std::error_code error;
      const fs::path canonical = fs::canonical(root, error);
      if (!error) roots_.push_back(canonical);
    }
    for (const auto& path : changed) {
      const auto root = std::find_if(roots.begin(), roots.end(), [&](const fs::path& r) { return within(path, r); });
      if (root == roots.end()) continue;
      std::error_code error;
      const bool folder_root = fs::is_directory(fs::status(*root, error));
      root_ = folder_root ? *root : root->parent_path();
      if (!walked_to(path, *root)) continue;
      const auto own = fs::symlink_status(path, error);
      if (error || !fs::exists(own)) continue;  // gone: its documents go with the missing files
      if (path == *root) {
        if (folder_root) {
          walk(path);
        } else {
          consider(path, true);
        }
      } else if (fs::is_symlink(own)) {
        if (!follow_link(path)) continue;
        if (fs::is_directory(fs::status(path, error))) {
          walk(path, false);
        } else {
          consider(path, false);
        }
      } else if (fs::is_directory(own)) {
        walk(path, false);
      } else {
        consider(path, false);
      }
    }
    return sorted_files();
  }

 private:
  void skip(const fs::path& path, const std::string& reason, const std::string& why) {
    ++report_.files_skipped;
    ++report_.skipped_by_reason[reason];
    report_.skipped.push_back(path.string() + ": " + why);
  }
  void refuse(const fs::path& path, const std::string& reason, const std::string& why) {
    ++report_.files_skipped;
    ++report_.skipped_by_reason[reason];
    report_.errors.push_back(path.string() + ": " + why);
  }

  std::vector<SourceFile> sorted_files() {
    std::sort(files_.begin(), files_.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    files_.erase(std::unique(files_.begin(), files_.end(), [](const auto& a, const auto& b) { return a.key == b.key; }),
                 files_.end());
    return std::move(files_);
  }

  // Whether a walk from `root` reaches `path`: no folder on the way, nor the path itself, is hidden or excluded.
  bool walked_to(const fs::path& path, const fs::path& root) const {
    fs::path at = root;
    for (const auto& part : path.lexically_relative(root)) {
      if (part.empty() || part == ".") continue;
      at /= part;
      if (hidden(at) || matches_any(options_.exclude, at, root_)) return false;
    }
    return true;
  }

  // A folder given (or, with `given` false, one found below it), and the
  // folders below it, depth first without recursion.
  void walk(const fs::path& root, bool given = true) {
    std::vector<fs::path> pending{root};
    while (!pending.empty()) {
      const fs::path folder = std::move(pending.back());
      pending.pop_back();
      if (!enter_folder(folder, given && folder == root)) continue;
      std::error_code error;
      fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, error);
      if (error) {
        if (given && folder == root) {
          throw Error(ErrorCode::kRuntime, "cannot read folder " + folder.string() + ": " + error.message());
        }
        skip(folder, "folder not readable", "cannot read the folder: " + error.message());
        continue;
      }
      std::vector<fs::path> folders;
      for (; it != fs::directory_iterator(); it.increment(error)) {
        if (error) break;
        const fs::path& path = it->path();
        if (hidden(path)) {
          ++report_.files_skipped;
          ++report_.skipped_by_reason["hidden (name starts with a dot)"];
          continue;
        }
        if (matches_any(options_.exclude, path, root_)) {
          ++report_.files_skipped;
          ++report_.skipped_by_reason["excluded (--exclude)"];
          continue;
        }
        std::error_code entry_error;
        const auto own = it->symlink_status(entry_error);
        if (entry_error) continue;
        if (fs::is_symlink(own)) {
          if (follow_link(path)) {
            if (fs::is_directory(fs::status(path, entry_error))) {
              folders.push_back(path);
            } else {
              consider(path, false);
            }
          }
        } else if (fs::is_directory(own)) {
          folders.push_back(path);
        } else {
          consider(path, false);
        }
      }
      if (error) skip(folder, "folder not readable", "stopped reading the folder: " + error.message());
      // Reversed onto the stack, so that folders are read in the order listed.
      pending.insert(pending.end(), folders.rbegin(), folders.rend());
    }
  }

  // Whether to read a folder: not one of the kernel's (a folder given that
  // is, is an error), not one already read (a link back up would loop).
  bool enter_folder(const fs::path& folder, bool given) {
    std::error_code error;
    const fs::path canonical = fs::canonical(folder, error);
    struct statfs fs_info {};
    if (!error &&
        (system_path(canonical) || (::statfs(canonical.c_str(), &fs_info) == 0 && system_file_system(fs_info)))) {
      const std::string why = "a folder of the system's " +
                              std::string(system_path(canonical) ? "/dev, /proc or /sys" : "kernel file systems") +
                              " (" + canonical.string() + "), never read";
      if (given) {
        refuse(folder, "system file", why);
      } else {
        skip(folder, "system file", why);
      }
      return false;
    }
    struct stat info {};
    if (::stat(folder.c_str(), &info) != 0) return true;  // the listing reports it
    return folders_seen_.insert({info.st_dev, info.st_ino}).second;
  }

  // A link met in a folder: followed when its target lies within a path
  // given, or with follow_links; else reported and skipped.
  bool follow_link(const fs::path& path) {
    std::error_code error;
    const fs::path target = fs::canonical(path, error);
    if (error) {
      skip(path, "broken symbolic link", "a symbolic link to " + link_text(path) + ", which does not exist");
      return false;
    }
    if (options_.follow_links) return true;
    if (std::any_of(roots_.begin(), roots_.end(), [&](const fs::path& root) { return within(target, root); })) {
      return true;
    }
    skip(path, "symbolic link outside the paths given",
         "a symbolic link to " + target.string() +
             ", outside the files and folders given: not followed (--follow-links follows it)");
    return false;
  }

  static std::string link_text(const fs::path& path) {
    std::error_code error;
    const auto target = fs::read_symlink(path, error);
    return error ? std::string("?") : target.string();
  }

  // A file named, or found in a folder (or through a link followed).
  void consider(const fs::path& path, bool named) {
    if (!named && !options_.include.empty() && !matches_any(options_.include, path, root_)) {
      ++report_.files_skipped;
      ++report_.skipped_by_reason["not included (--include)"];
      return;
    }
    std::error_code error;
    const fs::path canonical = fs::canonical(path, error);
    if (error) {
      if (gone(path)) {
        ++report_.files_skipped;
        ++report_.skipped_by_reason["gone before it was read"];
      } else {
        refuse(path, "not readable", "cannot resolve: " + error.message());
      }
      return;
    }
    // Refused before it is opened: opening a device can have effects.
    if (system_path(canonical)) {
      refuse(path, "system file",
             "a file of the system's /dev, /proc or /sys (" + canonical.string() + "): never read, even when named");
      return;
    }
    struct stat info {};
    if (::stat(canonical.c_str(), &info) != 0) {
      refuse(path, "not readable", std::string("cannot read: ") + std::strerror(errno));
      return;
    }
    if (!S_ISREG(info.st_mode)) {
      const std::string why = std::string(file_kind(info.st_mode)) + ", not a regular file: never read";
      if (named || fs::is_symlink(fs::symlink_status(path, error))) {
        refuse(path, "special file", why);
      } else {
        skip(path, "special file", why);
      }
      return;
    }
    files_.push_back({path, source_key(path), static_cast<std::uint64_t>(info.st_size)});
  }

  const IngestOptions& options_;
  IngestReport& report_;
  std::vector<fs::path> roots_;
  fs::path root_;  // the path given that is being read, for patterns with "/"
  std::vector<SourceFile> files_;
  std::set<std::pair<dev_t, ino_t>> folders_seen_;
};

struct FileDescriptor {
  int fd = -1;
  FileDescriptor() = default;
  explicit FileDescriptor(int descriptor) : fd(descriptor) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// The file's bytes, at most `limit` of them. Opened without blocking (a
// FIFO put in the file's place since it was listed cannot hang the run) and
// checked again once open: a regular file, on no kernel file system, of at
// most `limit` bytes however much it grows while being read. With
// `head_only`, the first `limit` bytes of a file of any size.
std::string read_file(const fs::path& path, std::uint64_t limit, bool head_only = false) {
  std::uint64_t size = 0;
  const FileDescriptor file(open_source_file(path, size));
  if (head_only) size = std::min(size, limit);
  if (size > limit) throw Error(ErrorCode::kInvalidInput, too_large(size, limit));
  std::string content(static_cast<std::size_t>(size), '\0');
  std::size_t filled = 0;
  const auto read_some = [&](char* into, std::size_t room) {
    while (true) {
      const ssize_t got = ::read(file.fd, into, room);
      if (got >= 0) return static_cast<std::size_t>(got);
      // One file's I/O error is that file's failure, not the run's.
      if (errno != EINTR) throw Error(ErrorCode::kInvalidInput, std::string("error reading: ") + std::strerror(errno));
    }
  };
  while (filled < content.size()) {
    const std::size_t got = read_some(content.data() + filled, content.size() - filled);
    if (got == 0) break;  // shorter than it was: what is there is the file
    filled += got;
  }
  content.resize(filled);
  if (head_only) return content;
  // Longer than fstat said (it grows, or its file system does not tell): read on, up to the limit.
  std::array<char, 1 << 16> buffer{};
  for (std::size_t got; (got = read_some(buffer.data(), buffer.size())) > 0;) {
    if (content.size() + got > limit) {
      throw Error(ErrorCode::kInvalidInput, too_large(content.size() + got, limit) + " (it grew while read)");
    }
    content.append(buffer.data(), got);
  }
  return content;
}

// Everything read but not yet stored: documents, and the files all of whose
// documents are among them (or stored already).
class PendingWork {
 public:
  PendingWork(IndexStorage& storage, const Embedder& embedder, const Embedder* sparse, std::size_t slice,
              bool late_chunking, IngestReport& report)
      : storage_(storage),
        embedder_(embedder),
        sparse_(sparse),
        slice_(std::max<std::size_t>(slice, 1)),
        late_chunking_(late_chunking),
        report_(report) {}

  void add_document(NewDocument document) {
    chunks_ += document.chunks.size();
    documents_.push_back(std::move(document));
  }
  void finish_source(std::string source, std::string hash, std::uint64_t bytes, std::set<std::string> keys) {
    sources_.push_back({std::move(source), std::move(hash), bytes, std::move(keys)});
  }
  [[nodiscard]] std::size_t chunks() const { return chunks_; }

  void flush() {
    if (documents_.empty() && sources_.empty()) return;
    embed();
    auto writer = storage_.begin_write();
    for (const auto& document : documents_) {
      report_.chunks_removed += writer->remove_document(document.key);
      writer->add_document(document);
      ++report_.documents_added;
      report_.chunks_added += document.chunks.size();
    }
    for (const auto& source : sources_) {
      for (const auto& key : writer->documents_of_source(source.key)) {
        if (source.keys.contains(key)) continue;
        report_.chunks_removed += writer->remove_document(key);
        ++report_.documents_removed;
      }
      writer->set_source(source.key, source.hash, source.bytes);
    }
    writer->commit();
    documents_.clear();
    sources_.clear();
    chunks_ = 0;
  }

 private:
  struct FinishedSource {
    std::string key;
    std::string hash;
    std::uint64_t bytes;
    std::set<std::string> keys;
  };

  // In groups of at most slice_ chunks: the embedder tokenizes its whole
  // input before the first batch, so one call for a very large document's
  // chunks would hold every chunk's tokens at once.
  void embed() {
    std::vector<NewChunk*> chunks;
    chunks.reserve(chunks_);
    for (auto& document : documents_) {
      for (auto& chunk : document.chunks) chunks.push_back(&chunk);
    }
    if (late_chunking_) {
      // Each document's chunks from one encoding of its whole text.
      std::vector<TextSpan> spans;
      for (auto& document : documents_) {
        spans.clear();
        for (const auto& chunk : document.chunks) spans.push_back({chunk.begin, chunk.end});
        const Embeddings vectors = embedder_.embed_late_chunks(document.text, spans);
        for (std::size_t i = 0; i < document.chunks.size(); ++i) {
          const auto values = vectors.row(i);
          document.chunks[i].vector.assign(values.begin(), values.end());
          normalize(document.chunks[i].vector);
        }
        std::string().swap(document.text);
      }
    }
    std::vector<std::string_view> texts;
    for (std::size_t first = 0; first < chunks.size(); first += slice_) {
      const std::size_t last = std::min(chunks.size(), first + slice_);
      texts.clear();
      for (std::size_t i = first; i < last; ++i) texts.push_back(chunks[i]->text);
      if (!late_chunking_) {
        const Embeddings vectors = embedder_.embed(texts);
        for (std::size_t i = first; i < last; ++i) {
          const auto values = vectors.row(i - first);
          chunks[i]->vector.assign(values.begin(), values.end());
          normalize(chunks[i]->vector);
        }
      }
      if (sparse_ == nullptr) continue;
      // The sparse model reads the chunks the dense model's tokenizer cut;
      // one longer than its own limit is truncated, as sentence-transformers does.
      auto sparse = sparse_->embed_sparse(texts);
      for (std::size_t i = first; i < last; ++i) chunks[i]->sparse = std::move(sparse[i - first]);
    }
  }

  IndexStorage& storage_;
  const Embedder& embedder_;
  const Embedder* sparse_;
  std::size_t slice_;
  bool late_chunking_;
  IngestReport& report_;
  std::vector<NewDocument> documents_;
  std::vector<FinishedSource> sources_;
  std::size_t chunks_ = 0;
};

// Removes the files read before under `paths` that no longer exist, with their documents, in one transaction.
void remove_missing(IndexStorage& storage, const std::vector<fs::path>& paths, IngestReport& report) {
  std::vector<std::string> missing;
  for (const auto& path : paths) {
    const std::string key = source_key(path);
    std::vector<std::string> candidates = storage.sources_with_prefix(key + "/");
    if (storage.source_hash(key)) candidates.push_back(key);
    for (auto& candidate : candidates) {
      struct stat info {};
      // Only a file that is gone: one that cannot be read now (permissions, an I/O error) keeps its documents.
      if (::lstat(candidate.c_str(), &info) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
        missing.push_back(std::move(candidate));
      }
    }
  }
  if (missing.empty()) return;
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  auto writer = storage.begin_write();
  for (const auto& source : missing) {
    for (const auto& key : writer->documents_of_source(source)) {
      report.chunks_removed += writer->remove_document(key);
      ++report.documents_removed;
    }
    writer->remove_source(source);
    ++report.files_removed;
    report.removed.push_back(source);
  }
  writer->commit();
}

}  // namespace

int open_source_file(const fs::path& path, std::uint64_t& size) {
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (file.fd < 0) throw Error(ErrorCode::kNotFound, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) {
    throw Error(ErrorCode::kInvalidInput, std::string("cannot read: ") + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    throw Error(ErrorCode::kUnsupported, std::string(file_kind(info.st_mode)) + ", not a regular file: never read");
  }
  struct statfs fs_info {};
  if (::fstatfs(file.fd, &fs_info) == 0 && system_file_system(fs_info)) {
    throw Error(ErrorCode::kUnsupported, "a file of the kernel's file systems: never read, even when named");
  }
  size = static_cast<std::uint64_t>(info.st_size);
  const int fd = file.fd;
  file.fd = -1;  // the caller's now
  return fd;
}

std::string source_key(const fs::path& path) {
  std::error_code error;
  auto absolute = fs::weakly_canonical(path, error);
  if (error) absolute = fs::absolute(path).lexically_normal();
  return absolute.string();
}

namespace {

// Reads, chunks, embeds and stores the files found; then removes the missing files under `paths`.
void read_files(IndexStorage& storage, const std::vector<SourceFile>& files, const std::vector<fs::path>& paths,
                const Embedder& embedder, const IngestOptions& options, const Embedder* sparse, IngestReport& report) {
  const auto& config = storage.config();
  // The chunker sees whole documents: no truncation, no padding.
  Tokenizer tokenizer = Tokenizer::from_file(embedder.info().folder / "tokenizer.json");
  tokenizer.set_truncation(std::nullopt);
  tokenizer.set_padding(std::nullopt);
  std::size_t chunk_tokens = config.options.chunking.chunk_tokens;
  const std::size_t room = embedder.info().max_length -
                           std::min(embedder.info().max_length,
                                    tokenizer.num_special_tokens_to_add(false) + embedder.info().dense.prompt_length);
  if (room > 0) chunk_tokens = std::min(chunk_tokens, room);
  const std::size_t overlap = std::min(config.options.chunking.overlap_tokens, chunk_tokens / 2);

  IngestProgress progress;
  progress.files_total = files.size();
  for (const auto& file : files) progress.bytes_total += file.bytes;
  PendingWork pending(storage, embedder, sparse, options.commit_chunks, config.options.chunking.late_chunking, report);
  const auto tell = [&] {
    progress.documents_indexed = report.documents_added;
    progress.chunks_indexed = report.chunks_added;
    if (options.progress) options.progress(progress);
  };
  for (const auto& file : files) {
    ++report.files_seen;
    progress.current = file.path.string();
    tell();
    std::string content;
    const std::string name = file.path.filename().string();
    const auto skip = [&report](const std::string& reason) {
      ++report.files_skipped;
      ++report.skipped_by_reason[reason];
    };
    try {
      if (file.bytes > options.max_file_bytes) {
        // A large file that is not a document (a disk image, a database) is left out as any binary file is;
        // one that is a document is an error: it is not read.
        const Detection detection = detect_format(name, read_file(file.path, kSniffBytes, true));
        if (detection.format == nullptr) {
          skip(detection.skip_reason);
        } else {
          skip("too large");
          report.errors.push_back(file.path.string() + ": " + too_large(file.bytes, options.max_file_bytes));
        }
        ++progress.files_done;
        progress.bytes_done += file.bytes;
        continue;
      }
      content = read_file(file.path, options.max_file_bytes);
      const Detection detection = detect_format(name, content);
      if (detection.format == nullptr) {
        skip(detection.skip_reason);
      } else if (const std::string hash = sha256_hex(content); storage.source_hash(file.key) == hash) {
        ++report.files_unchanged;
        ++report.files_by_format[std::string(detection.format->label)];
      } else {
        ExtractLimits limits;
        limits.max_expanded_bytes = options.max_file_bytes;
        Extraction extraction = extract_file(content, name, file.key, limits);
        ++report.files_by_format[std::string(extraction.format->label)];
        for (auto& line : extraction.warnings) report.warnings.push_back(std::move(line));
        for (auto& line : extraction.errors) report.errors.push_back(std::move(line));
        for (const auto& [reason, count] : extraction.skipped)
          report.skipped_by_reason["in archives: " + reason] += count;
        // The documents' text is all that is needed from here on: the file's bytes go.
        const std::size_t content_bytes = content.size();
        std::string().swap(content);
        std::set<std::string> keys;
        for (auto& extracted : extraction.documents) {
          keys.insert(extracted.key);
          const std::string content_hash = document_hash(extracted);
          const auto stored = storage.document(extracted.key);
          if (stored && stored->first == content_hash && stored->second == file.key) {
            ++report.documents_unchanged;
            continue;
          }
          NewDocument document;
          document.key = extracted.key;
          document.source = file.key;
          document.title = std::move(extracted.title);
          document.content_hash = content_hash;
          document.format = std::move(extracted.format);
          document.metadata = std::move(extracted.metadata);
          for (const auto& span : chunk_text(tokenizer, extracted.text, chunk_tokens, overlap, extracted.breaks)) {
            document.chunks.push_back({span.begin,
                                       span.end,
                                       extracted.text.substr(span.begin, span.end - span.begin),
                                       {},
                                       {},
                                       section_at(extracted.sections, span.begin)});
          }
          if (config.options.chunking.late_chunking) {
            document.text = std::move(extracted.text);  // until its chunks are embedded
          } else {
            std::string().swap(extracted.text);  // its chunks hold it now
          }
          pending.add_document(std::move(document));
          if (pending.chunks() >= options.commit_chunks) {
            pending.flush();
            tell();
          }
        }
        pending.finish_source(file.key, hash, content_bytes, std::move(keys));
      }
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kRuntime || e.code() == ErrorCode::kOverloaded || e.code() == ErrorCode::kCancelled)
        throw;
      if (gone(file.path)) {
        // Deleted or renamed since it was listed (an editor's temporary file): not a failure.
        ++report.skipped_by_reason["gone before it was read"];
        ++progress.files_done;
        progress.bytes_done += file.bytes;
        continue;
      }
      ++report.skipped_by_reason["could not be read"];
      // Extraction errors name the file already.
      const std::string what = e.what();
      report.errors.push_back(what.starts_with(file.key) ? what : file.path.string() + ": " + what);
    }
    ++progress.files_done;
    progress.bytes_done += file.bytes;
  }
  pending.flush();
  if (!options.keep_missing) remove_missing(storage, paths, report);
  progress.current.clear();
  tell();
  storage.refresh_graph();
}

}  // namespace

IngestReport ingest(IndexStorage& storage, const std::vector<fs::path>& paths, const Embedder& embedder,
                    const IngestOptions& options, const Embedder* sparse) {
  const auto started = std::chrono::steady_clock::now();
  IngestReport report;
  const auto files = Collector(options, report).collect(paths);
  read_files(storage, files, paths, embedder, options, sparse, report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

IngestReport ingest_changes(IndexStorage& storage, const std::vector<fs::path>& roots,
                            const std::vector<fs::path>& changed, const Embedder& embedder,
                            const IngestOptions& options, const Embedder* sparse) {
  const auto started = std::chrono::steady_clock::now();
  IngestReport report;
  const auto files = Collector(options, report).collect_changes(roots, changed);
  read_files(storage, files, changed, embedder, options, sparse, report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

std::size_t remove_documents(IndexStorage& storage, const std::vector<std::string>& sources_or_ids) {
  std::size_t removed = 0;
  {
    auto writer = storage.begin_write();
    for (const auto& name : sources_or_ids) {
      const std::string source = source_key(name);
      auto keys = writer->documents_of_source(source);
      if (keys.empty() && storage.source_hash(source)) {
        writer->remove_source(source);
        continue;
      }
      if (!keys.empty()) {
        for (const auto& key : keys) {
          writer->remove_document(key);
          ++removed;
        }
        writer->remove_source(source);
        continue;
      }
      if (writer->document(name)) {
        writer->remove_document(name);
        ++removed;
        continue;
      }
      throw Error(ErrorCode::kNotFound, "the index has no source or document named " + name);
    }
    writer->commit();
  }
  storage.refresh_graph();
  return removed;
}

}  // namespace sieve::search
