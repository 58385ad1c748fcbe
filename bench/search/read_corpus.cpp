// Reads every file below a folder as `sieve index add` would (format detection and extraction, without
// chunking or embedding) and reports what was read, by format, what was left out, by reason, and how long
// it took: the reading half of indexing a real corpus such as /usr/share/doc.
//   sieve_read_corpus /usr/share/doc [--rounds 3] [--list-skipped] [--json FILE] [--documents FILE]
// --json writes the figures; --documents writes every document read as JSON Lines ({"id", "title", "text"}),
// so that a peer can index the same texts (bench/search/real_corpus.sh).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/extract.hpp"
#include "sieve/error.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  CLI::App app("Reads a folder's files as sieve index add does and reports formats, reasons and time");
  std::string folder;
  int rounds = 3;
  bool list_skipped = false;
  app.add_option("folder", folder, "Folder to read")->required();
  app.add_option("--rounds", rounds, "Times to read it (the median is reported)")->check(CLI::PositiveNumber);
  app.add_flag("--list-skipped", list_skipped, "Name each file left out");
  std::string json_file;
  std::string documents_file;
  app.add_option("--json", json_file, "Write the figures to this file as JSON");
  app.add_option("--documents", documents_file, "Write every document read to this file as JSON Lines");
  CLI11_PARSE(app, argc, argv);

  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_regular_file() && !it->is_symlink()) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::map<std::string, std::size_t> by_format;
  std::map<std::string, std::size_t> by_reason;
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t text_bytes = 0;
  std::size_t file_bytes = 0;
  std::vector<double> seconds;
  std::ofstream documents_out;
  if (!documents_file.empty()) documents_out.open(documents_file, std::ios::binary);
  std::size_t documents = 0;
  for (int round = 0; round < rounds; ++round) {
    documents = 0;
    by_format.clear();
    by_reason.clear();
    errors = warnings = text_bytes = file_bytes = 0;
    double spent = 0;
    for (const auto& path : files) {
      std::ifstream in(path, std::ios::binary);
      std::stringstream content;
      content << in.rdbuf();
      const std::string bytes = content.str();
      file_bytes += bytes.size();
      const auto started = std::chrono::steady_clock::now();
      try {
        const auto read = sieve::search::extract_file(bytes, path.filename().string(), path.string());
        if (read.format == nullptr) {
          ++by_reason[read.skip_reason];
          if (list_skipped && round == 0) std::printf("skipped (%s): %s\n", read.skip_reason.c_str(), path.c_str());
        } else {
          ++by_format[std::string(read.format->label)];
          for (const auto& doc : read.documents) text_bytes += doc.text.size();
          documents += read.documents.size();
          if (round == 0 && documents_out.is_open()) {
            for (const auto& doc : read.documents) {
              documents_out << nlohmann::json{{"id", doc.key}, {"title", doc.title}, {"text", doc.text}}.dump(
                                   -1, ' ', false, nlohmann::json::error_handler_t::replace)
                            << '\n';
            }
          }
          warnings += read.warnings.size();
          errors += read.errors.size();
          if (round == 0) {
            for (const auto& line : read.errors) std::printf("error: %s\n", line.c_str());
          }
        }
      } catch (const sieve::Error& e) {
        ++errors;
        ++by_reason["could not be read"];
        if (round == 0) std::printf("error: %s: %s\n", path.c_str(), e.what());
      }
      spent += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    seconds.push_back(spent);
  }
  std::sort(seconds.begin(), seconds.end());
  std::size_t read = 0;
  for (const auto& [format, count] : by_format) read += count;
  std::printf("%zu files (%.0f MB), %zu read, %zu left out; %zu errors, %zu warnings; %.0f MB of text\n", files.size(),
              static_cast<double>(file_bytes) / 1e6, read, files.size() - read, errors, warnings,
              static_cast<double>(text_bytes) / 1e6);
  std::printf("reading (median of %d): %.2f s, %.0f files/s\n", rounds, seconds[seconds.size() / 2],
              static_cast<double>(files.size()) / seconds[seconds.size() / 2]);
  for (const auto& [format, count] : by_format) std::printf("  read %-32s %zu\n", format.c_str(), count);
  for (const auto& [reason, count] : by_reason) std::printf("  not read: %-27s %zu\n", reason.c_str(), count);
  if (!json_file.empty()) {
    std::ofstream(json_file) << nlohmann::json{
        {"files", files.size()},
        {"file_bytes", file_bytes},
        {"read", read},
        {"documents", documents},
        {"errors", errors},
        {"warnings", warnings},
        {"text_bytes", text_bytes},
        {"seconds", seconds[seconds.size() / 2]},
        {"read_by_format", by_format},
        {"not_read_by_reason",
         by_reason}}.dump(1);
  }
  return 0;
}
