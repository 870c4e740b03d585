// Headless subcommands. Each lives in its own file and adds itself to the parser through one entry of
// kCommands in cli.cpp: it declares its options on a new subcommand and, when that subcommand is
// chosen, stores in `action` the function that runs it and returns the exit code.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>

namespace satlab::cli {

using Action = std::function<int()>;
using AddCommand = void (*)(CLI::App& app, Action& action);

void add_render_command(CLI::App& app, Action& action);

}  // namespace satlab::cli
