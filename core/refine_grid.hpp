// The host side of the sample-based refiners (core/refine.cpp), for the CPU reference and the GPU's
// checks: the sample grid and its tolerances, the samples, and the per-pixel pass.
#pragma once
#include <vector>

#include "core/image.hpp"
#include "core/refine.hpp"
#include "core/refine_pixel.hpp"

namespace satlab::refine {

struct Grid {
  int W = 0, H = 0;    // the image
  int gw = 0, gh = 0;  // the sample grid
  std::vector<float> depth, confidence;  // gw * gh (confidence empty: all 1)
  // Regridded input with a confidence map: the input and its confidence at W x H (keep_confident).
  std::vector<float> full_depth, full_confidence;
  float lo = 0, hi = 0;                  // the finite depths' range (lo > hi: none)
  float tol = 0, polish_tol = 0;         // kFlatTol * span, kPolishTol * span
};

// Throws satlab::Error on bad input (sizes, channels).
void check_input(const RefineInput& in);
// Whether depth of w x h is regridded onto kCell cells for a W x H image (more than half its size).
bool needs_regrid(int w, int h, int W, int H);
Grid make_grid(const RefineInput& in);
std::vector<Sample> make_samples(const Grid& g, const ImageRGBA8& image);
ImageF refine_samples(const Grid& g, const std::vector<Sample>& samples, const ImageRGBA8& image, Reduce r,
                      int threads = 0);
// refine_pixel (core/refine_pixel.hpp) with weight()'s factors from tables, as refine_samples runs it: equal
// to refine_pixel bit for bit (tests/cpu/refine_test.cpp).
float refine_pixel_tables(const Window& win, int ci, int cj, int u, int v, const uint8_t rgb[3], Reduce r, float lo,
                          float hi, float polish_tol);

// A window's samples as 8-lane columns for the weights and predictions on AVX2: each sample's grid position
// (ci + i, cj + j) in 1/kSubSample, its palette's six channels, base, depth and slopes; padded to whole lanes
// with base 0.
struct WindowLanes {
  static constexpr int kPad = (kWindowSamples + 7) / 8 * 8;
  alignas(32) int32_t gu[kPad], gv[kPad], base[kPad], pal[6][kPad];
  alignas(32) float d[kPad], gx[kPad], gy[kPad];
  int n = 0;  // win.n
};
void fill_lanes(const Window& win, int ci, int cj, WindowLanes& lanes);
// Whether this CPU runs refine_pixel_lanes' 8-lane weights (AVX2); without, it is refine_pixel_tables.
bool lanes_supported();
// refine_pixel_tables with the weights 8 samples at a time where lanes_supported(): equal bit for bit.
float refine_pixel_lanes(const Window& win, const WindowLanes& lanes, int ci, int cj, int u, int v,
                         const uint8_t rgb[3], Reduce r, float lo, float hi, float polish_tol);

}  // namespace satlab::refine
