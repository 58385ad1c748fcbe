#include <iostream>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"
#include "sieve/reranker.hpp"

namespace sieve::cli {
namespace {

struct RerankArgs {
  ModelOptions model;
  std::string query;
  std::size_t top_k = 0;
  bool return_documents = false;
  bool raw_scores = false;
  std::string activation = "auto";
  std::size_t label = 0;
  std::size_t batch_size = 32;
  std::size_t max_length = 0;
  std::string truncation = "longest_first";
  std::string invalid_utf8 = "error";
};

int run_rerank(const RerankArgs& args) {
  RerankerOptions options;
  options.runtime = to_runtime_options(args.model);
  options.activation = args.raw_scores ? ScoreActivation::kNone : parse_score_activation(args.activation);
  options.label = args.label;
  options.batch_size = args.batch_size;
  if (args.max_length > 0) options.max_length = args.max_length;
  options.truncation =
      args.truncation == "only_second" ? TruncationStrategy::kOnlySecond : TruncationStrategy::kLongestFirst;
  options.invalid_utf8 = args.invalid_utf8 == "replace" ? InvalidUtf8::kReplace : InvalidUtf8::kError;
  const Reranker reranker = Reranker::load(args.model.model, options);

  // Every document is needed before the top k are known, so all of standard
  // input is read first (one chunk).
  std::vector<std::string> documents;
  for_each_line_chunk(std::cin, std::size_t{1} << 20, [&](std::vector<std::string>& lines, std::size_t) {
    for (auto& line : lines) documents.push_back(std::move(line));
  });
  const std::vector<std::string_view> views(documents.begin(), documents.end());

  std::vector<RerankResult> results;
  try {
    results = reranker.rerank(args.query, views, args.top_k);
  } catch (const Error& e) {
    // The pipeline names the document's index; users need the line.
    if (!e.input_index()) throw;
    throw Error(e.code(), "line " + std::to_string(*e.input_index() + 1) + ": " + e.message());
  }

  std::string out = "{\"activation\": ";
  append_json_string(out, to_string(reranker.activation()));
  out += ", \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i) {
    out += i ? ",\n  " : "\n  ";
    out += "{\"index\": " + std::to_string(results[i].index) + ", \"score\": ";
    append_float(out, results[i].score);
    if (args.return_documents) {
      out += ", \"document\": ";
      append_json_string(out, documents[results[i].index]);
    }
    out.push_back('}');
  }
  out += results.empty() ? "]}\n" : "\n]}\n";
  write_stdout(out);
  flush_stdout();
  return 0;
}

}  // namespace

Action add_rerank_command(CLI::App& app) {
  auto args = std::make_shared<RerankArgs>();
  auto* cmd = app.add_subcommand(
      "rerank", "Score documents (one per line on stdin) against a query with a cross-encoder; JSON, best first");
  add_examples(*cmd, {"printf 'Paris is the capital of France.\\nBerlin is in Germany.\\n' | sieve rerank --model "
                      "models/ms-marco-MiniLM-L-6-v2 --query \"capital of France\" --return-documents"});
  add_model_options(*cmd, args->model);
  cmd->add_option("--query,-q", args->query, "The query")->required();
  cmd->add_option("--top-k,-k", args->top_k, "Return the K best documents (default: all)")
      ->check(non_negative_number());
  cmd->add_flag("--return-documents", args->return_documents, "Include each document's text in the results");
  auto* raw = cmd->add_flag("--raw-scores", args->raw_scores, "Report the raw logit (no sigmoid or softmax)");
  cmd->add_option("--activation", args->activation,
                  "Score activation: auto (the model's configuration; sigmoid for one label, softmax for several), "
                  "none, sigmoid, softmax")
      ->check(CLI::IsMember({"auto", "none", "sigmoid", "softmax"}))
      ->excludes(raw);
  cmd->add_option("--label", args->label, "With several labels: the label whose score is reported (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--batch-size", args->batch_size, "Pairs per ONNX Runtime run")->check(positive_number());
  cmd->add_option("--max-length", args->max_length,
                  "Truncate each (query, document) pair to this many tokens (default: the model's)")
      ->check(positive_number());
  cmd->add_option("--truncation", args->truncation,
                  "How pairs are cut to the maximum length: longest_first (default) or only_second (the document)")
      ->check(CLI::IsMember({"longest_first", "only_second"}));
  cmd->add_option("--invalid-utf8", args->invalid_utf8,
                  "Text that is not UTF-8: error (default) or replace with U+FFFD")
      ->check(CLI::IsMember({"error", "replace"}));
  return [args] { return run_rerank(*args); };
}

}  // namespace sieve::cli
