#include <iostream>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"

namespace sieve::cli {
namespace {

struct EmbedArgs {
  ModelOptions model;
  std::vector<std::string> texts;
  bool normalize = false;
  bool no_normalize = false;
  std::size_t batch_size = 32;
  std::size_t max_length = 0;
  std::string pooling;
  std::string format = "jsonl";
  std::string invalid_utf8 = "error";
};

// Lines are embedded in chunks so a long stdin stream needs bounded memory;
// each chunk is large enough for length-ordered batching to pay off.
constexpr std::size_t kLinesPerChunk = 4096;

int run_embed(const EmbedArgs& args) {
  EmbedderOptions options;
  options.runtime = to_runtime_options(args.model);
  if (args.normalize) options.normalize = true;
  if (args.no_normalize) options.normalize = false;
  options.batch_size = args.batch_size;
  if (args.max_length > 0) options.max_length = args.max_length;
  if (!args.pooling.empty()) options.pooling = parse_pooling(args.pooling);
  options.invalid_utf8 = args.invalid_utf8 == "replace" ? InvalidUtf8::kReplace : InvalidUtf8::kError;
  const Embedder embedder = Embedder::load(args.model.model, options);

  std::vector<float> all;  // only for formats that need every row before writing
  std::size_t rows = 0;
  std::size_t dimension = embedder.info().dimension;
  bool first_row = true;
  if (args.format == "json") write_stdout("[");
  std::string line;
  const auto consume = [&](std::vector<std::string>& texts, std::size_t first_line) {
    Embeddings result;
    try {
      result = embedder.embed(texts);
    } catch (const Error& e) {
      // The pipeline names the index inside the chunk; users need the line.
      if (!e.input_index()) throw;
      throw Error(e.code(), "input " + std::to_string(first_line + *e.input_index() + 1) + ": " + e.message());
    }
    dimension = result.dimension;
    rows += result.rows;
    if (args.format == "npy") {
      all.insert(all.end(), result.data.begin(), result.data.end());
      return;
    }
    for (std::size_t i = 0; i < result.rows; ++i) {
      line.clear();
      if (args.format == "json") line += first_row ? "\n" : ",\n";
      append_json_array(line, result.row(i));
      if (args.format == "jsonl") line.push_back('\n');
      write_stdout(line);
      first_row = false;
    }
  };
  if (!args.texts.empty()) {
    std::vector<std::string> texts = args.texts;
    consume(texts, 0);
  } else {
    for_each_line_chunk(std::cin, kLinesPerChunk, consume);
  }
  if (args.format == "json") write_stdout(first_row ? "]\n" : "\n]\n");
  if (args.format == "npy") write_npy(stdout, all, rows, dimension);
  if (std::fflush(stdout) != 0) throw Error(ErrorCode::kRuntime, "error writing standard output");
  return 0;
}

}  // namespace

Action add_embed_command(CLI::App& app) {
  auto args = std::make_shared<EmbedArgs>();
  auto* cmd = app.add_subcommand("embed", "Embed texts (arguments, or one per line on stdin)");
  add_model_options(*cmd, args->model);
  cmd->add_option("texts", args->texts, "Texts to embed; without them, lines of standard input");
  auto* normalize = cmd->add_flag("--normalize", args->normalize, "L2-normalize the vectors");
  cmd->add_flag("--no-normalize", args->no_normalize, "Do not normalize (default: as the model folder says)")
      ->excludes(normalize);
  cmd->add_option("--batch-size", args->batch_size, "Inputs per ONNX Runtime run")->check(CLI::PositiveNumber);
  cmd->add_option("--max-length", args->max_length, "Truncate inputs to this many tokens (default: the model's)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--pooling", args->pooling, "Override pooling: mean, cls, max, mean_sqrt_len, lasttoken");
  cmd->add_option("--format", args->format, "Output: jsonl (one array per line), json, npy")
      ->check(CLI::IsMember({"jsonl", "json", "npy"}));
  cmd->add_option("--invalid-utf8", args->invalid_utf8,
                  "Text that is not UTF-8: error (default) or replace with U+FFFD")
      ->check(CLI::IsMember({"error", "replace"}));
  return [args] { return run_embed(*args); };
}

}  // namespace sieve::cli
