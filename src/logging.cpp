#include "logging.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <string>

#include "sieve/error.hpp"
#include "sieve/logging.hpp"

namespace sieve {

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto existing = spdlog::get("sieve");
    if (existing) return existing;
    auto created = spdlog::stderr_color_mt("sieve");
    created->set_pattern("sieve: %l: %v");
    return created;
  }();
  return *instance;
}

void set_log_level(std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") {
    throw Error(ErrorCode::kInvalidArgument, "unknown log level \"" + std::string(level) + "\"");
  }
  logger().set_level(parsed);
}

void log_info(std::string_view message) {
  logger().info("{}", message);
}
void log_warn(std::string_view message) {
  logger().warn("{}", message);
}
void log_error(std::string_view message) {
  logger().error("{}", message);
}

}  // namespace sieve
