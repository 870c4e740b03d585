// Frames decoded on the GPU (NVDEC, through FFmpeg's CUDA frames) to RGBA8 in device memory: core/yuv.hpp's
// yuv420sp_to_rgba on the device, bit for bit, into images from a pool that the GPU pipeline reads where they
// lie. Plain C++ face; without CUDA every call throws satlab::Error.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/device_rgba.hpp"
#include "core/image.hpp"
#include "core/yuv.hpp"

namespace satlab::gpu {

class GpuFrameConverter {
 public:
  GpuFrameConverter();
  ~GpuFrameConverter();
  GpuFrameConverter(const GpuFrameConverter&) = delete;
  GpuFrameConverter& operator=(const GpuFrameConverter&) = delete;
  // The device planes `in` turned by `rotation` into an image of the pool (a fresh one where every image is
  // held; at most kMaxImages). Work on the legacy default stream (FFmpeg's copy of the decoded surface) comes
  // first; returns when the image is done, so the planes may be reused at once.
  DeviceRGBA convert(const Yuv420SP& in, const yuv::InCoeffs& k, int rotation);
  static constexpr int kMaxImages = 16;

 private:
  struct State;
  std::shared_ptr<State> s_;  // shared: a handle given out marks its image free again even after the converter
};

// The CUDA runtime's primary context of device 0 (a CUcontext), made current: the context FFmpeg's NVDEC
// device is built on (io::ClipOptions::cuda_context). Throws satlab::Error where there is none.
void* primary_context();

// A device image to the host (made its size).
void download(const DeviceRGBA& image, ImageRGBA8& out);

// "" when the GPU's conversion of random planes (semi-planar as NVDEC's, or planar as the CPU decoders';
// all-maximum samples in a corner) equals the CPU's, else the first difference.
std::string check_yuv_in(int width, int height, int bytes, int bits, yuv::Matrix m, bool full, int rotation,
                         bool planar, uint64_t seed);

}  // namespace satlab::gpu
