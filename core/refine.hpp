// Depth refiners (the `refine` family): a depth map that is not exact (a phone's low-resolution map,
// stereo output, brush strokes, noisy depth) plus the full-resolution image -> full-resolution depth.
// CPU references here; the GPU versions (gpu/refine/) follow the same per-pixel code
// (core/refine_pixel.hpp) and agree bit for bit, except `guided`, whose float SATs are bounded
// (core/guided_filter.hpp).
//
// Refiners:
//  - none:    bilinear resampling to the image's size (what satlab did before refiners existed).
//  - guided:  bilinear resampling, then the guided filter (He et al. 2010) with the image as the guide.
//             It copies the image's texture into the depth: kept as a baseline.
//  - wmedian: per pixel, the weighted median of the depth samples of a 7 x 7-sample window, each sample
//             weighted by its closeness in position and in colour to the pixel and by how flat the depth
//             is around it (samples that straddle a depth edge are mixtures) and its confidence
//             (after Ma et al. 2013 and Zhang et al. 2014's weighted median filters).
//  - jbu:     joint bilateral upsampling (Kopf et al. 2007): the weighted mean of the same samples with the
//             same weights.
//  - snap:    the depth of the single sample of largest weight (nearest in colour and position among the
//             flat, confident samples).
//
// Input depth at the image's size, or at under half of it in neither axis, is first area-averaged onto a
// grid of kRefineCell x kRefineCell cells (confidence-weighted), so that a misplaced edge of a few pixels
// (brush strokes, stereo at occlusions) is a minority of every window. Such depth with a confidence map
// keeps its confident values: the result is c * input + (1 - c) * refined (refine::keep_confident).
#pragma once
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab {

struct RefineInput {
  const ImageRGBA8* image = nullptr;       // the guide, W x H (its RGB; alpha ignored)
  const ImageF* depth = nullptr;           // 1 channel, w x h with 1 <= w, h (any size); NaN: no sample
  const ImageF* confidence = nullptr;      // nullptr (all 1), or 1 channel, same size as depth, in [0,1]
};

struct Refiner {
  const char* name;    // command-line id
  const char* label;   // shown in the app
  const char* source;  // paper or origin
  // Full-resolution depth (W x H, 1 channel). Values lie within the range of the input's finite depths
  // (guided: clamped to it). Throws satlab::Error on bad input (sizes, channels, empty).
  ImageF (*cpu)(const RefineInput& in, int threads);
};

// The refiners, in the order of the table above.
const std::vector<Refiner>& refiners();
const Refiner* find_refiner(const std::string& name);
std::string refiner_list();  // "none, guided, wmedian, jbu, snap"

// The refiner `auto` picks wherever the depth is not exact.
constexpr const char* kDefaultRefiner = "wmedian";

// Where a depth map came from; `auto` refines every origin but an exact, full-size file, a synthetic map and
// painted depth.
enum class DepthOrigin { File, Embedded, Stereo, Brush, Synthetic };
// "auto" -> kDefaultRefiner, or "none" for a full-size File, a Synthetic map or a Brush's; any other name is
// checked and returned. Throws satlab::Error naming the valid choices for an unknown name.
std::string resolve_refiner(const std::string& choice, DepthOrigin origin, bool lower_resolution);

// Runs refiner `name` (not "auto") on the CPU.
ImageF refine_cpu(const std::string& name, const RefineInput& in, int threads = 0);

// The bilinear resampling `none` applies (also io::resample_depth's).
ImageF resample_bilinear(const ImageF& depth, int width, int height);

}  // namespace satlab
