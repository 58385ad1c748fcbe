#include "server/http_message.hpp"

#include <gtest/gtest.h>

#include "server/http_error.hpp"
#include "server/request_json.hpp"
#include "server/response_budget.hpp"

namespace sieve::server {
namespace {

TEST(HttpMessage, SplitsAndDecodesTargets) {
  const auto t = split_target("/v1/indexes/my%20notes?model=a%2Bb&x=1+2&flag&=v");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->first, "/v1/indexes/my notes");
  ASSERT_EQ(t->second.size(), 4U);
  EXPECT_EQ(t->second[0], (std::pair<std::string, std::string>{"model", "a+b"}));
  EXPECT_EQ(t->second[1], (std::pair<std::string, std::string>{"x", "1 2"}));
  EXPECT_EQ(t->second[2], (std::pair<std::string, std::string>{"flag", ""}));
  EXPECT_EQ(t->second[3], (std::pair<std::string, std::string>{"", "v"}));
  // A '+' in a path is a '+'.
  EXPECT_EQ(split_target("/a+b")->first, "/a+b");
}

TEST(HttpMessage, RefusesMalformedTargets) {
  for (const char* bad :
       {"", "embed", "http://host/embed", "*", "/a%", "/a%2", "/a%zz", "/a%00b", "/?q=%0", "/?q=%00"}) {
    EXPECT_FALSE(split_target(bad)) << bad;
  }
}

TEST(HttpMessage, HeadersCompareWithoutCase) {
  Request req;
  req.headers = {{"authorization", "Bearer a"}, {"AUTHORIZATION", "Bearer b"}};
  EXPECT_EQ(req.header("Authorization"), "Bearer a");
  EXPECT_EQ(req.header("X-Missing"), "");
  Response res;
  res.set_header("Vary", "Origin");
  res.set_header("vary", "Accept");
  ASSERT_EQ(res.headers.size(), 1U);
  EXPECT_EQ(res.header("VARY").value_or(""), "Accept");
}

int refusal_status(const std::function<void()>& f) {
  try {
    f();
  } catch (const HttpError& e) {
    return e.status();
  }
  return 0;
}

TEST(HttpMessage, BodiesWithNumbersOutOfRangeOrDeepNestingAre400) {
  try {
    (void)parse_object(R"({"inputs": "a", "dimensions": 1e309})");
    FAIL();
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(e.param(), "dimensions");
  }
  const std::string deep = "{\"a\": " + std::string(65, '[') + std::string(65, ']') + "}";
  EXPECT_EQ(refusal_status([&] { (void)parse_object(deep); }), 400);
  const std::string fine = "{\"a\": " + std::string(60, '[') + std::string(60, ']') + "}";
  EXPECT_EQ(refusal_status([&] { (void)parse_object(fine); }), 0);
}

TEST(ResponseBudget, RefusesAnswersOverTheLimitNamingIt) {
  const ResponseBudget budget(1000, "inputs");
  EXPECT_EQ(refusal_status([&] { budget.expect(1000, "x"); }), 0);
  EXPECT_EQ(refusal_status([&] { budget.expect(1001, "x"); }), 413);
  try {
    budget.check(5000);
    FAIL();
  } catch (const HttpError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-response-bytes"), std::string::npos);
    EXPECT_EQ(e.param(), "inputs");
  }
}

TEST(ResponseBudget, TextIsValidJsonWhateverItsBytes) {
  std::string out;
  append_text_json(out, "caf\xc3\xa9 \"q\"");
  EXPECT_EQ(out, "\"caf\xc3\xa9 \\\"q\\\"\"");
  out.clear();
  append_text_json(out, "cut \xc3");  // half a character
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), "cut \xef\xbf\xbd");
  for (const char* bad : {"\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "\xe0\x80\xaf"}) {
    out.clear();
    append_text_json(out, bad);
    EXPECT_TRUE(nlohmann::json::accept(out)) << out;
  }
}

}  // namespace
}  // namespace sieve::server
