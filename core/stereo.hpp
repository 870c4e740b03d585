// Stereo matching of a rectified pair (left image is the reference): disparity d >= 0 means the left
// pixel (x, y) shows the same point as the right pixel (x - d, y).
//
//   census 9x7 of the luma of both images (62 bits: neighbour + t < centre, edges clamped; the threshold t
//   keeps the noise and shading of flat regions out of the bits, so that flat regions tie instead of
//   matching their noise)
//   -> per disparity slice d: cost(x, y) = Hamming(census_L(x), census_R(max(x - d, 0))): where the right
//      pixel would lie left of the image, the edge column stands in (as the census clamps its window), so
//      no disparity is favoured there and the uniqueness test rejects what cannot be told apart. At most
//      62, so each slice's SAT is an ordinary uint32 SAT of 8-bit data (sat_u8)
//   -> box aggregation over (2r+1)^2 windows clipped to the image: 4 SAT taps per pixel and slice,
//      O(1) whatever r (Veksler 2003). The clipped window is the same at a pixel for every d, so sums
//      compare without normalising
//   -> winner-take-all (lowest sum, the smallest d on ties) for the left image, with a parabola through
//      the sums at d-1, d, d+1 for the subpixel offset; and for the right image (the sums at x_r + d of
//      the same slices, integer d only)
//   -> uniqueness: kept where every sum at a disparity 2 or more away from the winner's exceeds the
//      winner's by more than `uniqueness` percent (second * 100 > best * (100 + U)) and by at least
//      `min_margin` bits (sums of weakly textured windows are small, where a percentage means little):
//      textureless regions,
//      where every disparity costs the same, are rejected instead of matched at random (ties always are)
//   -> left-right check: kept where |d_R(x - d_L) - d_L| <= 1 (d_L the integer winner)
//   -> a second, wide window (2 wide_radius + 1) x (2r+1) over the same SAT rows (4 more taps per pixel
//      and even slice), with its own winner-take-all over the even disparities only (kStereoWideStep),
//      subpixel step and uniqueness test (no left-right check of its own): a pixel the square window
//      rejects takes the wide window's winner where that one is unique. Flat regions of a ground plane or a
//      backdrop have disparity constant along rows, so a window long along the row reaches texture without
//      mixing disparities, where a large square one (Veksler's variable windows) does mix them on a slanted
//      floor (docs/quality.md, "Tried and lost")
//   -> hole filling along scanlines, background-favouring: a rejected pixel takes the smaller of the
//      nearest kept disparities to its left and right (the farther surface: holes are mostly occlusions,
//      which belong to the background).
//
// Census rather than AD+gradient: it is invariant to any monotonic change of brightness between the two
// cameras (exposure, vignetting), it fits 8 bits (so the registered 8-bit SAT builders aggregate it
// exactly), and it is what the strong local matchers of the Middlebury table build on.
//
// Everything up to the subpixel step is integer, and the subpixel offset is one float subtraction of
// exact integers, one division and one addition, so a GPU implementation matches it bit for bit.
#pragma once
#include <cstdint>
#include <vector>

#include "core/image.hpp"

// The few helpers the GPU kernels share with this reference are host and device functions under nvcc.
#if defined(__CUDACC__)
#define SATLAB_STEREO_HD __host__ __device__
#else
#define SATLAB_STEREO_HD
#endif

