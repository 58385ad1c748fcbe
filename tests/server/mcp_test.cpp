#include "server/mcp.hpp"

#include <gtest/gtest.h>

namespace sieve::server {
namespace {

using nlohmann::json;

// The protocol core with no index: what does not need one.
class McpCore : public ::testing::Test {
 protected:
  McpCore() : indexes_({}, EmbedderOptions{}), mcp_(indexes_, McpOptions{"1.0"}) {}

  json request(const json& message) {
    auto answer = mcp_.handle(message, session_);
    EXPECT_TRUE(answer.has_value()) << message.dump();
    return answer.value_or(json());
  }
  static json call(int id, const std::string& method, json params = json::object()) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  }
  json initialize(const std::string& version) {
    return request(call(1, "initialize", {{"protocolVersion", version}, {"capabilities", json::object()}}));
  }
  static int code_of(const json& answer) { return answer.at("error").at("code").get<int>(); }

  ServedIndexes indexes_;
  McpServer mcp_;
  McpSession session_;
};

TEST_F(McpCore, NegotiatesTheProtocolVersion) {
  EXPECT_EQ(initialize("2025-03-26")["result"]["protocolVersion"], "2025-03-26");
  EXPECT_EQ(session_.protocol_version, "2025-03-26");
  EXPECT_EQ(code_of(initialize("2025-03-26")), McpServer::kInvalidRequest);  // once per session
  session_ = {};
  EXPECT_EQ(initialize("1999-01-01")["result"]["protocolVersion"], McpServer::protocol_versions().back());
  EXPECT_TRUE(McpServer::supports("2025-11-25"));
  EXPECT_FALSE(McpServer::supports("2026-99-99"));
}

TEST_F(McpCore, AnswersJsonRpcErrors) {
  auto parse = mcp_.handle_text("{\"jsonrpc\": ", session_);
  ASSERT_TRUE(parse);
  EXPECT_EQ(code_of(*parse), McpServer::kParseError);
  EXPECT_TRUE((*parse)["id"].is_null());
  EXPECT_EQ(code_of(request(json::array())), McpServer::kInvalidRequest);
  EXPECT_EQ(code_of(request(json(3))), McpServer::kInvalidRequest);
  EXPECT_EQ(code_of(request({{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}})), McpServer::kInvalidRequest);
  EXPECT_EQ(code_of(request({{"jsonrpc", "2.0"}, {"id", 1}, {"method", 7}})), McpServer::kInvalidRequest);
  EXPECT_EQ(code_of(request({{"jsonrpc", "2.0"}, {"id", json::array()}, {"method", "ping"}})),
            McpServer::kInvalidRequest);
  // Before initialize only ping is answered.
  EXPECT_EQ(request(call(2, "ping"))["result"], json::object());
  EXPECT_EQ(code_of(request(call(3, "tools/list"))), McpServer::kInvalidRequest);
  EXPECT_EQ(code_of(request(call(4, "initialize", {{"capabilities", json::object()}}))), McpServer::kInvalidParams);
  initialize("2025-11-25");
  EXPECT_EQ(code_of(request(call(5, "no/such/method"))), McpServer::kMethodNotFound);
  EXPECT_EQ(code_of(request({{"jsonrpc", "2.0"}, {"id", 6}, {"method", "ping"}, {"params", {1, 2}}})),
            McpServer::kInvalidParams);
  EXPECT_EQ(code_of(request(call(7, "tools/call", {{"name", "rm"}}))), McpServer::kInvalidParams);
  EXPECT_EQ(code_of(request(call(8, "tools/call"))), McpServer::kInvalidParams);
  EXPECT_EQ(code_of(request(call(9, "resources/read"))), McpServer::kInvalidParams);
  EXPECT_EQ(code_of(request(call(10, "resources/read", {{"uri", "sieve://x/documents/y"}}))),
            McpServer::kResourceNotFound);
  EXPECT_EQ(code_of(request(call(11, "resources/list", {{"cursor", "nonsense"}}))), McpServer::kInvalidParams);
  // Notifications and a client's responses get no answer.
  EXPECT_FALSE(mcp_.handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, session_));
  EXPECT_TRUE(session_.initialized);
  EXPECT_FALSE(mcp_.handle({{"jsonrpc", "2.0"}, {"id", 1}, {"result", json::object()}}, session_));
}

TEST_F(McpCore, ToolErrorsAreResults) {
  initialize("2025-11-25");
  const json answer = request(call(2, "tools/call", {{"name", "search"}, {"arguments", {{"query", "x"}}}}));
  EXPECT_EQ(answer["result"]["isError"], true);
  EXPECT_FALSE(answer["result"]["content"][0]["text"].get<std::string>().empty());
  const json bad = request(call(3, "tools/call", {{"name", "list_indexes"}, {"arguments", 5}}));
  EXPECT_EQ(bad["result"]["isError"], true);
  const json listed = request(call(4, "tools/call", {{"name", "list_indexes"}}));
  EXPECT_EQ(listed["result"]["structuredContent"], (json{{"indexes", json::array()}}));
  EXPECT_EQ(request(call(5, "resources/list"))["result"], (json{{"resources", json::array()}}));
}

TEST(McpUri, PercentEncodesNamesAndIds) {
  EXPECT_EQ(percent_encode("a/b c%~._-Z9"), "a%2Fb%20c%25~._-Z9");
  EXPECT_EQ(percent_encode("\xC3\xA9"), "%C3%A9");
  EXPECT_EQ(mcp_document_uri("notes", "/home/me/a.md"), "sieve://notes/documents/%2Fhome%2Fme%2Fa.md");
}

}  // namespace
}  // namespace sieve::server
