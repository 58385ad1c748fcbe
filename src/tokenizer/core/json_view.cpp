#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {
namespace {

const char* type_name(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "an unexpected value";
  }
}

// JSON Pointer escaping (RFC 6901) so paths stay unambiguous.
std::string escape_key(std::string_view key) {
  std::string out;
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void JsonView::fail(const std::string& what, ErrorCode code) const {
  throw Error(code, where() + ": " + what);
}

void JsonView::expect_object() const {
  if (!node_->is_object()) fail(std::string("expected an object, got ") + type_name(*node_));
}

void JsonView::expect_array() const {
  if (!node_->is_array()) fail(std::string("expected an array, got ") + type_name(*node_));
}

bool JsonView::has(std::string_view key) const {
  return node_->is_object() && node_->contains(key) && !(*node_)[std::string(key)].is_null();
}

std::optional<JsonView> JsonView::find(std::string_view key) const {
  expect_object();
  const auto it = node_->find(key);
  if (it == node_->end() || it->is_null()) return std::nullopt;
  return JsonView(*it, origin_, path_ + "/" + escape_key(key));
}

JsonView JsonView::at(std::string_view key) const {
  auto found = find(key);
  if (!found) fail("missing required field \"" + std::string(key) + "\"");
  return *found;
}

JsonView JsonView::at(std::size_t index) const {
  expect_array();
  if (index >= node_->size()) fail("index " + std::to_string(index) + " out of range");
  return JsonView((*node_)[index], origin_, path_ + "/" + std::to_string(index));
}

std::size_t JsonView::array_size() const {
  expect_array();
  return node_->size();
}

std::string JsonView::as_string() const {
  if (!node_->is_string()) fail(std::string("expected a string, got ") + type_name(*node_));
  return node_->get<std::string>();
}

bool JsonView::as_bool() const {
  if (!node_->is_boolean()) fail(std::string("expected a boolean, got ") + type_name(*node_));
  return node_->get<bool>();
}

std::uint64_t JsonView::as_uint() const {
  if (node_->is_number_unsigned()) return node_->get<std::uint64_t>();
  if (node_->is_number_integer() && node_->get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(node_->get<std::int64_t>());
  }
  fail(std::string("expected a non-negative integer, got ") + type_name(*node_));
}

std::int64_t JsonView::as_int() const {
  if (node_->is_number_integer() && !node_->is_number_unsigned()) return node_->get<std::int64_t>();
  if (node_->is_number_unsigned() && node_->get<std::uint64_t>() <= INT64_MAX) {
    return static_cast<std::int64_t>(node_->get<std::uint64_t>());
  }
  fail(std::string("expected an integer, got ") + type_name(*node_));
}

double JsonView::as_double() const {
  if (!node_->is_number()) fail(std::string("expected a number, got ") + type_name(*node_));
  return node_->get<double>();
}

std::string JsonView::get_string(std::string_view key, std::string_view fallback) const {
  auto v = find(key);
  return v ? v->as_string() : std::string(fallback);
}

bool JsonView::get_bool(std::string_view key, bool fallback) const {
  auto v = find(key);
  return v ? v->as_bool() : fallback;
}

std::uint64_t JsonView::get_uint(std::string_view key, std::uint64_t fallback) const {
  auto v = find(key);
  return v ? v->as_uint() : fallback;
}

std::optional<bool> JsonView::get_optional_bool(std::string_view key) const {
  auto v = find(key);
  if (!v) return std::nullopt;
  return v->as_bool();
}

}  // namespace sieve::tokenizer
