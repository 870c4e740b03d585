// GPU guided filter (core/guided_filter.hpp is its reference): the window means come from float SATs
// built by a registered SAT builder (F32, 1/2/4 channels) of centred stacks, everything per pixel in
// float64 but the stored float values. Plain C++ face; without CUDA every call throws satlab::Error.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/guided_filter.hpp"
#include "core/image.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

// The filter's SAT builder by registry name: nullptr for "" (the filter's own: sat_lookback_2d's float
// tiles forming the stack groups as they load, kGuidedOwnSat), else the registered builder of that name
// that takes F32 (run over the stored stack), or throws satlab::Error.
const Variant* guided_sat_builder(const std::string& name = "");
// How results and bench rows name the filter's own SAT builder.
constexpr const char* kGuidedOwnSat = "sat_lookback_2d (stack formed in its tile loads)";

// Device level: guide (w*h*guide_channels floats, 1, 3 or 4 interleaved channels, [0,1]) and p (w*h)
// in device memory -> q (w*h). Offsets: the mean of every 8th row of each used guide channel and of p
// (float64 atomics: a run's offsets may differ from another's in the last bit); `offsets_out`, when not
// null, is a device float[4] that receives them (guide 0..2, p). `phase`, when set, is called before each
// stage is enqueued (names: "stack", "sat stack", "coefficients", "sat coefficients", "output").
struct GuidedDeviceArgs {
  const float* guide = nullptr;
  int guide_channels = 3;
  const float* p = nullptr;
  float* q = nullptr;
  int width = 0, height = 0;
  GuidedParams params;
  const Variant* sat = nullptr;  // nullptr: the filter's own (guided_sat_builder(""))
  void* stream = nullptr;
  float* offsets_out = nullptr;
  std::function<void(const char* stage)> phase;
};
void guided_filter(const GuidedDeviceArgs& a);

// Host level: upload, run (the output poisoned first), download; q, the offsets it used and the builder.
struct GuidedResult {
  ImageF q;
  GuidedOffsets offsets;
  std::string builder;
};
GuidedResult guided_filter_gpu(const ImageF& guide, const ImageF& p, const GuidedParams& g,
                               const std::string& sat = "");

// Random guide (3 channels, or 1 with g.gray) and p at w x h: `warmup` runs, then `runs` runs timed with
// CUDA events (medians), then as many with an event at every stage (medians per stage).
struct GuidedTiming {
  double median_ms = 0;
  std::vector<std::pair<std::string, double>> stages;
  std::string builder;
};
GuidedTiming time_guided(int width, int height, const GuidedParams& g, int warmup, int runs,
                         const std::string& sat = "");

}  // namespace satlab::gpu