namespace satlab {

constexpr int kCensusWidth = 9;             // census window, odd
constexpr int kCensusHeight = 7;            // 9 x 7 - 1 = 62 bits
constexpr int kMaxStereoWindowRadius = 15;  // 31 x 31 x 62 < 2^16: aggregated sums fit in 16 bits
constexpr int kMaxStereoWideRadius = 512;   // the wide window's (2 wide + 1) (2r + 1) 62 < 2^16 as well
constexpr int kMaxDisparities = 1024;
// The wide window searches every 2nd disparity: half its cost on the GPU, and on the generated pairs
// better than every disparity (its uniqueness test then looks 4+ px from the winner, which keeps more of
// the flat regions' right matches; docs/quality.md, "Tried and lost"); every 3rd loses on `default`.
constexpr int kStereoWideStep = 2;
constexpr uint32_t kNoSum = 0xFFFF;   // above every aggregated sum (16 bits): "none yet"
constexpr float kNoDisparity = -1.f;  // a pixel rejected by the left-right check (or left unfilled)

struct StereoParams {
  int disparities = 64;      // d in [0, disparities)
  int window_radius = 4;     // box aggregation window (2r+1)^2
  int wide_radius = 56;      // the wide window (2 wide + 1) x (2r+1) for what the square one rejects; 0: none
  int lr_tolerance = 1;      // left-right check: |d_R - d_L| <= this
  int uniqueness = 25;       // percent margin of the winner over the best sum 2+ disparities away
  int min_margin = 0;        // and at least this many bits
  int census_threshold = 2;  // census bit: neighbour + t < centre (tools/stereo_bench.py: 2 scored best)
  bool fill_holes = true;    // false: rejected pixels stay kNoDisparity
};
// Throws satlab::Error naming the first out-of-range field.
void validate(const StereoParams& p);
// The largest wide radius whose sums fit in 16 bits beside a square window of this radius (56 at 4).
inline int stereo_max_wide_radius(int window_radius) {
  const int rows = 2 * window_radius + 1, columns = int(kNoSum - 1) / (62 * rows);  // sum <= 65534
  const int wide = (columns - 1) / 2;
  return wide < kMaxStereoWideRadius ? wide : kMaxStereoWideRadius;
}

// Luma of an RGBA8 pixel in integers: (77 R + 150 G + 29 B + 128) >> 8.
inline uint8_t stereo_luma(const uint8_t* px) {
  return uint8_t((77u * px[0] + 150u * px[1] + 29u * px[2] + 128u) >> 8);
}
// 9x7 census of the image's luma, one uint64 per pixel; bit k (row-major over the window, centre
// skipped) is set when that neighbour (clamped to the image) is darker than the centre by more than t.
std::vector<uint64_t> census_9x7(const ImageRGBA8& image, int t = 0, int threads = 0);
// Cost slice d (width * height bytes).
void stereo_cost_slice(const std::vector<uint64_t>& census_left, const std::vector<uint64_t>& census_right,
                       int width, int height, int d, uint8_t* out, int threads = 0);

// Subpixel disparity from the winner d and the sums at d-1, d, d+1 (parabola vertex); d itself at the
// ends of the range or where the three sums are equal. Shared with the GPU kernel (host/device).
SATLAB_STEREO_HD inline float stereo_subpixel(int d, int disparities, uint32_t c_minus, uint32_t c,
                                              uint32_t c_plus) {
  if (d <= 0 || d >= disparities - 1) return float(d);
  const int den = int(c_minus) + int(c_plus) - 2 * int(c);
  if (den <= 0) return float(d);
  const float offset = float(int(c_minus) - int(c_plus)) / float(2 * den);
  return float(d) + offset;
}

// Running winner-take-all over the slices d = 0, 1, ... of one pixel's aggregated sums a (< 2^16):
// the lowest sum (the smallest d on ties), the sums at d-1 and d+1 for the subpixel step, and `second`, the
// lowest sum 2+ disparities from the winner (the uniqueness test); `lag` is the lowest sum up to the slice
// before the previous one (what `second` restarts from when a new winner appears). Shared with the GPU.
struct StereoWta {
  uint32_t best = kNoSum, wta = 0, c_minus = 0, c_plus = 0, prev = 0, lag = kNoSum, second = kNoSum;
};
SATLAB_STEREO_HD inline void stereo_wta_step(StereoWta& s, uint32_t d, uint32_t a) {
  if (a < s.best) {
    s.best = a, s.wta = d, s.c_minus = s.prev, s.second = s.lag;
  } else if (s.wta + 1 == d) {
    s.c_plus = a;
  } else {
    s.second = a < s.second ? a : s.second;
  }
  if (d > 0) s.lag = s.prev < s.lag ? s.prev : s.lag;
  s.prev = a;
}

// The wide window's disparity: its winner-take-all runs over the samples d / kStereoWideStep.
SATLAB_STEREO_HD inline float stereo_wide_disparity(const StereoWta& s, int disparities) {
  const int samples = (disparities + kStereoWideStep - 1) / kStereoWideStep;
  return float(kStereoWideStep) * stereo_subpixel(int(s.wta), samples, s.c_minus, s.best, s.c_plus);
}

struct StereoResult {
  ImageF raw;        // the left-right-checked subpixel disparity, kNoDisparity where rejected
  ImageF disparity;  // raw with holes filled (when params.fill_holes), kNoDisparity where nothing is left
  std::vector<int32_t> left_wta;   // integer winners of the left image
  std::vector<int32_t> right_wta;  // integer winners of the right image
};
// Both images the same size (throws satlab::Error otherwise).
StereoResult stereo_match(const ImageRGBA8& left, const ImageRGBA8& right, const StereoParams& p,
                          int threads = 0);

// The two post-passes, on their own for the GPU comparison.
// raw[x] = subpixel[x] where unique[x] and the left-right check passes, else wide_subpixel[x] where
// wide_unique[x] (the wide window's; both may be null: none), else kNoDisparity.
void stereo_lr_check(const std::vector<int32_t>& left_wta, const std::vector<int32_t>& right_wta,
                     const float* subpixel, const uint8_t* unique, int width, int height, int tolerance,
                     float* raw, int threads = 0, const float* wide_subpixel = nullptr,
                     const uint8_t* wide_unique = nullptr);
// The uniqueness test of a winner `best` against `second`, the lowest sum 2+ disparities away.
SATLAB_STEREO_HD inline bool stereo_unique(uint32_t best, uint32_t second, int uniqueness, int min_margin) {
  return second == kNoSum ||
         (second * 100u > best * uint32_t(100 + uniqueness) && second >= best + uint32_t(min_margin));
}
void stereo_fill_holes(const float* raw, int width, int height, float* out, int threads = 0);

// KITTI's 16-bit disparity encoding: round(d * 256), at least 1 for a kept pixel (0 means none), 0 for
// kNoDisparity, clamped to 65535.
uint16_t kitti_disparity(float d);

}  // namespace satlab
