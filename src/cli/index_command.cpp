#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"
#include "sieve/search.hpp"
#include "sieve/text.hpp"

namespace sieve::cli {
namespace {

struct IndexArgs {
  std::string index;
  ModelOptions model;
  std::string sparse_model;
  std::vector<std::string> paths;
  std::size_t chunk_tokens = 256;
  std::size_t overlap_tokens = 32;
  std::size_t exact_threshold = 20000;
  std::size_t batch_chunks = 256;
  std::uint64_t max_file_bytes = kDefaultMaxFileBytes;
  bool follow_links = false;
  bool keep_missing = false;
  bool late_chunking = false;
  std::string vectors;                 // "": float32 for a new index
  std::optional<std::size_t> rescore;  // nullopt: the codes' default
  std::size_t graph_dimensions = 0;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  double settle_s = 0.5;
  bool quiet = false;
  bool json = false;
};

std::string human_seconds(double seconds) {
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%.0fs", seconds);
  } else {
    std::snprintf(text, sizeof text, "%dm%02ds", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
  }
  return text;
}

// A bar with rates and the time left, redrawn at most ten times a second.
class ProgressBar {
 public:
  void operator()(const IngestProgress& progress) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(100) && !progress.current.empty()) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fraction =
        progress.bytes_total ? static_cast<double>(progress.bytes_done) / static_cast<double>(progress.bytes_total) : 0;
    const int width = 24;
    const int filled = static_cast<int>(fraction * width);
    std::string bar = "[" + std::string(static_cast<std::size_t>(filled), '#') +
                      std::string(static_cast<std::size_t>(width - filled), '.') + "]";
    char line[256];
    std::snprintf(line, sizeof line, "%s %3.0f%%  %zu/%zu files  %zu docs  %zu chunks  %.0f chunks/s", bar.c_str(),
                  fraction * 100, progress.files_done, progress.files_total, progress.documents_indexed,
                  progress.chunks_indexed, elapsed > 0 ? static_cast<double>(progress.chunks_indexed) / elapsed : 0.0);
    std::string text = line;
    if (fraction > 0.01 && fraction < 1) text += "  ETA " + human_seconds(elapsed * (1 - fraction) / fraction);
    std::fprintf(stderr, "\r\x1b[K%s", text.c_str());
    std::fflush(stderr);
  }
  ~ProgressBar() { std::fprintf(stderr, "\r\x1b[K"); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

Embedder load_embedder(const ModelOptions& model, const std::string& path) {
  EmbedderOptions options;
  options.runtime = to_runtime_options(model);
  return Embedder::load(path, options);
}

// An index to add to, with its models: opened, or created with --model.
struct WritableIndex {
  std::optional<SearchIndex> index;
  std::optional<Embedder> embedder;
  std::optional<Embedder> sparse;
};

// --late-chunking is chosen when an index is made: asking for it on an index made without it is an error, not a
// mix of vectors made two ways.
// The options only a new index takes, checked against an index that exists.
void check_late_chunking(const IndexArgs& args, const SearchIndex& index) {
  const IndexStats stats = index.stats();
  if (args.late_chunking && !stats.chunking.late_chunking) {
    throw Error(ErrorCode::kInvalidArgument,
                "the index in " + args.index +
                    " embeds each chunk alone; late chunking is chosen when an index is made (make a new one with "
                    "--late-chunking)");
  }
  if (!args.vectors.empty() && parse_vector_codes(args.vectors) != stats.vectors) {
    throw Error(ErrorCode::kInvalidArgument, "the index in " + args.index + " keeps " + to_string(stats.vectors) +
                                                 " vectors in its graph; they are chosen when an index is made "
                                                 "(make a new one with --vectors " +
                                                 args.vectors + ")");
  }
  if (args.graph_dimensions != 0 && args.graph_dimensions != stats.graph_dimensions) {
    throw Error(ErrorCode::kInvalidArgument,
                "the index in " + args.index + "'s graph holds " +
                    (stats.graph_dimensions ? std::to_string(stats.graph_dimensions) : std::string("all")) +
                    " dimensions of each vector; that is chosen when an index is made");
  }
  if (args.rescore && *args.rescore != stats.rescore) {
    throw Error(ErrorCode::kInvalidArgument, "the index in " + args.index + " rescores " +
                                                 std::to_string(stats.rescore) +
                                                 " candidates per hit; that is chosen when an index is made");
  }
}

IndexCreateOptions create_options(const IndexArgs& args) {
  IndexCreateOptions options;
  options.chunking = {args.chunk_tokens, args.overlap_tokens, args.late_chunking};
  options.exact_threshold = args.exact_threshold;
  if (!args.vectors.empty()) options.vectors = parse_vector_codes(args.vectors);
  options.rescore = args.rescore;
  options.graph_dimensions = args.graph_dimensions;
  return options;
}

WritableIndex open_writable(const IndexArgs& args) {
  std::optional<SearchIndex> index;
  std::string model_path = args.model.model;
  const std::filesystem::path folder = args.index;
  if (model_path.empty()) {
    try {
      index = SearchIndex::open(folder);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kNotFound) throw;
      // A new index: it is made for the model given with --model.
      throw Error(ErrorCode::kNotFound, "no search index in " + args.index +
                                            " yet: a new index needs its embedding model, --model DIR (for example " +
                                            "sieve index add --index " + args.index +
                                            " --model models/all-MiniLM-L6-v2 FILES...)");
    }
    model_path = index->model().path;
  }
  Embedder embedder = load_embedder(args.model, model_path);
  if (!index && args.sparse_model.empty()) {
    // An existing index may have a sparse model that must be loaded too.
    try {
      index = SearchIndex::open(folder);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kNotFound) throw;
    }
  }
  std::string sparse_path = args.sparse_model;
  if (sparse_path.empty() && index && index->sparse_model()) sparse_path = index->sparse_model()->path;
  std::optional<Embedder> sparse;
  if (!sparse_path.empty()) sparse.emplace(load_embedder(args.model, sparse_path));
  if (!index || !args.sparse_model.empty()) {
    index = SearchIndex::create(folder, embedder, create_options(args), sparse ? &*sparse : nullptr);
  }
  check_late_chunking(args, *index);
  WritableIndex writable;
  writable.index = std::move(index);
  writable.embedder.emplace(std::move(embedder));
  if (sparse) writable.sparse.emplace(std::move(*sparse));
  return writable;
}

