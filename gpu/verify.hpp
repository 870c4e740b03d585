// Running reduction, scan, compaction and sort variants on host data, and `satlab verify`: every registered
// reduction, scan, SAT builder, compaction, sort and DoF mode against the CPU reference (core/reference.hpp,
// the CPU pipeline) on fresh random inputs of awkward sizes. Plain C++; without CUDA every function throws
// satlab::Error saying so (check_dof exists only in CUDA builds).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dof_modes.hpp"
#include "core/image.hpp"
#include "core/params.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

// One launch of `v` on n host elements of type t: upload, poison the device output, run, download
// into `result` (one element of t). Throws satlab::Error on refusal or a CUDA error. `offset`: the device
// input (and a scan's output) start that many elements into their allocations (1: not 16-byte aligned).
void run_reduce(const Variant& v, const void* in, size_t n, DType t, ReduceOp op, void* result,
                size_t offset = 0);
// Likewise for a scan; `out` receives n elements (the device output is poisoned with 0xA5 bytes first,
// so an element the variant did not write shows up as a mismatch).
void run_scan(const Variant& v, const void* in, size_t n, DType t, bool inclusive, void* out, size_t offset = 0);

// One compaction (keep x >= threshold) of n host int32: upload, poison the device output and count with
// 0xA5 bytes, run with scratch of the variant's temp_bytes, download. Returns the count; `out` (room for
// n) receives the first min(count, n) outputs.
uint32_t run_compact(const Variant& v, const int32_t* in, size_t n, int32_t threshold, int32_t* out);
// One sort of n (key, value) pairs, outputs poisoned first, scratch of the variant's temp_bytes.
void run_sort(const Variant& v, const uint32_t* keys, const uint32_t* values, size_t n, uint32_t* keys_out,
              uint32_t* values_out);

// Float sums are compared within rel_tol * sum|x| over the summed elements (see verify.cpp).
constexpr double kFloatSumRelTol = 1e-5;

// Checks a reduction/scan result against the CPU reference; "" when it matches, else what differs.
std::string check_reduce(const void* in, size_t n, DType t, ReduceOp op, const void* result);
std::string check_scan(const void* in, size_t n, DType t, bool inclusive, const void* out);
// Against core's compact_at_least: the count, then every kept element in order.
std::string check_compact(const int32_t* in, size_t n, int32_t threshold, const int32_t* out, uint32_t count);
// Against core's sort_pairs (stable): every key and every value in place.
std::string check_sort(const uint32_t* keys, const uint32_t* values, size_t n, const uint32_t* keys_out,
                       const uint32_t* values_out);

// Random input of n elements: int32 in [-1000, 1000] (sums cross zero, min/max see negatives), uint32
// full range (scans wrap around), float in [-1, 1).
std::vector<uint32_t> random_input(size_t n, DType t, uint64_t seed);

// Sort keys of the adversarial kinds: random full range, all equal, already sorted, reverse sorted, and
// few distinct (16 values spread over all four digits: long runs of equal keys, where stability shows).
enum class KeyPattern { Random, AllEqual, Sorted, Reversed, FewDistinct };
const char* to_string(KeyPattern p);
std::vector<uint32_t> sort_keys(size_t n, KeyPattern p, uint64_t seed);

// The k-th lens of the DoF sweeps (verify_dof, tests/gpu/dof_spread_test): disc, polygon and square
// apertures, 5 to 8 blades and their rotation, 2 to 8 layers, squeezes, focus ranges, profiles, aperture
// images, grain and chromatic aberration in turn;
// aperture 3 r, focus 0.4.
inline Params dof_sweep_params(const std::string& mode, int k, float max_radius) {
  Params p;
  p.dof_mode = mode;
  p.aperture_shape = k % 3 == 0   ? ApertureShape::Disc
                     : k % 3 == 1 ? ApertureShape::Polygon
                                  : ApertureShape::Square;
  p.blades = 5 + k % 4, p.blade_rotation = 13.f * float(k);
  p.dof_layers = 2 + k % 7;
  p.max_radius = max_radius, p.aperture = 3.f * max_radius, p.focus = 0.4f;
  // The lens's features in turn: an anamorphic squeeze (tall, wide), a four-edged focus range with ramps.
  if (k % 5 == 1) p.anamorphic = 0.5f;
  if (k % 5 == 3) p.anamorphic = 2.5f;
  if (k % 4 == 2) set_focus_range(p, FocusRange{0.15f, 0.3f, 0.45f, 0.8f});
  // In the modes that carry them (DofMode::profile), a bright rim, and a soft centre around a hole.
  const DofMode* m = find_dof_mode(mode);
  if (m && m->profile && k % 4 == 1) p.bokeh_profile = 0.8f;
  if (m && m->profile && k % 4 == 3) p.bokeh_profile = -0.5f, p.catadioptric = 0.4f;
  // An aperture image (upright behind focus, turned in front), alone and with the profiles above.
  if (m && m->profile && (k % 6 == 2 || k % 6 == 5))
    p.aperture_image = k % 18 < 6 ? "star" : k % 18 < 12 ? "heart" : "bubble";  // bubble: grey levels
  // Grain (core/grain.hpp) in every mode: the noise estimate's sums and the per-pixel grain.
  if (k % 7 == 3) p.grain = 1.5f;
  // Chromatic aberration (core/chromatic.hpp) in every mode, both signs: red and blue's second pass.
  if (k % 8 == 5) p.chromatic = k % 16 < 8 ? 0.08f : -0.06f;
  // Cat-eye (dof::cat_eye_bin) in spread, flat apertures only (validate refuses it with the rest).
  if (m && m->profile && k % 5 == 4 && !uses_aperture_profile(p) && p.aperture_image.empty())
    p.cat_eye = k % 10 < 5 ? 0.6f : 0.8f, p.cat_eye_scale = k % 3 == 0 ? 1.5f : 1.f;
  return p;
}

// The first difference between a DoF frame's GPU result and CoC map and the CPU's, or "" when they are
// the same bit for bit (the DoF modes' GPU = CPU contract).
std::string check_dof(const ImageRGBA8& gpu_out, const ImageRGBA8& cpu_out, const ImageF& gpu_coc,
                      const ImageF& cpu_coc);

struct VerifyLine {
  std::string variant;  // registry name
  std::string family;
  bool ok = true;
  int cases = 0;        // size/type/op combinations run
  std::string detail;   // first mismatch or refusal notes
  std::string refused;  // the last reason the variant gave for refusing an input ("" if it refused none)
  bool skipped =
      false;  // no case ran because the variant refused every input (e.g. NPP missing): not checked
};

// Every reduction, scan, compaction and sort variant on fresh random sizes (0, 1, odd, around block and
// tile sizes, and one of millions; compactions keeping about 10%, half, all and none; sorts of every
// KeyPattern with values 0..n-1, so any unstable pair shows), every SAT builder on awkward image sizes of
// each type it takes (random and all-255 8-bit, float with 1, 2, 4 channels), every DoF mode through the GPU
// pipeline against the CPU pipeline, bit for bit, on awkward sizes and hard depth maps (verify_dof in
// verify.cpp), every depth refiner against core's (gpu/refine/refine_gpu.hpp: check_refine on refine_cases); `on_line` is called as each variant finishes. A variant no case reached fails ("nothing
// checked"). Seeded by `seed`. `families`: only variants of these (empty: all).
std::vector<VerifyLine> verify_variants(uint64_t seed, const std::function<void(const VerifyLine&)>& on_line,
                                        const std::vector<Family>& families = {});

}  // namespace satlab::gpu
