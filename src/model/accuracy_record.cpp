#include "model/accuracy_record.hpp"

#include <cstdio>

#include "model/json_file.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

}  // namespace

std::optional<AccuracyRecord> read_accuracy_record(const std::filesystem::path& folder) {
  const auto file = folder / kAccuracyRecordFile;
  const auto doc = read_json_file(file);
  if (!doc) return std::nullopt;
  const auto number = [&](const char* key) {
    const auto it = doc->find(key);
    if (it == doc->end() || !it->is_number()) {
      throw Error(ErrorCode::kInvalidArgument, file.string() + ": \"" + key + "\" is not a number");
    }
    return it->get<double>();
  };
  const auto metric = string_field(*doc, "metric", file).value_or("cosine");
  const auto sample = string_field(*doc, "sample", file).value_or("a text sample");
  const auto variant = string_field(*doc, "variant", file);
  const auto passed = bool_field(*doc, "passed", file);
  if (!passed) throw Error(ErrorCode::kInvalidArgument, file.string() + ": \"passed\" is missing");
  AccuracyRecord record;
  record.passed = *passed;
  record.summary = "mean " + metric + " " + figure(number("mean")) + " (min " + figure(number("min")) +
                   ") to the float model on " + std::to_string(static_cast<long long>(number("texts"))) + " texts, " +
                   sample + "; " + (record.passed ? "at least " : "BELOW the required ") + figure(number("min_cosine"));
  if (variant) record.summary += "; " + *variant;
  return record;
}

}  // namespace sieve::model
