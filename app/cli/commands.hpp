// Headless subcommands. Each lives in its own file (app/cli/cmd_*.cpp) and adds itself to the parser
// through one entry of kCommands in cli.cpp: it declares its options on a new subcommand and, when that
// subcommand is chosen, stores in `action` the function that runs it and returns the exit code.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace satlab::cli {

using Action = std::function<int()>;
using AddCommand = void (*)(CLI::App& app, Action& action);

// The subcommand `name` of `parent`, created on first use, so that several files can add leaves under
// one group (`satlab bench cpu`, `satlab bench sat`, ...): the group itself requires one of them.
CLI::App& command_group(CLI::App& parent, const std::string& name, const std::string& description);

// Checks a --synthetic-depth spec (core/synthetic_depth.hpp) while parsing: a bad one is a usage error.
CLI::Validator synthetic_depth_spec();
// Checks a --refine choice: auto or a refiner's name (core/refine.hpp); another is a usage error whose one
// line names the valid ones.
CLI::Validator refine_choice();

// The commit a benchmark record comes from: SATLAB_GIT_REV, else the revision baked in at build time
// (app/version.hpp: "unknown" where the tree had no git).
std::string git_rev();

void add_render_command(CLI::App& app, Action& action);     // satlab render
void add_bench_cpu_command(CLI::App& app, Action& action);  // satlab bench cpu
void add_bench_sat_command(CLI::App& app, Action& action);  // satlab bench sat
void add_bench_primitives_command(CLI::App& app, Action& action);  // satlab bench primitives
void add_verify_command(CLI::App& app, Action& action);            // satlab verify
void add_variants_command(CLI::App& app, Action& action);          // satlab variants
void add_soak_command(CLI::App& app, Action& action);              // satlab soak
void add_depth_command(CLI::App& app, Action& action);             // satlab depth refine
void add_bench_depth_command(CLI::App& app, Action& action);       // satlab bench depth
void add_depth_stereo_command(CLI::App& app, Action& action);      // satlab depth stereo
void add_depth_select_command(CLI::App& app, Action& action);      // satlab depth select
void add_depth_pack_command(CLI::App& app, Action& action);        // satlab depth pack
void add_bench_stereo_command(CLI::App& app, Action& action);      // satlab bench stereo
void add_quality_command(CLI::App& app, Action& action);           // satlab quality
void add_bench_stream_command(CLI::App& app, Action& action);      // satlab bench stream
void add_bench_video_command(CLI::App& app, Action& action);       // satlab bench video

}  // namespace satlab::cli
