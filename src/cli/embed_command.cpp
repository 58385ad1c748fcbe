#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <optional>

#include "cli/commands.hpp"
#include "cli/io.hpp"
#include "sieve/error.hpp"
#include "sieve/quantize.hpp"

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
  std::string prompt;
  bool has_prompt = false;  // --prompt "" is a prompt: it turns the default one off
  std::string prompt_name;
  std::size_t dimensions = 0;
  bool has_dimensions = false;
  std::string precision = "float32";
  std::string calibration;
  std::string chunk_separator = " ";  // --late-chunking
  std::size_t overlap = 0;
  std::size_t top_k = 0;
  float min_weight = 0;
  bool sparse = false;
  bool tokens = false;
  bool multi_vector = false;
  bool query = false;
  bool late_chunking = false;
  bool has_overlap = false;
};

// Calibration vectors for int8/uint8: a .npy float matrix (e.g. from
// `sieve embed --format npy`), or JSON: one array per line (the jsonl
// output) or one array of arrays. A [2, dim] file of minimums and maximums
// works too, since its per-dimension min and max are those rows.
QuantizationRanges read_calibration(const std::string& path, std::size_t dimension) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, path + ": cannot open the calibration file");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> values;
  std::size_t rows = 0;
  std::size_t cols = 0;
  if (bytes.starts_with(std::string("\x93NUMPY", 6))) {
    if (bytes.size() < 10) throw Error(ErrorCode::kParse, path + ": truncated .npy header");
    const int major = static_cast<unsigned char>(bytes[6]);
    std::size_t header_len = 0;
    std::size_t start = 0;
    if (major == 1) {
      header_len =
          static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
      start = 10;
    } else {
      if (bytes.size() < 12) throw Error(ErrorCode::kParse, path + ": truncated .npy header");
      for (int i = 0; i < 4; ++i)
        header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
      start = 12;
    }
    if (bytes.size() < start + header_len) throw Error(ErrorCode::kParse, path + ": truncated .npy header");
    const std::string header = bytes.substr(start, header_len);
    const bool f4 = header.find("'<f4'") != std::string::npos;
    const bool f8 = header.find("'<f8'") != std::string::npos;
    if ((!f4 && !f8) || header.find("'fortran_order': False") == std::string::npos) {
      throw Error(ErrorCode::kParse, path + ": expected a little-endian float32 or float64 C-order .npy matrix");
    }
    const auto shape_at = header.find("'shape': (");
    if (shape_at == std::string::npos) throw Error(ErrorCode::kParse, path + ": .npy header without a shape");
    if (std::sscanf(header.c_str() + shape_at + 10, "%zu, %zu)", &rows, &cols) != 2) {
      throw Error(ErrorCode::kParse, path + ": expected a two-dimensional .npy matrix");
    }
    const std::size_t width = f4 ? 4 : 8;
    const std::size_t body = start + header_len;
    if (bytes.size() - body < rows * cols * width) throw Error(ErrorCode::kParse, path + ": truncated .npy data");
    values.resize(rows * cols);
    for (std::size_t k = 0; k < rows * cols; ++k) {
      if (f4) {
        std::memcpy(&values[k], bytes.data() + body + k * 4, 4);
      } else {
        double d = 0;
        std::memcpy(&d, bytes.data() + body + k * 8, 8);
        values[k] = static_cast<float>(d);
      }
    }
  } else {
    const auto add_row = [&](const nlohmann::json& row) {
      if (!row.is_array()) throw Error(ErrorCode::kParse, path + ": expected arrays of numbers");
      if (rows == 0) cols = row.size();
      if (row.size() != cols) throw Error(ErrorCode::kParse, path + ": rows of different lengths");
      for (const auto& v : row) {
        if (!v.is_number()) throw Error(ErrorCode::kParse, path + ": expected arrays of numbers");
        values.push_back(v.get<float>());
      }
      ++rows;
    };
    try {
      const auto doc = nlohmann::json::parse(bytes);
      if (doc.is_array() && !doc.empty() && doc.front().is_array()) {
        for (const auto& row : doc) add_row(row);
      } else {
        add_row(doc);
      }
    } catch (const nlohmann::json::parse_error&) {
      // Not one JSON document: one array per line.
      std::size_t pos = 0;
      while (pos < bytes.size()) {
        auto end = bytes.find('\n', pos);
        if (end == std::string::npos) end = bytes.size();
        const std::string line = bytes.substr(pos, end - pos);
        pos = end + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
          add_row(nlohmann::json::parse(line));
        } catch (const nlohmann::json::parse_error&) {
          throw Error(ErrorCode::kParse, path + ": neither .npy nor JSON arrays");
        }
      }
    }
  }
  if (rows == 0) throw Error(ErrorCode::kInvalidArgument, path + ": the calibration file holds no vectors");
  if (cols != dimension) {
    throw Error(ErrorCode::kInvalidArgument, path + ": calibration vectors have " + std::to_string(cols) +
                                                 " dimensions, the embeddings " + std::to_string(dimension));
  }
  return calibration_ranges(values, rows, cols);
}

