#include "server/request_json.hpp"

#include <gtest/gtest.h>

#include "server/http_error.hpp"

namespace sieve::server {
namespace {

using nlohmann::json;

int status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const HttpError& e) {
    return e.status();
  }
  return 0;
}

TEST(RequestJson, ReadsEveryInputShape) {
  EXPECT_EQ(read_inputs(json{{"input", "a"}}, "input", 10, true).texts, std::vector<std::string>{"a"});
  EXPECT_EQ(read_inputs(json{{"input", {"a", "b"}}}, "input", 10, true).texts, (std::vector<std::string>{"a", "b"}));
  const Inputs one = read_inputs(json{{"input", {101, 7, 102}}}, "input", 10, true);
  ASSERT_EQ(one.ids.size(), 1U);
  EXPECT_EQ(one.ids[0], (std::vector<std::uint32_t>{101, 7, 102}));
  const Inputs two = read_inputs(json::parse(R"({"input": [[1, 2], [3]]})"), "input", 10, true);
  EXPECT_EQ(two.ids.size(), 2U);
  EXPECT_EQ(two.size(), 2U);
}

TEST(RequestJson, RefusesBadShapesWithTheirStatus) {
  EXPECT_EQ(status_of([] { (void)read_inputs(json::object(), "input", 10, true); }), 422);
  EXPECT_EQ(status_of([] { (void)read_inputs(json{{"input", json::array()}}, "input", 10, true); }), 400);
  EXPECT_EQ(status_of([] { (void)read_inputs(json{{"input", 3}}, "input", 10, true); }), 422);
  EXPECT_EQ(status_of([] { (void)read_inputs(json::parse(R"({"input": ["a", 1]})"), "input", 10, true); }), 422);
  EXPECT_EQ(status_of([] { (void)read_inputs(json::parse(R"({"input": [1, 2]})"), "input", 10, false); }), 422);
  EXPECT_EQ(status_of([] { (void)read_inputs(json::parse(R"({"input": [[1], []]})"), "input", 10, true); }), 422);
  EXPECT_EQ(status_of([] { (void)read_inputs(json::parse(R"({"input": [-1]})"), "input", 10, true); }), 422);
  EXPECT_EQ(status_of([] { (void)read_inputs(json::parse(R"({"input": [4294967296]})"), "input", 10, true); }), 422);
  EXPECT_EQ(status_of([] { (void)read_inputs(json{{"input", {"a", "b", "c"}}}, "input", 2, true); }), 413);
  // One list of ids is one input, however long.
  EXPECT_EQ(status_of([] { (void)read_inputs(json{{"input", {1, 2, 3}}}, "input", 2, true); }), 0);
}

TEST(RequestJson, ParsesObjectsOnly) {
  EXPECT_EQ(status_of([] { (void)parse_object("{"); }), 400);
  EXPECT_EQ(status_of([] { (void)parse_object("[1]"); }), 400);
  EXPECT_EQ(status_of([] { (void)parse_object("{\"a\": \"\xff\"}"); }), 400);
  EXPECT_EQ(parse_object(R"({"a": 1})")["a"], 1);
}

TEST(RequestJson, TypedOptionalFields) {
  const json body = json::parse(R"({"b": true, "s": "x", "i": 7, "n": null, "wrong": "7", "neg": -3})");
  EXPECT_EQ(optional_bool(body, "b"), true);
  EXPECT_EQ(optional_bool(body, "missing"), std::nullopt);
  EXPECT_EQ(optional_bool(body, "n"), std::nullopt);
  EXPECT_EQ(optional_string(body, "s"), "x");
  EXPECT_EQ(optional_int(body, "i", 1, 10), 7);
  EXPECT_EQ(status_of([&] { (void)optional_int(body, "i", 8, 10); }), 422);
  EXPECT_EQ(status_of([&] { (void)optional_int(body, "neg", 0, 10); }), 422);
  EXPECT_EQ(status_of([&] { (void)optional_int(body, "wrong", 0, 10); }), 422);
  EXPECT_EQ(status_of([&] { (void)optional_bool(body, "s"); }), 422);
  EXPECT_EQ(status_of([&] { (void)required_string(body, "missing"); }), 422);
  EXPECT_TRUE(truncate_left(json{{"d", "LEFT"}}, "d"));
  EXPECT_FALSE(truncate_left(json{{"d", "Right"}}, "d"));
  EXPECT_FALSE(truncate_left(json::object(), "d"));
  EXPECT_EQ(status_of([] { (void)truncate_left(json{{"d", "up"}}, "d"); }), 422);
}

TEST(HttpErrors, LibraryErrorsMapOntoStatusesAndEachApisShape) {
  EXPECT_EQ(to_http_error(Error(ErrorCode::kInvalidInput, "too long", 3), "input").status(), 422);
  EXPECT_STREQ(to_http_error(Error(ErrorCode::kInvalidInput, "too long", 3), "input").what(), "input 3: too long");
  EXPECT_EQ(to_http_error(Error(ErrorCode::kOverloaded, "full"), "").status(), 429);
  EXPECT_EQ(to_http_error(Error(ErrorCode::kTimeout, "late"), "").status(), 503);
  EXPECT_EQ(to_http_error(Error(ErrorCode::kRuntime, "ort"), "").status(), 500);
  const HttpError e(404, "no such model", "model", "model_not_found");
  EXPECT_EQ(error_body(ApiStyle::kOpenAI, e),
            json::parse(R"({"error": {"message": "no such model", "type": "invalid_request_error",
                                      "param": "model", "code": "model_not_found"}})"));
  EXPECT_EQ(error_body(ApiStyle::kTei, HttpError(429, "busy")),
            json::parse(R"({"error": "busy", "error_type": "Overloaded"})"));
  EXPECT_EQ(error_body(ApiStyle::kCohere, e), json::parse(R"({"message": "no such model"})"));
}

}  // namespace
}  // namespace sieve::server
