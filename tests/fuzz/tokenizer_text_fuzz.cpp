// Fuzzes encoding with real tokenizers: random texts, pairs and settings.
//
// The tokenizers are loaded once: every tokenizer.json under the directories
// (or files) listed in SIEVE_FUZZ_TOKENIZERS (':'-separated), or by default
// the shared Hugging Face tokenizers next to the repository
// (../shared/tokenizers, found from the source tree, the working directory
// or the binary's location) and the seed documents in tests/fuzz/seeds/json.
// Files that fail to load (a component Sieve does not implement) are
// reported and skipped.
//
// Input: bytes from the end choose the tokenizer and the settings (pair,
// truncation, padding, special tokens, invalid UTF-8 policy, offset unit);
// the bytes from the front are the text(s).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "fuzz_common.hpp"

namespace {

namespace fs = std::filesystem;

struct Loaded {
  std::string name;
  sieve::Tokenizer tokenizer;
  // As the file sets them; each input overwrites the tokenizer's own.
  std::optional<sieve::TruncationParams> truncation;
  std::optional<sieve::PaddingParams> padding;
};

std::vector<Loaded>& tokenizers() {
  static std::vector<Loaded> loaded;
  return loaded;
}

// A tokenizer.json file, a folder holding one, or a folder of folders that
// hold one each (shared/tokenizers), or a folder of *.json documents (seeds).
void collect(const fs::path& place, std::set<fs::path>& files) {
  std::error_code ec;
  if (fs::is_regular_file(place, ec)) {
    files.insert(fs::canonical(place, ec));
    return;
  }
  if (!fs::is_directory(place, ec)) return;
  for (const auto& entry : fs::directory_iterator(place, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".json" &&
        entry.path().filename() != "tokenizer_config.json" && entry.path().filename() != "special_tokens_map.json") {
      files.insert(fs::canonical(entry.path(), ec));
    } else if (entry.is_directory(ec) && fs::is_regular_file(entry.path() / "tokenizer.json", ec)) {
      files.insert(fs::canonical(entry.path() / "tokenizer.json", ec));
    }
  }
}

std::vector<fs::path> default_places(const char* argv0) {
  std::vector<fs::path> places;
  const fs::path source = SIEVE_SOURCE_DIR;
  places.push_back(source / "../shared/tokenizers");
  places.push_back(source / "tests/fuzz/seeds/json");
  std::error_code ec;
  places.push_back(fs::current_path(ec) / "../shared/tokenizers");
  // From the binary (build-fuzz/tests/fuzz/x): the repository is a few levels up.
  if (argv0 != nullptr) {
    fs::path dir = fs::absolute(argv0, ec).parent_path();
    for (int up = 0; up < 5 && !dir.empty(); ++up, dir = dir.parent_path()) {
      if (fs::is_directory(dir / "tests/fuzz/seeds/json", ec)) {
        places.push_back(dir / "tests/fuzz/seeds/json");
        places.push_back(dir / "../shared/tokenizers");
        break;
      }
    }
  }
  return places;
}

std::vector<fs::path> places_from_env(std::string_view list) {
  std::vector<fs::path> places;
  while (!list.empty()) {
    const std::size_t colon = list.find(':');
    if (colon != 0) places.emplace_back(std::string(list.substr(0, colon)));
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return places;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const char* env = std::getenv("SIEVE_FUZZ_TOKENIZERS");
  const auto places = env != nullptr ? places_from_env(env) : default_places(*argc > 0 ? (*argv)[0] : nullptr);
  std::set<fs::path> files;
  for (const auto& place : places) collect(place, files);
  for (const auto& file : files) {
    try {
      auto tokenizer = sieve::Tokenizer::from_file(file);
      auto truncation = tokenizer.truncation();
      auto padding = tokenizer.padding();
      tokenizers().push_back({file.string(), std::move(tokenizer), std::move(truncation), std::move(padding)});
    } catch (const sieve::Error& e) {
      std::fprintf(stderr, "tokenizer_text_fuzz: skipping %s\n", e.what());
    }
  }
  if (tokenizers().empty()) {
    std::fprintf(stderr, "tokenizer_text_fuzz: no tokenizer loaded; set SIEVE_FUZZ_TOKENIZERS\n");
    std::exit(1);
  }
  std::fprintf(stderr, "tokenizer_text_fuzz: %zu tokenizers\n", tokenizers().size());
  for (const auto& t : tokenizers()) std::fprintf(stderr, "  %s\n", t.name.c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  auto& all = tokenizers();
  Loaded& chosen = all[in.ConsumeIntegralInRange<std::size_t>(0, all.size() - 1)];
  const sieve::fuzz::Settings settings = sieve::fuzz::pick_settings(in, chosen.truncation, chosen.padding);
  if (sieve::fuzz::verbose()) std::fprintf(stderr, "tokenizer: %s\n", chosen.name.c_str());
  const std::string first = in.ConsumeRandomLengthString();
  const std::string second = in.ConsumeRemainingBytesAsString();
  sieve::fuzz::exercise(chosen.tokenizer, settings, first, second);
  return 0;
}
