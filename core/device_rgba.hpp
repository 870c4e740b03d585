// An RGBA8 image in CUDA device memory: a frame decoded on the GPU (NVDEC, app/io/clip.hpp) that the GPU
// pipeline reads where it lies (Pipeline::set_image_device). A plain handle, so that CUDA-free code can pass
// it on; the GPU library makes and reads it (gpu/convert/yuv_in_gpu.hpp).
#pragma once
#include <cstddef>
#include <memory>

namespace satlab {

struct DeviceRGBA {
  const void* data = nullptr;  // device memory: rows `pitch` bytes apart, 4 bytes a pixel
  size_t pitch = 0;
  int width = 0, height = 0;
  std::shared_ptr<const void> hold;  // the buffer stays this image's while a copy of the handle lives
  bool empty() const { return !data || width <= 0 || height <= 0; }
};

}  // namespace satlab
