// The spreading depth-of-field mode ("spread", core/dof_modes.hpp): host-side set-up shared with the GPU
// backend and the CPU reference. The per-pixel arithmetic is core/dof_spread_pixel.hpp.
#pragma once
#include <cstdint>
#include <vector>

#include "core/dof.hpp"
#include "core/dof_spread_pixel.hpp"
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

// Every layer's delta image (4 uint32 channels: colour, weight; wrap-around): each pixel of layer j, and
// each virtual pixel of layer j beyond the frame's edges within reach of it (dof::outside: the frame's edges
// extended), adds its splat's corner deltas (dof::splat_of, aperture_area, splat_weight, splat_values,
// splat_corners) to deltas[j]. Colours are decoded under the camera response `shoulder` (Params::response_shoulder).
void spread_deltas(const ImageRGBA8& image, const ImageF& coc, const dof::Layers& layers,
                   const ApertureTable& ap, float shoulder, std::vector<std::vector<uint32_t>>& deltas,
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
