#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "sieve/error.hpp"

namespace sieve {

// serde_json, which Hugging Face parses with, refuses documents nested
// deeper than 128 levels; Sieve refuses them wherever it reads JSON from a
// file, before anything that walks the document (dump, comparison, its
// components) could recurse that deep.
inline constexpr int kMaxJsonDepth = 128;

// A callback for nlohmann::json::parse(text, callback) that stops the parse
// with a sieve::Error (kParse) "WHERE: JSON nested deeper than N levels" as
// soon as an object or array opens below `max_depth` levels. nlohmann's
// parser itself is iterative, so a document of any depth costs no stack
// before the limit is reached.
inline nlohmann::json::parser_callback_t json_depth_limit(std::string where, int max_depth = kMaxJsonDepth) {
  return [where = std::move(where), max_depth](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if (depth > max_depth &&
        (event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start)) {
      throw Error(ErrorCode::kParse, where + ": JSON nested deeper than " + std::to_string(max_depth) + " levels");
    }
    return true;
  };
}

}  // namespace sieve
