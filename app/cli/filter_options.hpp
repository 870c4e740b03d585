// The filter parameter flags, one definition for `satlab render` and the app's own command line:
// add_filter_options declares them on a CLI11 app or subcommand, filter_overlay turns what was given into
// a ParamOverlay (app/ops/param_overlay.hpp) to lay over the defaults or a preset.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "app/ops/param_overlay.hpp"

namespace satlab::cli {

// Where CLI11 writes the flags' values while parsing.
struct FilterOptions {
  Params params;  // the numeric and boolean fields
  std::string filter = "dof", aperture_shape = "disc", highlights = "off";
  std::string focus_range = "0";  // T or NO,NI,FI,FO (parse_focus_range)
  std::string lens;               // a lens preset's name (lens_presets); empty: none
  std::string aperture_image;     // a built-in picture's name or an image file (io::use_aperture_image)
  std::string cat_eye = "0";      // AMOUNT or AMOUNT,SCALE (Params::cat_eye, cat_eye_scale)
};

// Adds --filter, --radius, --focus, --focus-range, --aperture, --max-radius, --near, --far, --disparity,
// --fractional-radius, --dof-mode, --aperture-shape, --blades, --blade-rotation, --anamorphic,
// --bokeh-profile, --catadioptric, --aperture-image, --layers, --highlights, --highlight-threshold, --highlight-gain, --highlight-cap, --response-shoulder, --grain and
// --chromatic (param_option_names())
// to `app`, writing into `o` (which must outlive the parse). Their help shows the defaults.
void add_filter_options(CLI::App& app, FilterOptions& o);

// After `app` was parsed: the options given on it. A bad name (filter, aperture shape) is a
// CLI::ValidationError; ranges across fields (--far > --near, ...) are checked by validate() on the
// parameters the overlay makes.
ParamOverlay filter_overlay(const CLI::App& app, const FilterOptions& o);

}  // namespace satlab::cli