IngestOptions ingest_options(const IndexArgs& args) {
  IngestOptions options;
  options.commit_chunks = args.batch_chunks;
  options.max_file_bytes = args.max_file_bytes;
  options.follow_links = args.follow_links;
  options.keep_missing = args.keep_missing;
  options.include = args.include;
  options.exclude = args.exclude;
  return options;
}

// The lines of a report that name files: shown with their control characters escaped.
void print_file_lines(const IngestReport& report) {
  for (const auto& line : report.skipped) std::fprintf(stderr, "sieve: skipped %s\n", escape_control(line).c_str());
  for (const auto& line : report.removed) {
    std::fprintf(stderr, "sieve: removed %s: no longer exists\n", escape_control(line).c_str());
  }
  for (const auto& line : report.warnings) std::fprintf(stderr, "sieve: warning: %s\n", escape_control(line).c_str());
  for (const auto& line : report.errors) std::fprintf(stderr, "sieve: error: %s\n", escape_control(line).c_str());
}

int run_add(const IndexArgs& args) {
  WritableIndex writable = open_writable(args);
  std::vector<std::filesystem::path> paths(args.paths.begin(), args.paths.end());
  IngestOptions options = ingest_options(args);
  std::optional<ProgressBar> bar;
  if (!args.quiet && isatty(STDERR_FILENO) == 1) {
    bar.emplace();
    options.progress = [&bar](const IngestProgress& progress) { (*bar)(progress); };
  }
  const IngestReport report =
      writable.index->add(paths, *writable.embedder, options, writable.sparse ? &*writable.sparse : nullptr);
  bar.reset();
  if (args.json) {
    write_stdout(ingest_report_json(report) + "\n");
  } else if (!args.quiet) {
    std::fprintf(
        stderr,
        "sieve: %zu files (%zu unchanged, %zu skipped, %zu removed): %zu documents added, %zu unchanged, %zu removed; "
        "%zu chunks added, %zu removed in %.1fs (%.1f documents/s, %.1f chunks/s)\n",
        report.files_seen, report.files_unchanged, report.files_skipped, report.files_removed, report.documents_added,
        report.documents_unchanged, report.documents_removed, report.chunks_added, report.chunks_removed,
        report.seconds, report.seconds > 0 ? static_cast<double>(report.documents_added) / report.seconds : 0,
        report.seconds > 0 ? static_cast<double>(report.chunks_added) / report.seconds : 0);
    const auto counts = [](const std::map<std::string, std::size_t>& by) {
      std::string line;
      for (const auto& [what, count] : by) line += (line.empty() ? "" : ", ") + what + " " + std::to_string(count);
      return line;
    };
    if (!report.files_by_format.empty())
      std::fprintf(stderr, "sieve: read: %s\n", counts(report.files_by_format).c_str());
    if (!report.skipped_by_reason.empty()) {
      std::fprintf(stderr, "sieve: not read: %s\n", counts(report.skipped_by_reason).c_str());
    }
  }
  print_file_lines(report);
  return report.errors.empty() ? 0 : 1;
}

