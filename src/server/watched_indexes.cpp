#include "server/watched_indexes.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "sieve/error.hpp"
#include "sieve/logging.hpp"

namespace sieve::server {
namespace index_watching {

std::string batch_line(const std::string& name, const WatchBatch& batch) {
  const IngestReport& report = batch.report;
  char counts[256];
  std::snprintf(counts, sizeof counts,
                "%zu %s added or changed, %zu removed; %zu documents added, %zu removed in %.1f s", batch.files_changed,
                batch.files_changed == 1 ? "file" : "files", report.files_removed, report.documents_added,
                report.documents_removed, report.seconds);
  return "index " + name + ": " + (batch.rescan ? "rescan" : "changes") + ": " + counts;
}

void run(const ServedIndex& served, const std::vector<std::filesystem::path>& paths, const WatchStop& stop) {
  const std::string& name = served.name;
  try {
    // A connection of its own: the served one answers searches meanwhile.
    SearchIndex index = SearchIndex::open(served.folder);
    WatchOptions options;
    options.on_batch = [&name](const WatchBatch& batch) {
      const IngestReport& report = batch.report;
      const bool changed = batch.files_changed > 0 || report.files_removed > 0 || report.documents_removed > 0;
      if (batch.rescan || changed) log_info(batch_line(name, batch));
      for (const auto& line : report.errors) log_warn(std::string("index ").append(name).append(": ").append(line));
    };
    options.on_warning = [&name](const std::string& line) { log_warn("index " + name + ": " + line); };
    index.watch(paths, *served.embedder, options, stop, served.sparse);
  } catch (const std::exception& e) {
    log_error("index " + name + ": changes are no longer followed: " + e.what());
  }
}

}  // namespace index_watching

IndexWatchers::IndexWatchers(const ServedIndexes& indexes,
                             const std::vector<std::pair<std::string, std::filesystem::path>>& watches) {
  for (const auto& [name, path] : watches) {
    const ServedIndex& served = indexes.find(name);
    const auto same = [&](const Watch& w) { return w.served == &served; };
    auto it = std::find_if(watches_.begin(), watches_.end(), same);
    if (it == watches_.end()) {
      watches_.push_back({&served, {}, std::make_unique<WatchStop>(), {}});
      it = std::prev(watches_.end());
    }
    it->paths.push_back(path);
  }
  for (Watch& watch : watches_) {
    watch.thread =
        std::thread(index_watching::run, std::cref(*watch.served), std::cref(watch.paths), std::cref(*watch.stop));
  }
}

IndexWatchers::~IndexWatchers() {
  stop();
}

void IndexWatchers::stop() {
  for (Watch& watch : watches_) watch.stop->request();
  for (Watch& watch : watches_) {
    if (watch.thread.joinable()) watch.thread.join();
  }
}

std::pair<std::string, std::filesystem::path> parse_watch_spec(const std::string& spec,
                                                               const std::vector<std::string>& names) {
  const auto equals = spec.find('=');
  if (equals != std::string::npos) {
    const std::string name = spec.substr(0, equals);
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      if (equals + 1 == spec.size()) throw Error(ErrorCode::kInvalidArgument, "--watch " + spec + ": no path");
      return {name, spec.substr(equals + 1)};
    }
  }
  if (names.size() == 1) return {names.front(), spec};
  if (names.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "--watch " + spec + " needs an index to keep up to date (--index NAME=DIR)");
  }
  throw Error(ErrorCode::kInvalidArgument, "--watch " + spec + ": " + std::to_string(names.size()) +
                                               " indexes are served; give --watch NAME=PATH with NAME one of theirs");
}

}  // namespace sieve::server
