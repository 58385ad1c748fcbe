#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sieve/error.hpp"

namespace sieve::tokenizer {

// A JSON node together with where it sits in its file, so that every error
// about a malformed tokenizer.json names the JSON path of the problem.
class JsonView {
 public:
  JsonView(const nlohmann::json& node, std::string origin, std::string path = "")
      : node_(&node), origin_(std::move(origin)), path_(std::move(path)) {}

  [[nodiscard]] const nlohmann::json& raw() const noexcept { return *node_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] std::string where() const { return origin_ + ": " + (path_.empty() ? "/" : path_); }

  [[nodiscard]] bool is_null() const noexcept { return node_->is_null(); }
  [[nodiscard]] bool has(std::string_view key) const;
  // A present, non-null member.
  [[nodiscard]] std::optional<JsonView> find(std::string_view key) const;
  [[nodiscard]] JsonView at(std::string_view key) const;  // required member
  [[nodiscard]] JsonView at(std::size_t index) const;
  [[nodiscard]] std::size_t array_size() const;

  [[nodiscard]] std::string as_string() const;
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] std::uint64_t as_uint() const;
  [[nodiscard]] std::int64_t as_int() const;
  [[nodiscard]] double as_double() const;
  // The double Hugging Face reads for this number. serde_json (built without
  // its float_roundtrip feature) scales the decimal digits by a power of ten
  // in floating point, which can be one unit in the last place off the
  // correctly rounded value nlohmann gives; Unigram scores read that way
  // break Viterbi ties as Hugging Face does.
  [[nodiscard]] double as_serde_double() const;

  [[nodiscard]] std::string get_string(std::string_view key, std::string_view fallback) const;
  [[nodiscard]] bool get_bool(std::string_view key, bool fallback) const;
  [[nodiscard]] std::uint64_t get_uint(std::string_view key, std::uint64_t fallback) const;
  [[nodiscard]] std::optional<bool> get_optional_bool(std::string_view key) const;

  [[noreturn]] void fail(const std::string& what, ErrorCode code = ErrorCode::kParse) const;
  void expect_object() const;
  void expect_array() const;

 private:
  const nlohmann::json* node_;
  std::string origin_;
  std::string path_;
};

}  // namespace sieve::tokenizer
