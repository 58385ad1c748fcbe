#include <string>

#include "cli/commands.hpp"
#include "sieve/text.hpp"
#include "sieve/version.hpp"

namespace sieve::cli {

void add_examples(CLI::App& command, std::initializer_list<std::string> examples) {
  std::string footer = "Examples:";
  for (const auto& example : examples) footer += "\n  " + example;
  command.footer(footer);
}

std::string version_text() {
  std::string text = std::string("sieve ") + version() + "\n";
  try {
    const auto build = runtime_build();
    const std::string providers = join(build.providers, ", ");
    text += "ONNX Runtime " + build.onnxruntime_version + " (execution providers: " + providers + ")";
  } catch (const std::exception& e) {
    text += std::string("ONNX Runtime: not loaded (") + e.what() + ")";
  }
  return text;
}

}  // namespace sieve::cli
