// Subject selection (the `select` family): clicks on the subject, and optionally on the background, give a
// full-resolution alpha matte of the subject. The CPU reference is here; the GPU version (gpu/select/)
// runs the same stages on the device and agrees with it bit for bit up to the matte, whose guided filter
// is float on the GPU (bounded by core/guided_filter.hpp's guided_filter_bound).
//
// Stages (after GeoS, Criminisi, Sharp and Blake, ECCV 2008, and the guided filter of He, Sun and Tang):
//  1. work:     the image area-averaged by an integer factor s to at most work_side on its long side.
//  2. reach:    the geodesic distance from the subject clicks (core/select_pixel.hpp's step costs): how much
//               contrast a path from a click must cross to reach each pixel.
//  3. seeds:    background seeds are the background clicks and the pixels of the working image's border
//               that lie beyond an edge of at least edge_threshold from every subject click (so a subject
//               that touches the frame keeps its border). No such seed: the selection is the click's region
//               up to the first edge of edge_threshold (a flood fill, with a note), which makes a click on a
//               background that surrounds everything select that background.
//  4. models:   colour histograms (16^3 bins) of the pixels within model_radius of the subject clicks and of
//               the background seeds (and within model_radius of background clicks); a pixel whose colour a
//               side's samples hold is a soft seed of that side (GeoS's generalised geodesic distance),
//               at a cost of a few contrast units plus likelihood_weight units per bit of -log2
//               P(side | colour); a colour a side has not seen is no seed of it.
//  5. label:    a pixel is subject where its generalised geodesic distance to the subject is below that to
//               the background; only the regions connected to a subject click are kept.
//  6. matte:    the label brought to full resolution, then, in the band of pixels within matte_radius of
//               its boundary, the guided filter of the label with the image's colour as the guide, clamped
//               to [0,1]: the boundary snaps to the image's edges and stays soft where they are (hair, fur).
//               Outside the band alpha is the label (exactly 0 or 1).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/select_pixel.hpp"

