#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace sieve::model {

// Reads an optional JSON file of a model folder (absent: nullopt); a file
// that is not JSON of the expected type is an error naming it.
std::optional<nlohmann::json> read_json_file(const std::filesystem::path& file,
                                             nlohmann::json::value_t expected = nlohmann::json::value_t::object);

// Typed fields of a configuration file; a field of another type is an Error
// naming the file and the field. Absent or null fields are nullopt.
std::optional<std::size_t> positive_int_field(const nlohmann::json& doc, const char* key,
                                              const std::filesystem::path& file);
std::optional<bool> bool_field(const nlohmann::json& doc, const char* key, const std::filesystem::path& file);
std::optional<std::string> string_field(const nlohmann::json& doc, const char* key, const std::filesystem::path& file);

}  // namespace sieve::model
