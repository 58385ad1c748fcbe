#include "search/ingest.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "search/chunker.hpp"
#include "search/digest.hpp"
#include "search/extract.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {

namespace fs = std::filesystem;

std::string document_hash(const ExtractedDocument& document) {
  nlohmann::json fields = {{"title", document.title}, {"text", document.text}, {"metadata", document.metadata}};
  return sha256_hex(fields.dump());
}

struct SourceFile {
  fs::path path;
  std::string key;
  SourceFormat format;
  std::uint64_t bytes = 0;
};

bool hidden(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.size() > 1 && name[0] == '.' && name != "..";
}

std::vector<SourceFile> collect(const std::vector<fs::path>& paths, IngestReport& report) {
  std::vector<SourceFile> files;
  const auto consider = [&](const fs::path& path, bool named) {
    const auto format = format_for_path(path);
    if (!format) {
      ++report.files_skipped;
      if (named) report.skipped.push_back(path.string() + ": not .txt, .md, .html or .jsonl");
      return;
    }
    std::error_code error;
    const auto bytes = fs::file_size(path, error);
    files.push_back({path, source_key(path), *format, error ? 0 : bytes});
  };
  for (const auto& path : paths) {
    std::error_code error;
    const auto status = fs::status(path, error);
    if (error || !fs::exists(status)) throw Error(ErrorCode::kNotFound, "no such file or folder: " + path.string());
    if (fs::is_directory(status)) {
      fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, error);
      if (error) throw Error(ErrorCode::kRuntime, "cannot read folder " + path.string() + ": " + error.message());
      for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (error) break;
        if (hidden(it->path())) {
          if (it->is_directory()) it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file()) consider(it->path(), false);
      }
    } else {
      consider(path, true);
    }
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  files.erase(std::unique(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.key == b.key; }),
              files.end());
  return files;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, "cannot read " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw Error(ErrorCode::kRuntime, "error reading " + path.string());
  return std::move(content).str();
}

// Everything read but not yet stored: documents, and the files all of whose
// documents are among them (or stored already).
class PendingWork {
 public:
  PendingWork(IndexStorage& storage, const Embedder& embedder, const Embedder* sparse, IngestReport& report)
      : storage_(storage), embedder_(embedder), sparse_(sparse), report_(report) {}

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

  void embed() {
    std::vector<std::string_view> texts;
    texts.reserve(chunks_);
    for (const auto& document : documents_) {
      for (const auto& chunk : document.chunks) texts.push_back(chunk.text);
    }
    if (texts.empty()) return;
    const Embeddings vectors = embedder_.embed(texts);
    std::size_t row = 0;
    for (auto& document : documents_) {
      for (auto& chunk : document.chunks) {
        const auto values = vectors.row(row++);
        chunk.vector.assign(values.begin(), values.end());
        normalize(chunk.vector);
      }
    }
    if (sparse_ == nullptr) return;
    // The sparse model reads the chunks the dense model's tokenizer cut;
    // one longer than its own limit is truncated, as sentence-transformers does.
    auto sparse = sparse_->embed_sparse(texts);
    row = 0;
    for (auto& document : documents_) {
      for (auto& chunk : document.chunks) chunk.sparse = std::move(sparse[row++]);
    }
  }

  IndexStorage& storage_;
  const Embedder& embedder_;
  const Embedder* sparse_;
  IngestReport& report_;
  std::vector<NewDocument> documents_;
  std::vector<FinishedSource> sources_;
  std::size_t chunks_ = 0;
};

}  // namespace

std::string source_key(const fs::path& path) {
  std::error_code error;
  auto absolute = fs::weakly_canonical(path, error);
  if (error) absolute = fs::absolute(path).lexically_normal();
  return absolute.string();
}

IngestReport ingest(IndexStorage& storage, const std::vector<fs::path>& paths, const Embedder& embedder,
                    const IngestOptions& options, const Embedder* sparse) {
  const auto started = std::chrono::steady_clock::now();
  IngestReport report;
  const auto files = collect(paths, report);
  const auto& config = storage.config();
  // The chunker sees whole documents: no truncation, no padding.
  Tokenizer tokenizer = Tokenizer::from_file(embedder.info().folder / "tokenizer.json");
  tokenizer.set_truncation(std::nullopt);
  tokenizer.set_padding(std::nullopt);
  std::size_t chunk_tokens = config.options.chunking.chunk_tokens;
  const std::size_t room =
      embedder.info().max_length -
      std::min(embedder.info().max_length, tokenizer.num_special_tokens_to_add(false) + embedder.info().prompt_length);
  if (room > 0) chunk_tokens = std::min(chunk_tokens, room);
  const std::size_t overlap = std::min(config.options.chunking.overlap_tokens, chunk_tokens / 2);

  IngestProgress progress;
  progress.files_total = files.size();
  for (const auto& file : files) progress.bytes_total += file.bytes;
  PendingWork pending(storage, embedder, sparse, report);
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
    std::vector<ExtractedDocument> documents;
    try {
      content = read_file(file.path);
      const std::string hash = sha256_hex(content);
      if (storage.source_hash(file.key) == hash) {
        ++report.files_unchanged;
      } else {
        documents = extract_documents(content, file.format, file.key);
        std::set<std::string> keys;
        for (auto& extracted : documents) {
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
          document.metadata = std::move(extracted.metadata);
          for (const auto& span : chunk_text(tokenizer, extracted.text, chunk_tokens, overlap)) {
            document.chunks.push_back(
                {span.begin, span.end, extracted.text.substr(span.begin, span.end - span.begin), {}, {}});
          }
          pending.add_document(std::move(document));
          if (pending.chunks() >= options.commit_chunks) {
            pending.flush();
            tell();
          }
        }
        pending.finish_source(file.key, hash, content.size(), std::move(keys));
      }
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kRuntime || e.code() == ErrorCode::kOverloaded) throw;
      // Extraction errors name the file already.
      const std::string what = e.what();
      report.errors.push_back(what.starts_with(file.key) ? what : file.path.string() + ": " + what);
    }
    ++progress.files_done;
    progress.bytes_done += file.bytes;
  }
  pending.flush();
  progress.current.clear();
  tell();
  storage.refresh_graph();
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
