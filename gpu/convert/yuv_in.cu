// Semi-planar 4:2:0 to RGBA8 on the device (core/yuv.hpp's yuv420sp_to_rgba): one thread an output pixel.
#include <cuda_runtime.h>

#include <mutex>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/convert/yuv_in_gpu.hpp"

namespace satlab::gpu {
namespace {

template <int Bytes>
__device__ __forceinline__ int sample(const uint8_t* row, int i, int shift) {
  if (Bytes == 2) return int(reinterpret_cast<const uint16_t*>(row)[i] >> shift);
  return int(row[i]);
}

template <int Bytes>
__global__ void yuv_in_kernel(Yuv420SP in, yuv::InCoeffs k, int rotation, int ow, int oh, uchar4* __restrict__ out,
                              size_t out_pitch) {
  const int ox = int(blockIdx.x * blockDim.x + threadIdx.x), oy = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (ox >= ow || oy >= oh) return;
  const int shift = in.shift;
  uint8_t rgb[3];
  yuv::pixel_rgb(in, k, rotation, ox, oy, [shift](const uint8_t* row, int i) { return sample<Bytes>(row, i, shift); }, rgb);
  reinterpret_cast<uchar4*>(reinterpret_cast<uint8_t*>(out) + size_t(oy) * out_pitch)[ox] =
      make_uchar4(rgb[0], rgb[1], rgb[2], 255);
}

struct Buffer {
  void* p = nullptr;
  size_t bytes = 0;
  bool held = false;  // given out (the pool's lock guards it)
  ~Buffer() {
    if (p) cudaFree(p);
  }
};

}  // namespace

struct GpuFrameConverter::State {
  cudaStream_t stream = nullptr;  // blocking: ordered after the legacy default stream's work
  std::vector<std::shared_ptr<Buffer>> pool;
  std::mutex m;
};

GpuFrameConverter::GpuFrameConverter() : s_(std::make_shared<State>()) {
  SATLAB_CUDA(cudaStreamCreate(&s_->stream), "frame converter stream");
}
GpuFrameConverter::~GpuFrameConverter() {
  if (s_->stream) {
    cudaStreamSynchronize(s_->stream);
    cudaStreamDestroy(s_->stream);
  }
}

DeviceRGBA GpuFrameConverter::convert(const Yuv420SP& in, const yuv::InCoeffs& k, int rotation) {
  if (in.width <= 0 || in.height <= 0 || !in.y || !in.uv) throw Error("frame conversion: no planes");
  if (in.bytes != 1 && in.bytes != 2) throw Error("frame conversion: samples of 1 or 2 bytes");
  if (rotation != 0 && rotation != 90 && rotation != 180 && rotation != 270)
    throw Error("frame conversion: a turn of " + std::to_string(rotation) + " degrees");
  const bool side = rotation == 90 || rotation == 270;
  const int ow = side ? in.height : in.width, oh = side ? in.width : in.height;
  const size_t pitch = size_t(ow) * 4, bytes = pitch * size_t(oh);
  const std::string ctx = std::to_string(ow) + "x" + std::to_string(oh);
  std::shared_ptr<Buffer> buf;
  {
    std::lock_guard<std::mutex> l(s_->m);
    for (auto& b : s_->pool)  // an image no one holds any more
      if (!b->held && b->bytes == bytes) {
        buf = b;
        break;
      }
    if (!buf) {
      for (size_t i = 0; i < s_->pool.size(); ++i)  // images of another size, free: given back
        if (!s_->pool[i]->held && s_->pool[i]->bytes != bytes) s_->pool.erase(s_->pool.begin() + long(i--));
      if (int(s_->pool.size()) >= kMaxImages)
        throw Error("frame conversion: " + std::to_string(kMaxImages) + " decoded frames are held at once");
      buf = std::make_shared<Buffer>();
      SATLAB_CUDA(cudaMalloc(&buf->p, bytes), "decoded frame " + ctx);
      buf->bytes = bytes;
      s_->pool.push_back(buf);
    }
    buf->held = true;
  }
  // Given back when the last copy of the handle goes (on whichever thread): marked free under the pool's lock;
  // the buffer itself lives as long as the handle, the converter or not.
  const std::weak_ptr<State> pool = s_;
  std::shared_ptr<const void> hold(buf->p, [buf, pool](const void*) {
    if (const std::shared_ptr<State> st = pool.lock()) {
      std::lock_guard<std::mutex> l(st->m);
      buf->held = false;
    }
  });
  const dim3 block(32, 8), grid(unsigned((ow + 31) / 32), unsigned((oh + 7) / 8));
  if (in.bytes == 2)
    yuv_in_kernel<2><<<grid, block, 0, s_->stream>>>(in, k, rotation, ow, oh, static_cast<uchar4*>(buf->p), pitch);
  else
    yuv_in_kernel<1><<<grid, block, 0, s_->stream>>>(in, k, rotation, ow, oh, static_cast<uchar4*>(buf->p), pitch);
  SATLAB_LAUNCHED("yuv to rgba", ctx);
  SATLAB_CUDA(cudaStreamSynchronize(s_->stream), "yuv to rgba " + ctx);
  DeviceRGBA d;
  d.data = buf->p, d.pitch = pitch, d.width = ow, d.height = oh;
  d.hold = std::move(hold);
  return d;
}

void* primary_context() {
  SATLAB_CUDA(cudaSetDevice(0), "cudaSetDevice");
  SATLAB_CUDA(cudaFree(nullptr), "CUDA context");  // the runtime's primary context, made current
  using GetCurrent = int (*)(void**);               // cuCtxGetCurrent(CUcontext*)
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || !fn) {
    cudaGetLastError();
    throw Error("the CUDA driver has no cuCtxGetCurrent");
  }
  void* c = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&c) != 0 || !c) throw Error("no current CUDA context");
  return c;
}

