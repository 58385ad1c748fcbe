// Manual pages (roff with the man macros: foo.1, foo.3ssl, and foo.1.gz through the gzip reader): the text a
// reader sees in man(1), without the formatting requests. The title is "name(section)" from .TH.
#include <map>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"

namespace sieve::search {
namespace {
namespace man_reader {

using text::is_space;

// The special characters manuals use most (groff_char(7)); others are dropped.
const std::map<std::string_view, std::string_view>& special_characters() {
  static const std::map<std::string_view, std::string_view> table = {
      {"em", "\xE2\x80\x94"},
      {"en", "\xE2\x80\x93"},
      {"hy", "-"},
      {"mi", "\xE2\x88\x92"},
      {"bu", "\xE2\x80\xA2"},
      {"co", "\xC2\xA9"},
      {"rg", "\xC2\xAE"},
      {"tm", "\xE2\x84\xA2"},
      {"aq", "'"},
      {"dq", "\""},
      {"lq", "\xE2\x80\x9C"},
      {"rq", "\xE2\x80\x9D"},
      {"oq", "\xE2\x80\x98"},
      {"cq", "\xE2\x80\x99"},
      {"ga", "`"},
      {"ha", "^"},
      {"ti", "~"},
      {"rs", "\\"},
      {"sl", "/"},
      {"<=", "\xE2\x89\xA4"},
      {">=", "\xE2\x89\xA5"},
      {"!=", "\xE2\x89\xA0"},
      {"mu", "\xC3\x97"},
      {"de", "\xC2\xB0"},
      {"->", "\xE2\x86\x92"},
      {"<-", "\xE2\x86\x90"},
      {"ba", "|"},
      {"or", "|"},
      {"pl", "+"},
      {"eq", "="},
      {"lh", "\xE2\x98\x9C"},
      {"rh", "\xE2\x98\x9E"},
  };
  return table;
}

// The name after \( (two characters), \[ (up to ]) or \* and \f and \s forms; returns what follows it.
std::size_t skip_name(std::string_view line, std::size_t i, std::string_view& name) {
  if (i >= line.size()) return i;
  if (line[i] == '(') {
    name = line.substr(i + 1, 2);
    return std::min(line.size(), i + 3);
  }
  if (line[i] == '[') {
    const std::size_t close = line.find(']', i);
    if (close == std::string_view::npos) return line.size();
    name = line.substr(i + 1, close - i - 1);
    return close + 1;
  }
  name = line.substr(i, 1);
  return i + 1;
}

// A line's text with roff's escapes resolved: fonts and sizes dropped, special characters written out.
std::string unescape(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (c != '\\' || i + 1 >= line.size()) {
      out += c;
      ++i;
      continue;
    }
    const char e = line[i + 1];
    i += 2;
    std::string_view name;
    switch (e) {
      case '"': return out;  // a comment to the end of the line
      case '-': out += '-'; break;
      case 'e':
      case '\\': out += '\\'; break;
      case ' ':
      case '~':
      case '0': out += ' '; break;
      case '&':
      case '|':
      case '^':
      case '%':
      case 'c':
      case ')':
      case ',':
      case '/': break;
      case 't': out += '\t'; break;
      case '(':
      case '[': {
        i = skip_name(line, i - 1, name);
        const auto found = special_characters().find(name);
        if (found != special_characters().end()) out += found->second;
        break;
      }
      case 'f':
      case 'F':
      case 'n':
      case '*':
      case 'g':
      case 'k':
      case 'm':
      case 'M':
      case 'Y':
      case 'V': {
        i = skip_name(line, i, name);
        // Two strings manuals define through the an macros: the quotes.
        if (e == '*' && (name == "lq" || name == "rq" || name == "Lq" || name == "Rq")) out += '"';
        if (e == '*' && name == "R") out += "\xC2\xAE";
        break;
      }
      case 's':
        // \s+2, \s-1, \s0, \s(12, \s[12]
        if (i < line.size() && (line[i] == '+' || line[i] == '-')) ++i;
        if (i < line.size() && (line[i] == '(' || line[i] == '[')) {
          i = skip_name(line, i, name);
        } else {
          while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
        }
        break;
      case 'h':
      case 'v':
      case 'w':
      case 'o':
      case 'X':
      case 'N':
      case 'D':
      case 'l':
      case 'L':
      case 'x':
      case 'b':
      case 'Z':
      case 'A':
      case 'B':
      case 'R': {
        // \h'1m' and friends: a quoted argument, dropped.
        if (i < line.size()) {
          const char quote = line[i];
          const std::size_t close = line.find(quote, i + 1);
          i = close == std::string_view::npos ? line.size() : close + 1;
        }
        break;
      }
      default: out += e; break;
    }
  }
  return out;
}

// A request's arguments: separated by blanks, "double quotes" group.
std::vector<std::string> arguments(std::string_view rest) {
  std::vector<std::string> args;
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
    if (i >= rest.size()) break;
    std::string arg;
    if (rest[i] == '"') {
      ++i;
      while (i < rest.size()) {
        if (rest[i] == '"') {
          if (i + 1 < rest.size() && rest[i + 1] == '"') {
            arg += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        arg += rest[i++];
      }
    } else {
      while (i < rest.size() && rest[i] != ' ' && rest[i] != '\t') arg += rest[i++];
    }
    args.push_back(unescape(arg));
  }
  return args;
}

std::string joined(const std::vector<std::string>& args, std::string_view separator) {
  std::string out;
  for (const auto& arg : args) {
    if (!out.empty()) out += separator;
    out += arg;
  }
  return out;
}

class ManRenderer {
 public:
  void line(std::string_view line) {
    if (skipping_) {
      if (line.starts_with("..")) skipping_ = false;
      return;
    }
    // The line after .TP (or a bare .SH) is a tag or heading: a line of its own, whether text or a request.
    const bool tag_line = tag_pending_ && !line.starts_with(".\\\"") && !line.starts_with(".TP");
    if (!line.empty() && (line.front() == '.' || line.front() == '\'')) {
      request(line.substr(1));
    } else if (fill_) {
      if (text::trim(line).empty()) {
        out_.request_break(2);
      } else {
        out_.add_flowing(unescape(line));
        out_.request_space();
      }
    } else {
      out_.add_verbatim(unescape(line));
      out_.add_line_break();
    }
    if (tag_line) {
      tag_pending_ = false;
      out_.request_break(1);
    }
  }

  std::string finish() { return out_.finish(); }
  [[nodiscard]] const std::string& title() const { return title_; }
  [[nodiscard]] const std::string& section() const { return section_; }

 private:
  void request(std::string_view rest) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    if (rest.starts_with("\\\"")) return;  // a comment line
    std::size_t end = 0;
    while (end < rest.size() && !is_space(rest[end])) ++end;
    const std::string_view macro = rest.substr(0, end);
    const std::vector<std::string> args = arguments(rest.substr(end));
    if (macro == "TH") {
      if (!args.empty()) title_ = args[0] + (args.size() > 1 ? "(" + args[1] + ")" : "");
      if (args.size() > 1) section_ = args[1];
    } else if (macro == "SH" || macro == "SS") {
      out_.request_break(2);
      if (args.empty()) {
        tag_pending_ = true;  // the heading is on the next line
      } else {
        out_.add_flowing(joined(args, " "));
        out_.request_break(1);
      }
    } else if (macro == "B" || macro == "I" || macro == "SM" || macro == "SB") {
      if (args.empty()) return;
      out_.add_flowing(joined(args, " "));
      out_.request_space();
    } else if (macro.size() == 2 && std::string_view("BIR").find(macro[0]) != std::string_view::npos &&
               std::string_view("BIR").find(macro[1]) != std::string_view::npos) {
      out_.add_flowing(joined(args, ""));  // .BR ls (1): alternating fonts, no space between
      out_.request_space();
    } else if (macro == "PP" || macro == "LP" || macro == "P" || macro == "sp" || macro == "HP") {
      out_.request_break(2);
    } else if (macro == "br") {
      out_.add_line_break();
    } else if (macro == "TP" || macro == "TQ") {
      out_.request_break(1);
      tag_pending_ = true;
    } else if (macro == "IP") {
      out_.request_break(1);
      if (!args.empty()) {
        out_.add_flowing(args[0]);
        out_.request_break(1);
      }
    } else if (macro == "nf" || macro == "EX") {
      out_.request_break(1);
      fill_ = false;
    } else if (macro == "fi" || macro == "EE") {
      out_.request_break(1);
      fill_ = true;
    } else if (macro == "de" || macro == "ig" || macro == "am") {
      skipping_ = true;  // a macro definition or ignored block, to the line ".."
    } else if (macro == "UR" || macro == "MT") {
      if (!args.empty()) {
        out_.add_flowing(args[0]);
        out_.request_space();
      }
    }
    // Everything else (.RS, .RE, .in, .ft, .ad, .hy, .ne, .so, .ds ...) only formats.
  }

  text::TextBuilder out_;
  std::string title_;
  std::string section_;
  bool fill_ = true;
  bool skipping_ = false;
  bool tag_pending_ = false;
};

void extract(const ExtractInput& input, ExtractContext& /*context*/, std::vector<ExtractedDocument>& out) {
  ManRenderer renderer;
  for (std::size_t pos = 0; pos < input.bytes.size();) {
    const text::Line line = text::line_at(input.bytes, pos);
    pos = line.next;
    renderer.line(line.text);
  }
  ExtractedDocument doc;
  doc.key = input.key;
  doc.text = renderer.finish();
  doc.title = renderer.title();
  if (!renderer.section().empty()) doc.metadata.emplace_back("section", renderer.section());
  out.push_back(std::move(doc));
}

// A manual page starts with a comment (.\" or '\") or its .TH line.
bool sniff(std::string_view head) {
  head = text::strip_bom(head);
  return head.starts_with(".\\\"") || head.starts_with("'\\\"") || head.starts_with(".TH ");
}

}  // namespace man_reader
}  // namespace

const FileFormat kManFormat{
    .name = "man",
    .label = "manual page",
    .extensions = {".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", ".1p", ".3p", ".3pm", ".1ssl", ".3ssl",
                   ".5ssl", ".7ssl", ".man"},
    .sniff = man_reader::sniff,
    .text_input = true,
    .binary = false,
    .extract = man_reader::extract,
};

}  // namespace sieve::search
