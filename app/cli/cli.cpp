// The command line. With no subcommand satlab opens the GUI (optionally on IMAGE [--depth D]);
// subcommands run headless.
//
// Adding a subcommand takes one file and one line:
//   1. app/cli/cmd_NAME.cpp defines `void add_NAME_command(CLI::App& app, Action& action)`: it adds its
//      subcommand (for a leaf under a group such as `bench`, on command_group(app, "bench", ...)), and
//      in the subcommand's callback stores in `action` a function returning the exit code;
//   2. declare it in commands.hpp and add it to kCommands below.
// Exit codes: 0 ok, 1 runtime error (every satlab::Error is one line `satlab: <message>` on stderr),
// 2 usage error. Actions throw satlab::Error instead of printing their own failures.
#include "app/cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iterator>
#include <regex>

#include "app/cli/commands.hpp"
#include "app/cli/filter_options.hpp"
#include "app/gui/gui.hpp"
#include "app/gui/keys.hpp"
#include "app/io/file_formats.hpp"
#include "app/io/image_io.hpp"
#include "app/version.hpp"
#include "core/error.hpp"
#include "core/refine.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::cli {
namespace {

constexpr AddCommand kCommands[] = {
    add_render_command,     // satlab render
    add_bench_cpu_command,  // satlab bench cpu
    add_bench_sat_command,  // satlab bench sat
    add_bench_primitives_command,  // satlab bench primitives
    add_verify_command,            // satlab verify
    add_variants_command,          // satlab variants
    add_soak_command,              // satlab soak
    add_depth_command,             // satlab depth refine
    add_bench_depth_command,       // satlab bench depth
    add_depth_stereo_command,      // satlab depth stereo
    add_depth_select_command,      // satlab depth select
    add_depth_pack_command,        // satlab depth pack
    add_bench_stereo_command,      // satlab bench stereo
    add_quality_command,           // satlab quality
    add_bench_stream_command,      // satlab bench stream
    add_bench_video_command,       // satlab bench video
};

void parse_size(const std::string& s, int* w, int* h) {
  if (std::sscanf(s.c_str(), "%dx%d", w, h) != 2 || *w < 64 || *h < 64 || *w > 16384 || *h > 16384)
    throw CLI::ValidationError("--size", "expected WIDTHxHEIGHT between 64x64 and 16384x16384, got " + s);
}

// --max-megapixels on the GUI's command line and on every subcommand: images over it are refused from
// their header, before anything is decoded (io::max_pixels()).
void add_limit_option(CLI::App& app, double& megapixels) {
  app.add_option("--max-megapixels", megapixels,
                 "Refuse images larger than this (default: SATLAB_MAX_MEGAPIXELS, else no fixed limit: whatever "
                 "fits memory; render streams larger TIFF, PNG and JPEG files within --memory-budget)")
      ->check(CLI::PositiveNumber);
  for (CLI::App* sub : app.get_subcommands({})) add_limit_option(*sub, megapixels);
}

}  // namespace

