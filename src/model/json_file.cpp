#include "model/json_file.hpp"

#include <fstream>

#include "sieve/error.hpp"

namespace sieve::model {

namespace fs = std::filesystem;

std::optional<nlohmann::json> read_json_file(const fs::path& file, nlohmann::json::value_t expected) {
  if (!fs::exists(file)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, file.string() + ": cannot open");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorCode::kParse, file.string() + ": invalid JSON at byte " + std::to_string(e.byte));
  }
  if (doc.type() != expected) {
    throw Error(ErrorCode::kParse, file.string() + ": expected a JSON " +
                                       (expected == nlohmann::json::value_t::array ? "array" : "object"));
  }
  return doc;
}

std::optional<std::size_t> positive_int_field(const nlohmann::json& doc, const char* key, const fs::path& file) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) {
    throw Error(ErrorCode::kParse, file.string() + ": /" + key + ": expected a positive integer");
  }
  return static_cast<std::size_t>(it->get<std::int64_t>());
}

std::optional<bool> bool_field(const nlohmann::json& doc, const char* key, const fs::path& file) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) throw Error(ErrorCode::kParse, file.string() + ": /" + key + ": expected a boolean");
  return it->get<bool>();
}

std::optional<std::string> string_field(const nlohmann::json& doc, const char* key, const fs::path& file) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw Error(ErrorCode::kParse, file.string() + ": /" + key + ": expected a string");
  return it->get<std::string>();
}

}  // namespace sieve::model
