#include "server/request_json.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "server/http_error.hpp"

namespace sieve::server {
namespace {

using nlohmann::json;

const json* field(const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void wrong_type(const char* key, const char* expected) {
  throw HttpError(422, std::string("`") + key + "` must be " + expected, key);
}

bool is_token_list(const json& value) {
  return value.is_array() &&
         std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_number_integer(); });
}

std::vector<std::uint32_t> token_ids(const json& list, const char* key, std::size_t index) {
  if (list.empty()) {
    throw HttpError(422, std::string("`") + key + "` input " + std::to_string(index) + " has no token ids", key);
  }
  std::vector<std::uint32_t> ids;
  ids.reserve(list.size());
  for (const json& v : list) {
    constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
    // Parsed text gives unsigned numbers; values built in code may be signed.
    const bool in_range = v.is_number_unsigned()  ? v.get<std::uint64_t>() <= kMax
                          : v.is_number_integer() ? v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= kMax
                                                  : false;
    if (!in_range) {
      throw HttpError(422,
                      std::string("`") + key + "` input " + std::to_string(index) +
                          ": token ids must be integers from 0 to 4294967295",
                      key);
    }
    ids.push_back(v.get<std::uint32_t>());
  }
  return ids;
}

}  // namespace

json parse_object(std::string_view body) {
  // Request bodies nest a few levels; deeper ones are refused before the
  // tree is built. The last key read names the field of a bad number.
  constexpr int kMaxDepth = 64;
  std::string last_key;
  const auto watch = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth &&
        (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start)) {
      throw HttpError(400, "the request body is nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    if (event == json::parse_event_t::key && parsed.is_string()) last_key = parsed.get<std::string>();
    return true;
  };
  json parsed;
  try {
    parsed = json::parse(body, watch);
  } catch (const json::parse_error& e) {
    // nlohmann's message says where and why, invalid UTF-8 included.
    throw HttpError(400, std::string("the request body is not valid JSON: ") + e.what());
  } catch (const json::out_of_range& e) {
    // A number beyond a double's range, such as 1e309.
    const std::string field = last_key.empty() ? std::string("the request body") : "`" + last_key + "`";
    throw HttpError(400, field + " holds a number out of range: " + e.what(), last_key);
  } catch (const json::exception& e) {
    throw HttpError(400, std::string("the request body is not valid JSON: ") + e.what());
  }
  if (!parsed.is_object()) throw HttpError(400, "the request body must be a JSON object");
  return parsed;
}

std::optional<bool> optional_bool(const json& body, const char* key) {
  const json* v = field(body, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) wrong_type(key, "a boolean");
  return v->get<bool>();
}

std::optional<std::string> optional_string(const json& body, const char* key) {
  const json* v = field(body, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) wrong_type(key, "a string");
  return v->get<std::string>();
}

std::optional<std::int64_t> optional_int(const json& body, const char* key, std::int64_t min, std::int64_t max) {
  const json* v = field(body, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer()) wrong_type(key, "an integer");
  const bool in_range = v->is_number_unsigned() ? v->get<std::uint64_t>() <= static_cast<std::uint64_t>(max)
                                                : (v->get<std::int64_t>() >= min && v->get<std::int64_t>() <= max);
  if (!in_range || v->get<std::int64_t>() < min) {
    throw HttpError(
        422, std::string("`") + key + "` must be from " + std::to_string(min) + " to " + std::to_string(max), key);
  }
  return v->get<std::int64_t>();
}

std::string required_string(const json& body, const char* key) {
  auto value = optional_string(body, key);
  if (!value) throw HttpError(422, std::string("`") + key + "` is required (a string)", key);
  return *value;
}

Inputs read_inputs(const json& body, const char* key, std::size_t max_inputs, bool allow_ids) {
  const json* v = field(body, key);
  if (v == nullptr) throw HttpError(422, std::string("`") + key + "` is required", key);
  Inputs inputs;
  const char* expected = allow_ids ? "a string, a list of strings, a list of token ids or a list of token id lists"
                                   : "a string or a list of strings";
  if (v->is_string()) {
    inputs.texts.push_back(v->get<std::string>());
    return inputs;
  }
  if (!v->is_array()) wrong_type(key, expected);
  if (v->empty()) throw HttpError(400, std::string("`") + key + "` must not be empty", key);
  const bool ids = allow_ids && is_token_list(*v);
  const bool id_lists = allow_ids && !ids && std::all_of(v->begin(), v->end(), is_token_list);
  const std::size_t count = ids ? 1 : v->size();
  if (count > max_inputs) {
    throw HttpError(413,
                    std::string("`") + key + "` has " + std::to_string(count) + " inputs, more than the " +
                        std::to_string(max_inputs) + " allowed per request",
                    key);
  }
  if (ids) {
    inputs.ids.push_back(token_ids(*v, key, 0));
  } else if (id_lists) {
    for (std::size_t i = 0; i < v->size(); ++i) inputs.ids.push_back(token_ids((*v)[i], key, i));
  } else {
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        throw HttpError(422,
                        std::string("`") + key + "` input " + std::to_string(i) + " is not a string; `" + key +
                            "` must be " + expected,
                        key);
      }
      inputs.texts.push_back((*v)[i].get<std::string>());
    }
  }
  return inputs;
}

bool truncate_left(const json& body, const char* key) {
  auto value = optional_string(body, key);
  if (!value) return false;
  std::string lower = *value;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "left") return true;
  if (lower == "right") return false;
  throw HttpError(422, std::string("`") + key + "` must be \"left\" or \"right\"", key);
}

}  // namespace sieve::server
