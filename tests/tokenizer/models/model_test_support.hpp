#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.hpp"
#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

inline bool operator==(const Token& a, const Token& b) {
  return a.id == b.id && a.begin == b.begin && a.end == b.end;
}
inline void PrintTo(const Token& t, std::ostream* os) {
  *os << "{" << t.id << ", " << t.begin << ", " << t.end << "}";
}

namespace model_test {

// A piece and the tokens Hugging Face gives for it (id, byte offsets).
struct Case {
  std::string piece;
  std::vector<Token> tokens;
};

inline std::vector<Token> tokenize(const Model& model, std::string_view piece) {
  std::vector<Token> tokens;
  model.tokenize(piece, tokens);
  return tokens;
}

inline void expect_cases(const Model& model, const std::vector<Case>& cases) {
  for (const Case& c : cases) EXPECT_EQ(tokenize(model, c.piece), c.tokens) << "piece: " << c.piece;
}

// Builds a model from the text of its tokenizer.json "model" object.
template <typename Factory>
auto from_json_text(Factory factory, const std::string& text) {
  const nlohmann::json json = nlohmann::json::parse(text);
  return factory(JsonView(json, "test", "/model"));
}

// The "model" object of a shared real tokenizer, when that copy exists.
// Parsed once per test program: the files are large.
inline const std::optional<nlohmann::json>& shared_model_json(const std::string& name) {
  static std::map<std::string, std::optional<nlohmann::json>> parsed;
  const auto found = parsed.find(name);
  if (found != parsed.end()) return found->second;
  std::optional<nlohmann::json>& model = parsed[name];
  const auto path = sieve::testing::source_dir() / "../shared/tokenizers" / name / "tokenizer.json";
  if (std::filesystem::exists(path)) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    model = nlohmann::json::parse(text.str()).at("model");
  }
  return model;
}

}  // namespace model_test
}  // namespace sieve::tokenizer