const char* npy_descr(Precision p) {
  switch (p) {
    case Precision::kFloat32: return "<f4";
    case Precision::kFloat16: return "<f2";
    case Precision::kInt8:
    case Precision::kBinary: return "|i1";
    case Precision::kUint8:
    case Precision::kUbinary: return "|u1";
  }
  return "<f4";
}

void append_quantized_row(std::string& out, const QuantizedEmbeddings& q, std::size_t i) {
  out.push_back('[');
  for (std::size_t j = 0; j < q.values_per_row(); ++j) {
    if (j) out.push_back(',');
    const double v = q.value(i, j);
    if (q.precision == Precision::kFloat16 || q.precision == Precision::kFloat32) {
      append_float(out, static_cast<float>(v));
    } else {
      out += std::to_string(static_cast<int>(v));
    }
  }
  out.push_back(']');
}

// Writes one JSON value per input (jsonl, or one json array): `embed`
// turns a chunk of inputs into rows, `append` writes a row. An error naming
// an input names its line.
template <typename Embed, typename Append>
int write_rows(const EmbedArgs& args, Embed embed, Append append) {
  bool first_row = true;
  if (args.format == "json") write_stdout("[");
  std::string line;
  for_each_input_chunk(args.texts, [&](std::vector<std::string>& texts, std::size_t first_line) {
    const std::vector<std::string_view> views(texts.begin(), texts.end());
    decltype(embed(std::span<const std::string_view>(views))) rows;
    try {
      rows = embed(std::span<const std::string_view>(views));
    } catch (const Error& e) {
      if (!e.input_index()) throw;
      throw Error(e.code(), "input " + std::to_string(first_line + *e.input_index() + 1) + ": " + e.message());
    }
    for (const auto& row : rows) {
      line.clear();
      if (args.format == "json") line += first_row ? "\n" : ",\n";
      append(line, row);
      if (args.format == "jsonl") line.push_back('\n');
      write_stdout(line);
      first_row = false;
    }
  });
  if (args.format == "json") write_stdout(first_row ? "]\n" : "\n]\n");
  flush_stdout();
  return 0;
}

// A sparse model's vectors, one JSON array of {"index","value"} per input
// (Text Embeddings Inference's /embed_sparse shape).
int run_embed_sparse(const EmbedArgs& args, const EmbedderOptions& options) {
  if (args.format == "npy") throw Error(ErrorCode::kInvalidArgument, "--sparse writes jsonl or json, not npy");
  if (args.precision != "float32") throw Error(ErrorCode::kInvalidArgument, "--precision does not apply to --sparse");
  const Embedder embedder = Embedder::load(args.model.model, options);
  SparseOptions sparse;
  sparse.top_k = args.top_k;
  sparse.min_weight = args.min_weight;
  std::function<std::string_view(std::uint32_t)> token;
  if (args.tokens) token = [&](std::uint32_t id) { return embedder.tokenizer().id_to_token(id); };
  return write_rows(
      args, [&](std::span<const std::string_view> views) { return embedder.embed_sparse(views, sparse); },
      [&](std::string& line, const SparseVector& v) { append_sparse_json(line, v.ids, v.weights, token); });
}

