// CUDA-GL interop for the display texture (see texture_writer.hpp). Bytes: 4 B read + 4 B written per pixel.
#include <glad/gl.h>  // before cuda_gl_interop.h, which wants GL declared

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/interop/texture_writer.hpp"

namespace satlab::gpu {
namespace {

void check(cudaError_t e, const char* what, int w, int h) {
  if (e != cudaSuccess)
    throw Error(std::string(what) + " failed for a " + std::to_string(w) + "x" + std::to_string(h) +
                " texture: " + cudaGetErrorString(e));
}

__global__ void write_surface(cudaSurfaceObject_t surf, const uchar4* __restrict__ src, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) surf2Dwrite(src[size_t(y) * w + x], surf, x * int(sizeof(uchar4)), y);
}

double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TextureWriter::~TextureWriter() { release(); }

void TextureWriter::release() {
  if (surface_) cudaDeviceSynchronize(), cudaDestroySurfaceObject(cudaSurfaceObject_t(surface_));
  surface_ = 0;
  if (resource_) cudaGraphicsUnregisterResource(cudaGraphicsResource_t(resource_));
  resource_ = nullptr;
}

void TextureWriter::write(unsigned texture, int w, int h, const void* src, void* stream) {
  const cudaStream_t s = cudaStream_t(stream);
  if (texture != texture_ || w != width_ || h != height_) {  // register once per texture and size
    release();
    texture_ = texture, width_ = w, height_ = h;
    cudaGraphicsResource_t r = nullptr;
    const cudaError_t e =
        cudaGraphicsGLRegisterImage(&r, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore);
    if (e == cudaSuccess) {
      resource_ = r;
      why_.clear();
    } else {
      cudaGetLastError();
      why_ = std::string("CUDA-GL interop unavailable (") + cudaGetErrorString(e) + "): copying through the host";
    }
  }
  if (!resource_) {  // fallback: device -> host -> glTexSubImage2D
    std::vector<unsigned char> host(size_t(w) * size_t(h) * 4);
    auto t0 = std::chrono::steady_clock::now();
    check(cudaMemcpyAsync(host.data(), src, host.size(), cudaMemcpyDeviceToHost, s), "download for the texture", w, h);
    check(cudaStreamSynchronize(s), "download for the texture", w, h);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, host.data());
    write_ms = since_ms(t0), map_ms = unmap_ms = 0;
    return;
  }
  cudaGraphicsResource_t r = cudaGraphicsResource_t(resource_);
  auto t0 = std::chrono::steady_clock::now();
  check(cudaGraphicsMapResources(1, &r, s), "cudaGraphicsMapResources", w, h);
  cudaArray_t array = nullptr;
  check(cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0), "cudaGraphicsSubResourceGetMappedArray", w, h);
  map_ms = since_ms(t0);
  t0 = std::chrono::steady_clock::now();
  cudaResourceDesc desc{};
  desc.resType = cudaResourceTypeArray;
  desc.res.array.array = array;
  if (surface_) cudaDestroySurfaceObject(cudaSurfaceObject_t(surface_));  // the last frame's, long done
  surface_ = 0;
  cudaSurfaceObject_t surf = 0;
  check(cudaCreateSurfaceObject(&surf, &desc), "cudaCreateSurfaceObject", w, h);
  surface_ = surf;
  const dim3 block(32, 8), grid((unsigned(w) + 31) / 32, (unsigned(h) + 7) / 8);
  write_surface<<<grid, block, 0, s>>>(surf, static_cast<const uchar4*>(src), w, h);
  check(cudaGetLastError(), "surface write kernel", w, h);
  write_ms = since_ms(t0);
  t0 = std::chrono::steady_clock::now();
  check(cudaGraphicsUnmapResources(1, &r, s), "cudaGraphicsUnmapResources", w, h);
  unmap_ms = since_ms(t0);
}

}  // namespace satlab::gpu
