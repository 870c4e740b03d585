// Every user-facing parameter of the filter pipeline, in one struct that the UI panels, presets, the
// CLI and both backends read.
#pragma once
#include <string>
#include <vector>

namespace satlab {

enum class FilterKind { Box, Dof };
// The aperture the shaped DoF modes build from SAT rectangles (gather_box is always square).
enum class ApertureShape { Square, Disc, Polygon };

struct Params {
  FilterKind filter = FilterKind::Dof;
  int box_radius = 4;  // Box: one radius for the whole image, in pixels

  // Depth of field. Depth maps are normalised to d in [0,1] by a min/max reduction, then mapped to scene
  // depth z = near + d * (far - near) (or, with `disparity`, 1/z = 1/far + d * (1/near - 1/far)).
  // Thin-lens circle of confusion, signed (> 0 in front of the focus plane, < 0 behind):
  //   c = aperture * (1/z - 1/z_focus)   in pixels, radius = min(|c|, max_radius).
  // The focus range: four normalised depths NO <= NI <= focus <= FI <= FO, kept as widths from the focus
  // (so that refocusing moves the range with it). Every d in [NI, FI] is sharp and the CoC grows from the
  // nearer inner edge instead, c = aperture * (1/z - 1/z_edge), ramped in from 0 at the inner edge to the
  // whole at the outer one (core/coc_pixel.hpp): depth noise near the focus plane no longer blurs the
  // subject. The symmetric +-t band is focus_range = focus_range_far = t, no ramps (set_focus_range).
  float focus = 0.2f;             // normalised depth in [0,1] that is in focus
  float focus_range = 0.0f;       // focus - NI, in [0, 1]
  float focus_range_far = 0.0f;   // FI - focus, in [0, 1]
  float focus_ramp_near = 0.0f;   // NI - NO, in [0, 1]
  float focus_ramp_far = 0.0f;    // FO - FI, in [0, 1]
  float aperture = 40.0f;    // K, pixels * depth units
  float max_radius = 24.0f;  // pixels
  float near_depth = 1.0f;   // scene depth at d = 0
  float far_depth = 10.0f;   // scene depth at d = 1
  bool disparity = false;    // the depth map stores inverse depth (bright = near)
  // Blend the two nearest integer boxes, floor(r) and floor(r) + 1, by frac(r) instead of rounding the
  // radius: radius changes become gradual (no banding where the CoC crosses a half-pixel).
  bool fractional_radius = false;

  // DoF mode: the name of one of core/dof_modes.hpp's modes (family dof of the registry). The default is
  // the best-scoring mode that meets issue 13's speed target (docs/performance.md, "Depth-of-field modes").
  std::string dof_mode = "spread";
  ApertureShape aperture_shape = ApertureShape::Disc;
  int blades = 6;               // Polygon: 5..8 blades
  float blade_rotation = 0.0f;  // rotation of the aperture in degrees (a disc's only when squeezed)
  // Anamorphic squeeze: the aperture's width over its height before the rotation, in [0.25, 4] (1: as
  // drawn). The longer axis keeps the radius, the other is divided by the squeeze (oval bokeh).
  float anamorphic = 1.0f;
  // The aperture's profile (core/dof_spread.hpp, spread_apertures; carried by the modes with
  // DofMode::profile: spread). bokeh_profile P in [-1, 1]: the lens's weight over the aperture grows as
  // 1 + P (2 u - 1), u the fraction of the aperture's area inside the point (u = rho^2 on a disc): 0 flat,
  // 1 a bright rim (soap bubble), -1 a bright centre (soft). catadioptric h in [0, 0.8]: a central hole of
  // h times the aperture's radius (a mirror lens's ring bokeh; the profile then runs over the ring).
  float bokeh_profile = 0.0f;
  float catadioptric = 0.0f;
  // An aperture image (core/aperture_image.hpp): a built-in picture's name (star, heart, ring, blades5 ..
  // blades8) or a file's key once the I/O layer has registered it (app/io/aperture_files.hpp); "" for
  // the shape above. Drawn by the modes with DofMode::profile (spread) and the bokeh highlights, upright
  // behind the focus plane and turned by 180 degrees in front of it.
  std::string aperture_image;
  int dof_layers = 6;           // depth layers of the occlusion-aware modes: 2..8
  // The camera's response (core/dof.hpp, ResponseTables): it encoded scene radiance v as
  // sRGB(min(v / (1 + s v), 1)), a highlight shoulder s in [0, 0.9]; 0 is plain sRGB. The linear-light
  // modes and the highlights blur radiance: they decode 8-bit values through its inverse and encode after.
  // Used to 1/1000 (core/dof.hpp, ResponseTables).
  float response_shoulder = 0.0f;