// A ColBERT model's token vectors: per input, an array of token vectors
// (Text Embeddings Inference's /embed_all shape), or with --tokens an object
// with each row's token id and vocabulary token beside them.
int run_embed_multi_vector(const EmbedArgs& args, const EmbedderOptions& options) {
  if (args.format == "npy") throw Error(ErrorCode::kInvalidArgument, "--multi-vector writes jsonl or json, not npy");
  if (args.precision != "float32") {
    throw Error(ErrorCode::kInvalidArgument, "--precision does not apply to --multi-vector");
  }
  const Embedder embedder = Embedder::load(args.model.model, options);
  const TextRole role = args.query ? TextRole::kQuery : TextRole::kDocument;
  return write_rows(
      args, [&](std::span<const std::string_view> views) { return embedder.embed_tokens(views, role); },
      [&](std::string& line, const TokenVectors& v) {
        if (args.tokens) {
          line += "{\"ids\":[";
          for (std::size_t r = 0; r < v.rows; ++r) line += (r ? "," : "") + std::to_string(v.ids[r]);
          line += "],\"tokens\":[";
          for (std::size_t r = 0; r < v.rows; ++r) {
            if (r) line.push_back(',');
            line += nlohmann::json(std::string(embedder.tokenizer().id_to_token(v.ids[r])))
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
          }
          line += "],\"vectors\":";
        }
        line.push_back('[');
        for (std::size_t r = 0; r < v.rows; ++r) {
          if (r) line.push_back(',');
          line.push_back('[');
          const auto row = v.row(r);
          for (std::size_t k = 0; k < row.size(); ++k) {
            if (k) line.push_back(',');
            append_float(line, row[k]);
          }
          line.push_back(']');
        }
        line.push_back(']');
        if (args.tokens) line.push_back('}');
      });
}