void download(const DeviceRGBA& image, ImageRGBA8& out) {
  if (image.empty()) throw Error("download: no device image");
  if (out.width != image.width || out.height != image.height) out = ImageRGBA8(image.width, image.height);
  SATLAB_CUDA(cudaMemcpy2D(out.data.data(), size_t(image.width) * 4, image.data, image.pitch, size_t(image.width) * 4,
                           size_t(image.height), cudaMemcpyDeviceToHost),
              "decoded frame download");
}

std::string check_yuv_in(int width, int height, int bytes, int bits, yuv::Matrix m, bool full, int rotation,
                         bool planar, uint64_t seed) {
  Yuv420SP in;
  in.width = width, in.height = height, in.bytes = bytes;
  in.shift = bytes == 2 && !planar ? 16 - bits : 0;  // P010/P016 high bits; yuv420p10le low bits
  in.h_cosited = seed % 4 != 1, in.v_cosited = seed % 4 == 2;  // left (most), centre, top-left
  const int cw = in.chroma_width(), ch = in.chroma_height();
  in.y_pitch = size_t(width) * size_t(bytes) + 64;  // pitched, as the decoder's surfaces are
  in.uv_pitch = size_t(cw) * (planar ? 1 : 2) * size_t(bytes) + 32;
  in.v_pitch = planar ? in.uv_pitch : 0;
  std::vector<uint8_t> y(in.y_pitch * size_t(height)), uv(in.uv_pitch * size_t(ch) * (planar ? 2 : 1));
  std::mt19937_64 rng(seed);
  for (auto& b : y) b = uint8_t(rng());
  for (auto& b : uv) b = uint8_t(rng());
  if (bytes == 2 && planar)  // low-bit samples hold `bits` bits
    for (std::vector<uint8_t>* v : {&y, &uv})
      for (size_t i = 1; i < v->size(); i += 2) (*v)[i] = uint8_t((*v)[i] & ((1u << (bits - 8)) - 1));
  if (width * height > 4) {  // the largest valid samples: the top-left corner of both planes
    const uint16_t top = uint16_t(bytes == 1 ? 255 : ((1u << bits) - 1) << in.shift);
    for (std::vector<uint8_t>* v : {&y, &uv})
      for (size_t i = 0; i + 1 < std::min(v->size(), size_t(8)); i += size_t(bytes)) {
        (*v)[i] = uint8_t(top & 0xFF);
        if (bytes == 2) (*v)[i + 1] = uint8_t(top >> 8);
      }
  }
  const yuv::InCoeffs k = yuv::in_coeffs(m, full, bits);
  ImageRGBA8 want;
  in.y = y.data(), in.uv = uv.data(), in.v = planar ? uv.data() + in.uv_pitch * size_t(ch) : nullptr;
  yuv420sp_to_rgba(in, k, rotation, want, 1);
  uint8_t *dy = nullptr, *duv = nullptr;
  SATLAB_CUDA(cudaMalloc(&dy, y.size()), "check_yuv_in");
  SATLAB_CUDA(cudaMalloc(&duv, uv.size()), "check_yuv_in");
  std::string diff;
  try {
    SATLAB_CUDA(cudaMemcpy(dy, y.data(), y.size(), cudaMemcpyHostToDevice), "check_yuv_in");
    SATLAB_CUDA(cudaMemcpy(duv, uv.data(), uv.size(), cudaMemcpyHostToDevice), "check_yuv_in");
    GpuFrameConverter g;
    Yuv420SP d = in;
    d.y = dy, d.uv = duv, d.v = planar ? duv + in.uv_pitch * size_t(ch) : nullptr;
    DeviceRGBA a = g.convert(d, k, rotation);
    SATLAB_CUDA(cudaMemset(const_cast<void*>(a.data), 0xA5, a.pitch * size_t(a.height)), "poison");
    DeviceRGBA b = g.convert(d, k, rotation);  // another image: the first is still held
    if (b.data == a.data) diff = "the pool gave out an image that is still held";
    const void* poisoned = a.data;
    a = DeviceRGBA();
    DeviceRGBA c = g.convert(d, k, rotation);  // the poisoned one again, written over
    if (diff.empty() && c.data != poisoned) diff = "the pool did not give the free image out again";
    ImageRGBA8 got;
    download(c, got);
    if (diff.empty() && (got.width != want.width || got.height != want.height)) diff = "size differs";
    for (size_t i = 0; diff.empty() && i < want.data.size(); ++i)
      if (got.data[i] != want.data[i])
        diff = "pixel " + std::to_string(i / 4) + " channel " + std::to_string(i % 4) + ": " + std::to_string(got.data[i]) +
               " against the CPU's " + std::to_string(want.data[i]);
  } catch (...) {
    cudaFree(dy), cudaFree(duv);
    throw;
  }
  cudaFree(dy), cudaFree(duv);
  return diff;
}

}  // namespace satlab::gpu
