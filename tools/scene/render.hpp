// Images of a scene: the pinhole view with its exact depth (the pipeline's input), and the thin-lens
// ground truth (the same view through a disc aperture, averaged in linear light, then tone-mapped).
#pragma once
#include "core/aperture_image.hpp"
#include "core/image.hpp"
#include "tools/scene/camera.hpp"

namespace satlab::scene {

struct PinholeView {
  ImageRGBA8 image;       // tone(radiance averaged over ss x ss sub-pixel samples)
  ImageF depth;           // camera-space depth of the pixel centre, normalised: (z - lo) / (hi - lo)
  double lo = 0, hi = 0;  // nearest and farthest depth in the frame (hi > lo)
};
PinholeView render_pinhole(const Scene& s, const Camera& cam, int ss = 4);

// Thin lens of radius lens_radius focused at camera-space depth focus_z. Each pixel averages the
// radiance of n x n lens samples: stratified over the unit square (one jittered point per stratum,
// jitter from a hash of pixel and stratum, so the result is deterministic and the strata pattern does
// not repeat from pixel to pixel), mapped onto the disc by the concentric (area-preserving) map, each
// paired with its own sub-pixel position. The average is tone-mapped afterwards, like a sensor.
// `shape` makes the aperture an anamorphic oval: the unit disc squeezed as Params::anamorphic says (the
// longer axis keeping the radius) and turned by rotation_deg, both in image coordinates (x right, y down),
// as satlab draws the aperture (core/dof.cpp, Outline). The lens samples stay stratified: the oval is the
// disc's linear image. `profile` P and `hole` h weight the lens as Params::bokeh_profile and catadioptric
// say: the samples are mapped onto the ring h <= rho <= 1 (area-preserving: u = rho^2 from h^2 to 1 as
// the disc's u' from 0 to 1) and weighted 1 + P (2 u' - 1); the pixel is the weighted mean (the exact,
// continuous profile, of which satlab's spread takes steps).
// `image` (core/aperture_image.hpp) makes the aperture a picture instead: the lens samples stratified over
// the square circumscribing the disc, each weighted by the picture's grey there (the picture's x right, y
// down; a lens point (lu, lv), right and up, reads it at (lu, -lv), so a point behind the focus plane
// shows it upright), then squeezed and turned as the oval is; profile and hole do not apply.
// `chromatic` C focuses red and blue at the depth z_f / (1 - C) (Params::chromatic: 1/z there is (1 - C) /
// z_f), green at z_f: each lens sample traces two rays through the same lens point and sub-pixel position,
// green's radiance from the one and red and blue's from the other.
// `cat_eye` A and `cat_eye_scale` S cut the lens by a round stop (Params::cat_eye): a pixel at distance rho
// (over the half-diagonal) from the frame's centre, in direction u (x right, y down), keeps the lens samples
// whose point (lu, -lv) (as drawn behind the focus plane) lies within S of -A rho u.
struct LensShape {
  double squeeze = 1, rotation_deg = 0;
  double profile = 0, hole = 0;
  const ApertureImage* image = nullptr;
  double chromatic = 0;
  double cat_eye = 0, cat_eye_scale = 1;
};
ImageRGBA8 render_thin_lens(const Scene& s, const Camera& cam, double lens_radius, double focus_z, int n,
                            const LensShape& shape = {});

}  // namespace satlab::scene
