#include "logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <memory>
#include <string>

#include "sieve/error.hpp"
#include "sieve/logging.hpp"
#include "sieve/text.hpp"

namespace sieve {
namespace {

// The message with its control characters escaped (escape_control): log
// lines carry text from outside (file names, request paths, model names, a
// hub's answers), and no caller can forget to escape it. Newlines are
// escaped too, so that no message can forge a log line of its own.
class EscapedMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*time*/, spdlog::memory_buf_t& dest) override {
    const std::string escaped = escape_control(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(escaped.data(), escaped.data() + escaped.size());
  }
  [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<EscapedMessage>();
  }
};

}  // namespace

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto existing = spdlog::get("sieve");
    if (existing) return existing;
    auto created = spdlog::stderr_color_mt("sieve");
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<EscapedMessage>('*').set_pattern("sieve: %l: %*");
    created->set_formatter(std::move(formatter));
    return created;
  }();
  return *instance;
}

void set_log_level(std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") {
    throw Error(ErrorCode::kInvalidArgument, "unknown log level \"" + escape_control(level) + "\"");
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
