#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sieve {

// A self-contained folder: the running sieve binary, libsieve.so, ONNX
// Runtime and every other shared library the binary loaded (glibc and the
// GCC runtime excepted: every Debian system has those), and one model folder.
// The copied binaries find their libraries through an $ORIGIN-relative rpath,
// so the folder runs from anywhere with an empty environment.
struct BundleOptions {
  std::filesystem::path model;  // a Sieve model folder
  std::filesystem::path out;    // the folder to create; must not exist unless `replace`
  std::string model_name;       // the name under out/models/; empty: the model folder's name
  bool replace = false;         // replace an existing bundle at `out`
  // libsieve.so.0 to include; empty: looked for next to the executable and in ../lib.
  std::filesystem::path libsieve;
};

struct BundledFile {
  std::filesystem::path path;  // relative to the bundle
  std::uintmax_t bytes = 0;
};

struct BundleResult {
  std::filesystem::path out;
  std::filesystem::path model;  // relative to the bundle, e.g. models/all-MiniLM-L6-v2
  std::vector<BundledFile> libraries;
  std::uintmax_t total_bytes = 0;
};

// Builds the bundle in a sibling folder and renames it into place, so a
// failure never leaves a partial bundle at `out`.
BundleResult make_bundle(const BundleOptions& options);

}  // namespace sieve
