// Depth as users have it, made deterministically from a ground-truth case's exact depth, for
// `satlab quality --depth` (issue 34). Depth is in the case's normalised units throughout: d in [0,1],
// scene depth z = near + d (far - near). Every source gives depth at its own resolution and an optional
// confidence map; a refiner (core/refine.hpp) turns it into full-resolution depth.
//
//  - exact:       the exact map as is.
//  - phone:       ceil(W/4) x ceil(H/4) (at least 1 x 1): each sample the area average of its footprint
//                 [i W/w, (i+1) W/w) x [j H/h, (j+1) H/h) (fractional pixels weighted by their overlap),
//                 then 8-bit: round(v * 255) / 255. Given at that low resolution, as a phone's file is.
//  - phone_noisy: phone after the full-resolution map is shifted 2 px right and down (edge-clamped:
//                 out(x, y) = exact(max(x - 2, 0), max(y - 2, 0))), with Gaussian noise of sigma 1% of the
//                 exact map's range added to each low-resolution sample before the 8-bit step (clamped to
//                 [0,1] there). The noise comes from splitmix64 (seeded with the seed and the sample index)
//                 and Box-Muller, so it is the same on every platform and thread count (up to the last bit
//                 of the C library's log and cos, which the 8-bit step absorbs but on ties).
//  - brush:       per-object constant depth with displaced silhouettes. Objects: the 4-connected regions
//                 of equal level, levels kBrushLevels bands uniform in 1/z between near and far (so a
//                 floor becomes terraces, as strokes of a few depths would paint it, and each band is the
//                 same CoC width). Each object gets the median of its exact depths (the lower middle on an
//                 even count). The painting samples the object map at (x + ox, y + oy): (ox, oy) an integer
//                 offset, the truncation of a smooth displacement field (value noise on a kBrushCell grid,
//                 smoothstep-interpolated) of length at most kBrushDisplacement px, so every silhouette
//                 moves by at most that. Full resolution. Confidence: what the app knows of strokes, where
//                 they meet: 1 where no pixel of another painted depth lies within kBrushDisplacement px,
//                 else dist / (kBrushDisplacement + 1), dist the Euclidean distance to the nearest one.
//  - stereo:      satlab's own matcher (core/stereo.hpp, CPU, `satlab depth stereo`'s defaults: 64
//                 disparities or as many as the case's nearest depth needs, holes filled) on the pinhole
//                 image and a right view; disparity D -> z = disparity_scale / D -> d = (z - near) /
//                 (far - near), clamped to [0,1] (D = 0: d = 1). NaN where the hole filling left nothing.
//                 Confidence: 1 where the left-right check (and uniqueness) kept the match, 0 where the hole
//                 filling made it up.
//  - selection:   subject select (core/select.hpp, CPU, default parameters) from the case's clicks, one
//                 selection per click alone (a user's click inside each object); each object gets the exact
//                 depth under its click (the brush's eyedropper), the rest the median exact depth of the
//                 pixels outside every matte (alpha < 1/2), and each object's depth is laid over it where
//                 its alpha is at least 1/2, far to near (a hard edge, as depth_from_selection makes). Full
//                 resolution, no confidence; refined as the app refines a selection's depth (not at all).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/refine.hpp"
#include "core/select.hpp"

namespace satlab {

constexpr int kPhoneScale = 4;                      // phone: 1/4 width and height
constexpr int kPhoneShift = 2;                      // phone_noisy: misregistration, full-resolution px
constexpr float kPhoneNoise = 0.01f;                // phone_noisy: sigma, fraction of the depth range
constexpr int kBrushLevels = 16;                    // brush: depth bands, uniform in 1/z
constexpr int kBrushDisplacement = 6;               // brush: largest silhouette displacement, px
constexpr int kBrushCell = 24;                      // brush: displacement field's grid spacing, px
constexpr uint64_t kDepthSourceSeed = 0x5a71ab34u;  // the harness's seed

struct DepthSource {
  ImageF depth;       // 1 channel, the source's own resolution; NaN: no depth there
  ImageF confidence;  // empty: none; else same size as depth, in [0,1]
};

struct DepthSourceInput {
  const ImageF* exact = nullptr;  // W x H, 1 channel, normalised [0,1]
  float near_depth = 0.f;         // the case's z at d = 0 and 1 (brush, stereo); near < far
  float far_depth = 0.f;
  const ImageRGBA8* left = nullptr;   // stereo: the pinhole image (W x H)
  const ImageRGBA8* right = nullptr;  // stereo: the right view, camera moved right
  double disparity_scale = 0;         // stereo: disparity = disparity_scale / z px (focal_px * baseline)
  std::vector<SelectClick> clicks;    // selection: one click inside each object (on `left`)
  SelectParams select;                // selection: the selector's parameters
  uint64_t seed = kDepthSourceSeed;
};

// "exact, phone, phone_noisy, stereo, brush, selection", in that order.
const std::vector<std::string>& depth_source_names();
std::string depth_source_list();
// Where the source's depth comes from, for resolve_refiner (core/refine.hpp).
struct DepthSourceOrigin {
  DepthOrigin origin;
  bool lower_resolution;
};
// Throws satlab::Error naming the valid sources for an unknown name.
DepthSourceOrigin depth_source_origin(const std::string& name);
// Throws satlab::Error for an unknown name or what the source needs and `in` lacks (one line).
DepthSource make_depth_source(const std::string& name, const DepthSourceInput& in, int threads = 0);

// The sources and their steps, on their own for the tests.
DepthSource phone_depth(const ImageF& exact);
DepthSource phone_noisy_depth(const ImageF& exact, uint64_t seed = kDepthSourceSeed);
DepthSource brush_depth(const ImageF& exact, float near_depth, float far_depth,
                        uint64_t seed = kDepthSourceSeed);
DepthSource stereo_depth(const ImageRGBA8& left, const ImageRGBA8& right, double disparity_scale,
                         float near_depth, float far_depth, int threads = 0);
DepthSource selection_depth(const ImageRGBA8& image, const ImageF& exact, const std::vector<SelectClick>& clicks,
                            int threads = 0, const SelectParams& p = {});

// Area average onto w x h (footprints as for phone).
ImageF area_downsample(const ImageF& depth, int width, int height);
// round(clamp(v, 0, 1) * 255) / 255 (NaN stays NaN).
void quantise_8bit(ImageF& depth);
// out(x, y) = in(clamp(x - dx), clamp(y - dy)).
ImageF shift_clamped(const ImageF& depth, int dx, int dy);

// The brush's objects before the displacement: per pixel its object, per object its depth.
struct BrushObjects {
  std::vector<int32_t> label;  // W * H
  std::vector<float> depth;    // per object: the median of its exact depths
};
BrushObjects brush_objects(const ImageF& exact, float near_depth, float far_depth);
// The brush's integer displacement at each pixel (W * H pairs): |(ox, oy)| <= kBrushDisplacement.
std::vector<int8_t> brush_displacement(int width, int height, uint64_t seed = kDepthSourceSeed);

// splitmix64 (Steele, Lea and Flood 2014): the harness's generator, the same on every platform.
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1]: 53 bits.
  double uniform() { return double((next() >> 11) + 1) * 0x1.0p-53; }
  // Standard normal (Box-Muller, the cosine branch).
  double gaussian();
};

}  // namespace satlab
