#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "sieve/text.hpp"
#include "sieve/version.hpp"

namespace sieve::cli {

void add_examples(CLI::App& command, std::initializer_list<std::string> examples) {
  std::string footer = "Examples:";
  for (const auto& example : examples) footer += "\n  " + example;
  command.footer(footer);
}

std::vector<std::string> plugin_lines(const std::vector<PluginProviderInfo>& plugins) {
  std::vector<std::string> lines;
  for (const auto& p : plugins) {
    if (!p.error.empty()) {
      lines.push_back(p.name + ": unavailable (" + p.error + ")");
      continue;
    }
    lines.push_back(p.name + ": " + p.library);
    for (const auto& d : p.devices) {
      std::string line = "  device " + d.device;
      if (!d.description.empty()) line += ": " + d.description;
      if (!d.capabilities.empty()) line += " (" + d.capabilities + ")";
      lines.push_back(line);
    }
  }
  return lines;
}

std::string openvino_runtime_line(const OpenVinoRuntime& runtime) {
  if (!runtime.error.empty()) return "OpenVINO runtime: unavailable (" + runtime.error + ")";
  return "OpenVINO runtime " + runtime.version + ": " + runtime.library + ", devices " + join(runtime.devices, ", ") +
         " (runs the whole graph for --provider openvino where the plugin offers no device)";
}

nlohmann::json plugins_json(const std::vector<PluginProviderInfo>& plugins) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : plugins) {
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : p.devices) {
      devices.push_back({{"device", d.device}, {"description", d.description}, {"capabilities", d.capabilities}});
    }
    nlohmann::json entry = {{"name", p.name}, {"library", p.library}, {"devices", devices}};
    if (!p.error.empty()) entry["error"] = p.error;
    out.push_back(entry);
  }
  return out;
}

std::string version_text() {
  std::string text = std::string("sieve ") + version() + "\n";
  try {
    const auto build = runtime_build();
    const std::string providers = join(build.providers, ", ");
    text += "ONNX Runtime " + build.onnxruntime_version + " (execution providers: " + providers + ")";
    text += "\nplugin providers:";
    for (const auto& line : plugin_lines(plugin_providers())) text += "\n  " + line;
    text += "\n" + openvino_runtime_line(openvino_runtime());
  } catch (const std::exception& e) {
    text += std::string("ONNX Runtime: not loaded (") + e.what() + ")";
  }
  return text;
}

}  // namespace sieve::cli