namespace satlab {

struct SelectClick {
  float x = 0.f, y = 0.f;   // image pixel coordinates
  bool background = false;  // a click on what is not the subject (also: subtract this region)
};

struct SelectParams {
  int work_side = 1024;         // the working image's long side at most (stage 1), 16..kMaxWorkSide
  int edge_floor = 32;          // colour steps (|dR|+|dG|+|dB| of the working image) up to this cost nothing
  int edge_threshold = 24;      // contrast units above the floor that make an edge (stage 3)
  int iterations = 4;           // raster pass iterations (rows both ways, then columns both ways)
  float model_radius = 0.04f;   // colour model discs, a fraction of the working image's diagonal
  int likelihood_weight = 4;    // soft seed cost per bit, contrast units (0: no colour models)
  int matte_radius = 0;         // guided filter window radius at full resolution; 0: max(3, 2 s)
  float matte_eps = 1e-3f;      // guided filter regularisation (guide in [0,1])
};
// Throws satlab::Error naming the first bad field.
void validate(const SelectParams& p);
// "work=N,floor=N,threshold=N,iterations=N,model=F,likelihood=N,matte=N,eps=F"; unnamed keys keep defaults.
SelectParams parse_select_params(const std::string& spec);

// The working image's scale factor s: ceil(max(W, H) / work_side), at least 1.
int select_scale(int width, int height, int work_side);
int matte_radius(const SelectParams& p, int scale);

struct SelectWork {
  int scale = 1, width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
};
SelectWork select_work_image(const ImageRGBA8& image, int work_side, int threads = 0);
// ch[j w + i]: the step (i - 1, j) -> (i, j) (i = 0: kGeoInf); cv[j w + i]: the step (i, j - 1) -> (i, j).
void select_edge_costs(const SelectWork& w, int edge_floor, std::vector<uint32_t>& ch, std::vector<uint32_t>& cv);
// In place: `iterations` times every row left to right and back, then every column down and up.
void geodesic_passes(uint32_t* d, int width, int height, const uint32_t* ch, const uint32_t* cv, int iterations,
                     int threads = 0);

// A click on the working image (clamped into it).
using WorkClick = select::Click;
std::vector<WorkClick> work_clicks(const std::vector<SelectClick>& clicks, int scale, int width, int height);
int model_radius_cells(const SelectParams& p, int width, int height);
// Later clicks win: each click drops the earlier clicks of the other kind that lie in its region (reached
// from it across no edge of `edge`), so a background click subtracts what earlier subject clicks added and
// a subject click adds back. reach_at_clicks(i): the geodesic distance from click i alone at every
// click's cell, in order.
std::vector<WorkClick> resolve_clicks(const std::vector<WorkClick>& clicks, uint32_t edge,
                                      const std::function<std::vector<uint32_t>(size_t i)>& reach_at_clicks);
// Per bin, the soft seed cost of the subject and of the background from the two histograms (stage 4).
struct SelectModels {
  std::vector<uint32_t> subject, background;  // kBins each
};
SelectModels select_models(const std::vector<uint32_t>& subject_hist, const std::vector<uint32_t>& background_hist,
                           int likelihood_weight);

struct Selection {
  int width = 0, height = 0;  // the image's
  ImageF alpha;               // width x height, [0,1]
  int scale = 1, work_width = 0, work_height = 0;
  std::vector<uint8_t> label;  // work_width * work_height: 1 subject, 0 not
  bool flood = false;          // no background seed: the click's region up to the first edge
  std::string note;            // what the user should know ("" when nothing)
};

// Throws satlab::Error for an empty image, no subject click, or bad parameters.
Selection select_subject_cpu(const ImageRGBA8& image, const std::vector<SelectClick>& clicks,
                             const SelectParams& p = {}, int threads = 0);

// Stage 6 on its own: the label at full resolution (nearest cell) and the band (the pixels whose clipped
// (2r+1)^2 box holds both values of it).
ImageF label_full(const Selection& s);
std::vector<uint8_t> matte_band(const ImageF& full_label, int radius, int threads = 0);

// The selector family's CPU rows, as the refiners' (core/refine.hpp).
struct Selector {
  const char* name;
  const char* label;
  const char* source;
  Selection (*cpu)(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, const SelectParams& p,
                   int threads);
};
const std::vector<Selector>& selectors();
const Selector* find_selector(const std::string& name);

// The depth a selection gives (stage 7: its use). Normalised depth, 0 near:
//  - open:  the subjects at 0, the rest at 1 (`--subject` without a layout).
//  - wall:  the subjects at 0, the rest at kWallDepth (a wall a short way behind them).
//  - floor: a ground plane from depth 0 at the image's bottom row to 1 at the top of the highest subject
//           (and 1 above it); every subject at the ground's depth at its own base (its lowest row).
// A pixel is the subject's where alpha >= 1/2: a hard depth edge, as a scene's depth has (mixing the two
// depths by alpha gives the edge in-between CoCs: 0.5-7.8 dB lower on 7 of 8 cut-out cases, docs/quality.md).
// `focus` receives the first subject click's subject's depth.
enum class SubjectLayout { Open, Wall, Floor };
constexpr float kWallDepth = 0.5f;
const char* to_string(SubjectLayout l);
SubjectLayout parse_subject_layout(const std::string& name);  // throws satlab::Error naming the choices
ImageF depth_from_selection(const Selection& s, const std::vector<SelectClick>& clicks, SubjectLayout layout,
                            float* focus = nullptr);
// "X,Y[;X,Y...]" -> clicks (background as given). Throws satlab::Error on a malformed list.
std::vector<SelectClick> parse_clicks(const std::string& list, bool background);


// A photo-like scene for the timings: a textured subject (an ellipse with a stripe) over a textured
// background with a gradient; *clicks receives one click inside the subject.
ImageRGBA8 select_bench_scene(int width, int height, std::vector<SelectClick>* clicks);

}  // namespace satlab
