// Source code and configuration files, by name: read as the text they are, with the language as metadata
// ("language": "C++"), so that a search can be narrowed to it.
#include <map>

#include "search/formats/code_units.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"

namespace sieve::search {
namespace {
namespace source_reader {

// File name endings (and whole names, for files such as Makefile) and their languages.
const std::map<std::string_view, std::string_view>& languages() {
  static const std::map<std::string_view, std::string_view> table = {
      {".c", "C"},
      {".h", "C"},
      {".cc", "C++"},
      {".cpp", "C++"},
      {".cxx", "C++"},
      {".hh", "C++"},
      {".hpp", "C++"},
      {".hxx", "C++"},
      {".cs", "C#"},
      {".go", "Go"},
      {".rs", "Rust"},
      {".zig", "Zig"},
      {".java", "Java"},
      {".kt", "Kotlin"},
      {".scala", "Scala"},
      {".swift", "Swift"},
      {".py", "Python"},
      {".pyi", "Python"},
      {".rb", "Ruby"},
      {".pl", "Perl"},
      {".pm", "Perl"},
      {".php", "PHP"},
      {".lua", "Lua"},
      {".r", "R"},
      {".js", "JavaScript"},
      {".mjs", "JavaScript"},
      {".cjs", "JavaScript"},
      {".ts", "TypeScript"},
      {".tsx", "TypeScript"},
      {".jsx", "JavaScript"},
      {".css", "CSS"},
      {".sh", "Shell"},
      {".bash", "Shell"},
      {".zsh", "Shell"},
      {".fish", "Shell"},
      {".el", "Emacs Lisp"},
      {".scm", "Scheme"},
      {".lisp", "Lisp"},
      {".hs", "Haskell"},
      {".ml", "OCaml"},
      {".sql", "SQL"},
      {".cmake", "CMake"},
      {".mk", "Makefile"},
      {".json", "JSON"},
      {".yaml", "YAML"},
      {".yml", "YAML"},
      {".toml", "TOML"},
      {".ini", "INI"},
      {".cfg", "INI"},
      {".conf", "configuration"},
      {".xml", "XML"},
      {".properties", "properties"},
      {".vim", "Vim script"},
      {".tex", "TeX"},
      {".diff", "diff"},
      {".patch", "diff"},
      {"makefile", "Makefile"},
      {"gnumakefile", "Makefile"},
      {"cmakelists.txt", "CMake"},
      {"dockerfile", "Dockerfile"},
      {"containerfile", "Dockerfile"},
  };
  return table;
}

std::vector<std::string_view> names() {
  std::vector<std::string_view> out;
  for (const auto& [name, language] : languages()) out.push_back(name);
  return out;
}

std::string_view language_of(std::string_view file_name) {
  const std::string name = text::lowercase(file_name);
  const auto& table = languages();
  if (const auto whole = table.find(name); whole != table.end()) return whole->second;
  std::string_view best;
  std::size_t best_length = 0;
  for (const auto& [ending, language] : table) {
    if (ending.front() == '.' && name.size() > ending.size() && name.ends_with(ending) && ending.size() > best_length) {
      best = language;
      best_length = ending.size();
    }
  }
  return best;
}

void extract(const ExtractInput& input, ExtractContext& /*context*/, std::vector<ExtractedDocument>& out) {
  ExtractedDocument doc;
  doc.key = input.key;
  doc.text = std::string(input.bytes);
  if (const std::string_view language = language_of(input.name); !language.empty()) {
    doc.metadata.emplace_back("language", std::string(language));
  }
  doc.breaks = code_unit_starts(doc.text);
  out.push_back(std::move(doc));
}

}  // namespace source_reader
}  // namespace

const FileFormat kSourceCodeFormat{
    .name = "code",
    .label = "source code or configuration",
    .extensions = source_reader::names(),
    .sniff = nullptr,
    .text_input = true,
    .binary = false,
    .extract = source_reader::extract,
};

}  // namespace sieve::search
