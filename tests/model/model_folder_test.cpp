#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "model/model_folder.hpp"
#include "model/onnx_summary.hpp"
#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "support/paths.hpp"

namespace sieve::model {
namespace {

namespace fs = std::filesystem;

// A scratch copy of a fixture folder that a test may damage.
class DamagedFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sieve-folder-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(testing::fixtures_dir() / "tiny-bert-tokens", dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << content;
  }
  std::string load_error() {
    try {
      (void)Embedder::load(dir_);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(DamagedFolder, TokenIdsPastTheEmbeddingMatrixAreRefused) {
  const OnnxSummary summary = read_onnx_summary(dir_ / "model.onnx");
  EXPECT_EQ(summary.id_vocabulary, 30522U);
  EXPECT_EQ(summary.id_table, "embeddings.word_embeddings.weight [30522, 32]");
  // tokenizer.json with one more added token, past the matrix's 30522 rows.
  std::ifstream in(dir_ / "tokenizer.json");
  auto doc = nlohmann::json::parse(in);
  doc["added_tokens"].push_back({{"id", 30522},
                                 {"content", "[EXTRA]"},
                                 {"special", true},
                                 {"normalized", false},
                                 {"lstrip", false},
                                 {"rstrip", false},
                                 {"single_word", false}});
  write("tokenizer.json", doc.dump());
  const std::string error = load_error();
  EXPECT_NE(error.find((dir_ / "tokenizer.json").string() + " gives token ids up to 30522"), std::string::npos)
      << error;
  EXPECT_NE(error.find((dir_ / "model.onnx").string() + " embeds 30522 token ids"), std::string::npos) << error;
  // Fewer ids than rows is fine: the added token and the last vocabulary entry taken away.
  doc["added_tokens"].erase(doc["added_tokens"].size() - 1);
  auto& vocab = doc["model"]["vocab"];
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (it.value() == 30521) {
      vocab.erase(it);
      break;
    }
  }
  write("tokenizer.json", doc.dump());
  EXPECT_EQ(load_error(), "");
}

TEST_F(DamagedFolder, MissingModelIsNamed) {
  fs::remove(dir_ / "model.onnx");
  EXPECT_NE(load_error().find("model.onnx"), std::string::npos);
}

TEST_F(DamagedFolder, OnnxSubfolderIsFound) {
  fs::create_directories(dir_ / "onnx");
  fs::rename(dir_ / "model.onnx", dir_ / "onnx/model.onnx");
  EXPECT_EQ(read_model_folder(dir_).onnx_file, dir_ / "onnx/model.onnx");
}

TEST_F(DamagedFolder, MissingTokenizerIsNamed) {
  fs::remove(dir_ / "tokenizer.json");
  EXPECT_NE(load_error().find("tokenizer.json"), std::string::npos);
}

TEST_F(DamagedFolder, CorruptFilesAreNamed) {
  write("config.json", "{not json");
  EXPECT_NE(load_error().find("config.json: invalid JSON"), std::string::npos);
  fs::copy_file(testing::fixtures_dir() / "tiny-bert-tokens/config.json", dir_ / "config.json",
                fs::copy_options::overwrite_existing);
  write("1_Pooling/config.json", "[]");
  EXPECT_NE(load_error().find("1_Pooling/config.json"), std::string::npos);
  write("1_Pooling/config.json", R"({"pooling_mode": "median"})");
  EXPECT_NE(load_error().find("unknown pooling \"median\""), std::string::npos);
}

TEST_F(DamagedFolder, CorruptOnnxIsAnErrorNotACrash) {
  write("model.onnx", "this is not a protobuf");
  EXPECT_NE(load_error().find("model.onnx"), std::string::npos);
  write("model.onnx", "");
  EXPECT_FALSE(load_error().empty());
}

TEST_F(DamagedFolder, TruncatedTokenizerIsAParseError) {
  write("tokenizer.json", R"({"model": {"type": "WordPiece", "vocab": )");
  EXPECT_NE(load_error().find("tokenizer.json: invalid JSON"), std::string::npos);
}

TEST(ModelFolder, MissingFolder) {
  try {
    (void)read_model_folder("/nonexistent/model");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
}

TEST(ModelFolder, ReadsSentenceTransformersFiles) {
  const auto f = read_model_folder(testing::fixtures_dir() / "tiny-bert-tokens");
  ASSERT_NE(f.pooling, nullptr);
  EXPECT_EQ(f.pooling->modes(), std::vector<Pooling>{Pooling::kMean});
  EXPECT_TRUE(f.has_normalize_module);
  EXPECT_EQ(f.max_seq_length, 128U);
  EXPECT_EQ(f.hidden_size, 32U);
}

}  // namespace
}  // namespace sieve::model
