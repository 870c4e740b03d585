// The pipeline's RGBA8 result to Y'CbCr 4:2:0 on the device (core/yuv.hpp's arithmetic, bit for bit) and
// the planes copied to the host: 1.5 bytes a pixel over the bus instead of 4, and no conversion on the
// host before the encoder. Plain C++ face; without CUDA every call throws satlab::Error.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/yuv.hpp"

namespace satlab::gpu {

class GpuYuv {
 public:
  GpuYuv();
  ~GpuYuv();
  GpuYuv(const GpuYuv&) = delete;
  GpuYuv& operator=(const GpuYuv&) = delete;
  // The device RGBA8 image at `rgba` (w x h, rows packed), produced on `stream` (a cudaStream_t; null: the
  // default), converted there and its planes copied into `out` (made its size where it is not; page-lock
  // its planes for DMA). Returns when they are on the host.
  void read(const void* rgba, void* stream, int w, int h, Yuv420& out);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// "" when the GPU's planes of a random W x H image equal rgba_to_yuv420's, else the first difference.
std::string check_yuv(int width, int height, uint64_t seed);

}  // namespace satlab::gpu