namespace watch_signals {

std::atomic<const WatchStop*> stop{nullptr};

extern "C" void on_signal(int /*signal*/) {
  if (const WatchStop* watch = stop.load()) watch->request();
}

// SIGINT and SIGTERM end the watch after the group of documents being
// stored; a second one ends the process at once (the index stays consistent).
class StopOnSignals {
 public:
  explicit StopOnSignals(const WatchStop& watch) {
    stop.store(&watch);
    struct sigaction action {};
    action.sa_handler = on_signal;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;
  ~StopOnSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    stop.store(nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace watch_signals

void print_batch(const WatchBatch& batch) {
  const IngestReport& report = batch.report;
  const bool changed = batch.files_changed > 0 || report.files_removed > 0 || report.documents_removed > 0 ||
                       !report.errors.empty() || !report.warnings.empty();
  if (!batch.rescan && !changed) return;  // a temporary file come and gone, a file saved unchanged
  std::fprintf(stderr,
               "sieve: %s: %zu %s added or changed, %zu removed (%zu unchanged, %zu skipped); %zu documents "
               "added, %zu removed; %zu chunks added, %zu removed in %.1fs\n",
               batch.rescan ? "rescan" : "changes", batch.files_changed, batch.files_changed == 1 ? "file" : "files",
               report.files_removed, report.files_unchanged, report.files_skipped, report.documents_added,
               report.documents_removed, report.chunks_added, report.chunks_removed, report.seconds);
}

int run_watch(const IndexArgs& args) {
  WritableIndex writable = open_writable(args);
  std::vector<std::filesystem::path> paths(args.paths.begin(), args.paths.end());
  WatchOptions options;
  options.ingest = ingest_options(args);
  options.settle = std::chrono::milliseconds(static_cast<std::int64_t>(args.settle_s * 1000));
  options.max_delay = std::max(options.settle, std::chrono::milliseconds(3000));
  bool started = false;
  bool errors = false;
  options.on_batch = [&](const WatchBatch& batch) {
    errors = errors || !batch.report.errors.empty();
    if (args.json) {
      write_stdout("{\"rescan\": " + std::string(batch.rescan ? "true" : "false") + ", \"paths\": " +
                   std::to_string(batch.paths) + ", \"files_changed\": " + std::to_string(batch.files_changed) +
                   ", \"report\": " + ingest_report_json(batch.report) + "}\n");
    } else if (!args.quiet) {
      print_batch(batch);
    }
    print_file_lines(batch.report);
    if (!started) {
      started = true;
      if (!args.quiet) {
        std::fprintf(stderr, "sieve: watching %zu path%s for changes (SIGINT or SIGTERM stops)\n", paths.size(),
                     paths.size() == 1 ? "" : "s");
      }
    }
    std::fflush(stderr);
  };
  options.on_warning = [](const std::string& line) {
    std::fprintf(stderr, "sieve: warning: %s\n", escape_control(line).c_str());
    std::fflush(stderr);
  };
  const WatchStop stop;
  const watch_signals::StopOnSignals signals(stop);
  writable.index->watch(paths, *writable.embedder, options, stop, writable.sparse ? &*writable.sparse : nullptr);
  if (!args.quiet) std::fprintf(stderr, "sieve: stopped watching\n");
  return errors ? 1 : 0;
}

int run_create(const IndexArgs& args) {
  const Embedder embedder = load_embedder(args.model, args.model.model);
  std::optional<Embedder> sparse;
  if (!args.sparse_model.empty()) sparse.emplace(load_embedder(args.model, args.sparse_model));
  // An index that exists already is opened and checked against the model.
  const SearchIndex index =
      SearchIndex::create(args.index, embedder, create_options(args), sparse ? &*sparse : nullptr);
  check_late_chunking(args, index);
  const IndexStats stats = index.stats();
  if (args.json) {
    write_stdout(index_stats_json(stats) + "\n");
  } else {
    std::fprintf(stderr, "sieve: index %s ready for %s (dimension %zu), %zu documents\n",
                 escape_control(stats.folder.string()).c_str(), escape_control(stats.model.name).c_str(),
                 stats.model.dimension, stats.documents);
  }
  return 0;
}

int run_remove(const IndexArgs& args) {
  SearchIndex index = SearchIndex::open(args.index);
  const std::size_t removed = index.remove(args.paths);
  if (args.json) {
    write_stdout("{\"documents_removed\": " + std::to_string(removed) + "}\n");
  } else if (!args.quiet) {
    std::fprintf(stderr, "sieve: removed %zu documents\n", removed);
  }
  return 0;
}

std::string human_bytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

int run_stats(const IndexArgs& args) {
  const IndexStats stats = SearchIndex::open(args.index).stats();
  if (args.json) {
    write_stdout(index_stats_json(stats) + "\n");
    return 0;
  }
  std::string out;
  out += "index:      " + stats.folder.string() + "\n";
  out += "model:      " + stats.model.name + " (" + stats.model.path + "), dimension " +
         std::to_string(stats.model.dimension) + ", ONNX sha256 " + stats.model.onnx_sha256.substr(0, 16) + "\n";
  if (stats.sparse_model) {
    out += "sparse:     " + stats.sparse_model->name + " (" + stats.sparse_model->path + "), " +
           stats.sparse_model->pooling + ", vocabulary " + std::to_string(stats.sparse_model->dimension) + ", " +
           std::to_string(stats.sparse_postings) + " weights stored\n";
  }
  out += "chunking:   " + std::to_string(stats.chunking.chunk_tokens) + " tokens, overlap " +
         std::to_string(stats.chunking.overlap_tokens) + (stats.chunking.late_chunking ? ", late chunking" : "") + "\n";
  out += "sources:    " + std::to_string(stats.sources) + "\n";
  out += "documents:  " + std::to_string(stats.documents) + "\n";
  out += "chunks:     " + std::to_string(stats.chunks) + "\n";
  out += "database:   " + human_bytes(stats.database_bytes) + "\n";
  out += stats.ann_elements
             ? "graph:      " + human_bytes(stats.ann_bytes) + ", " + std::to_string(stats.ann_elements) + " chunks\n"
             : "graph:      none (exact search below " + std::to_string(stats.exact_threshold) + " chunks)\n";
  out += "vectors:    " + std::string(to_string(stats.vectors)) + " in the graph";
  if (stats.graph_dimensions) out += ", their first " + std::to_string(stats.graph_dimensions) + " dimensions";
  if (stats.ann_elements) out += " (" + human_bytes(stats.ann_vector_bytes) + " in memory)";
  if (stats.vectors != VectorCodes::kFloat32 || stats.graph_dimensions) {
    out += stats.rescore ? ", the best " + std::to_string(stats.rescore) +
                               " candidates per hit rescored with the float32 vectors on disk"
                         : ", not rescored";
  }
  out += "\n";
  if (!stats.documents_by_format.empty()) {
    std::string formats;
    for (const auto& [format, count] : stats.documents_by_format) {
      formats += (formats.empty() ? "" : ", ") + (format.empty() ? std::string("unknown") : format) + " " +
                 std::to_string(count);
    }
    out += "formats:    " + formats + "\n";
  }
  write_stdout(out);
  return 0;
}

int run_check(const IndexArgs& args) {
  const CheckReport report = SearchIndex::open(args.index).check();
  if (args.json) {
    write_stdout(check_report_json(report) + "\n");
  } else {
    for (const auto& problem : report.problems) std::printf("problem: %s\n", escape_control(problem).c_str());
    for (const auto& note : report.notes) std::printf("note: %s\n", escape_control(note).c_str());
    std::printf("%s\n", report.ok() ? "ok" : "the index is damaged");
  }
  return report.ok() ? 0 : 1;
}

// The options that shape a new index (add's and create's).
void add_create_options(CLI::App& command, IndexArgs& args) {
  command.add_option("--model,-m", args.model.model, "Embedding model folder (default: the index's)");
  command.add_option("--sparse-model", args.sparse_model,
                     "A sparse (SPLADE) model folder: a new index stores each chunk's sparse vector too, for sieve "
                     "search --mode sparse and hybrid (default: the index's)");
  add_runtime_options(command, args.model);
  command.add_option("--chunk-tokens", args.chunk_tokens, "Tokens per chunk, for a new index (default 256)")
      ->check(positive_number());
  command
      .add_option("--overlap", args.overlap_tokens, "Tokens shared by consecutive chunks, for a new index (default 32)")
      ->check(non_negative_number());
  command.add_flag("--late-chunking", args.late_chunking,
                   "Late chunking, for a new index: each document is encoded once and each chunk's vector pooled "
                   "from its own tokens' states, so that it knows the text around it");
  command
      .add_option("--exact-threshold", args.exact_threshold,
                  "Below this many chunks search is exact and no graph is used, for a new index (default 20000)")
      ->check(non_negative_number());
  command
      .add_option("--vectors", args.vectors,
                  "How the graph holds the vectors in memory, for a new index: float32 (default), int8 (a quarter "
                  "of the memory) or binary (a 32nd); the float32 vectors stay on disk for rescoring")
      ->check(CLI::IsMember({"float32", "int8", "binary"}));
  command
      .add_option("--rescore", args.rescore,
                  "With --vectors int8 or binary, or --graph-dimensions: the graph's best N candidates per hit wanted "
                  "are scored again with their whole float32 vectors (default 4; 10 for binary; 0: the graph's "
                  "scores)")
      ->check(CLI::Range(0, 100));
  command
      .add_option("--graph-dimensions", args.graph_dimensions,
                  "The graph holds each vector's first N dimensions, normalized again, for a new index (a Matryoshka "
                  "model's prefix: less memory, the whole vectors rescoring; default: all)")
      ->check(positive_number());
}

// How files are read (add's and watch's).
void add_ingest_options(CLI::App& command, IndexArgs& args) {
  command.add_option("--batch-chunks", args.batch_chunks, "Chunks embedded and committed together (default 256)")
      ->check(positive_number());
  command
      .add_option("--max-file-bytes", args.max_file_bytes,
                  "Largest file read, in bytes (default 268435456, 256 MiB): a larger one is an error naming it, and "
                  "the other files still go in")
      ->check(positive_number());
  command.add_flag("--follow-links", args.follow_links,
                   "Follow symbolic links in folders wherever they point (by default only to files and folders within "
                   "the paths given; others are skipped and reported)");
  command
      .add_option("--include", args.include,
                  "Read only files matching this glob (*, ?, [...]; repeatable): a pattern without / is matched "
                  "against file names, one with / against the path below the folder given")
      ->type_size(1)
      ->allow_extra_args(false);
  command
      .add_option("--exclude", args.exclude,
                  "Leave out files and folders matching this glob (repeatable; as --include), e.g. --exclude "
                  "'*.log' --exclude node_modules")
      ->type_size(1)
      ->allow_extra_args(false);
  command.add_flag("--keep-missing", args.keep_missing,
                   "Keep the documents of files read before that no longer exist (by default they are removed)");
}

}  // namespace

Action add_index_command(CLI::App& app) {
  auto args = std::make_shared<IndexArgs>();
  auto* index = app.add_subcommand("index", "Build and maintain a local search index (see sieve search)");
  add_examples(*index, {"sieve index add --index notes.idx --model models/all-MiniLM-L6-v2 notes/",
                        "sieve index stats --index notes.idx", "sieve index check --index notes.idx"});
  index->require_subcommand(1);

  auto* add = index->add_subcommand(
      "add",
      "Index files and folders (text, Markdown, HTML, PDF, Word, Excel, PowerPoint, OpenDocument, EPUB, e-mail, "
      "source code, manual pages, compressed files and archives): chunk, embed and store; changed files are "
      "replaced, unchanged ones skipped, vanished ones removed");
  add_index_location(*add, args->index, "Index folder (created with --model if new)");
  add_create_options(*add, *args);
  add->add_option("paths", args->paths, "Files and folders to index")->required();
  add_ingest_options(*add, *args);
  add->add_flag("--quiet,-q", args->quiet, "No progress bar and no summary");
  add->add_flag("--json", args->json, "Print the summary as JSON on standard output");

  auto* watch = index->add_subcommand(
      "watch",
      "Keep an index in step with files and folders: read them as add does, then follow their changes (new, "
      "changed, moved and deleted files and folders) and apply them within seconds, until SIGINT or SIGTERM");
  add_index_location(*watch, args->index, "Index folder (created with --model if new)");
  add_create_options(*watch, *args);
  watch->add_option("paths", args->paths, "Files and folders to follow")->required();
  add_ingest_options(*watch, *args);
  watch
      ->add_option("--settle", args->settle_s,
                   "Seconds without a change before the changes are applied (default 0.5; while changes keep "
                   "coming, they are applied at least every 3 seconds)")
      ->check(CLI::Range(0.01, 60.0));
  watch->add_flag("--quiet,-q", args->quiet, "No line per batch of changes");
  watch->add_flag("--json", args->json,
                  "Print a JSON line per batch on standard output: {\"rescan\", \"paths\", \"files_changed\", "
                  "\"report\"} (report: as index add --json)");

  auto* create =
      index->add_subcommand("create", "Create an empty index for a model (sieve index add also creates one)");
  add_index_location(*create, args->index, "Index folder");
  add_create_options(*create, *args);
  create->get_option("--model")->required();
  create->add_flag("--json", args->json, "Print the new index's stats as JSON");

  auto* rm = index->add_subcommand("rm", "Remove files (by path) or documents (by id) from the index");
  add_index_location(*rm, args->index, "Index folder");
  rm->add_option("names", args->paths, "Files or document ids")->required();
  rm->add_flag("--quiet,-q", args->quiet, "No summary");
  rm->add_flag("--json", args->json, "Print the summary as JSON");

  auto* stats = index->add_subcommand("stats", "Show an index's model, size and counts");
  add_index_location(*stats, args->index, "Index folder");
  stats->add_flag("--json", args->json, "JSON output");

  auto* check = index->add_subcommand("check", "Check an index's consistency; exit status 1 when it is damaged");
  add_index_location(*check, args->index, "Index folder");
  check->add_flag("--json", args->json, "JSON output");

  return [args, create, add, watch, rm, stats, check] {
    if (create->parsed()) return run_create(*args);
    if (add->parsed()) return run_add(*args);
    if (watch->parsed()) return run_watch(*args);
    if (rm->parsed()) return run_remove(*args);
    if (stats->parsed()) return run_stats(*args);
    if (check->parsed()) return run_check(*args);
    return 1;
  };
}

}  // namespace sieve::cli
