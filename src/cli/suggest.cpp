#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "sieve/text.hpp"

namespace sieve::cli {
namespace {

// The command's path as typed: "sieve index add".
std::string command_path(const CLI::App& command) {
  std::string path = command.get_parent() == nullptr ? "sieve" : command.get_name();
  for (const CLI::App* up = command.get_parent(); up != nullptr; up = up->get_parent()) {
    path = (up->get_parent() == nullptr ? "sieve" : up->get_name()) + " " + path;
  }
  return path;
}

const CLI::Option* find_option(const CLI::App& command, std::string_view name, bool long_name) {
  for (const CLI::App* app = &command; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      const auto& names = long_name ? option->get_lnames() : option->get_snames();
      for (const std::string& n : names) {
        if (n == name) return option;
      }
    }
  }
  return nullptr;
}

std::vector<std::string> long_options(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* app = &command; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      for (const std::string& n : option->get_lnames()) names.push_back(n);
    }
  }
  return names;
}

std::string unknown_option(const CLI::App& command, std::string_view typed, std::string_view name) {
  std::string message = "unknown option " + std::string(typed) + " for " + command_path(command);
  if (const std::string near = closest_match(name, long_options(command)); !near.empty()) {
    message += "; did you mean --" + near + "?";
  }
  return message + " (" + command_path(command) + " --help lists its options)";
}

}  // namespace

std::string diagnose_command_line(const CLI::App& app, int argc, const char* const* argv,
                                  const std::string& parser_message) {
  const CLI::App* command = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string_view token = argv[i];
    if (token == "--") break;  // positionals from here on
    const bool long_form = token.starts_with("--") && token.size() > 2;
    const bool short_form = !long_form && token.size() > 1 && token[0] == '-' && token[1] != '-' &&
                            !(token[1] >= '0' && token[1] <= '9') && token[1] != '.';
    if (long_form || short_form) {
      const std::size_t equals = token.find('=');
      const std::string_view name =
          long_form ? token.substr(2, equals == std::string_view::npos ? std::string_view::npos : equals - 2)
                    : token.substr(1, 1);
      const CLI::Option* option = find_option(*command, name, long_form);
      if (option == nullptr) {
        return unknown_option(*command, long_form ? token.substr(0, name.size() + 2) : token.substr(0, 2), name);
      }
      // Its value is the next argument unless given with "=" (or glued, -x5).
      const bool value_inline = long_form ? equals != std::string_view::npos : token.size() > 2;
      if (option->get_type_size_min() > 0 && !value_inline) ++i;
      continue;
    }
    const CLI::App* sub = nullptr;
    for (const CLI::App* candidate : command->get_subcommands([](const CLI::App*) { return true; })) {
      if (candidate->check_name(std::string(token))) sub = candidate;
    }
    if (sub != nullptr) {
      command = sub;
      continue;
    }
    const bool has_commands = !command->get_subcommands([](const CLI::App*) { return true; }).empty();
    const bool takes_positionals =
        !command->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
    if (has_commands && !takes_positionals) {
      std::vector<std::string> names;
      for (const CLI::App* candidate : command->get_subcommands([](const CLI::App*) { return true; })) {
        names.push_back(candidate->get_name());
      }
      std::string message = "unknown command \"" + escape_control(token) + "\" for " + command_path(*command);
      if (const std::string near = closest_match(token, names); !near.empty()) {
        message += "; did you mean \"" + near + "\"?";
      } else {
        message += "; the commands are " + join(names, ", ");
      }
      return message;
    }
    if (has_commands) continue;  // a positional of a command that also has subcommands
  }
  // Nothing unknown: a missing command is what is wrong when none was given.
  if (!command->get_subcommands([](const CLI::App*) { return true; }).empty() &&
      command->get_require_subcommand_min() > 0 && parser_message.find("subcommand") != std::string::npos) {
    std::vector<std::string> names;
    for (const CLI::App* candidate : command->get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(candidate->get_name());
    }
    return command_path(*command) + " needs a command: " + join(names, ", ") + " (" + command_path(*command) +
           " --help says what each does)";
  }
  // The parser's own words, with where to read more.
  return parser_message + " (" + command_path(*command) + " --help lists its options)";
}

namespace {

CLI::Validator number_check(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        double value = 0;
        std::size_t used = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || text.empty() || !(zero_allowed ? value >= 0 : value > 0)) {
          return "\"" + escape_control(text) + "\": expected a number " + (zero_allowed ? "of 0 or more" : "above 0");
        }
        return {};
      },
      zero_allowed ? "NUMBER >= 0" : "NUMBER > 0");
}

}  // namespace

const CLI::Validator& positive_number() {
  static const CLI::Validator check = number_check(false);
  return check;
}

const CLI::Validator& non_negative_number() {
  static const CLI::Validator check = number_check(true);
  return check;
}

}  // namespace sieve::cli
