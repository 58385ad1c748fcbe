#include <algorithm>
#include <climits>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve::cli {
namespace {

struct TokenizeArgs {
  std::string model;
  std::string tokenizer;
  std::vector<std::string> texts;
  bool pair = false;
  bool offsets = false;
  bool byte_offsets = false;
  bool overflowing = false;
  std::size_t max_length = 0;
  std::string truncation;
  std::size_t stride = 0;
  bool no_padding = false;
  bool no_special_tokens = false;
  std::size_t threads = 1;
  std::string on_error = "fail";
  std::string invalid_utf8 = "error";
};

// Lines encoded together: enough to keep every thread busy, few enough to
// keep memory bounded on endless input.
constexpr std::size_t kLinesPerChunk = 4096;

struct Line {
  std::string_view first;
  std::string_view second;
};

class EncodingWriter {
 public:
  EncodingWriter(const Tokenizer& tokenizer, const TokenizeArgs& args) : tokenizer_(tokenizer), args_(args) {}

  void write(const Encoding& e, const Encoding* byte_encoding, const Line& line, std::string& out) const {
    out += "{\"ids\":";
    append_json_array<std::uint32_t>(out, e.ids);
    out += ",\"tokens\":[";
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
      if (i) out.push_back(',');
      append_json_string(out, tokenizer_.token_string(e, i, line.first, line.second));
    }
    out += "],\"type_ids\":";
    append_json_array<std::uint32_t>(out, e.type_ids);
    out += ",\"attention_mask\":";
    append_json_array<std::uint8_t>(out, e.attention_mask);
    out += ",\"special_tokens_mask\":";
    append_json_array<std::uint8_t>(out, e.special_tokens_mask);
    if (args_.offsets) {
      out += ",\"offsets\":";
      append_offsets(out, e.offsets);
    }
    if (byte_encoding != nullptr) {
      out += ",\"byte_offsets\":";
      append_offsets(out, byte_encoding->offsets);
    }
    if (args_.overflowing) {
      out += ",\"overflowing\":[";
      for (std::size_t k = 0; k < e.overflowing.size(); ++k) {
        if (k) out.push_back(',');
        std::string nested;
        write(e.overflowing[k], byte_encoding != nullptr ? &byte_encoding->overflowing.at(k) : nullptr, line, nested);
        nested.pop_back();  // the newline
        out += nested;
      }
      out += "]";
    }
    out += "}\n";
  }

 private:
  static void append_offsets(std::string& out, const std::vector<Offsets>& offsets) {
    out.push_back('[');
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      if (i) out.push_back(',');
      out += '[' + std::to_string(offsets[i].first) + ',' + std::to_string(offsets[i].second) + ']';
    }
    out.push_back(']');
  }

  const Tokenizer& tokenizer_;
  const TokenizeArgs& args_;
};

TruncationStrategy parse_strategy(const std::string& name) {
  if (name == "only_first") return TruncationStrategy::kOnlyFirst;
  if (name == "only_second") return TruncationStrategy::kOnlySecond;
  return TruncationStrategy::kLongestFirst;
}

void configure(Tokenizer& tokenizer, const TokenizeArgs& args) {
  tokenizer.set_invalid_utf8(args.invalid_utf8 == "replace" ? InvalidUtf8::kReplace : InvalidUtf8::kError);
  if (args.no_padding) tokenizer.set_padding(std::nullopt);
  if (args.truncation == "none") {
    if (args.max_length > 0) throw Error(ErrorCode::kInvalidArgument, "--max-length needs truncation, not none");
    tokenizer.set_truncation(std::nullopt);
    return;
  }
  if (args.max_length == 0 && args.truncation.empty() && args.stride == 0) return;
  std::optional<TruncationParams> params = tokenizer.truncation();
  if (!params) {
    if (args.max_length == 0) {
      throw Error(ErrorCode::kInvalidArgument, "the tokenizer file sets no truncation: give --max-length");
    }
    params = TruncationParams{};
  }
  if (args.max_length > 0) params->max_length = args.max_length;
  if (!args.truncation.empty()) params->strategy = parse_strategy(args.truncation);
  params->stride = args.stride;
  tokenizer.set_truncation(params);
}

std::vector<Line> split_lines(const std::vector<std::string>& lines, bool pair, std::size_t first_line,
                              std::vector<std::optional<std::string>>& errors) {
  std::vector<Line> out(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view text = lines[i];
    if (!pair) {
      out[i].first = text;
      continue;
    }
    const std::size_t tab = text.find('\t');
    if (tab == std::string_view::npos) {
      errors[i] = "input " + std::to_string(first_line + i + 1) + ": --pair needs a tab between the two texts";
      continue;
    }
    out[i] = {text.substr(0, tab), text.substr(tab + 1)};
  }
  return out;
}

std::vector<Encoding> encode_lines(const Tokenizer& tokenizer, const std::vector<Line>& lines,
                                   const std::vector<std::size_t>& rows, const TokenizeArgs& args) {
  const bool special = !args.no_special_tokens;
  if (args.pair) {
    std::vector<TextPair> pairs;
    pairs.reserve(rows.size());
    for (const std::size_t i : rows) pairs.push_back({lines[i].first, lines[i].second});
    return tokenizer.encode_pair_each(pairs, special, args.threads);
  }
  std::vector<std::string_view> texts;
  texts.reserve(rows.size());
  for (const std::size_t i : rows) texts.push_back(lines[i].first);
  return tokenizer.encode_each(texts, special, args.threads);
}

