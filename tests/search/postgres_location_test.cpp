#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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

using Parameters = std::vector<std::pair<std::string, std::string>>;

TEST(PostgresLocation, TheIndexNameIsTakenOutOfWhatLibpqIsGiven) {
  const auto plain = pg::parse_location("postgresql://sieve@127.0.0.1:5432/search");
  EXPECT_EQ(plain.index, "default");
  EXPECT_EQ(plain.schema, "\"sieve_default\"");
  EXPECT_EQ(plain.parameters,
            (Parameters{{"host", "127.0.0.1"}, {"port", "5432"}, {"user", "sieve"}, {"dbname", "search"}}));
  const auto named =
      pg::parse_location("postgresql://sieve:pw@host/search?sslmode=disable&index=docs_2&connect_timeout=5");
  EXPECT_EQ(named.index, "docs_2");
  EXPECT_EQ(named.parameters, (Parameters{{"host", "host"},
                                          {"user", "sieve"},
                                          {"password", "pw"},
                                          {"dbname", "search"},
                                          {"sslmode", "disable"},
                                          {"connect_timeout", "5"}}));
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

TEST(PostgresLocation, APasswordIsReadWholeWhateverItHolds) {
  // '?', '@' and ':' as typed; '/' and anything else percent-escaped.
  for (const auto& [uri, password, shown] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"postgresql://sieve:pa?ss@db/search?index=docs", "pa?ss", "postgresql://sieve:***@db/search?index=docs"},
           {"postgresql://sieve:x?y@db?index=docs", "x?y", "postgresql://sieve:***@db?index=docs"},
           {"postgresql://sieve:p@ss:w@db:5433/search", "p@ss:w", "postgresql://sieve:***@db:5433/search"},
           {"postgresql://sieve:a%2Fb%25c@db/search", "a/b%c", "postgresql://sieve:***@db/search"},
           {"postgres://sieve:&index=x@db/search", "&index=x", "postgres://sieve:***@db/search"}}) {
    const auto location = pg::parse_location(uri);
    EXPECT_EQ(location.password, password) << uri;
    EXPECT_EQ(location.shown, shown) << uri;
    EXPECT_EQ(pg::redact(uri), shown) << uri;
    EXPECT_EQ(location.index, uri.find("index=docs") != std::string::npos ? "docs" : "default") << uri;
    const Parameters& parameters = location.parameters;
    EXPECT_NE(
        std::find(parameters.begin(), parameters.end(), std::pair<std::string, std::string>("password", password)),
        parameters.end())
        << uri;
    EXPECT_NE(std::find(parameters.begin(), parameters.end(), std::pair<std::string, std::string>("host", "db")),
              parameters.end())
        << uri;
  }
}

TEST(PostgresLocation, HostsPortsSocketsAndParametersAsLibpqReadsThem) {
  EXPECT_EQ(pg::parse_location("postgresql://[::1]:5432/db").parameters,
            (Parameters{{"host", "::1"}, {"port", "5432"}, {"dbname", "db"}}));
  EXPECT_EQ(pg::parse_location("postgresql://h1:1,h2:2/db").parameters,
            (Parameters{{"host", "h1,h2"}, {"port", "1,2"}, {"dbname", "db"}}));
  EXPECT_EQ(
      pg::parse_location("postgresql://%2Fvar%2Frun%2Fpostgresql/db?ssl=true&application_name=a%20b").parameters,
      (Parameters{
          {"host", "/var/run/postgresql"}, {"dbname", "db"}, {"sslmode", "require"}, {"application_name", "a b"}}));
  // Nothing but a database: libpq's defaults (PGHOST, the local socket) pick the server.
  EXPECT_EQ(pg::parse_location("postgresql:///db").parameters, (Parameters{{"dbname", "db"}}));
  // A database name is never read as another connection string.
  EXPECT_EQ(pg::parse_location("postgresql://h/host%3Devil").parameters,
            (Parameters{{"host", "h"}, {"dbname", "host=evil"}}));
  const auto with_parameter = pg::parse_location("postgresql://db/search?user=sieve&password=hunter2&index=docs");
  EXPECT_EQ(with_parameter.password, "hunter2");
  EXPECT_EQ(with_parameter.shown, "postgresql://db/search?user=sieve&password=***&index=docs");
}

TEST(PostgresLocation, WhatCannotBeReadIsRefusedWithoutShowingThePassword) {
  // An unescaped '/' in the password, an escape that is not one, a password where a port would be.
  for (const char* bad : {"postgresql://sieve:hun/ter2@db/search", "postgresql://sieve:hunter2%zz@db/search",
                          "postgresql://sieve:hunter2%00@db/search", "postgresql://sieve:hunter2/search",
                          "postgresql://sieve:hun/ter2@db", "postgresql://db/search?hunter2",
                          "postgresql://[::1/search?password=hunter2"}) {
    try {
      (void)pg::parse_location(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << bad;
      EXPECT_EQ(message.find("hun"), std::string::npos) << message;
      EXPECT_EQ(message.find("ter2"), std::string::npos) << message;
      EXPECT_NE(message.find("cannot be read"), std::string::npos) << message;
    }
    EXPECT_EQ(pg::redact(bad).find("ter2"), std::string::npos) << pg::redact(bad);
  }
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
