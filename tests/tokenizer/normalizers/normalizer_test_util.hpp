#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/core/component_registry.hpp"

// Helpers for the normalizer tests: a normalizer built from its
// tokenizer.json object, and a check of the normalized text together with the
// original byte range of every normalized character (what Hugging Face
// reports for a normalized string split into characters).
namespace sieve::tokenizer::normalizer_testing {

inline std::unique_ptr<Normalizer> make(std::string_view json) {
  const nlohmann::json node = nlohmann::json::parse(json);
  return ComponentRegistry::builtin().normalizers.create(JsonView(node, "test"), "normalizer");
}

inline std::vector<Offsets> char_offsets(const NormalizedString& text) {
  std::vector<Offsets> out;
  text.for_each_char([&](char32_t, std::size_t, std::size_t, Offsets original) { out.push_back(original); });
  return out;
}

inline void expect_normalized(const Normalizer& normalizer, std::string_view input, std::string_view normalized,
                              const std::vector<Offsets>& offsets) {
  NormalizedString text(input);
  normalizer.normalize(text);
  EXPECT_EQ(text.get(), normalized) << "input: " << input;
  EXPECT_EQ(char_offsets(text), offsets) << "input: " << input;
}

}  // namespace sieve::tokenizer::normalizer_testing
