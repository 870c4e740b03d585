// The per-pixel arithmetic of subject selection (core/select.hpp), shared by the CPU reference
// (core/select.cpp) and the GPU kernels (gpu/select/): integers only, so the two agree bit for bit.
//
// Distances are uint32 with saturating addition at kGeoInf. A step between 4-neighbours of the working
// image costs 1 + kEdgeWeight * max(0, |dR| + |dG| + |dB| - edge_floor): flat and gently textured regions
// cost their length (a tie-break), an edge its contrast above the floor times kEdgeWeight, so that a walk
// of plain steps across the working image (at most kMaxWorkSide on a side) weighs a unit of contrast or
// two, and a walk over heavy texture (150 units a step) saturates only after some 7000 steps.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace satlab::select {

constexpr uint32_t kGeoInf = 0xFFFFFFFFu;
constexpr uint32_t kEdgeWeight = 1u << 12;
constexpr int kMaxWorkSide = 2048;
constexpr int kBinBits = 4;  // colour models: 16 x 16 x 16 bins of 8-bit RGB
constexpr int kBins = 1 << (3 * kBinBits);

SATLAB_HD uint32_t sat_add(uint32_t a, uint32_t b) { return a > kGeoInf - b ? kGeoInf : a + b; }

SATLAB_HD int absdiff(int a, int b) { return a > b ? a - b : b - a; }

// The cost of the step between two working-image pixels (RGB, 3 bytes each).
SATLAB_HD uint32_t step_cost(const uint8_t* a, const uint8_t* b, int edge_floor) {
  const int d = absdiff(a[0], b[0]) + absdiff(a[1], b[1]) + absdiff(a[2], b[2]) - edge_floor;
  return 1u + (d > 0 ? uint32_t(d) * kEdgeWeight : 0u);
}

SATLAB_HD int colour_bin(const uint8_t* rgb) {
  return (int(rgb[0]) >> (8 - kBinBits) << (2 * kBinBits)) | (int(rgb[1]) >> (8 - kBinBits) << kBinBits) |
         (int(rgb[2]) >> (8 - kBinBits));
}

// One relaxation step of a pass: the distance at i given the one before it on the line and their step.
SATLAB_HD uint32_t relax(uint32_t here, uint32_t before, uint32_t step) {
  const uint32_t via = sat_add(before, step);
  return via < here ? via : here;
}

// The working image's pixel of grid cell (i, j): the rounded mean of the image's pixels in
// [i s, min((i + 1) s, W)) x [j s, min((j + 1) s, H)).
SATLAB_HD uint8_t cell_mean(uint32_t sum, uint32_t count) { return uint8_t((sum + count / 2) / count); }

// A click on the working image.
struct Click {
  int x = 0, y = 0;
  bool background = false;
};

// What a working-image pixel is for the colour models and the seeds (core/select.hpp, stages 3 and 4).
struct SampleKind {
  bool subject_sample = false;     // within the model radius of a subject click
  bool background_sample = false;  // a background seed, or within the model radius of a background click
  bool background_seed = false;    // a background click, or a frame pixel beyond an edge from the subject
};
SATLAB_HD SampleKind sample_kind(int i, int j, int w, int h, uint32_t reach, uint32_t edge, const Click* clicks,
                                 int nclicks, int radius) {
  SampleKind k;
  const long long r2 = (long long)radius * radius;
  for (int c = 0; c < nclicks; ++c) {
    const long long dx = i - clicks[c].x, dy = j - clicks[c].y;
    const bool near = dx * dx + dy * dy <= r2;
    if (clicks[c].background) {
      k.background_sample = k.background_sample || near;
      k.background_seed = k.background_seed || (dx == 0 && dy == 0);
    } else {
      k.subject_sample = k.subject_sample || near;
    }
  }
  const bool frame = i == 0 || j == 0 || i == w - 1 || j == h - 1;
  k.background_seed = k.background_seed || (frame && reach >= edge);
  k.background_sample = k.background_sample || k.background_seed;
  return k;
}

}  // namespace satlab::select
