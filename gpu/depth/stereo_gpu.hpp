// GPU stereo matching (core/stereo.hpp's algorithm): plain C++ face, callable whether or not CUDA was built
// in (without it these throw satlab::Error).
//
// Per stack of K disparity slices: one kernel writes the K 8-bit cost slices stacked vertically into one
// width x (K * height) image (each thread all K slices of 4 columns: the census read once per stack).
// By default (kStereoBoxRows) one kernel turns each slice into its box-rows table: per row y, the prefix
// along the row of the cost summed over the window's 2r+1 rows, 16 bits (every box sum is below 2^16, so
// the table mod 2^16 gives them exactly); a box of either window is then 2 taps of one row. With a
// registered SAT builder named instead, that builder builds the stack's SAT (8-bit -> uint32,
// wrap-around; a stack *is* one 8-bit image, so one launch covers K slices) and a box is 4 taps; stacking
// is exact, as a box sum only differences the SAT over its own rows (mod 2^32). Either way one kernel then
// updates the left winner-take-alls (state kept between stacks) and offers the square box's sum to the
// right image's pixel x - d (shared, then global atomicMin of sum << 16 | d: the lowest sum, the smallest
// d on ties, as the reference's order gives). K keeps each stack within 2^28 pixels and 65535 rows
// (3840x2160: K = 30, five stacks for 128 disparities).
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

// `sat_builder`: kStereoBoxRows or a registry name ("" = kStereoSatBuilder). Throws satlab::Error (size
// mismatch, no device, a builder that refuses 8-bit input, CUDA errors).
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
