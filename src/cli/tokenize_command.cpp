#include <iostream>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"

namespace sieve::cli {
namespace {

struct TokenizeArgs {
  std::string model;
  std::string tokenizer;
  std::vector<std::string> texts;
  bool no_special_tokens = false;
  std::string invalid_utf8 = "error";
};

void write_encoding(const Tokenizer& tokenizer, const Encoding& e, std::string_view text, std::string& out) {
  out += "{\"ids\":";
  append_json_array<std::uint32_t>(out, e.ids);
  out += ",\"tokens\":[";
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    if (i) out.push_back(',');
    append_json_string(out, tokenizer.token_string(e, i, text));
  }
  out += "],\"type_ids\":";
  append_json_array<std::uint32_t>(out, e.type_ids);
  out += ",\"attention_mask\":";
  append_json_array<std::uint8_t>(out, e.attention_mask);
  out += "}\n";
}

int run_tokenize(const TokenizeArgs& args) {
  if (args.model.empty() == args.tokenizer.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "give exactly one of --model DIR or --tokenizer FILE");
  }
  const std::filesystem::path file = args.tokenizer.empty() ? std::filesystem::path(args.model) / "tokenizer.json"
                                                            : std::filesystem::path(args.tokenizer);
  Tokenizer tokenizer = Tokenizer::from_file(file);
  tokenizer.set_invalid_utf8(args.invalid_utf8 == "replace" ? InvalidUtf8::kReplace : InvalidUtf8::kError);
  std::string out;
  const auto consume = [&](std::vector<std::string>& lines, std::size_t first_line) {
    out.clear();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      try {
        write_encoding(tokenizer, tokenizer.encode(lines[i], !args.no_special_tokens), lines[i], out);
      } catch (const Error& e) {
        throw Error(e.code(), "input " + std::to_string(first_line + i + 1) + ": " + e.what());
      }
    }
    write_stdout(out);
  };
  if (!args.texts.empty()) {
    std::vector<std::string> texts = args.texts;
    consume(texts, 0);
  } else {
    for_each_line_chunk(std::cin, 1024, consume);
  }
  if (std::fflush(stdout) != 0) throw Error(ErrorCode::kRuntime, "error writing standard output");
  return 0;
}

}  // namespace

Action add_tokenize_command(CLI::App& app) {
  auto args = std::make_shared<TokenizeArgs>();
  auto* cmd = app.add_subcommand("tokenize", "Tokenize texts (arguments, or one per line on stdin) to JSON lines");
  cmd->add_option("--model,-m", args->model, "Model folder (uses its tokenizer.json)");
  cmd->add_option("--tokenizer,-t", args->tokenizer, "A tokenizer.json file");
  cmd->add_option("texts", args->texts, "Texts; without them, lines of standard input");
  cmd->add_flag("--no-special-tokens", args->no_special_tokens, "Do not add [CLS]/[SEP] or the like");
  cmd->add_option("--invalid-utf8", args->invalid_utf8,
                  "Text that is not UTF-8: error (default) or replace with U+FFFD")
      ->check(CLI::IsMember({"error", "replace"}));
  return [args] { return run_tokenize(*args); };
}

}  // namespace sieve::cli
