#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "sieve/hub.hpp"
#include "sieve/text.hpp"

namespace sieve {
namespace {

using Clock = std::chrono::steady_clock;

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) {
    bytes /= 1000;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

std::string human_seconds(double seconds) {
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%.0fs", seconds);
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof text, "%dm%02ds", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
  } else {
    std::snprintf(text, sizeof text, "%dh%02dm", static_cast<int>(seconds) / 3600,
                  static_cast<int>(seconds) % 3600 / 60);
  }
  return text;
}

class StderrProgress final : public ProgressSink {
 public:
  explicit StderrProgress(bool quiet) : quiet_(quiet), terminal_(isatty(STDERR_FILENO) == 1) {}

  void file_started(const std::string& path, std::uint64_t offset, std::uint64_t total) override {
    start_ = Clock::now();
    last_draw_ = {};
    offset_ = offset;
    if (terminal_ && !quiet_) draw(path, offset, total, true);
  }

  void file_progress(const std::string& path, std::uint64_t done, std::uint64_t total) override {
    // Redrawing more often than ten times a second only costs time.
    if (terminal_ && !quiet_ && Clock::now() - last_draw_ >= std::chrono::milliseconds(100)) {
      draw(path, done, total, false);
    }
  }

  void file_done(const std::string& path, std::uint64_t size, std::uint64_t fetched, double seconds) override {
    if (quiet_) return;
    std::string line = "sieve: ";
    line.append(escape_control(path)).append("  ").append(human_bytes(static_cast<double>(size)));
    if (fetched == 0) {
      line.append("  (already complete)");
    } else {
      line.append("  fetched ").append(human_bytes(static_cast<double>(fetched)));
      line.append(" in ").append(human_seconds(seconds));
      if (seconds > 0) line.append(", ").append(human_bytes(static_cast<double>(fetched) / seconds)).append("/s");
      if (fetched < size) line.append(" (resumed)");
    }
    std::fprintf(stderr, "%s%s\n", terminal_ ? "\r\x1b[K" : "", line.c_str());
  }

  void note(const std::string& message) override {
    if (quiet_) return;
    std::fprintf(stderr, "%ssieve: %s\n", terminal_ ? "\r\x1b[K" : "", escape_control(message).c_str());
  }

  void warning(const std::string& message) override {
    std::fprintf(stderr, "%ssieve: warning: %s\n", terminal_ ? "\r\x1b[K" : "", escape_control(message).c_str());
  }

 private:
  void draw(const std::string& path, std::uint64_t done, std::uint64_t total, bool first) {
    last_draw_ = Clock::now();
    const double elapsed = std::chrono::duration<double>(last_draw_ - start_).count();
    const double rate = elapsed > 0 && !first ? static_cast<double>(done - offset_) / elapsed : 0;
    std::string line = escape_control(path);
    line.append("  ");
    if (total > 0) {
      const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
      const int width = 24;
      const int filled = static_cast<int>(fraction * width);
      line.append("[").append(static_cast<std::size_t>(filled), '#');
      line.append(static_cast<std::size_t>(width - filled), '.').append("] ");
      char percent[16];
      std::snprintf(percent, sizeof percent, "%3.0f%% ", fraction * 100);
      line += percent;
    }
    line.append(human_bytes(static_cast<double>(done)));
    if (total > 0) line.append("/").append(human_bytes(static_cast<double>(total)));
    if (rate > 0) {
      line.append("  ").append(human_bytes(rate)).append("/s");
      if (total > done) line.append("  ETA ").append(human_seconds(static_cast<double>(total - done) / rate));
    }
    std::fprintf(stderr, "\r\x1b[K%s", line.c_str());
    std::fflush(stderr);
  }

  bool quiet_;
  bool terminal_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  std::uint64_t offset_ = 0;
};

}  // namespace

std::unique_ptr<ProgressSink> make_stderr_progress(bool quiet) {
  return std::make_unique<StderrProgress>(quiet);
}

}  // namespace sieve
