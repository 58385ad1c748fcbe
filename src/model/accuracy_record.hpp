#pragma once

// The accuracy `sieve-export quantize` measured for a variant and recorded in its folder (sieve_accuracy.json):
// how close its outputs came to the float model's on a text sample, and the threshold it was held to.

#include <filesystem>
#include <optional>
#include <string>

namespace sieve::model {

inline constexpr const char* kAccuracyRecordFile = "sieve_accuracy.json";

struct AccuracyRecord {
  std::string summary;  // "mean cosine 0.9978 (min 0.9952) to the float model on 96 texts (...)"
  bool passed = true;   // false: written below its threshold (--force)
};

// The folder's record, or nullopt without one. A record that cannot be read is an Error naming the file.
std::optional<AccuracyRecord> read_accuracy_record(const std::filesystem::path& folder);

}  // namespace sieve::model