CLI::Validator synthetic_depth_spec() {
  return CLI::Validator(
      [](std::string& spec) {
        try {
          parse_synthetic_depth(spec);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      "SPEC");
}

CLI::Validator refine_choice() {
  return CLI::Validator(
      [](std::string& choice) {
        try {
          resolve_refiner(choice, DepthOrigin::File, false);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      "auto|none|NAME");
}

CLI::App& command_group(CLI::App& parent, const std::string& name, const std::string& description) {
  for (CLI::App* sub : parent.get_subcommands({}))
    if (sub->get_name() == name) return *sub;
  CLI::App* group = parent.add_subcommand(name, description);
  group->require_subcommand(1);
  return *group;
}

int run(int argc, char** argv) {
  CLI::App app{"satlab: summed-area-table image filters (GPU variable box blur / depth of field)", "satlab"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("satlab ") + kVersion + " (git " + kGitRevision + ")",
                       "Print the version and the git revision it was built from, and exit");
  gui::Options gui;
  std::string size;
  app.add_option("image", gui.image_path,
                 "Image to open: " + io::image_formats_text() + "; default: the bundled scene");
  app.add_option("--depth", gui.depth_path,
                 "Depth map for the image, any size (refined to the image's): " + io::depth_formats_text());
  app.add_option("--right", gui.right_path,
                 "Right view of a rectified pair (IMAGE is the left one): depth from stereo (satlab depth stereo)");
  app.add_option("--frames", gui.frames, "Render this many frames, then exit")->check(CLI::NonNegativeNumber);
  app.add_option("--screenshot", gui.screenshot, "With --frames: save the last frame (whole window) as PNG");
  app.add_flag("--continuous", gui.continuous, "Run the pipeline every frame (live timings), not only on changes");
  app.add_flag("--headless", gui.headless, "Render offscreen through EGL (no window, no display needed)");
  app.add_option("--size", size, "Window or offscreen size, WIDTHxHEIGHT (default 1600x900)");
  app.add_option("--backend", gui.backend, "Pipeline backend")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  app.add_option("--refine", gui.refine,
                 "Depth refiner: auto (the best one wherever the depth is not exact), none, or one of " +
                     refiner_list() + " (the depth section's method)")
      ->check(refine_choice());
  app.add_option("--sat-builder", gui.sat_builder, "SAT builder by registry name (see `satlab variants`)");
  app.add_option("--reduce", gui.reduction, "Min/max reduction of the depth normalisation by registry name");
  app.add_flag("--compare-all", gui.compare_all,
               "Start with every SAT builder compared on the image (scripted runs print the table at the end)");
  app.add_option("--viewer-pass", gui.viewer_pass,
                 "auto (default: on a GPU, a compute pass writes the framebuffer texture) or fragment (the "
                 "fragment pass everywhere: for a driver whose compute pass misdraws, and to compare the two)")
      ->check(CLI::IsMember({"auto", "fragment"}));
  app.add_option("--lab", gui.lab,
                 "Open the Lab and run every variant once: [cpu:|gpu:]reduce|scan|compact|sort[:LOG2N[:TYPE]] "
                 "(default 22, int32; sort uint32; the GPU where there is one, cpu: the CPU's own reductions and "
                 "scans) (scripted runs print its table)")
      ->check([](const std::string& v) {
        static const std::regex re(
            "(cpu:|gpu:)?(reduce(:(1[0-9]|2[0-8])(:(int32|float))?)?|scan(:(1[0-9]|2[0-8])(:(int32|float|uint32))?)?|"
            "compact(:(1[0-9]|2[0-8])(:int32)?)?|sort(:(1[0-9]|2[0-8])(:uint32)?)?)");
        return std::regex_match(v, re) ? std::string()
                                       : "expected [cpu:|gpu:] then reduce[:LOG2N[:int32|float]], scan[:LOG2N[:int32|float|uint32]], "
                                         "compact[:LOG2N[:int32]] or sort[:LOG2N[:uint32]], LOG2N 10..28";
      });
  app.add_option("--view", gui.view, "Initial view")
      ->check(CLI::IsMember({"result", "input", "depth", "coc", "sat", "diff", "raw-depth", "truth"}));
  app.add_option("--compare", gui.compare, "Compare mode: off, split, split:F (divider at F of the width), side");
  app.add_option("--compare-view", gui.compare_view, "The left side of a compare (right: --view)")
      ->check(CLI::IsMember({"result", "input", "depth", "coc", "sat", "diff", "raw-depth", "truth"}));
  app.add_option("--truth-case", gui.truth_case,
                 "Start with a ground-truth case loaded (image, depth, parameters; the truth view shows its lens "
                 "reference): a name from assets/ground_truth/cases.json");
  app.add_flag("--show-keys", gui.help, "Start with the key and mouse overlay shown (F1)");
  app.add_flag("--sat-channels", gui.sat_channels, "SAT view per channel (RGB), not the luminance colour-mapped");
  app.add_flag("--sweep", gui.sweep, "Start with the focus sweeping near to far and back (key F)");
  app.add_flag("--play", gui.play, "A clip: start playing (key Space); the summary gives the playback rate");
  app.add_option("--decoder", gui.decoder,
                 "A video's decoder: auto (NVDEC into the GPU pipeline's memory on the GPU backend), cpu, nvdec")
      ->check(CLI::IsMember({"auto", "cpu", "nvdec"}));
  app.add_option("--input-script", gui.input_script, "Keys and mouse events to feed at given frames (for tests)");
  app.add_option("--browse", gui.browse, "Start with the file browser open on this folder");
  app.add_option("--export-tile", gui.export_tile, "Tests: the app's export in tiles of at most this side, written by rows (as render --tile)")
      ->check(CLI::Range(64, 1 << 16))
      ->group("");
  app.add_option("--max-texture", gui.max_texture,
                 "Tests: open images larger than this a side as an overview (default: GL_MAX_TEXTURE_SIZE)")
      ->check(CLI::Range(64, 1 << 20))
      ->group("");
  app.add_option("--export-band-delay", gui.export_band_delay_ms, "Tests: ms to pause after each band of an export")
      ->check(CLI::Range(0, 10000))
      ->group("");
  bool keys = false;
  app.add_flag("--keys", keys, "Print every key and mouse action of the app (the README's table) and exit");

  app.add_option("--preset", gui.preset,
                 "Start with the parameters, synthetic depth and view of a preset (JSON); the filter parameters "
                 "given here override it");
  FilterOptions filter;
  add_filter_options(app, filter);
  app.add_option("--synthetic-depth", gui.synthetic_depth,
                 "Depth for images without a depth map: none | gradient[:angle=DEG,pos=P,width=W] | "
                 "radial[:x=X,y=Y,radius=R] (default gradient)")
      ->check(synthetic_depth_spec());
  app.add_option("--save-preset", gui.save_preset, "With --frames: save the final state as a preset");
  app.add_option("--save-depth", gui.save_depth,
                 "With --frames: save the depth in use at the end (16-bit PNG in [0,1], the depth brush's format)");
  app.add_option("--export", gui.export_dir,
                 "With --frames: export result (PNG), depth (16-bit PNG), CoC (PNG) and timings (CSV, JSON) into "
                 "this folder (never overwriting)");

  Action action;
  for (AddCommand add : kCommands) add(app, action);
  double max_megapixels = 0;
  add_limit_option(app, max_megapixels);

  try {
    app.parse(argc, argv);
    if (!size.empty()) parse_size(size, &gui.width, &gui.height);
    if (!action) {  // the app: its filter parameters, checked here unless a preset is laid under them
      gui.params = filter_overlay(app, filter);
      try {
        if (gui.preset.empty()) validate(gui.params.over(Params{}));
      } catch (const Error& e) {
        throw CLI::ValidationError(e.what());
      }
    }
    if (!gui.screenshot.empty() && gui.frames == 0) gui.frames = 30;
    if (max_megapixels > 0) io::set_max_megapixels(max_megapixels);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "satlab: %s (see --help)\n", e.what());
    return 2;
  }
  if (keys) {
    std::printf("| input | action |\n|---|---|\n");
    for (const gui::KeyBinding& k : gui::kKeyBindings) std::printf("%s\n", gui::markdown_row(k).c_str());
    return 0;
  }
  try {
    return action ? action() : gui::run(gui);
  } catch (const Error& e) {
    std::fprintf(stderr, "satlab: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "satlab: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "satlab: internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace satlab::cli
