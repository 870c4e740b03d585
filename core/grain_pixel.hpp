// Grain (Params::grain, core/grain.hpp): the per-pixel arithmetic, shared by the CPU reference and the GPU
// kernels (gpu/filter/grain.cu), integers and correctly rounded float operations only (no FMA contraction
// on either side), so the two agree bit for bit.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace satlab::grain {

// A pixel's 3 x 3 neighbourhood in one channel, row-major: its Laplacian-like mask response (Immerkaer,
// "Fast noise variance estimation", 1996: [1 -2 1; -2 4 -2; 1 -2 1], blind to planes and to ramps) and
// its Sobel gradient |Gx| + |Gy| (the flat-pixel test).
SATLAB_HD int mask_response(const int v[9]) {
  const int r = v[0] - 2 * v[1] + v[2] - 2 * v[3] + 4 * v[4] - 2 * v[5] + v[6] - 2 * v[7] + v[8];
  return r < 0 ? -r : r;
}
SATLAB_HD int sobel(const int v[9]) {
  const int gx = (v[2] + 2 * v[5] + v[8]) - (v[0] + 2 * v[3] + v[6]);
  const int gy = (v[6] + 2 * v[7] + v[8]) - (v[0] + 2 * v[1] + v[2]);
  return (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
}
// A pixel counts toward the estimate where its Sobel gradient is at most this (8-bit units): texture and
// edges would pass for noise.
constexpr int kFlatGradient = 48;

// A fixed-seed hash of (x, y, channel).
SATLAB_HD uint32_t hash(uint32_t x, uint32_t y, uint32_t c) {
  uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ c * 0xcb1ab31fu ^ 0x9e3779b9u;
  h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
  return h;
}
// Unit-variance noise, near-Gaussian: the sum of the hash's four bytes (Irwin-Hall), centred and scaled
// (the sum's variance is 4 (256^2 - 1) / 12).
SATLAB_HD float noise(uint32_t x, uint32_t y, uint32_t c) {
  const uint32_t h = hash(x, y, c);
  const int s = int(h & 255u) + int((h >> 8) & 255u) + int((h >> 16) & 255u) + int(h >> 24);
  return float(s - 510) * (1.f / 147.800765f);
}
// How much of the photo's own noise a blur of CoC c removed: a box of area A leaves 1/sqrt(A) of it, so
// re-adding sqrt(1 - 1/A) of it restores the whole, A = 1 + pi c^2 (0 at the focus plane).
SATLAB_HD float blur_share(float coc) {
  if (!(coc == coc)) return 0.f;
  const float t = 1.f + 3.14159265f * (coc * coc);
  const float u = 1.f - 1.f / t;
  return u > 0.f ? __builtin_sqrtf(u) : 0.f;
}
// One 8-bit value with grain: v + amount sigma noise share, rounded, clamped.
SATLAB_HD uint8_t add(uint8_t v, float amount_sigma, float n, float share) {
  const float d = float(v) + (amount_sigma * n) * share;
  const float r = d < 0.f ? 0.f : (d > 255.f ? 255.f : d);
  return uint8_t(int(r + 0.5f));
}

}  // namespace satlab::grain