int run_embed(const EmbedArgs& args) {
  EmbedderOptions options;
  options.runtime = to_runtime_options(args.model);
  if (args.normalize) options.normalize = true;
  if (args.no_normalize) options.normalize = false;
  options.batch_size = args.batch_size;
  if (args.max_length > 0) options.max_length = args.max_length;
  if (!args.pooling.empty()) options.pooling = parse_pooling(args.pooling);
  options.invalid_utf8 = args.invalid_utf8 == "replace" ? InvalidUtf8::kReplace : InvalidUtf8::kError;
  if (args.has_prompt) options.prompt = args.prompt;
  if (!args.prompt_name.empty()) options.prompt_name = args.prompt_name;
  if (args.has_dimensions) options.dimensions = args.dimensions;
  if (args.late_chunking && (args.sparse || args.multi_vector)) {
    throw Error(ErrorCode::kInvalidArgument,
                "--late-chunking gives dense vectors; it does not apply to --sparse or "
                "--multi-vector");
  }
  if (!args.late_chunking && (args.has_overlap || args.chunk_separator != " ")) {
    throw Error(ErrorCode::kInvalidArgument, "--chunk-separator and --overlap apply to --late-chunking only");
  }
  if (args.sparse && args.multi_vector) {
    throw Error(ErrorCode::kInvalidArgument, "--sparse and --multi-vector are different models' outputs; give one");
  }
  if (args.query && !args.multi_vector) {
    throw Error(ErrorCode::kInvalidArgument, "--query applies to --multi-vector only");
  }
  if (args.multi_vector) {
    if (args.top_k != 0 || args.min_weight != 0) {
      throw Error(ErrorCode::kInvalidArgument, "--top-k and --min-weight apply to --sparse only");
    }
    return run_embed_multi_vector(args, options);
  }
  if (args.sparse) return run_embed_sparse(args, options);
  if (args.top_k != 0 || args.min_weight != 0) {
    throw Error(ErrorCode::kInvalidArgument, "--top-k and --min-weight apply to --sparse only");
  }
  if (args.tokens) throw Error(ErrorCode::kInvalidArgument, "--tokens applies to --sparse and --multi-vector only");
  const Precision precision = parse_precision(args.precision);
  const bool scalar = precision == Precision::kInt8 || precision == Precision::kUint8;
  if (!args.calibration.empty() && !scalar) {
    throw Error(ErrorCode::kInvalidArgument, "--calibration applies to --precision int8 and uint8 only");
  }
  const Embedder embedder = Embedder::load(args.model.model, options);
  std::optional<QuantizationRanges> ranges;
  if (!args.calibration.empty()) ranges = read_calibration(args.calibration, embedder.info().dimension);
  // Without calibration, int8/uint8 ranges come from all the embeddings
  // together (as sentence-transformers computes them from the batch it is
  // given), so every row is embedded before any is written.
  const bool hold_all = scalar && !ranges;

  std::vector<float> all;  // only for formats that need every row before writing
  std::vector<std::uint8_t> all_quantized;
  std::size_t rows = 0;
  std::size_t dimension = embedder.info().dimension;
  bool first_row = true;
  if (args.format == "json") write_stdout("[");
  std::string line;
  const auto write_quantized = [&](const QuantizedEmbeddings& q) {
    if (args.format == "npy") {
      all_quantized.insert(all_quantized.end(), q.data.begin(), q.data.end());
      return;
    }
    for (std::size_t i = 0; i < q.rows; ++i) {
      line.clear();
      if (args.format == "json") line += first_row ? "\n" : ",\n";
      append_quantized_row(line, q, i);
      if (args.format == "jsonl") line.push_back('\n');
      write_stdout(line);
      first_row = false;
    }
  };
  const auto write_result = [&](const Embeddings& result) {
    dimension = result.dimension;
    rows += result.rows;
    if (hold_all) {
      all.insert(all.end(), result.data.begin(), result.data.end());
      return;
    }
    if (precision != Precision::kFloat32) {
      write_quantized(quantize(result, precision, ranges ? &*ranges : nullptr));
      return;
    }
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
  // The pipeline names the index inside what it was given; users need the line.
  const auto embedding = [](std::size_t first_line, const auto& embed) {
    try {
      return embed();
    } catch (const Error& e) {
      if (!e.input_index()) throw;
      throw Error(e.code(), "input " + std::to_string(first_line + *e.input_index() + 1) + ": " + e.message());
    }
  };
  if (args.late_chunking) {
    // Every input is a chunk of one document: all of them are read first.
    std::vector<std::string> chunks;
    for_each_input_chunk(args.texts, [&](std::vector<std::string>& texts, std::size_t) {
      std::move(texts.begin(), texts.end(), std::back_inserter(chunks));
    });
    const std::vector<std::string_view> views(chunks.begin(), chunks.end());
    LateChunkOptions late;
    late.separator = args.chunk_separator;
    if (args.has_overlap) late.overlap = args.overlap;
    write_result(embedding(0, [&] { return embedder.embed_late_chunks(views, late); }));
  } else {
    for_each_input_chunk(args.texts, [&](std::vector<std::string>& texts, std::size_t first_line) {
      write_result(embedding(first_line, [&] { return embedder.embed(texts); }));
    });
  }
  if (hold_all && rows > 0) {
    Embeddings held;
    held.rows = rows;
    held.dimension = dimension;
    held.data.swap(all);  // `all` is not read again: this branch writes quantized rows
    write_quantized(quantize(held, precision));
  }
  if (args.format == "json") write_stdout(first_row ? "]\n" : "\n]\n");
  if (args.format == "npy") {
    if (precision == Precision::kFloat32) {
      write_npy(stdout, all, rows, dimension);
    } else {
      const std::size_t cols =
          precision == Precision::kBinary || precision == Precision::kUbinary ? (dimension + 7) / 8 : dimension;
      write_npy(stdout, npy_descr(precision), all_quantized, rows, cols);  // bytes as QuantizedEmbeddings holds them
    }
  }
  flush_stdout();
  return 0;
}

}  // namespace

