#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "model/llm_reranker.hpp"
#include "sieve/error.hpp"
#include "support/temp_folder.hpp"

namespace sieve::model {
namespace {

namespace fs = std::filesystem;

class LlmRerankerFile : public testing::TempFolderTest {
 protected:
  void write(const std::string& text) const { write_file(kLlmRerankerFile, text); }
};

TEST_F(LlmRerankerFile, AbsentIsNotAnLlmReranker) {
  EXPECT_FALSE(read_llm_reranker(dir_).has_value());
}

TEST_F(LlmRerankerFile, ReadsTheDescription) {
  write(R"({"prefix": "<s>", "suffix": "</s>", "template": "<I>: {instruction}\n<Q>: {query}\n<D>: {document}",
            "instruction": "Judge", "yes_token": "yes", "no_token": "no", "max_length": 8192})");
  const auto config = read_llm_reranker(dir_);
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->prefix, "<s>");
  EXPECT_EQ(config->suffix, "</s>");
  EXPECT_EQ(config->max_length, 8192U);
  EXPECT_EQ(fill_llm_template(*config, "q?", "d."), "<I>: Judge\n<Q>: q?\n<D>: d.");
}

TEST_F(LlmRerankerFile, PlaceholdersInTheTextsStayAsTyped) {
  write(R"({"prefix": "", "suffix": "", "template": "{query}|{document}|{other}", "yes_token": "yes",
            "no_token": "no"})");
  const auto config = read_llm_reranker(dir_);
  ASSERT_TRUE(config.has_value());
  // A query mentioning "{document}" is not filled in a second time.
  EXPECT_EQ(fill_llm_template(*config, "{document}", "{query}"), "{document}|{query}|{other}");
}

TEST_F(LlmRerankerFile, MissingFieldsAndPlaceholdersAreNamed) {
  write(R"({"prefix": "", "suffix": "", "template": "{query}", "yes_token": "yes", "no_token": "no"})");
  try {
    (void)read_llm_reranker(dir_);
    FAIL() << "a template without {document} was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("{document}"), std::string::npos) << e.what();
  }
  write(R"({"prefix": "", "template": "{query} {document}", "yes_token": "yes", "no_token": "no"})");
  try {
    (void)read_llm_reranker(dir_);
    FAIL() << "a file without a suffix was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/suffix"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sieve::model
