#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sieve::testing {

inline std::filesystem::path source_dir() {
  return SIEVE_SOURCE_DIR;
}

// Fixture models come from tools/make_fixtures.py (scripts/test.sh makes them).
inline std::filesystem::path fixtures_dir() {
  if (const char* env = std::getenv("SIEVE_FIXTURES_DIR")) return env;
  return SIEVE_FIXTURES_DIR;
}

// The tokenizer of the exported real model, or of the shared copy.
inline std::filesystem::path minilm_tokenizer() {
  const auto exported = source_dir() / "models/all-MiniLM-L6-v2/tokenizer.json";
  if (std::filesystem::exists(exported)) return exported;
  return source_dir() / "../shared/tokenizers/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json";
}

}  // namespace sieve::testing
