#include "server/metrics.hpp"

#include <gtest/gtest.h>

namespace sieve::server {
namespace {

TEST(Metrics, HistogramBucketsAreCumulativeWithSumAndCount) {
  Histogram h({1, 10});
  h.observe(0.5);
  h.observe(5);
  h.observe(50);
  std::string out;
  h.render(out, "x", "a=\"b\"");
  EXPECT_EQ(out,
            "x_bucket{a=\"b\",le=\"1\"} 1\n"
            "x_bucket{a=\"b\",le=\"10\"} 2\n"
            "x_bucket{a=\"b\",le=\"+Inf\"} 3\n"
            "x_sum{a=\"b\"} 55.5\n"
            "x_count{a=\"b\"} 3\n");
}

TEST(Metrics, RendersCountersGaugesAndEscapesLabels) {
  Metrics m;
  m.count_request("/embed", 200, 0.01);
  m.count_request("/embed", 200, 0.02);
  m.count_request("/embed", 422, 0.001);
  m.set_queue_depth("org/\"m\"", 5);
  BatchReport report;
  report.inputs = 3;
  report.padded_tokens = 30;
  m.observe_batch("m", report);
  const std::string text = m.render();
  EXPECT_NE(text.find("sieve_requests_total{route=\"/embed\",status=\"200\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("sieve_requests_total{route=\"/embed\",status=\"422\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("sieve_queue_depth{model=\"org/\\\"m\\\"\"} 5\n"), std::string::npos);
  EXPECT_NE(text.find("sieve_batch_size_sum 3\n"), std::string::npos);
  EXPECT_NE(text.find("sieve_batches_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE sieve_request_duration_seconds histogram\n"), std::string::npos);
  EXPECT_GT(resident_memory_bytes(), 0U);
}

}  // namespace
}  // namespace sieve::server
