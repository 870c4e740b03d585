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
// RGBA16 input (4 x uint16 per pixel) -> uint32 SAT (core's sat_u16 bit for bit).
std::vector<uint32_t> run_sat_u16(const Variant& v, const uint16_t* data, int width, int height);
// F32 input -> float SAT.
std::vector<float> run_sat_f32(const Variant& v, const float* data, int width, int height, int channels);

// Float SATs against float64: block-local sums are float (8 serial adds per thread, then a log-depth block
// scan: at most ~16 roundings, each relative to a partial sum no larger than the element), carries
// float64, each output rounded once per pass and two passes: bound 2 * (16 + 1) * 2^-24 ~ 2.0e-6 relative.
// sat_lookback_2d's float tiles (one pass) stay inside it: out = A + (Local + B) with every term a sum of
// non-negative partial sums, Local (the tile's own SAT, float) at most 25 roundings deep, the two final
// adds 2 more, A and B (float64 carries of float row and column totals, then rounded) within 10 roundings of
// their values: at most 27 * 2^-24 ~ 1.6e-6 of the element. docs/performance.md, "Float SAT error", has
// measured values.
constexpr double kFloatSatRelBound = 2.0 * 17.0 * 5.96e-8;

// "" when `sat` (width * height * channels elements: uint32 for U8/RGBA8/RGBA16, float for F32) is core's
// SAT of `in` (sat_u8 / sat_rgba8 / sat_u16 bit for bit; sat_float within kFloatSatRelBound, the worst
// relative error in *worst), else the first difference and how many elements differ. Plain C++ (core's
// references).
std::string check_sat(DType dtype, int channels, int width, int height, const void* in, const void* sat,
                      double* worst = nullptr);

struct SatTiming {
  double median_ms = 0;
  double min_ms = 0;
  int runs = 0;
  std::vector<std::pair<std::string, double>> phases;  // phase name, median ms (when asked for)
  bool checked = false;  // with `check`: one more run on a poisoned output, compared by check_sat
  std::string mismatch;  // "" when it matched
};
// Random input of `dtype` (U8: 1 channel, RGBA8: 4, F32: `channels`), `warmup` untimed runs, then
// `runs` runs each timed with CUDA events; medians. With `phases`, as many runs again with an event at
// each SatArgs::phase (apart, so that the hook's host work never enters the totals). With `check`, the
// output is poisoned, the builder runs once more and its result is compared with core's reference.
SatTiming time_sat(const Variant& v, DType dtype, int channels, int width, int height, int warmup, int runs,
                   bool phases = false, bool check = false);

// The blur (gpu/filter blur_rgba8) at w x h over the SAT of a random RGBA8 image: CoC "none" (box blur of
// `radius`), "smooth" (a diagonal ramp from -24 to +24 pixels, as from a tilted plane) or "random"
// (uniform in [-24, 24] per pixel: scattered taps, the worst case); medians like time_sat.
SatTiming time_blur(int width, int height, const std::string& coc, bool fractional, int radius, int warmup,
                    int runs);

// The SAT builders instantiated with tuning policies other than their defaults (`satlab bench sat
// --policies`, and the GPU tests, which check each like a registered builder): named BUILDER@POLICY,
// family Sat, not in the registry (the UI and `satlab verify` list the defaults only).
std::vector<Variant> sat_policy_variants();

// `satlab bench sat --trace FILE`: sat_lookback_2d's float launches write their tiles' timeline to FILE
// (tools/sat_trace.py reads it; each launch replaces the last one's); "" turns it off. Builds configured
// with -DSATLAB_SAT_TRACE=ON only: elsewhere a non-empty FILE throws satlab::Error.
void set_sat_trace_file(const std::string& path);

// Tests: the single-pass builders' look-back words (gpu/sat/sat_lookback.cuh) of every stream that has
// them continue with `left` epochs left before they are zeroed and the epochs restart.
void set_lookback_epochs_left_for_testing(unsigned left);

// How time_sat, time_blur and copy_bandwidth_gbs time their runs (each run between two CUDA events on the
// default stream, medians): Queued (the default) issues all timed runs back to back behind a short hold of
// the GPU, so that each time is the GPU's work alone, as in a pipeline that keeps it fed; Synced waits for
// each run before issuing the next, so each time also holds the host's work between the first event and
// the launch reaching the GPU (a few microseconds: the measure before 2026-11-23's third session).
enum class BenchTiming { Queued, Synced };
void set_bench_timing(BenchTiming t);

// Device-to-device copy bandwidth (bytes read + written per second, GB/s) over `bytes`: median of `runs`.
double copy_bandwidth_gbs(size_t bytes, int runs);

}  // namespace satlab::gpu
