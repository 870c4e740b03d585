// The shaped, linear-light and layered depth-of-field modes (core/dof_modes.hpp lists them): host-side
// set-up shared with the GPU backend (aperture rectangles, depth layers, transfer tables) and the CPU
// reference. The per-pixel arithmetic is core/dof_pixel.hpp, compiled for both backends.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dof_modes.hpp"
#include "core/dof_pixel.hpp"
#include "core/frame_stats.hpp"
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

// How a mode gathers: in linear light or sRGB values, with how many depth layers (1: no occlusion).
struct DofSetup {
  bool linear = false;
  int layers = 1;
};
// The setup of a shaped mode (not gather_box) under `p`: linear light and layers from its capabilities.
DofSetup dof_setup(const DofMode& m, const Params& p);
// The setup of Params::dof_mode.
DofSetup dof_setup(const Params& p);

// The aperture as rectangles of rows for every integer radius 0..max_r: kMaxRects slots per radius in
// `rects`, the number used in `counts`. Square: one rectangle, the square of radius r. Disc and polygon
// (Params::blades, blade_rotation; inscribed in the disc): up to kMaxRects - 1 bands of rows disjoint in
// y and symmetric about row 0, drawn from the shape of the radius whose second moment is nearest
// aperture_moment_target (the blend of apertures r and r + 1 by the fractional CoC then has the lens's
// second moment in the least-squares sense; derivation at aperture_table in core/dof.cpp). Every shape
// contains its centre pixel and lies within the square of radius r.
// With Params::aperture_image, the picture's rectangles (core/aperture_image.hpp, image_aperture), upright,
// and flip_front set: a CoC > 0 (in front of the focus plane) draws each turned by 180 degrees (dof::flipped).
struct ApertureTable {
  int max_r = 0;
  bool flip_front = false;
  int stride = dof::kMaxRects;  // rectangle slots per radius (image_aperture_table's budget)
  std::vector<dof::Rect> rects;
  std::vector<uint8_t> counts;
};
ApertureTable aperture_table(const Params& p, int max_r);
// Params::aperture_image's apertures with a budget of `most` rectangles a radius (the stride); aperture_table
// takes dof::kMaxRects, spread more (core/dof_spread.hpp).
ApertureTable image_aperture_table(const Params& p, int max_r, int most);
// What aperture_table's result depends on, as text (the GPU re-uploads a table when it changes).
std::string aperture_key(const Params& p, int max_r);
// The mean of x^2 + y^2 over the pixels of n rectangles (0 for none), and the value aperture_table aims
// aperture r of a disc or polygon at: k (r^2 - 1/6), k the shape's second moment over its area at
// circumradius 1 (1/2 for the disc).
double aperture_second_moment(const dof::Rect* rects, int n);
double aperture_moment_target(const Params& p, int r);
// The largest radius a frame of these parameters gathers with: ceil(max_radius), at most kMaxShapedRadius.
int shaped_max_radius(const Params& p);

// `count` layers over the signed CoC in [-M, M], M = max_radius, edges spaced quadratically (finer near
// the focus plane): e_i = M sign(t) t^2, t = -1 + 2 i / count. Means are left at the layers' mid points.
dof::Layers make_layers(const Params& p, int count);
// The frame's own layer edges (docs/quality.md, "How spread meets the lens": layer edges from the depth
// histogram). The occlusion-aware modes mix the pixels of one layer without occlusion, so an object and what
// lies behind it should fall in different layers; fixed edges put them together wherever the two CoCs share a
// slice. frame_layers takes the histogram of the frame's normalised depth (depth_histogram), maps every depth
// bin to the CoC of its centre (coc_from_depth) and that to a bin of u = sign(c) sqrt(|c| / M) (kEdgeBins
// bins over [-1, 1]: make_layers' edges are uniform in u), and puts the `count` layers' edges where they
// minimise the pixel-weighted variance of u within the layers (optimal 1D k-means by dynamic programming,
// divide and conquer over the monotone split points: O(count kEdgeBins log kEdgeBins)). The spread's work
// (estimated from the histogram: each pixel's layer's window, the GPU's 32 x 32 tile grown by the layer's
// radius) bounds them: where the plain k-means edges cost more of it than make_layers' edges, the edges are
// those of least variance within that work (Lagrangian relaxation: the same dynamic programme with the work's
// multiple added, its multiplier found by bisection), or make_layers' where none of less variance fits. With
// no histogram (nullptr: no depth map), make_layers. Depends only on the histogram and Params, so the CPU and
// GPU backends get the same edges from the same counts. The last two results are kept per thread and reused
// for the same histogram and lens (chromatic aberration's two passes ask for two in turn).
// The spread mode's GPU tile (gpu/filter/dof_spread.cu): each tile of a layer is spread in a window of
// the tile grown by the layer's largest aperture radius, layer_radius: the outer layers' is max_r (their
// CoCs reach the clamp), the others' that of their farther edge.
constexpr int kSpreadTile = 32;
int layer_radius(const dof::Layers& l, int j, int max_r);
constexpr int kEdgeBins = 256;
// The bin of a normalised depth d in [0, 1]: floor(kDepthBins d) clamped, NaN kDepthBins (exact in
// float: kDepthBins is a power of 2; the GPU's histogram kernel uses this function).
SATLAB_HD int depth_bin(float d) {
  if (!(d == d)) return kDepthBins;
  const float b = d * float(kDepthBins);
  return b <= 0.f ? 0 : b >= float(kDepthBins - 1) ? kDepthBins - 1 : int(b);
}
void depth_histogram(const ImageF& normalised, DepthHistogram& h, int threads = 0);
// The same of raw depth normalised to [min, max] as normalise_depth does it, value by value (no normalised copy).
void depth_histogram(const float* raw, size_t n, float min, float max, DepthHistogram& h, int threads = 0);
dof::Layers frame_layers(const Params& p, int count, const DepthHistogram* h);
// frame_layers' search itself (no reuse), and what it found: the variance (cost) and work of the fixed
// edges, the plain k-means edges and the chosen ones, and which those are.
struct LayerSearch {
  enum Kind { Fixed, Plain, Constrained } kind = Fixed;
  double cost_fixed = 0, work_fixed = 0, cost_plain = 0, work_plain = 0, cost = 0, work = 0;
};
dof::Layers histogram_layers(const Params& p, int count, const DepthHistogram& h, LayerSearch* info = nullptr);
// The integer sums that dof::layer_means reads, over a CoC map (NaN counts as 0).
void layer_sums(const float* coc, size_t n, const dof::Layers& l, long long* sum256, unsigned* count);
// Adds the sums over n more CoC values to s (s.count = l.count, its edges l's, on the first call: s empty).
void add_layer_sums(const float* coc, size_t n, const dof::Layers& l, LayerSums& s);
// l's means from whole-frame sums (dof::layer_means' arithmetic); throws satlab::Error unless s was taken
// under l's edges.
void apply_layer_sums(const LayerSums& s, dof::Layers& l);

