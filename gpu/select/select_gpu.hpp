// GPU subject selection (family select; core/select.hpp holds the CPU reference and the stages). Every
// stage runs on the device: the working image, the edge costs, the geodesic passes (each row or column one
// block, its pass a min-plus scan: (steps, distance) pairs under an associative operator, so the result
// is the sequential pass's exactly), the samples and seeds (histograms by atomics), the label, the
// connected regions and the matte (the label's SAT by sat_lookback_2d for the band, gpu/depth's guided
// filter). The host builds the colour models' 2 x 4096 costs from the histograms with core's code.
// The label equals the CPU's bit for bit; alpha equals it outside the band and lies within
// guided_filter_bound of it in the band (float SATs against float64), or within 1/255 (one level of an
// 8-bit matte) where that analytic bound is looser (it grows with the image's size; measured on an H200:
// 1.2e-3 at worst at 2053x1031). Plain C++ face; without CUDA every
// call throws satlab::Error.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/select.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

// One variant per core selector (gpu/registry.cpp appends them).
std::vector<Variant> select_variants();

// Upload, poison the outputs, run, download.
Selection select_subject_gpu(const ImageRGBA8& image, const std::vector<SelectClick>& clicks,
                             const SelectParams& p = {});

// "" when the GPU's selection equals the CPU's (label bit for bit; alpha exactly outside the band and
// within the bound above in it), else the first difference. *note: the worst alpha difference and bound.
std::string check_select(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, const SelectParams& p,
                         std::string* note = nullptr);

// core's select_bench_scene at w x h; `warmup` runs, then `runs` timed with CUDA events (medians), then as many with an event at
// every stage.
struct SelectTiming {
  double median_ms = 0;
  std::vector<std::pair<std::string, double>> stages;
  int work_width = 0, work_height = 0;
};
SelectTiming time_select(int width, int height, const SelectParams& p, int warmup, int runs);

}  // namespace satlab::gpu
