// Grain (Params::grain): the photo's own noise re-added where the depth of field blurred it away, so a
// blurred background does not look like plastic (Photoshop's Lens Blur "noise", issue 46).
//  - The noise: per channel, Immerkaer's estimate (core/grain_pixel.hpp, 1996) over the pixels whose
//    Sobel gradient is at most grain::kFlatGradient: sigma = sqrt(pi / 2) S / (6 n), S the sum of the
//    mask's responses over the n flat interior pixels. Integer sums, so both backends get the same sigma.
//  - The grain: out = in + amount sigma_c noise(x, y, c) sqrt(1 - 1 / (1 + pi CoC^2)), per channel, the
//    noise a fixed hash of the pixel's place (the same frame gives the same grain).
#pragma once
#include <cstdint>

#include "core/image.hpp"

namespace satlab {

// Tiles and streams see part of the image: its noise, and a grain that matches across tiles, need the whole.
constexpr const char* kGrainWholeImage =
    "--grain works on whole frames only (its noise is estimated over the image): not in tiled or streamed renders";

struct GrainSums {
  uint64_t response[3] = {0, 0, 0};  // sum of mask responses per channel
  uint64_t pixels[3] = {0, 0, 0};    // flat interior pixels per channel
};
// With `coc`, only the pixels whose |CoC| is at least min_coc (a measure of the blurred regions' noise).
GrainSums grain_sums(const ImageRGBA8& img, int threads = 0, const ImageF* coc = nullptr, float min_coc = 0.f);
struct GrainNoise {
  float sigma[3] = {0.f, 0.f, 0.f};  // 8-bit units
};
GrainNoise grain_noise(const GrainSums& s);
// In place: every pixel of `out` gets amount sigma_c noise blur_share(coc) added (core/grain_pixel.hpp).
void apply_grain(ImageRGBA8& out, const ImageF& coc, float amount, const GrainNoise& n, int threads = 0);

}  // namespace satlab
