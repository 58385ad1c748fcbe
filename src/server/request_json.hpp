#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sieve::server {

// The request body as a JSON object; HttpError 400 when it is not valid
// JSON (invalid UTF-8 included) or not an object.
nlohmann::json parse_object(std::string_view body);

// Optional fields of a known type: absent and null give nullopt, any other
// type an HttpError 422 naming the field and the type it must have.
std::optional<bool> optional_bool(const nlohmann::json& body, const char* key);
std::optional<std::string> optional_string(const nlohmann::json& body, const char* key);
// An integer in [min, max].
std::optional<std::int64_t> optional_int(const nlohmann::json& body, const char* key, std::int64_t min,
                                         std::int64_t max);
std::string required_string(const nlohmann::json& body, const char* key);

// What an "input"/"inputs" field holds: texts, or token id lists.
struct Inputs {
  std::vector<std::string> texts;
  std::vector<std::vector<std::uint32_t>> ids;
  [[nodiscard]] std::size_t size() const { return texts.empty() ? ids.size() : texts.size(); }
};

// A string, a list of strings, a list of token ids or a list of such
// lists. HttpError 422 for any other shape, 400 for an empty list, 413 for
// more than `max_inputs` inputs.
Inputs read_inputs(const nlohmann::json& body, const char* key, std::size_t max_inputs, bool allow_ids);

// "left"/"right" in any case, as Text Embeddings Inference accepts them.
bool truncate_left(const nlohmann::json& body, const char* key);

}  // namespace sieve::server