// The camera response (Params::response_shoulder, s in [0, kMaxResponseShoulder]): the camera encoded
// scene radiance v as sRGB(min(v / (1 + s v), 1)), a highlight shoulder; s = 0 is plain sRGB. The linear-light
// modes work in 12-bit integer codes of radiance: code = round(4095 v (1 - s)), so that the largest radiance
// the response can decode, 1 / (1 - s) (sRGB 255), is 4095. Why that scale: every fixed-point budget of the
// linear-light modes (exact 12-bit box sums up to kMaxShapedRadius, core/dof_pixel.hpp; the spread sums,
// core/dof_spread_pixel.hpp; the highlights' splats, core/highlights_pixel.hpp) is stated for codes in
// [0, 4095] and holds unchanged, and no 8-bit value is clamped (radiance 1 -> 4095 would clip every value
// above 1 / (1 + s), the highlights the shoulder is about). The cost is shadow resolution: one code is
// (1 / (1 - s)) / 4095 of radiance, and where sRGB steps are finer than that neighbouring 8-bit values
// share a code: 6 values below 11 at s = 0.4, 67 below 79 at s = 0.9; at s <= 0.2 every value keeps its
// own (tests/cpu/response_test.cpp). A wider code would break the 12-bit box-sum budget.
// s is used to a resolution of 1/1000 (dof::kResponseSteps): the tables are built (double precision) for
// round(1000 s) / 1000, once per step, and kept for the process, at most 901 of 4.6 KB (a slider dragged
// over the range cannot grow memory beyond that); the pointers stay valid for its lifetime. The GPU
// uploads these same tables, so both backends agree bit for bit.
constexpr float kMaxResponseShoulder = 0.9f;
struct ResponseTables {
  double shoulder = 0;                          // the s they are built for: round(1000 s) / 1000
  uint16_t to_linear[256];                      // sRGB 8-bit -> 12-bit radiance code
  uint8_t to_srgb[dof::kLinearOne + 1];         // 12-bit radiance code -> sRGB 8-bit (rounded)
};
// Throws satlab::Error outside [0, kMaxResponseShoulder].
const ResponseTables& response_tables(float shoulder);
// The identity of a response's tables (its step, round(1000 s)): the GPU re-uploads them when it changes.
uint32_t response_key(float shoulder);
// The exact decode of one 8-bit value to radiance (double), and the codes per unit of radiance,
// (1 - s) 4095.
double response_decode(int srgb8, double shoulder);
double response_code_scale(double shoulder);

// sRGB 8-bit -> linear light in 12-bit integers (round(4095 (1 - s) v), v the radiance above), and
// 12-bit -> sRGB 8-bit (round(255 sRGB(min(t / (1 + s t), 1))), t = code / (4095 (1 - s))). At s = 0:
// round(4095 * decode(x / 255)) and round(255 * encode(v / 4095)); the round trip of every 8-bit value is
// the identity there (and wherever the value has its own code, above).
const uint16_t* srgb_to_linear12(float shoulder = 0.f);
const uint8_t* linear12_to_srgb(float shoulder = 0.f);

// The CPU reference of a shaped mode: per layer j, the 4-channel uint32 SAT of (colour, 1) over the pixels
// of layer j (colour: 12-bit linear or 8-bit sRGB values), then dof::layered_pixel and the encode.
// `depth` is the histogram of the depth the CoC map came from (frame_layers), or nullptr: fixed edges.
// `phase`, if set, is called as the work moves to each phase, the GPU's names: "layers" (with layers),
// "slice", "sat" (the two alternate, layer by layer), "composite+fill" (with layers) or "composite".
void dof_shaped_blur(const ImageRGBA8& image, const ImageF& coc, const Params& p, ImageRGBA8& out,
                     int threads = 0, const DepthHistogram* depth = nullptr,
                     const std::function<void(const char*)>& phase = nullptr);
// The CPU entry point of the shaped, linear and layered modes (core/dof_modes.hpp): dof_shaped_blur with
// the setup of `m`.
void dof_shaped_cpu(const DofMode& m, const DofCpuArgs& a);
// Their support (DofMode::halo): the aperture of the largest radius, shaped_max_radius; with layers, the
// fill behind the nearest layer (dof::layered_pixel), whose boxes grow up to dof::fill_reach wherever
// nothing behind lies nearer.
int dof_shaped_halo(const DofMode& m, const Params& p);

}  // namespace satlab