int run_tokenize(const TokenizeArgs& args) {
  if (args.model.empty() == args.tokenizer.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "give exactly one of --model DIR or --tokenizer FILE");
  }
  const std::filesystem::path file = args.tokenizer.empty() ? std::filesystem::path(args.model) / "tokenizer.json"
                                                            : std::filesystem::path(args.tokenizer);
  Tokenizer tokenizer = Tokenizer::from_file(file);
  configure(tokenizer, args);
  tokenizer.set_offset_unit(args.offsets ? OffsetUnit::kChar : OffsetUnit::kByte);
  // Byte offsets next to character offsets take a second encoding in byte units.
  std::optional<Tokenizer> byte_tokenizer;
  if (args.byte_offsets && args.offsets) {
    byte_tokenizer.emplace(Tokenizer::from_file(file));
    configure(*byte_tokenizer, args);
  }
  const EncodingWriter writer(tokenizer, args);
  const bool skip_errors = args.on_error == "skip";

  std::string out;
  const auto consume = [&](std::vector<std::string>& raw, std::size_t first_line) {
    std::vector<std::optional<std::string>> errors(raw.size());
    const std::vector<Line> lines = split_lines(raw, args.pair, first_line, errors);
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (!errors[i]) rows.push_back(i);
    }
    if (!skip_errors && rows.size() != raw.size()) {
      for (const auto& e : errors) {
        if (e) throw Error(ErrorCode::kInvalidInput, *e);
      }
    }
    std::vector<std::optional<Encoding>> encodings(raw.size());
    std::vector<std::optional<Encoding>> byte_encodings(raw.size());
    const auto encode_rows = [&](const std::vector<std::size_t>& subset) {
      auto encoded = encode_lines(tokenizer, lines, subset, args);
      std::vector<Encoding> byte_encoded;
      if (byte_tokenizer) byte_encoded = encode_lines(*byte_tokenizer, lines, subset, args);
      for (std::size_t k = 0; k < subset.size(); ++k) {
        encodings[subset[k]] = std::move(encoded[k]);
        if (byte_tokenizer) byte_encodings[subset[k]] = std::move(byte_encoded[k]);
      }
    };
    try {
      encode_rows(rows);
    } catch (const Error& e) {
      if (!e.input_index()) throw;
      if (!skip_errors) {
        throw Error(e.code(), "input " + std::to_string(first_line + rows[*e.input_index()] + 1) + ": " + e.message());
      }
      // Encode line by line to tell the failing lines from the others.
      for (const std::size_t i : rows) {
        try {
          encode_rows({i});
        } catch (const Error& line_error) {
          errors[i] = "input " + std::to_string(first_line + i + 1) + ": " + line_error.message();
        }
      }
    }
    out.clear();
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (errors[i]) {
        out += "{\"error\":";
        append_json_string(out, *errors[i]);
        out += "}\n";
        continue;
      }
      const Encoding* bytes = byte_tokenizer ? &*byte_encodings[i] : (args.byte_offsets ? &*encodings[i] : nullptr);
      writer.write(*encodings[i], bytes, lines[i], out);
    }
    write_stdout(out);
  };
  for_each_input_chunk(args.texts, consume);
  flush_stdout();
  return 0;
}

}  // namespace

Action add_tokenize_command(CLI::App& app) {
  auto args = std::make_shared<TokenizeArgs>();
  auto* cmd = app.add_subcommand("tokenize", "Tokenize texts (arguments, or one per line on stdin) to JSON lines");
  add_examples(*cmd, {"sieve tokenize --model models/all-MiniLM-L6-v2 --offsets \"Hello, world!\"",
                      "sieve tokenize --tokenizer models/all-MiniLM-L6-v2/tokenizer.json --max-length 8 --overflowing "
                      "--stride 2 \"a long text cut into overlapping windows of eight tokens\""});
  cmd->add_option("--model,-m", args->model, "Model folder (uses its tokenizer.json)");
  cmd->add_option("--tokenizer,-t", args->tokenizer, "A tokenizer.json file");
  add_texts_option(*cmd, args->texts, "Texts; without them, lines of standard input");
  cmd->add_flag("--pair", args->pair, "Each text is a pair of texts separated by a tab (cross-encoder input)");
  cmd->add_flag("--offsets", args->offsets, "Add each token's character offsets [begin, end) in its text");
  cmd->add_flag("--byte-offsets", args->byte_offsets, "Add each token's byte offsets [begin, end) in its text");
  cmd->add_flag("--overflowing", args->overflowing, "Add the windows truncation cut off (see --stride)");
  cmd->add_option("--max-length", args->max_length, "Truncate to N tokens, special tokens included")
      ->check(positive_number());
  cmd->add_option("--truncation", args->truncation,
                  "Truncation strategy (default: the file's, else longest_first); none turns it off")
      ->check(CLI::IsMember({"longest_first", "only_first", "only_second", "none"}));
  cmd->add_option("--stride", args->stride, "Overlap, in tokens, of the overflowing windows");
  cmd->add_flag("--no-padding", args->no_padding, "Ignore the padding that the tokenizer file sets");
  cmd->add_flag("--no-special-tokens", args->no_special_tokens, "Do not add [CLS]/[SEP] or the like");
  cmd->add_option("--threads", args->threads, "Encoding threads (0: one per core)")->capture_default_str();
  cmd->add_option("--on-error", args->on_error,
                  "A line that cannot be encoded: fail (default) or skip, writing {\"error\": ...} for it")
      ->check(CLI::IsMember({"fail", "skip"}));
  cmd->add_option("--invalid-utf8", args->invalid_utf8,
                  "Text that is not UTF-8: error (default) or replace with U+FFFD")
      ->check(CLI::IsMember({"error", "replace"}));
  return [args] {
    check_thread_count(static_cast<long long>(std::min<std::size_t>(args->threads, LLONG_MAX)), "--threads");
    return run_tokenize(*args);
  };
}

}  // namespace sieve::cli
