// Chromatic aberration on the GPU (core/chromatic.hpp; gpu/filter/chromatic.cu).
#pragma once
#include <cstddef>

namespace satlab::gpu {

// merge_red_blue on device RGBA8 images of n pixels: out's red and blue replaced by rb's.
void merge_red_blue_gpu(void* out, const void* rb, size_t n, void* stream);

}  // namespace satlab::gpu
