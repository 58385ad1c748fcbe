#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <numeric>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"
#include "sieve/similarity.hpp"

namespace sieve::cli {
namespace {

struct SimilarityArgs {
  ModelOptions model;
  std::vector<std::string> texts;
  std::string query;
  bool has_query = false;
  std::string function;  // empty: the model's similarity_fn_name (cosine by default)
  std::size_t top_k = 0;
  bool with_text = false;
  std::string prompt;
  bool has_prompt = false;
  std::string prompt_name;
  std::size_t dimensions = 0;
  bool has_dimensions = false;
};

int run_similarity(const SimilarityArgs& args) {
  if (args.has_query == !args.texts.empty() || (!args.has_query && args.texts.size() != 2)) {
    throw Error(ErrorCode::kInvalidArgument,
                "give either two texts, or --query with the texts to compare one per line on standard input");
  }
  EmbedderOptions options;
  options.runtime = to_runtime_options(args.model);
  if (args.has_prompt) options.prompt = args.prompt;
  if (!args.prompt_name.empty()) options.prompt_name = args.prompt_name;
  if (args.has_dimensions) options.dimensions = args.dimensions;
  const Embedder embedder = Embedder::load(args.model.model, options);
  const Similarity function =
      parse_similarity(args.function.empty() ? embedder.info().dense.similarity_fn_name : args.function);

  nlohmann::json out;
  out["similarity"] = to_string(function);
  if (!args.has_query) {
    const Embeddings e = embedder.embed(args.texts);
    out["score"] = similarity(e.row(0), e.row(1), function);
    std::cout << out.dump() << '\n';
    return 0;
  }

  std::vector<std::string> documents;
  for_each_line_chunk(std::cin, 4096, [&](std::vector<std::string>& lines, std::size_t) {
    for (auto& l : lines) documents.push_back(std::move(l));
  });
  const Embeddings q = embedder.embed(std::vector<std::string>{args.query});
  Embeddings d;
  try {
    d = embedder.embed(documents);
  } catch (const Error& e) {
    if (!e.input_index()) throw;
    throw Error(e.code(), "input " + std::to_string(*e.input_index() + 1) + ": " + e.message());
  }
  const std::vector<double> scores = similarity_matrix(q, d, function);
  // Best first; ties keep input order.
  std::vector<std::size_t> order(documents.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  if (args.top_k > 0 && order.size() > args.top_k) order.resize(args.top_k);
  out["query"] = args.query;
  out["results"] = nlohmann::json::array();
  for (const std::size_t i : order) {
    nlohmann::json r = {{"index", i}, {"score", scores[i]}};
    if (args.with_text) r["text"] = documents[i];
    out["results"].push_back(std::move(r));
  }
  // Invalid UTF-8 in the output text is replaced rather than refused.
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  return 0;
}

}  // namespace

Action add_similarity_command(CLI::App& app) {
  auto args = std::make_shared<SimilarityArgs>();
  auto* cmd = app.add_subcommand("similarity",
                                 "Score two texts, or a --query against lines of standard input (JSON, best first)");
  add_examples(
      *cmd, {"sieve similarity --model models/all-MiniLM-L6-v2 \"A cat sits on the mat.\" \"A kitten rests on a rug.\"",
             "printf 'Cats purr.\\nStocks fell.\\nDogs bark.\\n' | sieve similarity --model models/all-MiniLM-L6-v2 "
             "--query \"pets\" --top-k 2 --with-text"});
  add_model_options(*cmd, args->model);
  add_texts_option(*cmd, args->texts, "Two texts to compare");
  auto* query = cmd->add_option("--query,-q", args->query, "Compare this text with each line of standard input");
  cmd->add_option("--function", args->function,
                  "cosine, dot, euclidean or manhattan (distances negated, as sentence-transformers); "
                  "default: the model's similarity_fn_name, else cosine")
      ->check(CLI::IsMember({"cosine", "dot", "dot_product", "euclidean", "manhattan"}));
  cmd->add_option("--top-k,-k", args->top_k, "Keep the K best lines (default: all)");
  cmd->add_flag("--with-text", args->with_text, "Include each line's text in the results");
  auto* prompt = cmd->add_option("--prompt", args->prompt, "Text put before every input (as sieve embed)");
  cmd->add_option("--prompt-name", args->prompt_name, "A prompt of the model folder (as sieve embed)")
      ->excludes(prompt);
  auto* dimensions = cmd->add_option("--dimensions", args->dimensions, "Compare the first N dimensions");
  return [args, query, prompt, dimensions] {
    args->has_query = query->count() > 0;
    args->has_prompt = prompt->count() > 0;
    args->has_dimensions = dimensions->count() > 0;
    return run_similarity(*args);
  };
}

}  // namespace sieve::cli
