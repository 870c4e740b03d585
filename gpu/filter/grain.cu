// Grain on the GPU (core/grain.hpp), equal to the CPU bit for bit: the noise estimate's integer sums and
// the per-pixel grain of core/grain_pixel.hpp (compiled with -fmad=false).
#include <cuda_runtime.h>

#include "core/grain.hpp"
#include "core/grain_pixel.hpp"
#include "gpu/check.hpp"
#include "gpu/filter/grain_gpu.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;

// sums[0..2]: mask responses per channel, sums[3..5]: flat pixels per channel (interior pixels only).
__global__ void __launch_bounds__(kBlock)
    sums_kernel(const uchar4* __restrict__ img, int w, int h, unsigned long long* __restrict__ sums) {
  __shared__ unsigned long long s[6];
  if (threadIdx.x < 6) s[threadIdx.x] = 0;
  __syncthreads();
  const long i = long(blockIdx.x) * kBlock + threadIdx.x;
  const int x = int(i % w), y = int(i / w);
  if (i < long(w) * h && x >= 1 && y >= 1 && x < w - 1 && y < h - 1) {
    int v[3][9];
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        const uchar4 p = img[size_t(y - 1 + j) * size_t(w) + size_t(x - 1 + k)];
        v[0][j * 3 + k] = p.x, v[1][j * 3 + k] = p.y, v[2][j * 3 + k] = p.z;
      }
    for (int c = 0; c < 3; ++c)
      if (grain::sobel(v[c]) <= grain::kFlatGradient) {
        atomicAdd(&s[c], (unsigned long long)grain::mask_response(v[c]));
        atomicAdd(&s[3 + c], 1ull);
      }
  }
  __syncthreads();
  if (threadIdx.x < 6 && s[threadIdx.x]) atomicAdd(sums + threadIdx.x, s[threadIdx.x]);
}

__global__ void __launch_bounds__(kBlock)
    apply_kernel(uchar4* __restrict__ out, const float* __restrict__ coc, int w, int h, float a0, float a1,
                 float a2) {
  const long i = long(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= long(w) * h) return;
  const float share = grain::blur_share(__ldg(coc + i));
  if (share == 0.f) return;
  const uint32_t x = uint32_t(i % w), y = uint32_t(i / w);
  uchar4 p = out[i];
  p.x = grain::add(p.x, a0, grain::noise(x, y, 0), share);
  p.y = grain::add(p.y, a1, grain::noise(x, y, 1), share);
  p.z = grain::add(p.z, a2, grain::noise(x, y, 2), share);
  out[i] = p;
}

}  // namespace

GrainSums grain_sums_gpu(const void* image, int width, int height, unsigned long long* scratch, void* stream) {
  const cudaStream_t st = cudaStream_t(stream);
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  SATLAB_CUDA(cudaMemsetAsync(scratch, 0, 6 * sizeof(unsigned long long), st), "grain sums " + size);
  const long n = long(width) * height;
  if (n > 0) {
    sums_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, st>>>(static_cast<const uchar4*>(image), width,
                                                                         height, scratch);
    SATLAB_LAUNCHED("grain sums_kernel", size);
  }
  unsigned long long host[6];
  SATLAB_CUDA(cudaMemcpyAsync(host, scratch, sizeof host, cudaMemcpyDeviceToHost, st), "grain sums " + size);
  SATLAB_CUDA(cudaStreamSynchronize(st), "grain sums " + size);
  GrainSums s;
  for (int c = 0; c < 3; ++c) s.response[c] = host[c], s.pixels[c] = host[3 + c];
  return s;
}

void apply_grain_gpu(void* out, const float* coc, int width, int height, float amount, const GrainNoise& noise,
                     void* stream) {
  const long n = long(width) * height;
  if (n <= 0) return;
  apply_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, cudaStream_t(stream)>>>(
      static_cast<uchar4*>(out), coc, width, height, amount * noise.sigma[0], amount * noise.sigma[1],
      amount * noise.sigma[2]);
  SATLAB_LAUNCHED("grain apply_kernel", std::to_string(width) + "x" + std::to_string(height));
}

}  // namespace satlab::gpu
