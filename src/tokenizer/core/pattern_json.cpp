#include "tokenizer/core/pattern_json.hpp"

namespace sieve::tokenizer {

Regex pattern_from_json(const JsonView& pattern) {
  pattern.expect_object();
  if (const auto literal = pattern.find("String")) return Regex::literal(literal->as_string());
  if (const auto expression = pattern.find("Regex")) {
    try {
      return Regex(expression->as_string());
    } catch (const Error& e) {
      expression->fail(e.message());
    }
  }
  pattern.fail("expected a \"String\" or \"Regex\" pattern");
}

}  // namespace sieve::tokenizer
