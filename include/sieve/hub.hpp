#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sieve {

// `sieve pull`: model folders from the Hugging Face hub (or any server that
// speaks its protocol: the metadata API and /resolve/), placed where
// ModelRegistry and the loader find them. Only the CLI and the tests link
// it; the C ABI does not expose it.

// Everything left empty is taken from the environment, as huggingface_hub
// does: HF_ENDPOINT, HF_TOKEN (or the token file), HF_HUB_OFFLINE, and
// SIEVE_MODELS / SIEVE_PULL_TIMEOUT for Sieve's own settings.
struct PullOptions {
  std::string repo_id;               // "org/name" (or "name")
  std::string revision;              // branch, tag or commit; empty: "main"
  std::string variant;               // "fp32", "qint8_avx512", "quantized", ...; empty: "fp32"
  std::filesystem::path dest;        // models root; empty: default_models_root()
  std::string name;                  // folder under dest; empty: default_folder_name()
  bool offline = false;              // true, or HF_HUB_OFFLINE=1: no network at all
  std::string endpoint;              // empty: $HF_ENDPOINT, else the public hub
  std::optional<std::string> token;  // unset: $HF_TOKEN or the token file; "": none
  // Seconds a transfer may go without receiving a byte before it is given up
  // (and retried); 0: $SIEVE_PULL_TIMEOUT, else 30.
  double stall_timeout_s = 0;
  double connect_timeout_s = 30;
  // How often a cut or stalled transfer is resumed before the pull fails.
  int retries = 3;
  // Install files the hub lists without a size or a checksum (each named in
  // a warning); by default such a repository is refused before any download.
  bool allow_unverified = false;
};

// One ONNX export of a repository.
struct Variant {
  std::string name;         // "fp32" for model.onnx, X for model_X.onnx
  std::string onnx_file;    // path in the repository
  std::uint64_t bytes = 0;  // the ONNX file plus its external data files
};

struct PullResult {
  std::filesystem::path folder;
  std::string repo_id;
  std::string commit;
  std::string variant;
  bool up_to_date = false;  // the folder already held this commit: nothing was fetched
  std::uint64_t bytes_downloaded = 0;
  std::size_t files = 0;
};

// What a pull reports while it runs. Calls come from the pulling thread.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // A file starts (or resumes at `offset` of `total` bytes).
  virtual void file_started(const std::string& path, std::uint64_t offset, std::uint64_t total) = 0;
  virtual void file_progress(const std::string& path, std::uint64_t done, std::uint64_t total) = 0;
  // The file is complete and verified; `fetched` bytes came over the network.
  virtual void file_done(const std::string& path, std::uint64_t size, std::uint64_t fetched, double seconds) = 0;
  // Retries, "up to date" and the like.
  virtual void note(const std::string& message) = 0;
  // What the user must see even when progress is off (a file installed unverified).
  virtual void warning(const std::string& message) { note(message); }
};

// Progress on standard error: a bar redrawn in place on a terminal, one line
// per file otherwise; nothing but warnings when `quiet`. Text from the hub
// (file names, messages) is printed with its control characters escaped.
std::unique_ptr<ProgressSink> make_stderr_progress(bool quiet);

// $SIEVE_MODELS, else ~/.cache/sieve/models.
std::filesystem::path default_models_root();

// The repository's name without its owner: "name" for org/name at fp32, "name-variant" otherwise. (The server also
// answers to "org/name" for a folder pulled from it.)
std::string default_folder_name(std::string_view repo_id, std::string_view variant);

// The ONNX exports of a repository at a revision (metadata only). Throws
// sieve::Error when the repository has none.
std::vector<Variant> list_variants(const PullOptions& options);

// Downloads (or finds, offline or when current) the model folder. Files are
// fetched into <dest>/.sieve-pull/<repo, commit, variant>/, resumed across
// runs, verified against the hub's checksums, and the folder appears (or
// replaces the old one) in one rename once all of them are complete.
PullResult pull_model(const PullOptions& options, ProgressSink* progress = nullptr);

}  // namespace sieve
