// The GPU depth refiners (family refine; core/refine.hpp holds the CPU references and the table): their
// registry variants, a host entry for app/, the checks `satlab verify` and the tests share, and the timed
// runs of `satlab bench depth`. Plain C++; without CUDA every function throws satlab::Error.
//
// none, wmedian, jbu and snap equal the CPU bit for bit (the sample-based ones share their arithmetic
// through core/refine_pixel.hpp); guided is the GPU guided filter (gpu/depth/guided_filter), within
// core's guided_filter_bound of the reference rebuilt with the offsets and fill value the GPU used.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/image.hpp"
#include "core/refine.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

// One variant per core refiner, in core's order (gpu/registry.cpp appends them).
std::vector<Variant> refine_variants();

// Refiner `name` (not "auto") on the GPU: upload, poison the output (0xA5 bytes, a finite value no refiner
// returns), run, download. Throws satlab::Error on bad input (as core's refine_cpu does), an unknown
// name or a CUDA error.
ImageF refine_gpu(const std::string& name, const RefineInput& in);

// "" when the GPU's result of `name` on `in` equals the CPU's (bit for bit, or for guided within the
// bound), else the first difference and how many pixels differ. *note, when given, receives a remark
// (guided: the worst difference against the bound).
std::string check_refine(const std::string& name, const RefineInput& in, std::string* note = nullptr);

// The awkward inputs `satlab verify` and the tests run every refiner on: sizes 1x1, 1xN, Nx1, primes and
// a random one; depth at the image's size over k for k = 1..8 and at a non-integer fraction; random images
// over blocky depth with NaN holes, all-255 images, flat depth, depth without any value; with and
// without confidence (random in [0, 1], zeros and NaN included).
struct RefineCase {
  std::string what;
  ImageRGBA8 image;
  ImageF depth, confidence;  // confidence empty: none
  RefineInput input() const { return {&image, &depth, confidence.empty() ? nullptr : &confidence}; }
};
std::vector<RefineCase> refine_cases(uint64_t seed);

// "" when the GPU's fast weight arithmetic (32-bit divisions through a reciprocal) equals core's
// weight() on every distance and every colour difference the per-pixel pass can meet, else the first
// difference.
std::string check_refine_weights();

// Timed runs of `name` on a synthetic scene (an image of W x H, a depth map of w x h: planes, a slope and
// a disc, 8-bit steps): `warmup` runs, then `runs` runs each between two CUDA events (median), then as
// many with an event at each phase (grid, samples, pixels; guided: its stages). The inputs rotate over
// enough copies that no run finds them in L2 from the run before.
struct RefineTiming {
  double median_ms = 0;
  std::vector<std::pair<std::string, double>> phases;  // phase, median ms
  double min_bytes = 0;                                // image read + depth read + output written
};
RefineTiming time_refine(const std::string& name, int width, int height, int depth_width, int depth_height,
                         int warmup, int runs);

}  // namespace satlab::gpu
