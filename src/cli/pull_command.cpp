#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "sieve/hub.hpp"
#include "sieve/text.hpp"

namespace sieve::cli {

Action add_pull_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "pull", "Download a model folder (an ONNX export and its tokenizer) from the Hugging Face hub");
  add_examples(*command, {"sieve pull sentence-transformers/all-MiniLM-L6-v2 --dest models --list-variants",
                          "sieve pull sentence-transformers/all-MiniLM-L6-v2 --dest models --variant qint8_avx512"});
  struct Args {
    PullOptions options;
    bool list = false;
    bool quiet = false;
  };
  auto args = std::make_shared<Args>();
  auto& o = args->options;
  command->add_option("repo", o.repo_id, "Repository id on the hub, e.g. sentence-transformers/all-MiniLM-L6-v2")
      ->required();
  command->add_option("--revision", o.revision, "Branch, tag or commit (default: main)");
  command->add_option("--variant", o.variant,
                      "ONNX export: fp32 (model.onnx) or X for model_X.onnx, e.g. qint8_avx512 (default: fp32)");
  command->add_option("--dest", o.dest, "Models root (default: $SIEVE_MODELS, else ~/.cache/sieve/models)");
  command->add_option(
      "--name", o.name,
      "Folder under the models root (default: the repository's name without its owner, e.g. all-MiniLM-L6-v2, "
      "or all-MiniLM-L6-v2-VARIANT for a variant; the server answers to org/name too)");
  command->add_flag("--offline", o.offline,
                    "Use the folder already pulled, without any network access (also: HF_HUB_OFFLINE=1)");
  command->add_flag("--list-variants", args->list,
                    "List the repository's ONNX variants with their sizes; download nothing");
  command->add_flag("--allow-unverified", o.allow_unverified,
                    "Install files the hub lists without a size or checksum (each named in a warning); by default "
                    "they are refused");
  command->add_flag("-q,--quiet", args->quiet, "No progress on standard error (warnings still)");
  return [args] {
    if (args->list) {
      for (const auto& v : list_variants(args->options)) {
        char size[32];
        std::snprintf(size, sizeof size, "%.1f MB", static_cast<double>(v.bytes) / 1e6);
        // Names from the hub: shown with their control characters escaped.
        std::printf("%-28s %10s  %s\n", escape_control(v.name).c_str(), size, escape_control(v.onnx_file).c_str());
      }
      return 0;
    }
    auto progress = make_stderr_progress(args->quiet);
    const PullResult result = pull_model(args->options, progress.get());
    // Standard output holds the folder only, for dir=$(sieve pull ...).
    std::cout << result.folder.string() << '\n';
    return 0;
  };
}

}  // namespace sieve::cli
