#include <iostream>

#include "cli/commands.hpp"
#include "sieve/bundle.hpp"

namespace sieve::cli {

Action add_bundle_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bundle",
      "Make a self-contained folder: this sieve binary, libsieve.so, ONNX Runtime, the other shared "
      "libraries it loads, and a model folder; it runs on another Debian 12 machine with no installation");
  add_examples(*command, {"sieve bundle --model models/all-MiniLM-L6-v2 --out sieve-app && sieve-app/bin/sieve embed "
                          "--model sieve-app/models/all-MiniLM-L6-v2 \"runs anywhere\""});
  auto options = std::make_shared<BundleOptions>();
  command->add_option("--model", options->model, "The model folder to include")->required();
  command->add_option("--out", options->out, "The bundle folder to create")->required();
  command->add_option("--name", options->model_name, "The model's folder name in the bundle (default: its own)");
  command->add_option("--libsieve", options->libsieve,
                      "libsieve.so.0 to include (default: next to this binary, or in ../lib)");
  command->add_flag("--force", options->replace, "Replace an existing bundle at --out");
  return [options] {
    const BundleResult result = make_bundle(*options);
    std::cerr << "sieve: bundled " << result.libraries.size() << " libraries and " << result.model.string() << " ("
              << (result.total_bytes + (1U << 19U)) / (1U << 20U) << " MiB) into " << result.out.string() << '\n'
              << "sieve: run: " << (result.out / "bin" / "sieve").string() << " embed --model "
              << (result.out / result.model).string() << " \"some text\"\n";
    std::cout << result.out.string() << '\n';
    return 0;
  };
}

}  // namespace sieve::cli
