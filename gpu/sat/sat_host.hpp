// Host-side drivers of the SAT variants for tests, `satlab verify`, `satlab bench sat` and the UI's
// comparison: upload, poison the output, launch, download; and timed runs. Plain C++; without CUDA they
// throw satlab::Error.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/variant.hpp"

namespace satlab::gpu {

// The output is filled with 0xAB bytes before the launch, so an unwritten element shows up.
// 8-bit input (U8 with 1 channel, RGBA8 with 4) -> uint32 SAT. `phases`, when given, receives the names
// the builder announced through SatArgs::phase, in order.
std::vector<uint32_t> run_sat_u32(const Variant& v, const uint8_t* data, int width, int height, int channels,
                                  std::vector<std::string>* phases = nullptr);
// F32 input -> float SAT.
std::vector<float> run_sat_f32(const Variant& v, const float* data, int width, int height, int channels);

struct SatTiming {
  double median_ms = 0;
  double min_ms = 0;
  int runs = 0;
  std::vector<std::pair<std::string, double>> phases;  // phase name, median ms (when asked for)
};
// Random input of `dtype` (U8: 1 channel, RGBA8: 4, F32: `channels`), `warmup` untimed runs, then
// `runs` runs each timed with CUDA events; medians. With `phases`, as many runs again with an event at
// each SatArgs::phase (apart, so that the hook's host work never enters the totals).
SatTiming time_sat(const Variant& v, DType dtype, int channels, int width, int height, int warmup, int runs,
                   bool phases = false);

// The blur (gpu/filter blur_rgba8) at w x h over the SAT of a random RGBA8 image: CoC "none" (box blur of
// `radius`), "smooth" (a diagonal ramp from -24 to +24 pixels, as from a tilted plane) or "random"
// (uniform in [-24, 24] per pixel: scattered taps, the worst case); medians like time_sat.
SatTiming time_blur(int width, int height, const std::string& coc, bool fractional, int radius, int warmup,
                    int runs);

// Device-to-device copy bandwidth (bytes read + written per second, GB/s) over `bytes`: median of `runs`.
double copy_bandwidth_gbs(size_t bytes, int runs);

}  // namespace satlab::gpu
