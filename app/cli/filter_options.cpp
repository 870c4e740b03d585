#include "app/cli/filter_options.hpp"

#include <cstdlib>
#include <vector>

#include "app/io/aperture_files.hpp"
#include "core/aperture_image.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"

namespace satlab::cli {

void add_filter_options(CLI::App& app, FilterOptions& o) {
  Params& p = o.params;
  std::vector<CLI::Option*> added;
  auto add = [&](CLI::Option* opt) { return added.push_back(opt), opt; };
  add(app.add_option("--filter", o.filter, "box: one radius; dof: radius from the depth map"))
      ->check(CLI::IsMember({"box", "dof"}));
  add(app.add_option("--radius", p.box_radius, "Box filter radius in pixels"))->check(CLI::Range(0, 2047));
  add(app.add_option("--focus", p.focus, "Depth in focus, normalised to [0,1]"))->check(CLI::Range(0.0, 1.0));
  add(app.add_option("--focus-range", o.focus_range,
                     "T: depths within +-T of --focus are all sharp, the blur growing from the band's edges "
                     "(forgives depth noise); NO,NI,FI,FO: sharp from near inner NI to far inner FI, the blur "
                     "ramped in to the whole beyond near outer NO and far outer FO (without --focus, the "
                     "focus is (NI + FI) / 2)"));
  add(app.add_option("--aperture", p.aperture,
                     "Aperture K of c = K |1/z - 1/z_focus| (pixels; finite, >= 0)"));  // validate() names it
  add(app.add_option("--max-radius", p.max_radius,
                     "Largest blur radius in pixels (at most 511 in every dof mode but gather_box)"))
      ->check(CLI::Range(0.0, 2047.0));
  add(app.add_option("--near", p.near_depth, "Scene depth at normalised depth 0"));
  add(app.add_option("--far", p.far_depth, "Scene depth at normalised depth 1"));
  add(app.add_flag("--disparity", p.disparity, "The depth map stores inverse depth (bright = near)"));
  add(app.add_flag("--fractional-radius", p.fractional_radius,
                   "Blend the two nearest integer boxes by the fractional radius (no banding)"));
  std::vector<std::string> modes;
  for (const DofMode& m : dof_modes()) modes.push_back(m.name);
  add(app.add_option("--dof-mode", p.dof_mode, "Depth-of-field mode (see `satlab variants`)"))
      ->check(CLI::IsMember(modes));
  add(app.add_option("--aperture-shape", o.aperture_shape, "Aperture of the shaped dof modes"))
      ->check(CLI::IsMember({"disc", "polygon", "square"}));
  add(app.add_option("--blades", p.blades, "Blades of the polygon aperture"))->check(CLI::Range(5, 8));
  add(app.add_option("--blade-rotation", p.blade_rotation,
                     "Rotation of the aperture in degrees (a disc's when --anamorphic squeezes it)"));
  add(app.add_option("--anamorphic", p.anamorphic,
                     "Anamorphic squeeze: the aperture's width over its height (1 round, 2 a wide oval, 0.5 a "
                     "tall one)"))
      ->check(CLI::Range(0.25, 4.0));
  add(app.add_option("--bokeh-profile", p.bokeh_profile,
                     "The aperture's brightness profile (spread): -1 a bright centre (soft), 0 flat, 1 a bright "
                     "rim (soap bubble)"))
      ->check(CLI::Range(-1.0, 1.0));
  add(app.add_option("--catadioptric", p.catadioptric,
                     "A mirror lens's central hole (spread): its radius as a fraction of the aperture's, 0 none"))
      ->check(CLI::Range(0.0, 0.8));
  add(app.add_option("--aperture-image", o.aperture_image,
                     "A picture as the aperture (spread and the bokeh highlights): a greyscale image file, its "
                     "grey the lens's weight, upright behind the focus plane; or a built-in (" +
                     builtin_aperture_list() + ")"));
  std::vector<std::string> lenses;
  for (const LensPreset& l : lens_presets()) lenses.push_back(l.name);
  add(app.add_option("--lens", o.lens,
                     "A lens preset: sets --aperture-shape, --blades, --blade-rotation, --anamorphic, "
                     "--bokeh-profile, --catadioptric and --aperture-image, which "
                     "given too win (" + lens_preset_list() + ")"))
      ->check(CLI::IsMember(lenses));
  add(app.add_option("--layers", p.dof_layers, "Depth layers of the layered dof mode"))->check(CLI::Range(2, 8));
  add(app.add_option("--highlights", o.highlights,
                     "Bokeh highlights of the dof filter: bright pixels splatted as aperture-shaped sprites"))
      ->check(CLI::IsMember({"on", "off"}));
  add(app.add_option("--highlight-threshold", p.highlight_threshold,
                     "Linear luminance a pixel needs to become a highlight sprite"))
      ->check(CLI::Range(0.0, 1.0));
  add(app.add_option("--highlight-gain", p.highlight_gain,
                     "Gain on clipped highlights (they carry gain times the largest radiance the response "
                     "decodes)"))
      ->check(CLI::Range(1.0, 16.0));
  add(app.add_option("--highlight-cap", p.highlight_cap, "Most highlight sprites a frame"))
      ->check(CLI::Range(1, 1 << 20));
  add(app.add_option("--response-shoulder", p.response_shoulder,
                     "Camera response: radiance v was stored as sRGB(min(v / (1 + S v), 1)); the linear-light "
                     "dof modes blur radiance (0: plain sRGB)"))
      ->check(CLI::Range(0.0, 0.9));
  add(app.add_option("--grain", p.grain,
                     "Grain: the photo's own noise (estimated on its flat regions) times G re-added where the "
                     "dof filter blurred it away, so the blur does not look like plastic (0 none, 1 the photo's)"))
      ->check(CLI::Range(0.0, 4.0));
  add(app.add_option("--cat-eye", o.cat_eye,
                     "AMOUNT[,SCALE]: cat-eye bokeh (spread): the aperture cut by a round stop SCALE (1-2, "
                     "default 1) times its size, displaced by AMOUNT (0-0.8) times the point's distance from "
                     "the centre over the half-diagonal, times the radius (0 none)"));
  add(app.add_option("--chromatic", p.chromatic,
                     "Axial chromatic aberration: red and blue focused where 1/z is (1 - C) of the focus's, "
                     "their blur green's plus C times that of infinity (C > 0: purple fringes in front of "
                     "the focus, green behind; 0 none)"))
      ->check(CLI::Range(-0.5, 0.5));
  for (CLI::Option* opt : added) opt->capture_default_str()->group("Filter parameters");
}

ParamOverlay filter_overlay(const CLI::App& app, const FilterOptions& o) {
  ParamOverlay overlay;
  overlay.values = o.params;
  try {
    overlay.values.filter = filter_from_string(o.filter);
    overlay.values.aperture_shape = aperture_from_string(o.aperture_shape);
    overlay.values.highlights = o.highlights == "on";
    overlay.values.aperture_image = io::use_aperture_image(o.aperture_image);
    if (app.get_option("--cat-eye")->count()) {
      parse_cat_eye(o.cat_eye, overlay.values);
    }
    if (app.get_option("--focus-range")->count()) {
      Params& v = overlay.values;
      const FocusRange r = parse_focus_range(o.focus_range, v.focus);
      if (o.focus_range.find(',') == std::string::npos) {
        set_focus_range(v, std::strtof(o.focus_range.c_str(), nullptr));  // T exactly (parsed above)
      } else {
        if (!app.get_option("--focus")->count()) {
          v.focus = 0.5f * (r.near_inner + r.far_inner);
          overlay.give("--focus");
        }
        set_focus_range(v, r);
      }
    }
  } catch (const Error& e) {
    throw CLI::ValidationError(e.what());
  }
  for (const std::string& name : param_option_names())
    if (app.get_option(name)->count()) overlay.give(name);
  if (const LensPreset* lens = find_lens_preset(o.lens)) overlay.take_lens(*lens);
  return overlay;
}

}  // namespace satlab::cli
