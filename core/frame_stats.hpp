// Whole-frame statistics of the depth: what a pipeline needs beyond a pixel's neighbourhood. A frame
// computes them from its own depth map; a tile of a larger image (core/tiled.hpp) is given those of the
// whole image (Pipeline::set_frame_stats), so that every pixel it writes equals the whole-image result.
#pragma once
#include <cstdint>
#include <vector>

#include "core/dof_pixel.hpp"

namespace satlab {

constexpr int kDepthBins = 1024;  // depth_histogram's bins over [0, 1], plus one for NaN
struct DepthHistogram {
  std::vector<uint32_t> count;  // kDepthBins + 1 (the last: NaN depths), or empty
};

// The signed CoC's sums per depth layer over a frame (core/dof.hpp, layer_sums: round(256 c) and the pixel
// count, NaN as 0) under the layers whose edges are `edge`: the layered mode's layer means
// (dof::layer_means). count = 0: none.
struct LayerSums {
  int count = 0;
  float edge[dof::kMaxLayers + 1] = {};
  long long sum256[dof::kMaxLayers] = {};
  uint64_t pixels[dof::kMaxLayers] = {};
};

// valid = false: none given (a pipeline computes them from its own frame). Given stats apply where the
// pipeline has a depth map; without one every pixel lies on the focus plane as before.
struct FrameStats {
  bool valid = false;
  bool has_depth = false;  // false: no depth map (every pixel on the focus plane); the rest is empty
  // The raw depth's range over the whole image as minmax_reduce takes it (NaN skipped, infinities kept;
  // NaN and NaN where every value is NaN): normalise_depth divides by depth_max - depth_min.
  float depth_min = 0.f, depth_max = 0.f;
  DepthHistogram histogram;  // of the whole normalised depth (depth_histogram)
  LayerSums layers;          // the layered mode's (count > 1), else count = 0
};

// Counts of a whole image's bins as a histogram: counts that pass 2^32 - 1 (images over 4 Gpx) are scaled
// down together by a power of 2, a non-zero count staying at least 1 (the layer edges depend on their
// proportions alone).
DepthHistogram histogram_of_counts(const std::vector<uint64_t>& count);

}  // namespace satlab
