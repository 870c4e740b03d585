// The spreading depth-of-field mode ("spread", core/dof_modes.hpp): host-side set-up shared with the GPU
// backend and the CPU reference. The per-pixel arithmetic is core/dof_spread_pixel.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/dof_spread_pixel.hpp"
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

// The spread's apertures (dof::SpreadInfo): per radius r in 0..max_r, kMaxSpreadRects rectangles (the
// unused ones zero) and their components. `one` is the spread weight, in fixed point, of a pixel that
// every splat of a uniform CoC covers: kSpreadOne over the budget factor (1 for flat apertures,
// kProfileBudget with a profile or a hole, whose weight peaks above its mean: the budget of
// core/dof_spread_pixel.hpp then holds with the peak; tests/cpu/dof_spread_test.cpp computes it).
// With cat-eye (Params::cat_eye), `bins` = dof::kCatEyeBins tables of max_r + 1 radii each, one after another
// (dof::cat_eye_bin); else one.
struct SpreadApertures {
  int max_r = 0;
  bool flip_front = false;  // ApertureTable::flip_front (each SpreadInfo's flip)
  uint32_t one = dof::kSpreadOne;
  int bins = 1;
  std::vector<dof::Rect> rects;
  std::vector<dof::SpreadInfo> info;
  const dof::Rect* rects_of(int bin) const {
    return rects.data() + size_t(bin) * size_t(max_r + 1) * size_t(dof::kMaxSpreadRects);
  }
  const dof::SpreadInfo* info_of(int bin) const { return info.data() + size_t(bin) * size_t(max_r + 1); }
};
constexpr uint32_t kProfileBudget = 4;
// SpreadApertures::one for a frame of `p` (what spread_apertures(p, ...) sets).
uint32_t spread_one(const Params& p);
// A grey aperture image (ApertureImage::grey) without a profile or hole: spread_apertures draws its
// kGreyLevels levels as components (core/aperture_image.hpp, image_grey_levels), each its step in 32nds,
// at most kMaxRects rectangles a level.
bool spread_grey_image(const Params& p);
// Whether a frame of p's apertures have several components (a profile, a hole, a grey picture).
bool spread_components(const Params& p);

// The flat apertures of a table: each radius one component of mult 1 (its rectangles as they are).
SpreadApertures spread_apertures(const ApertureTable& t);
// A frame's apertures: merge_bands(aperture_table(p, max_r)), and with Params::bokeh_profile P or
// Params::catadioptric h set, the lens's weight 1 + P (2 u' - 1) over the aperture (u the fraction of its
// area inside the point, u' that of the ring h^2 <= u <= 1; 0 inside the hole) as a staircase of at most
// kMaxSpreadComponents nested outlines: radius r's rings (aperture k less aperture k - 1) each take the
// weight's mean over their area fractions; the regions (runs of rings) are those that fit the rings best
// in least squares up to radius 64, equal steps of u beyond; each region weighs its rings' mean, in 32nds.
// With Params::cat_eye, the flat aperture's kCatEyeBins tables (dof::cat_eye_bin): bin 0 the plain one, the
// others each radius's aperture cut to the bin's disc (at most kMaxRects rectangles: the cut rows, then the
// adjacent pieces that lose the fewest pixels merged).
// Each inner outline is the aperture of its radius cut to the one outside it (so the weight is nowhere
// negative), its mult the step in weight there; the centre and the rim keep at least a 32nd (a pixel's own
// splat covers it; the outline stays the flat aperture's). A radius left with one component is flat.
SpreadApertures spread_apertures(const Params& p, int max_r);
// What spread_apertures(p, max_r) depends on, as text (the GPU re-uploads the table when it changes).
std::string spread_aperture_key(const Params& p, int max_r);

// Every layer's delta image (4 uint32 channels: colour, weight; wrap-around): each pixel of layer j, and
// each virtual pixel of layer j beyond the frame's edges within reach of it (dof::outside: the frame's edges
// extended), adds its splat's corner deltas (dof::splat_of, splat_fragment, splat_corners) to deltas[j].
// Colours are decoded under the camera response `shoulder` (Params::response_shoulder).
void spread_deltas(const ImageRGBA8& image, const ImageF& coc, const dof::Layers& layers,
                   const SpreadApertures& ap, float shoulder, std::vector<std::vector<uint32_t>>& deltas,
                   int threads = 0);

// The aperture table with each run of adjacent rectangles of equal columns merged into one (the GPU's
// spread kernels use it): the same pixels, hence the same areas, and the same delta image (where
// two such rectangles meet, their corners on the shared row cancel, under the same clipping), with fewer
// corners: a disc's two middle bands are always equal, and at radii 1..4 a third to two thirds of the
// bands merge.
ApertureTable merge_bands(const ApertureTable& t);

// The CPU reference of the spread mode: the deltas, their uint32 SATs (the spread sums), the fill tables
// (as dof_shaped_blur's: (12-bit linear colour, 1) over layers 0..t), dof::spread_pixel and the encode.
// `depth`: the histogram of the depth the CoC map came from, for the layers' edges (frame_layers), or
// nullptr: fixed edges (make_layers). `phase`, if set, is called as the work moves to each phase, the
// GPU's names: "spread", "sat", "fill", "composite" (here one after another; the GPU runs "fill" beside).
void dof_spread_blur(const ImageRGBA8& image, const ImageF& coc, const Params& p, ImageRGBA8& out,
                     int threads = 0, const DepthHistogram* depth = nullptr,
                     const std::function<void(const char*)>& phase = nullptr);
// The spread mode's CPU entry point (core/dof_modes.hpp): dof_spread_blur.
void dof_spread_cpu(const DofMode& m, const DofCpuArgs& a);
// Its support (DofMode::halo): a pixel takes the splats of the points within max_r of it, whose fragments
// read the CoC and colour up to kHiddenGap beyond them (dof::mixed_of, dof::hidden_of); the fill behind
// the front surface (dof::spread_pixel) grows its boxes up to dof::fill_reach, plus the rest of the
// kFillBlock blocks they meet. The fill tables' blocks start at the frame's origin, so a tile's origin
// must lie on a multiple of kFillBlock of the image (core/tiled.cpp puts it there).
int dof_spread_halo(const DofMode& m, const Params& p);

}  // namespace satlab
