#include "hub/hub_api.hpp"

#include <gtest/gtest.h>

#include "sieve/error.hpp"

namespace sieve::hub {
namespace {

std::string parse_error(std::string_view json) {
  try {
    (void)parse_repo_info(json, "metadata");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    return e.what();
  }
  return "no error";
}

// Shaped as the hub answers /api/models/{repo}/revision/{rev}?blobs=true.
TEST(HubApi, ParsesMetadata) {
  const auto info = parse_repo_info(R"({
    "_id": "621ffdc136468d709f17b7d1", "id": "sentence-transformers/all-MiniLM-L6-v2",
    "sha": "C9745ED1D9F207416BE6D2E6F8DE32D1F16199BF", "private": false,
    "siblings": [
      {"rfilename": ".gitattributes", "blobId": "a6344aac8c09253b3b630fb776ae94478aa0275b", "size": 1175},
      {"rfilename": "onnx/model.onnx", "blobId": "0c0b6f0c6ae8ba1ddaa2fc7a1d1d8a5a6b1e2c3d", "size": 90405214,
       "lfs": {"sha256": "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452",
               "size": 90405214, "pointerSize": 134}},
      {"rfilename": "tokenizer.json", "size": 466247}
    ]})",
                                    "metadata");
  EXPECT_EQ(info.id, "sentence-transformers/all-MiniLM-L6-v2");
  EXPECT_EQ(info.commit, "C9745ED1D9F207416BE6D2E6F8DE32D1F16199BF");
  ASSERT_EQ(info.siblings.size(), 3u);
  EXPECT_EQ(info.siblings[0].path, ".gitattributes");
  EXPECT_EQ(info.siblings[0].size, 1175u);
  EXPECT_EQ(info.siblings[0].blob_id, "a6344aac8c09253b3b630fb776ae94478aa0275b");
  EXPECT_FALSE(info.siblings[0].lfs_sha256);
  EXPECT_EQ(info.siblings[1].lfs_sha256, "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452");
  EXPECT_EQ(info.siblings[1].lfs_size, 90405214u);
  EXPECT_FALSE(info.siblings[2].blob_id);
}

TEST(HubApi, MalformedMetadataIsAClearError) {
  EXPECT_NE(parse_error("{\"sha\": ").find("metadata: invalid JSON at byte"), std::string::npos);
  EXPECT_NE(parse_error("[]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(parse_error(R"({"siblings": []})").find("/sha"), std::string::npos);
  EXPECT_NE(parse_error(R"({"sha": "../x", "siblings": []})").find("/sha"), std::string::npos);
  EXPECT_NE(parse_error(R"({"sha": "abc"})").find("/siblings: expected an array"), std::string::npos);
  EXPECT_NE(parse_error(R"({"sha": "abc", "siblings": [{"size": 1}]})").find("/siblings/0/rfilename"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"sha": "abc", "siblings": [{"rfilename": "a", "size": -1}]})").find("/siblings/0/size"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"sha": "abc", "siblings": [{"rfilename": "a", "lfs": {"sha256": "zz"}}]})")
                .find("/siblings/0/lfs/sha256"),
            std::string::npos);
  EXPECT_NE(
      parse_error(R"({"sha": "abc", "siblings": [{"rfilename": "a", "blobId": "123"}]})").find("/siblings/0/blobId"),
      std::string::npos);
}

TEST(HubApi, RepoIds) {
  EXPECT_NO_THROW(validate_repo_id("sentence-transformers/all-MiniLM-L6-v2"));
  EXPECT_NO_THROW(validate_repo_id("bert-base-uncased"));
  EXPECT_NO_THROW(validate_repo_id("Xenova/bge-small-en-v1.5"));
  for (const char* bad : {"", "a/b/c", "/name", "org/", "../etc", "org/..", "org/.hidden", "org/a--b", "org/a b",
                          "org/name\\x", "-org/name"}) {
    EXPECT_THROW(validate_repo_id(bad), Error) << bad;
  }
}

TEST(HubApi, RepoPaths) {
  EXPECT_NO_THROW(validate_repo_path("1_Pooling/config.json"));
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/", "a\\b"}) {
    EXPECT_THROW(validate_repo_path(bad), Error) << bad;
  }
  // Names that would rewrite the terminal showing them, or are not UTF-8.
  EXPECT_NO_THROW(validate_repo_path("onnx/mod\xC3\xA8le.onnx"));
  for (const char* bad : {"model.onnx_data\x1b[31m", "a\rb", "a\bb", "a\x7f", "a\xC2\x9b", "a\xff"}) {
    try {
      validate_repo_path(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find_first_of("\x1b\r\b\x7f\xff"), std::string::npos) << e.what();
    }
  }
}

// Expected values from Python's urllib.parse.quote, which huggingface_hub uses.
TEST(HubApi, Urls) {
  EXPECT_EQ(url_quote("refs/pr/1", false), "refs%2Fpr%2F1");
  EXPECT_EQ(url_quote("v1.0 beta+\xC3\xBC", false), "v1.0%20beta%2B%C3%BC");
  EXPECT_EQ(url_quote("onnx/model name.onnx", true), "onnx/model%20name.onnx");
  EXPECT_EQ(metadata_url("https://hub.example", "org/name", "main"),
            "https://hub.example/api/models/org/name/revision/main?blobs=true");
  EXPECT_EQ(metadata_url("http://127.0.0.1:8080", "name", "refs/pr/1"),
            "http://127.0.0.1:8080/api/models/name/revision/refs%2Fpr%2F1?blobs=true");
  EXPECT_EQ(resolve_url("https://hub.example", "org/name", "0123abc", "onnx/model_qint8_avx512.onnx"),
            "https://hub.example/org/name/resolve/0123abc/onnx/model_qint8_avx512.onnx");
  EXPECT_EQ(resolve_url("https://hub.example", "org/name", "0123abc", "1_Pooling/config.json"),
            "https://hub.example/org/name/resolve/0123abc/1_Pooling/config.json");
}

TEST(HubApi, DefaultEndpointIsThePublicHub) {
  EXPECT_EQ(kDefaultEndpoint, "https://huggingface.co");
}

}  // namespace
}  // namespace sieve::hub
