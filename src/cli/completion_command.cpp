#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "sieve/text.hpp"

namespace sieve::cli {
namespace {

// One subcommand's place in the tree: "" for sieve itself, "index add", ...
// with the names of the subcommands under it.
struct Node {
  std::string path;
  const CLI::App* app;
  std::vector<std::string> subcommands;
};

std::vector<Node> walk(const CLI::App& root) {
  std::vector<Node> nodes{{"", &root, {}}};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const CLI::App* app = nodes[i].app;
    for (const auto* sub : app->get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); })) {
      nodes[i].subcommands.push_back(sub->get_name());
      const std::string& path = nodes[i].path;
      nodes.push_back({path.empty() ? sub->get_name() : path + " " + sub->get_name(), sub, {}});
    }
  }
  return nodes;
}

std::vector<std::string> option_names(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const auto& n : option.get_lnames()) names.push_back("--" + n);
  for (const auto& n : option.get_snames()) names.push_back("-" + n);
  return names;
}

// What follows an option that takes a value: its choices when a validator
// lists them ("TEXT:{a,b}" in CLI11's type name), nothing for numbers, files
// otherwise.
std::string value_words(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const auto open = type.find('{');
  const auto close = type.find('}', open == std::string::npos ? 0 : open);
  if (open != std::string::npos && close != std::string::npos) {
    std::string words = type.substr(open + 1, close - open - 1);
    for (char& c : words) {
      if (c == ',') c = ' ';
    }
    return words;
  }
  for (const char* numeric : {"INT", "UINT", "FLOAT", "NUMBER"}) {
    if (type.rfind(numeric, 0) == 0) return "@none";
  }
  return "@files";
}

std::string quoted(const std::string& text) {
  return "\"" + text + "\"";
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  const auto nodes = walk(app);
  std::ostringstream subcommands;
  std::ostringstream options;
  std::ostringstream values;
  std::ostringstream positionals;
  for (const auto& node : nodes) {
    for (const auto* option : node.app->get_options([](const CLI::Option* o) { return o->get_positional(); })) {
      const std::string words = value_words(*option);
      if (words[0] != '@') positionals << "    " << quoted(node.path) << ") echo " << quoted(words) << " ;;\n";
    }
    if (!node.subcommands.empty()) {
      subcommands << "    " << quoted(node.path) << ") echo " << quoted(join(node.subcommands, " ")) << " ;;\n";
    }
    std::vector<std::string> names;
    for (const auto* option : node.app->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
      const auto own = option_names(*option);
      names.insert(names.end(), own.begin(), own.end());
      if (option->get_type_size_max() == 0) continue;  // a flag
      values << "    " << join(own, "|", [&](const std::string& name) { return quoted(node.path + "|" + name); })
             << ") echo " << quoted(value_words(*option)) << " ;;\n";
    }
    options << "    " << quoted(node.path) << ") echo " << quoted(join(names, " ")) << " ;;\n";
  }
  std::ostringstream out;
  out << "# bash completion for sieve. Load it with\n"
         "#   source <(sieve completion bash)\n"
         "# or install it with\n"
         "#   sieve completion bash > ~/.local/share/bash-completion/completions/sieve\n"
         "# (bash-completion loads it in new shells).\n"
         "_sieve_subcommands() {\n  case \"$1\" in\n"
      << subcommands.str()
      << "  esac\n}\n"
         "_sieve_options() {\n  case \"$1\" in\n"
      << options.str()
      << "  esac\n}\n"
         "# The words after an option that takes a value; exit status 1 for a flag.\n"
         "_sieve_value() {\n  case \"$1|$2\" in\n"
      << values.str()
      << "    *) return 1 ;;\n  esac\n}\n"
         "# The choices of a command's positional argument, where it has them.\n"
         "_sieve_positional() {\n  case \"$1\" in\n"
      << positionals.str()
      << "    *) return 1 ;;\n  esac\n}\n"
         "_sieve() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" path=\"\" word subs i\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    word=\"${COMP_WORDS[i]}\"\n"
         "    if [[ \"$word\" == -* ]]; then\n"
         "      if _sieve_value \"$path\" \"$word\" >/dev/null && ((i + 1 < COMP_CWORD)); then ((i++)); fi\n"
         "      continue\n"
         "    fi\n"
         "    subs=\" $(_sieve_subcommands \"$path\") \"\n"
         "    if [[ \"$subs\" == *\" $word \"* ]]; then path=\"${path:+$path }$word\"; fi\n"
         "  done\n"
         "  ((COMP_CWORD > 1)) && prev=\"${COMP_WORDS[COMP_CWORD - 1]}\"\n"
         "  local words\n"
         "  if [[ \"$prev\" == -* ]] && words=\"$(_sieve_value \"$path\" \"$prev\")\"; then\n"
         "    case \"$words\" in\n"
         "      @none) COMPREPLY=() ;;\n"
         "      @files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
         "      *) COMPREPLY=($(compgen -W \"$words\" -- \"$cur\")) ;;\n"
         "    esac\n"
         "    return 0\n"
         "  fi\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$(_sieve_options \"$path\")\" -- \"$cur\"))\n"
         "    return 0\n"
         "  fi\n"
         "  subs=\"$(_sieve_subcommands \"$path\")\"\n"
         "  if [[ -n \"$subs\" ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
         "  elif words=\"$(_sieve_positional \"$path\")\"; then\n"
         "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "  else\n"
         "    compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -F _sieve sieve\n";
  return out.str();
}

Action add_completion_command(CLI::App& app) {
  auto* command = app.add_subcommand("completion", "Print a shell completion script (bash)");
  auto shell = std::make_shared<std::string>();
  command->add_option("shell", *shell, "The shell: bash")->required()->check(CLI::IsMember({"bash"}));
  add_examples(*command, {"source <(sieve completion bash)",
                          "mkdir -p ~/.local/share/bash-completion/completions && "
                          "sieve completion bash > ~/.local/share/bash-completion/completions/sieve"});
  return [&app, shell] {
    std::cout << bash_completion(app);
    return 0;
  };
}

}  // namespace sieve::cli
