// The desktop front end (GLFW window or headless EGL, ImGui panels, GL viewer). The CLI fills Options.
#pragma once
#include <cstdint>
#include <string>

#include "app/ops/param_overlay.hpp"

namespace satlab::gui {

struct Options {
  std::string image_path;      // empty: the bundled default scene
  std::string depth_path;      // empty: the scene's own depth map (default scene) or synthetic depth
  std::string right_path;      // non-empty: the image is the left view of a rectified pair, depth from stereo
  int frames = 0;              // > 0: render this many frames, then exit
  std::string screenshot;      // with frames: save the final frame (full UI) to this PNG
  bool headless = false;       // EGL offscreen context instead of a GLFW window
  int width = 1600;            // window / offscreen framebuffer size in pixels
  int height = 900;
  std::string backend = "auto";  // auto | cpu | gpu
  std::string refine = "auto";   // the depth refiner: auto | none | a refiner's name (core/refine.hpp)
  std::string preset;            // a preset JSON file applied at start (after view and synthetic depth)
  ParamOverlay params;           // filter parameters from the command line, over the defaults or the preset
  std::string synthetic_depth;   // depth of images without a depth map (parse_synthetic_depth); empty: default
  std::string save_preset;       // scripted runs: save the final state as a preset here
  std::string export_dir;        // scripted runs: export result, depth, CoC, timings here (next free names)
  std::string save_depth;        // scripted runs: save the depth in use (16-bit PNG, [0,1]) here at the end
  std::string view = "result";   // result | input | depth | coc | sat | diff | raw-depth | truth
  std::string compare = "off";   // off | split[:F] | side (compare_from_string)
  std::string compare_view = "input";  // the left side of a compare
  std::string truth_case;        // a ground-truth case to load at start (assets/ground_truth/cases.json)
  bool help = false;             // start with the key overlay shown
  bool sat_channels = false;     // SAT view per channel (RGB), not the luminance through a colour map
  bool sweep = false;            // start the focus sweep (key F)
  bool play = false;             // a clip: start playing (key Space)
  std::string decoder = "auto";  // a video's decoder: auto (NVDEC with the GPU backend), cpu, nvdec
  std::string input_script;      // keys and mouse events to feed at given frames (input_script.hpp)
  std::string browse;            // non-empty: start with the file browser open on this folder
  bool continuous = false;       // run the pipeline every frame, not only when something changes
  std::string sat_builder;       // SAT builder / min-max reduction by registry name; empty: the default
  std::string reduction;
  bool compare_all = false;      // open "compare all SAT builders" running; scripted runs print its table
  std::string lab;               // reduce|scan|compact|sort[:LOG2N[:TYPE]]: open the Lab and run it once
  uint32_t export_tile = 0;      // tests: an export streamed to the row writer in tiles of at most this side
  int export_band_delay_ms = 0;  // tests: a pause after each band of an export, so that a cancel lands
  int max_texture = 0;           // tests: images larger than this a side open as an overview (0: the GL's)
  std::string viewer_pass = "auto";  // auto (compute pass into a framebuffer texture on GPUs) | fragment
};

// Runs the app; returns the process exit code. Without a display (and not headless) it prints one line
// that names `satlab render` and `xvfb-run` and returns non-zero.
int run(const Options& options);

}  // namespace satlab::gui
