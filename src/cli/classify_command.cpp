#include <iostream>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"
#include "sieve/reranker.hpp"

namespace sieve::cli {
namespace {

struct ClassifyArgs {
  ModelOptions model;
  std::vector<std::string> texts;
  bool pairs = false;
  bool raw_scores = false;
  std::size_t top_k = 0;
  std::size_t batch_size = 32;
  std::size_t max_length = 0;
  std::string invalid_utf8 = "error";
};

// One input's labels, best first (ties keep the model's label order), as
// Text Embeddings Inference's /predict lists them.
void append_labels(std::string& out, const Reranker& model, std::span<const float> scores, std::size_t top_k) {
  std::vector<std::size_t> order = rank_by_score(scores);
  if (top_k != 0 && top_k < order.size()) order.resize(top_k);
  out.push_back('[');
  for (std::size_t k = 0; k < order.size(); ++k) {
    out += k ? ", {\"label\": " : "{\"label\": ";
    append_json_string(out, model.labels()[order[k]]);
    out += ", \"score\": ";
    append_float(out, scores[order[k]]);
    out.push_back('}');
  }
  out += "]\n";
}

int run_classify(const ClassifyArgs& args) {
  RerankerOptions options;
  options.runtime = to_runtime_options(args.model);
  options.batch_size = args.batch_size;
  if (args.max_length > 0) options.max_length = args.max_length;
  options.invalid_utf8 = args.invalid_utf8 == "replace" ? InvalidUtf8::kReplace : InvalidUtf8::kError;
  const Reranker model = Reranker::load(args.model.model, options);
  if (model.is_llm_reranker()) {
    throw Error(ErrorCode::kUnsupported, args.model.model +
                                             ": an LLM reranker scores (query, document) pairs; use "
                                             "sieve rerank");
  }
  const std::size_t labels = model.num_labels();

  const auto consume = [&](std::vector<std::string>& lines, std::size_t first_line) {
    std::vector<float> scores;
    try {
      if (args.pairs) {
        std::vector<TextPair> pairs;
        pairs.reserve(lines.size());
        for (std::size_t i = 0; i < lines.size(); ++i) {
          const std::string_view line = lines[i];
          const auto tab = line.find('\t');
          if (tab == std::string_view::npos) {
            throw Error(ErrorCode::kInvalidInput, "expected two texts separated by a tab", i);
          }
          pairs.push_back({line.substr(0, tab), line.substr(tab + 1)});
        }
        scores = model.classify(pairs, args.raw_scores);
      } else {
        const std::vector<std::string_view> views(lines.begin(), lines.end());
        scores = model.classify(views, args.raw_scores);
      }
    } catch (const Error& e) {
      // The pipeline names the input's index; users need the line.
      if (!e.input_index()) throw;
      throw Error(e.code(), "line " + std::to_string(first_line + *e.input_index() + 1) + ": " + e.message());
    }
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      append_labels(out, model, std::span<const float>(scores).subspan(i * labels, labels), args.top_k);
    }
    write_stdout(out);
  };
  for_each_input_chunk(args.texts, consume);
  flush_stdout();
  return 0;
}

}  // namespace

Action add_classify_command(CLI::App& app) {
  auto args = std::make_shared<ClassifyArgs>();
  auto* cmd = app.add_subcommand("classify",
                                 "Classify texts (arguments, or one per line on stdin) with a sequence-classification "
                                 "model; JSON Lines, each input's labels best first");
  add_examples(*cmd,
               {"sieve classify --model models/distilbert-sst2 \"What a wonderful film.\" \"A dull, tedious plot.\"",
                "sieve classify --model models/distilbert-sst2 --top-k 1 --raw-scores \"Not bad at all.\""});
  add_model_options(*cmd, args->model);
  add_texts_option(*cmd, args->texts, "Texts to classify; without them, lines of standard input");
  cmd->add_flag("--pairs", args->pairs,
                "Each input is a pair of texts separated by a tab (e.g. an NLI premise and hypothesis)");
  cmd->add_flag("--raw-scores", args->raw_scores,
                "Report the logits (default: softmax, or sigmoid for multi-label and one-label models, as the "
                "model's problem_type says)");
  cmd->add_option("--top-k,-k", args->top_k, "Report the K best labels of each input (default: all)")
      ->check(non_negative_number());
  cmd->add_option("--batch-size", args->batch_size, "Inputs per ONNX Runtime run")->check(positive_number());
  cmd->add_option("--max-length", args->max_length, "Truncate inputs to this many tokens (default: the model's)")
      ->check(positive_number());
  cmd->add_option("--invalid-utf8", args->invalid_utf8,
                  "Text that is not UTF-8: error (default) or replace with U+FFFD")
      ->check(CLI::IsMember({"error", "replace"}));
  return [args] { return run_classify(*args); };
}

}  // namespace sieve::cli
