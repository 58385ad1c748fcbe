#include "tokenizer/core/json_view.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

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

namespace {

// 1e0 ... 1e308, correctly rounded, as serde_json's table holds them.
const std::array<double, 309>& powers_of_ten() {
  static const std::array<double, 309> table = [] {
    std::array<double, 309> t{};
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = std::strtod(("1e" + std::to_string(i)).c_str(), nullptr);
    return t;
  }();
  return table;
}

// serde_json's f64_from_parts, applied to the shortest decimal form of
// `value` (the form tokenizer.json writers, Rust's and Python's, emit).
double serde_json_double(double value) {
  if (!std::isfinite(value) || value == 0) return value;
  std::array<char, 64> buffer{};
  const auto written =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), std::fabs(value), std::chars_format::scientific);
  const std::string_view text(buffer.data(), static_cast<std::size_t>(written.ptr - buffer.data()));
  const std::size_t e = text.find('e');
  std::uint64_t significand = 0;
  int fraction_digits = 0;
  bool after_point = false;
  for (const char c : text.substr(0, e)) {
    if (c == '.') {
      after_point = true;
      continue;
    }
    significand = significand * 10 + static_cast<std::uint64_t>(c - '0');
    if (after_point) ++fraction_digits;
  }
  int exponent = std::stoi(std::string(text.substr(e + 1))) - fraction_digits;
  auto f = static_cast<double>(significand);
  while (true) {
    const auto magnitude = static_cast<std::size_t>(exponent < 0 ? -exponent : exponent);
    if (magnitude < powers_of_ten().size()) {
      f = exponent >= 0 ? f * powers_of_ten()[magnitude] : f / powers_of_ten()[magnitude];
      break;
    }
    if (f == 0 || exponent >= 0) break;
    f /= 1e308;
    exponent += 308;
  }
  return value < 0 ? -f : f;
}

}  // namespace

double JsonView::as_serde_double() const {
  const double value = as_double();
  return node_->is_number_float() ? serde_json_double(value) : value;
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
