#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sieve/text.hpp"

namespace sieve {
namespace {

const std::vector<std::string> kCommands = {"embed", "tokenize", "info",  "rerank", "classify", "similarity",
                                            "serve", "pull",     "index", "search", "mcp",      "completion"};

TEST(ClosestMatch, SuggestsTheNearestByEditsIncludingSwaps) {
  EXPECT_EQ(closest_match("serach", kCommands), "search");  // two letters swapped: one edit
  EXPECT_EQ(closest_match("emebd", kCommands), "embed");
  EXPECT_EQ(closest_match("serv", kCommands), "serve");
  EXPECT_EQ(closest_match("RERANK", kCommands), "rerank");  // case does not count
  EXPECT_EQ(closest_match("modle", {"model", "models", "mode"}), "model");
  EXPECT_EQ(closest_match("batchsize", {"batch-size", "max-length"}), "batch-size");
}

TEST(ClosestMatch, NothingWhenNoneIsClose) {
  EXPECT_EQ(closest_match("frobnicate", kCommands), "");
  EXPECT_EQ(closest_match("x", kCommands), "");
  EXPECT_EQ(closest_match("", {}), "");
  EXPECT_EQ(closest_match("anything", {}), "");
}

}  // namespace
}  // namespace sieve
