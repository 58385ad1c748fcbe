#pragma once

#include <string_view>

namespace sieve {

// Sieve logs to standard error through one named logger ("sieve"), so that
// standard output stays free for results. Levels: trace, debug, info, warn,
// error, off. Control characters in messages (and newlines) are escaped as
// escape_control() does, so a message may carry text from outside as it is.
void set_log_level(std::string_view level);

// Messages of layers above the library (the server, the CLI), through the same logger.
void log_info(std::string_view message);
void log_warn(std::string_view message);
void log_error(std::string_view message);

}  // namespace sieve
