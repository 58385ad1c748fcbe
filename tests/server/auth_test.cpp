#include "server/auth.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "sieve/error.hpp"

namespace sieve::server {
namespace {

TEST(ApiKeys, AcceptsOnlyAPresentedKeyWithTheBearerScheme) {
  const ApiKeys keys({"alpha-key", "beta"});
  EXPECT_TRUE(keys.enabled());
  EXPECT_TRUE(keys.accepts("Bearer alpha-key"));
  EXPECT_TRUE(keys.accepts("bearer beta"));
  EXPECT_FALSE(keys.accepts("Bearer alpha-ke"));
  EXPECT_FALSE(keys.accepts("Bearer alpha-key "));
  EXPECT_FALSE(keys.accepts("Bearer "));
  EXPECT_FALSE(keys.accepts("Basic alpha-key"));
  EXPECT_FALSE(keys.accepts("alpha-key"));
  EXPECT_FALSE(keys.accepts(""));
  EXPECT_FALSE(ApiKeys().enabled());
}

TEST(ApiKeys, ConstantTimeEqualityIsEquality) {
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "ab"));
  EXPECT_FALSE(constant_time_equal("ab", "abc"));
  EXPECT_FALSE(constant_time_equal(std::string_view("a\0", 2), "a"));
}

TEST(ApiKeys, LoadsFromTheEnvironmentAndAFile) {
  const auto file = std::filesystem::temp_directory_path() / "sieve_auth_test_keys";
  {
    std::ofstream out(file);
    out << "# comment\n\n  file-key  \n";
  }
  ::setenv("SIEVE_AUTH_TEST_KEYS", " env-one , env-two,", 1);
  const ApiKeys keys = ApiKeys::load("SIEVE_AUTH_TEST_KEYS", file);
  EXPECT_TRUE(keys.accepts("Bearer env-one"));
  EXPECT_TRUE(keys.accepts("Bearer env-two"));
  EXPECT_TRUE(keys.accepts("Bearer file-key"));
  EXPECT_FALSE(keys.accepts("Bearer # comment"));
  ::unsetenv("SIEVE_AUTH_TEST_KEYS");
  EXPECT_THROW((void)ApiKeys::load("SIEVE_AUTH_TEST_KEYS", file.string() + ".missing"), Error);
  {
    std::ofstream out(file);
    out << "# only a comment\n";
  }
  EXPECT_THROW((void)ApiKeys::load("SIEVE_AUTH_TEST_KEYS", file), Error);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace sieve::server
