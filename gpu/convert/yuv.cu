// RGBA8 to 4:2:0 on the device: one thread a chroma sample, its 2 x 2 block's lumas and the block's
// chroma (core/yuv.hpp).
#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/convert/yuv_gpu.hpp"

namespace satlab::gpu {
namespace {

__global__ void yuv420_kernel(const uchar4* __restrict__ rgba, int w, int h, uint8_t* __restrict__ y,
                              uint8_t* __restrict__ u, uint8_t* __restrict__ v) {
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  const int cx = blockIdx.x * blockDim.x + threadIdx.x, cy = blockIdx.y * blockDim.y + threadIdx.y;
  if (cx >= cw || cy >= ch) return;
  int r = 0, g = 0, b = 0, n = 0;
  for (int yy = 2 * cy; yy < 2 * cy + 2 && yy < h; ++yy)
    for (int xx = 2 * cx; xx < 2 * cx + 2 && xx < w; ++xx) {
      const uchar4 p = rgba[size_t(yy) * size_t(w) + size_t(xx)];
      y[size_t(yy) * size_t(w) + size_t(xx)] = yuv::luma(p.x, p.y, p.z);
      r += p.x, g += p.y, b += p.z, ++n;
    }
  u[size_t(cy) * size_t(cw) + size_t(cx)] = yuv::chroma_b(r, g, b, n);
  v[size_t(cy) * size_t(cw) + size_t(cx)] = yuv::chroma_r(r, g, b, n);
}

}  // namespace

struct GpuYuv::State {
  uint8_t* planes = nullptr;  // Y, then Cb, then Cr
  size_t bytes = 0;
  ~State() {
    if (planes) cudaFree(planes);
  }
};

GpuYuv::GpuYuv() : s_(std::make_unique<State>()) {}
GpuYuv::~GpuYuv() = default;

void GpuYuv::read(const void* rgba, void* stream, int w, int h, Yuv420& out) {
  if (w <= 0 || h <= 0 || !rgba) throw Error("yuv420: no image");
  if (out.width != w || out.height != h) out = Yuv420(w, h);
  const size_t ny = out.y.size(), nc = out.u.size(), bytes = ny + 2 * nc;
  const std::string ctx = std::to_string(w) + "x" + std::to_string(h);
  if (s_->bytes < bytes) {
    if (s_->planes) {
      SATLAB_CUDA(cudaFree(s_->planes), ctx);
      s_->planes = nullptr, s_->bytes = 0;
    }
    SATLAB_CUDA(cudaMalloc(&s_->planes, bytes), "yuv420 planes " + ctx);
    s_->bytes = bytes;
  }
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const dim3 block(32, 8), grid(unsigned((out.chroma_width() + 31) / 32), unsigned((out.chroma_height() + 7) / 8));
  yuv420_kernel<<<grid, block, 0, st>>>(static_cast<const uchar4*>(rgba), w, h, s_->planes, s_->planes + ny,
                                        s_->planes + ny + nc);
  SATLAB_LAUNCHED("yuv420", ctx);
  SATLAB_CUDA(cudaMemcpyAsync(out.y.data(), s_->planes, ny, cudaMemcpyDeviceToHost, st), ctx);
  SATLAB_CUDA(cudaMemcpyAsync(out.u.data(), s_->planes + ny, nc, cudaMemcpyDeviceToHost, st), ctx);
  SATLAB_CUDA(cudaMemcpyAsync(out.v.data(), s_->planes + ny + nc, nc, cudaMemcpyDeviceToHost, st), ctx);
  SATLAB_CUDA(cudaStreamSynchronize(st), "yuv420 " + ctx);
}

std::string check_yuv(int width, int height, uint64_t seed) {
  ImageRGBA8 img(width, height);
  std::mt19937_64 rng(seed);
  for (auto& b : img.data) b = uint8_t(rng());
  if (width * height > 4) std::fill(img.data.begin(), img.data.begin() + 16, uint8_t(255));  // all-255 pixels
  Yuv420 want;
  rgba_to_yuv420(img, want, 1);
  void* d = nullptr;
  SATLAB_CUDA(cudaMalloc(&d, img.data.size()), "check_yuv");
  std::string diff;
  try {
    SATLAB_CUDA(cudaMemcpy(d, img.data.data(), img.data.size(), cudaMemcpyHostToDevice), "check_yuv");
    Yuv420 got(width, height);
    std::fill(got.y.begin(), got.y.end(), uint8_t(0xA5));  // poisoned: a plane left unwritten shows
    std::fill(got.u.begin(), got.u.end(), uint8_t(0xA5));
    std::fill(got.v.begin(), got.v.end(), uint8_t(0xA5));
    GpuYuv g;
    g.read(d, nullptr, width, height, got);
    const std::vector<uint8_t>* planes[3][2] = {{&want.y, &got.y}, {&want.u, &got.u}, {&want.v, &got.v}};
    for (int p = 0; p < 3 && diff.empty(); ++p)
      for (size_t i = 0; i < planes[p][0]->size(); ++i)
        if ((*planes[p][0])[i] != (*planes[p][1])[i]) {
          diff = "plane " + std::to_string(p) + " sample " + std::to_string(i) + ": " + std::to_string((*planes[p][1])[i]) +
                 " against the CPU's " + std::to_string((*planes[p][0])[i]);
          break;
        }
  } catch (...) {
    cudaFree(d);
    throw;
  }
  cudaFree(d);
  return diff;
}

}  // namespace satlab::gpu
