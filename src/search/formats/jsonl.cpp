// JSON Lines (.jsonl, .ndjson): one document per line, {"id", "text", "title", metadata...}.
#include <map>
#include <nlohmann/json.hpp>

#include "json_depth.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search {
namespace {

using namespace text;
using nlohmann::json;

[[noreturn]] void jsonl_error(const std::string& source, std::size_t line, const std::string& what) {
  throw Error(ErrorCode::kParse, source + " line " + std::to_string(line) + ": " + what);
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the tag means nothing to a user.
std::string parser_message(const json::exception& e) {
  std::string_view what = e.what();
  if (!what.empty() && what.front() == '[') {
    const std::size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

std::vector<ExtractedDocument> jsonl_documents(std::string_view content, const std::string& source) {
  std::vector<ExtractedDocument> documents;
  std::map<std::string, std::size_t> id_lines;
  const std::size_t bom = strip_bom(content).size() == content.size() ? 0 : kUtf8Bom.size();
  std::size_t line_number = 0;
  for (std::size_t pos = bom; pos < content.size();) {
    const Line line = line_at(content, pos);
    const std::size_t line_start = pos;
    pos = line.next;
    ++line_number;
    const std::string where = source + " line " + std::to_string(line_number);
    require_utf8(line.text, where, line_start);
    if (trim(line.text).empty()) continue;

    json record;
    try {
      // Nested no deeper than tokenizer.json may be: a record's metadata is
      // written out again (dump), which recurses.
      record = json::parse(line.text, json_depth_limit(where));
    } catch (const json::exception& e) {
      // A syntax error, or a number beyond a double's range (1e309).
      jsonl_error(source, line_number, parser_message(e));
    }
    if (!record.is_object()) jsonl_error(source, line_number, "not a JSON object");

    ExtractedDocument doc;
    const auto id = record.find("id");
    if (id == record.end()) jsonl_error(source, line_number, "missing \"id\"");
    if (id->is_string()) {
      doc.key = id->get<std::string>();
    } else if (id->is_number_integer()) {
      doc.key = id->dump();
    } else {
      jsonl_error(source, line_number, "\"id\" must be a string or integer");
    }
    if (doc.key.empty()) jsonl_error(source, line_number, "\"id\" is empty");
    if (doc.key.find('\0') != std::string::npos) jsonl_error(source, line_number, "\"id\" holds a NUL (\\u0000)");

    const auto text = record.find("text");
    if (text == record.end()) jsonl_error(source, line_number, "missing \"text\"");
    if (!text->is_string()) jsonl_error(source, line_number, "\"text\" must be a string");
    doc.text = text->get<std::string>();

    const auto title = record.find("title");
    if (title != record.end() && !title->is_null()) {
      if (!title->is_string()) jsonl_error(source, line_number, "\"title\" must be a string");
      doc.title = title->get<std::string>();
    }

    // json objects iterate in key order, which is the order metadata is kept in.
    for (const auto& [key, value] : record.items()) {
      if (key == "id" || key == "text" || key == "title" || value.is_null()) continue;
      doc.metadata.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
    }

    const auto [previous, inserted] = id_lines.emplace(doc.key, line_number);
    if (!inserted) {
      jsonl_error(
          source, line_number,
          "duplicate \"id\" " + json(doc.key).dump() + " (first on line " + std::to_string(previous->second) + ")");
    }
    // Escapes such as \u0000 decode to valid UTF-8, so this only guards against a parser that lets through a
    // lone surrogate.
    require_utf8(doc.text, where + " \"text\"");
    for (const auto& [key, value] : doc.metadata) {
      if (key.find('\0') != std::string::npos) {
        throw Error(ErrorCode::kInvalidInput, where + ": a metadata name holds a NUL (\\u0000)");
      }
    }
    documents.push_back(std::move(doc));
  }
  return documents;
}

void extract_jsonl(const ExtractInput& input, ExtractContext& /*context*/, std::vector<ExtractedDocument>& out) {
  for (auto& doc : jsonl_documents(input.bytes, input.key)) out.push_back(std::move(doc));
}

}  // namespace

// JSON is UTF-8 by definition: a line that is not is an error, never a guess.
const FileFormat kJsonlFormat{
    .name = "jsonl",
    .label = "JSON Lines",
    .extensions = {".jsonl", ".ndjson"},
    .sniff = nullptr,
    .text_input = false,
    .binary = false,
    .extract = extract_jsonl,
};

}  // namespace sieve::search