Action add_embed_command(CLI::App& app) {
  auto args = std::make_shared<EmbedArgs>();
  auto* cmd = app.add_subcommand("embed", "Embed texts (arguments, or one per line on stdin)");
  add_examples(
      *cmd,
      {"sieve embed --model models/all-MiniLM-L6-v2 \"A cat sits on the mat.\" \"A dog plays in the park.\"",
       "printf 'first text\\nsecond text\\n' | sieve embed --model models/all-MiniLM-L6-v2 --format npy > vectors.npy",
       "sieve embed --model models/all-MiniLM-L6-v2 --precision binary --format json \"compact vectors\""});
  add_model_options(*cmd, args->model);
  add_texts_option(*cmd, args->texts, "Texts to embed; without them, lines of standard input");
  auto* normalize = cmd->add_flag("--normalize", args->normalize, "L2-normalize the vectors");
  cmd->add_flag("--no-normalize", args->no_normalize, "Do not normalize (default: as the model folder says)")
      ->excludes(normalize);
  cmd->add_option("--batch-size", args->batch_size, "Inputs per ONNX Runtime run")->check(positive_number());
  cmd->add_option("--max-length", args->max_length, "Truncate inputs to this many tokens (default: the model's)")
      ->check(positive_number());
  cmd->add_option("--pooling", args->pooling,
                  "Override pooling: mean, cls, max, mean_sqrt_len, weightedmean, lasttoken");
  cmd->add_option("--format", args->format, "Output: jsonl (one array per line), json, npy")
      ->check(CLI::IsMember({"jsonl", "json", "npy"}));
  cmd->add_option("--invalid-utf8", args->invalid_utf8,
                  "Text that is not UTF-8: error (default) or replace with U+FFFD")
      ->check(CLI::IsMember({"error", "replace"}));
  auto* prompt = cmd->add_option("--prompt", args->prompt,
                                 "Text put before every input, as sentence-transformers' prompt= (\"\" turns the "
                                 "model's default prompt off)");
  cmd->add_option("--prompt-name", args->prompt_name,
                  "A prompt of the model's config_sentence_transformers.json, e.g. query (default: its "
                  "default_prompt_name)")
      ->excludes(prompt);
  auto* dimensions = cmd->add_option("--dimensions", args->dimensions,
                                     "Keep the first N dimensions (Matryoshka), normalized again when normalizing");
  cmd->add_option("--precision", args->precision,
                  "Output: float32, float16, int8, uint8, binary, ubinary (as sentence-transformers "
                  "quantize_embeddings)")
      ->check(CLI::IsMember({"float32", "float16", "int8", "uint8", "binary", "ubinary"}));
  cmd->add_option("--calibration", args->calibration,
                  "int8/uint8 ranges: per-dimension min and max of these vectors (.npy, or JSON arrays); "
                  "default: of the embeddings themselves");
  cmd->add_flag("--sparse", args->sparse,
                "Sparse vectors of a SPLADE model: per input, the non-zero {\"index\": token id, \"value\": "
                "weight} entries by ascending id");
  cmd->add_option("--top-k", args->top_k, "With --sparse: keep the K largest weights of each vector")
      ->check(positive_number());
  cmd->add_option("--min-weight", args->min_weight, "With --sparse: drop weights at or below W")
      ->check(non_negative_number());
  cmd->add_flag("--tokens", args->tokens,
                "With --sparse: add each id's vocabulary token as \"token\"; with --multi-vector: give each input "
                "as {\"ids\", \"tokens\", \"vectors\"}");
  cmd->add_flag("--multi-vector", args->multi_vector,
                "Token vectors of a ColBERT model: per input, an array of normalized vectors, one per token kept");
  cmd->add_flag("--query", args->query,
                "With --multi-vector: encode the inputs as queries (query marker and expansion), not documents");
  cmd->add_flag("--late-chunking", args->late_chunking,
                "Late chunking: the inputs are consecutive chunks of one document, embedded together (in overlapping "
                "windows of the model's maximum length when longer); each chunk's vector pools its own tokens' "
                "states, so it knows the text around it. One vector per input");
  cmd->add_option("--chunk-separator", args->chunk_separator,
                  "With --late-chunking: the text put between consecutive chunks (default: a space)");
  auto* overlap = cmd->add_option("--overlap", args->overlap,
                                  "With --late-chunking: tokens that consecutive windows of a long document share "
                                  "(default: a quarter of a window)");
  return [args, prompt, dimensions, overlap] {
    args->has_overlap = overlap->count() > 0;
    args->has_prompt = prompt->count() > 0;
    args->has_dimensions = dimensions->count() > 0;
    return run_embed(*args);
  };
}

}  // namespace sieve::cli
