// The GPU temporal depth filter (family temporal; core/temporal.hpp holds the CPU reference and the
// per-pixel step, compiled here without FMA contraction, so the two agree bit for bit). Plain C++ face;
// without CUDA every call throws satlab::Error.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/temporal.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

// One variant per core row (gpu/registry.cpp appends them).
std::vector<Variant> temporal_variants();

// TemporalFilter's interface on the device: the state lives in device memory; each apply uploads the
// frame's depth and image, runs the step and downloads the filtered depth.
class GpuTemporalFilter {
 public:
  explicit GpuTemporalFilter(TemporalParams p = {});
  ~GpuTemporalFilter();
  GpuTemporalFilter(const GpuTemporalFilter&) = delete;
  GpuTemporalFilter& operator=(const GpuTemporalFilter&) = delete;
  void apply(ImageF& depth, const ImageRGBA8& image);
  void reset();

 private:
  struct State;
  TemporalParams p_;
  std::unique_ptr<State> s_;
};

// "" when `frames` frames of a W x H clip (a moving, noisy scene with NaN holes) filtered on the GPU
// equal the CPU's bit for bit, else the first difference.
std::string check_temporal(int width, int height, int frames, uint64_t seed);

// Median ms (CUDA events) of one frame's step at W x H, device arrays only (no transfers).
double time_temporal(int width, int height, int warmup, int runs);

}  // namespace satlab::gpu
