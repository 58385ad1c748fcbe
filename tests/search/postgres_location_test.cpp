#include <gtest/gtest.h>

#include "search/postgres.hpp"
#include "search/storage.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {

TEST(PostgresLocation, PasswordsAreHiddenInEveryForm) {
  EXPECT_EQ(pg::redact("postgresql://sieve:hunter2@db.example:5432/search?index=docs"),
            "postgresql://sieve:***@db.example:5432/search?index=docs");
  EXPECT_EQ(pg::redact("postgres://sieve@db/search"), "postgres://sieve@db/search");
  EXPECT_EQ(pg::redact("postgresql://db/search?user=sieve&password=hunter2&index=docs"),
            "postgresql://db/search?user=sieve&password=***&index=docs");
  // An '@' in the path or query is not the end of a user's credentials.
  EXPECT_EQ(pg::redact("postgresql://db/search?application_name=a@b"), "postgresql://db/search?application_name=a@b");
  EXPECT_EQ(shown_location("/srv/index"), "/srv/index");
}

TEST(PostgresLocation, TheIndexNameIsTakenOutOfWhatLibpqIsGiven) {
  const auto plain = pg::parse_location("postgresql://sieve@127.0.0.1:5432/search");
  EXPECT_EQ(plain.index, "default");
  EXPECT_EQ(plain.schema, "\"sieve_default\"");
  EXPECT_EQ(plain.conninfo, "postgresql://sieve@127.0.0.1:5432/search");
  const auto named =
      pg::parse_location("postgresql://sieve:pw@host/search?sslmode=disable&index=docs_2&connect_timeout=5");
  EXPECT_EQ(named.index, "docs_2");
  EXPECT_EQ(named.conninfo, "postgresql://sieve:pw@host/search?sslmode=disable&connect_timeout=5");
  EXPECT_EQ(named.shown, "postgresql://sieve:***@host/search?sslmode=disable&index=docs_2&connect_timeout=5");
  for (const char* bad :
       {"postgresql://h/db?index=", "postgresql://h/db?index=Docs", "postgresql://h/db?index=a;drop"}) {
    try {
      (void)pg::parse_location(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << bad;
    }
  }
  EXPECT_TRUE(is_postgres_location("postgres://h/db"));
  EXPECT_FALSE(is_postgres_location("postgresql-notes/index"));
}

TEST(PostgresLocation, AServerThatCannotBeReachedIsNamedWithoutItsPassword) {
  try {
    (void)open_postgres_storage("postgresql://sieve:hunter2@127.0.0.1:1/search?connect_timeout=5", std::nullopt);
    FAIL() << "connected to port 1";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kRuntime);
    EXPECT_NE(message.find("cannot connect to PostgreSQL at postgresql://sieve:***@127.0.0.1:1/search"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace sieve::search
