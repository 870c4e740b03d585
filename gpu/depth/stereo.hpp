// GPU stereo matching (core/stereo.hpp's algorithm): plain C++ face, callable whether or not CUDA was built
// in (without it these throw satlab::Error).
//
// Per stack of K disparity slices: one kernel writes the K 8-bit cost slices stacked vertically into one
// width x (K * height) image (each thread all K slices of 4 columns: the census read once per stack); one
// registered SAT builder (8-bit -> uint32, wrap-around) builds its SAT; one kernel takes 4 taps per pixel
// and slice (the left image's window at x), updates the left winner-take-all (state kept between stacks)
// and offers the sum to the right image's pixel x - d (shared, then global atomicMin of sum << 16 | d:
// the lowest sum, the smallest d on ties, as the reference's order gives). Stacking is
// exact: a box sum only differences the SAT over its own rows, so the slices above cancel out (mod 2^32,
// and every true box sum of 8-bit data under 2^24 pixels fits in 32 bits). Why the registered builders
// fit and no batched SAT kernel of our own was written: a stack *is* one 8-bit image, so one launch of any
// builder covers K slices (3840x2160: K = 30, five launches for 128 disparities, not 128). K keeps each
// stack within 2^28 pixels (1 GiB of SAT) and 65535 rows.
// Then the uniqueness + subpixel + left-right check kernel and the hole-filling kernel (a warp per row).
// Integer all the way to the subpixel step, which is the same float expression as the CPU's: the result
// equals stereo_match() bit for bit.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/stereo.hpp"

namespace satlab::gpu {

// The stereo matcher's own table of the cost slices (stereo.cu, box_rows_kernel: per slice, the row
// prefixes of the (2r+1)-row column sums, 16 bits), the default; any registry name of an 8-bit SAT builder
// instead aggregates through that builder's SAT (4 taps per box).
constexpr const char* kStereoBoxRows = "box_rows";
constexpr const char* kStereoSatBuilder = kStereoBoxRows;
// The SAT builder of images wider than the box-rows kernel takes (16384 columns).
constexpr const char* kStereoWideImageSatBuilder = "sat_lookback_2d";

// `sat_builder`: kStereoBoxRows or a registry name ("" = kStereoSatBuilder). Throws satlab::Error (size mismatch, no device,
// a builder that refuses 8-bit input, CUDA errors).
StereoResult stereo_match(const ImageRGBA8& left, const ImageRGBA8& right, const StereoParams& p,
                          const std::string& sat_builder = "");

struct StereoTiming {
  double median_ms = 0, min_ms = 0;
  int runs = 0;
  std::vector<std::pair<std::string, double>> stages;  // stage name, median ms (census, cost, sat, ...)
};
// Random pair of width x height, `warmup` untimed runs, then `runs` timed with CUDA events (device buffers
// kept: upload and download are outside), medians; stages from as many runs again with an event per stage.
StereoTiming time_stereo(int width, int height, const StereoParams& p, int warmup, int runs,
                         const std::string& sat_builder = "");

// Tests: the most pixels one stacked SAT may hold (0: the default, 2^28), so that small images split
// their disparities over several stacks.
void set_stereo_stack_pixels_for_testing(size_t pixels);

}  // namespace satlab::gpu