  // Bokeh highlights (core/highlights.hpp): bright pixels splatted as aperture-shaped sprites in the dof filter.
  bool highlights = false;
  float highlight_threshold = 0.7f;   // linear (sRGB-decoded) luminance in [0, 1] a pixel must reach
  float highlight_gain = 1.0f;        // [1, 16]: clipped highlights carry gain times the largest radiance
                                      // the response decodes, 1 / (1 - response_shoulder)
  int highlight_cap = 65536;          // [1, 2^20] sprites a frame; beyond it, highlights stay in the gather

  // Grain (core/grain.hpp), [0, 4]: the photo's own noise times this re-added where the dof filter blurred
  // it away (0 none, 1 the photo's level).
  float grain = 0.0f;

  // Axial chromatic aberration (core/chromatic.hpp), in [-0.5, 0.5]: red and blue are focused where 1/z is
  // (1 - chromatic) / z_focus, green at the focus: their CoC is green's plus chromatic times K / z_focus (the
  // blur of a point at infinity). Positive: purple fringes in front of the focus plane, green ones behind
  // (an achromat's secondary spectrum); 0 none. Every dof mode carries it (a second pass for red and blue).
  float chromatic = 0.0f;
  // Cat-eye bokeh (mechanical vignetting; core/dof_spread_pixel.hpp, cat_eye_bin; spread): the aperture cut
  // by a round stop cat_eye_scale times its radius, displaced from it by cat_eye times the point's distance
  // from the frame's centre over the half-diagonal, times the radius, toward the centre (away from it in
  // front of the focus plane). cat_eye in [0, 0.8] (0 none), cat_eye_scale in [1, 2].
  float cat_eye = 0.0f;
  float cat_eye_scale = 1.0f;
  // Added to every CoC before the clamp (core/coc_pixel.hpp): the red and blue pass's (chromatic_pass),
  // 0 otherwise. Not a user parameter: presets and the CLI leave it out.
  float coc_offset = 0.0f;
};

// The symmetric focus range +-t: both inner widths t, no ramps.
void set_focus_range(Params& p, float t);
// The four edges NO, NI, FI, FO about p.focus, and setting them (NO <= NI <= focus <= FI <= FO, else
// satlab::Error naming the order expected).
struct FocusRange {
  float near_outer, near_inner, far_inner, far_outer;
};
FocusRange focus_range_of(const Params& p);
void set_focus_range(Params& p, const FocusRange& r);
// Parses --cat-eye's "AMOUNT" or "AMOUNT,SCALE" into p.cat_eye and cat_eye_scale (validate() checks the
// ranges); throws satlab::Error with the form expected.
void parse_cat_eye(const std::string& s, Params& p);
// Parses "T" (+-T) or "NO,NI,FI,FO"; throws satlab::Error with the form expected.
FocusRange parse_focus_range(const std::string& s, float focus);

// Lenses by name (--lens, the app's Lens presets): each sets the aperture's fields (shape, blades,
// rotation, anamorphic squeeze, profile, catadioptric hole, aperture image, cat-eye) and nothing else.
struct LensPreset {
  const char* name;
  const char* description;
  ApertureShape shape;
  int blades;
  float rotation, anamorphic, profile, catadioptric;
  const char* image = "";  // a built-in aperture image's name (core/aperture_image.hpp), "" none
  float cat_eye = 0.f;     // Params::cat_eye (its scale 1)
  void apply(Params& p) const {
    p.aperture_shape = shape, p.blades = blades, p.blade_rotation = rotation, p.anamorphic = anamorphic;
    p.bokeh_profile = profile, p.catadioptric = catadioptric, p.aperture_image = image;
    p.cat_eye = cat_eye, p.cat_eye_scale = 1.f;
  }
};
// The aperture features only the modes with DofMode::profile carry (bokeh_profile, catadioptric): true
// when either is on.
bool uses_aperture_profile(const Params& p);
const std::vector<LensPreset>& lens_presets();
// nullptr for an unknown name; lens_preset_list() names them all ("modern-prime, ...").
const LensPreset* find_lens_preset(const std::string& name);
std::string lens_preset_list();

const char* to_string(FilterKind f);
// Parses "box" / "dof"; throws satlab::Error otherwise.
FilterKind filter_from_string(const std::string& s);
const char* to_string(ApertureShape a);
// Parses "square" / "disc" / "polygon"; throws satlab::Error otherwise.
ApertureShape aperture_from_string(const std::string& s);
// Throws satlab::Error naming the first out-of-range field.
void validate(const Params& p);

}  // namespace satlab
