#include "search/formats/code_units.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sieve::search {
namespace {

// The first line of each unit found, for readable expectations.
std::vector<std::string> unit_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::size_t at : code_unit_starts(text)) {
    EXPECT_TRUE(at == 0 || text[at - 1] == '\n') << at;
    lines.push_back(text.substr(at, text.find('\n', at) - at));
  }
  return lines;
}

TEST(CodeUnits, PythonClassesMethodsAndDecoratedFunctions) {
  const std::string text =
      "import os\n"
      "\n"
      "class Reader:\n"
      "    \"\"\"Reads.\"\"\"\n"
      "    def __init__(self):\n"
      "        self.x = 1\n"
      "\n"
      "    def read(self):\n"
      "        return self.x\n"
      "\n"
      "# A helper.\n"
      "@cache\n"
      "def helper(value):\n"
      "    return value\n";
  EXPECT_EQ(unit_lines(text), (std::vector<std::string>{
                                  "class Reader:", "    def __init__(self):", "    def read(self):", "# A helper."}));
}

TEST(CodeUnits, BraceLanguagesWithModifiersCommentsAndClosers) {
  const std::string text =
      "#include <x.h>\n"
      "\n"
      "/* Adds. */\n"
      "static int add(int a, int b) {\n"
      "  return a + b;\n"
      "}\n"
      "\n"
      "}  // namespace\n"
      "pub fn run() -> u32 {\n"
      "    0\n"
      "}\n"
      "export default function render() {}\n"
      "        def deeply_indented(): pass\n";
  // "static int add" is not a definer's line, but it starts at column 0 after a blank line, with its comment;
  // a closing brace after a blank line is not a unit.
  EXPECT_EQ(unit_lines(text),
            (std::vector<std::string>{"/* Adds. */", "pub fn run() -> u32 {", "export default function render() {}"}));
}

TEST(CodeUnits, NoUnitsInEmptyOrOneLineText) {
  EXPECT_TRUE(code_unit_starts("").empty());
  EXPECT_TRUE(code_unit_starts("def only():").empty());  // a unit at offset 0 is no break
  EXPECT_TRUE(code_unit_starts("\n\n\n").empty());
}

}  // namespace
}  // namespace sieve::search
