// Chromatic aberration's merge on the GPU (core/chromatic.hpp, merge_red_blue): byte copies, so equal to
// the CPU's.
#include <cuda_runtime.h>

#include <string>

#include "gpu/check.hpp"
#include "gpu/filter/chromatic_gpu.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;

__global__ void __launch_bounds__(kBlock)
    merge_kernel(uchar4* __restrict__ out, const uchar4* __restrict__ rb, size_t n) {
  const size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= n) return;
  uchar4 p = out[i];
  const uchar4 q = rb[i];
  p.x = q.x, p.z = q.z;
  out[i] = p;
}

}  // namespace

void merge_red_blue_gpu(void* out, const void* rb, size_t n, void* stream) {
  if (n == 0) return;
  merge_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, cudaStream_t(stream)>>>(
      static_cast<uchar4*>(out), static_cast<const uchar4*>(rb), n);
  SATLAB_LAUNCHED("chromatic merge_kernel", std::to_string(n) + " pixels");
}

}  // namespace satlab::gpu
