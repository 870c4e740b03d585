// The GPU stereo matcher's device buffers and launches, for stereo.cu and its timing (stereo_bench.cu).
// CUDA translation units only.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>

#include "core/stereo.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

class StereoRun {
 public:
  // Allocates every buffer for width x height (throws satlab::Error: bad params, unknown or refusing SAT
  // builder, out of memory).
  StereoRun(int width, int height, const StereoParams& p, const std::string& sat_builder);
  ~StereoRun();
  StereoRun(const StereoRun&) = delete;
  StereoRun& operator=(const StereoRun&) = delete;

  void upload(const ImageRGBA8& left, const ImageRGBA8& right);
  void poison();  // 0xAB over every output and the state
  // Enqueues the whole match on `stream`; `stage`, when set, is called (host side) before each stage.
  void enqueue(void* stream, const std::function<void(const char*)>& stage = {});
  StereoResult download() const;  // synchronises
  int slices_per_stack() const { return k_; }

 private:
  int w_, h_;
  StereoParams p_;
  const Variant* sat_ = nullptr;  // the registered SAT builder (null on the box-rows path)
  bool rows_ = false;             // the box-rows table (kStereoBoxRows) instead of a SAT
  int k_ = 1;                     // disparity slices per stacked SAT
  uchar4* img_[2] = {};
  uint8_t* luma_[2] = {};
  unsigned long long* census_[2] = {};
  uint8_t* stack_ = nullptr;
  uint32_t* sat_out_ = nullptr;
  uint16_t* table_ = nullptr;  // the box-rows table of a stack (rows_)
  uint4* state_ = nullptr;
  uint4* wide_state_ = nullptr;     // the wide window's winner-take-all (p.wide_radius > 0)
  uint32_t* right_best_ = nullptr;  // per right pixel: lowest (sum << 16 | d) so far
  int32_t* left_wta_ = nullptr;
  int32_t* right_wta_ = nullptr;
  float* raw_ = nullptr;
  float* out_ = nullptr;
};

}  // namespace satlab::gpu
