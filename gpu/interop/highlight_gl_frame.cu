// The CUDA side of the GL splat (see highlight_gl_frame.hpp). Bytes of the handover: 32 B read + 32 B
// written per sprite slot (the whole cap: the kept count stays on the device).
#include <glad/gl.h>  // before cuda_gl_interop.h, which wants GL declared

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <chrono>
#include <string>

#include "core/dof_modes.hpp"
#include "gpu/check.hpp"
#include "gpu/filter/highlight_records.hpp"
#include "gpu/filter/highlights_gpu.hpp"
#include "gpu/interop/buffer_writer.hpp"
#include "gpu/interop/highlight_gl_frame.hpp"

namespace satlab::gpu {
namespace {

// Holds the stream for `ns` of GPU time, so that the host has queued a run's launches before its first
// event is taken: the events then time the GPU's work alone, as the pipeline bench's queued runs do.
__global__ void hold_kernel(unsigned long long ns) {
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

}  // namespace

struct HighlightGlFrame::Impl {
  int w = 0, h = 0, cap = 0;
  void *image = nullptr, *coc = nullptr, *result = nullptr, *records = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t ev[8] = {};
  HighlightWorkspace ws;
  BufferWriter shared;
  GLuint mapped_buffer = 0;
  cudaGraphicsResource_t mapped = nullptr;
  size_t mapped_bytes = 0;
  uint32_t stats[3] = {};

  ~Impl() {
    if (mapped) cudaGraphicsUnregisterResource(mapped);
    if (mapped_buffer) glDeleteBuffers(1, &mapped_buffer);
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
    for (void* p : {image, coc, result, records}) cudaFree(p);
  }
};

HighlightGlFrame::HighlightGlFrame(const ImageRGBA8& image, const ImageF& coc)
    : d_(std::make_unique<Impl>()) {
  if (coc.width != image.width || coc.height != image.height || coc.channels != 1)
    throw Error("HighlightGlFrame: CoC map size does not match the image");
  Impl& d = *d_;
  d.w = image.width, d.h = image.height;
  const size_t n = image.pixels();
  const std::string size = std::to_string(d.w) + "x" + std::to_string(d.h);
  SATLAB_CUDA(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "highlight GL frame stream");
  for (cudaEvent_t& e : d.ev) SATLAB_CUDA(cudaEventCreate(&e), "highlight GL frame events");
  SATLAB_CUDA(cudaMalloc(&d.image, n * 4), "highlight GL frame image " + size);
  SATLAB_CUDA(cudaMalloc(&d.coc, n * 4), "highlight GL frame CoC " + size);
  SATLAB_CUDA(cudaMalloc(&d.result, n * 4), "highlight GL frame result " + size);
  SATLAB_CUDA(cudaMemcpy(d.image, image.data.data(), n * 4, cudaMemcpyHostToDevice),
              "highlight GL frame upload");
  SATLAB_CUDA(cudaMemcpy(d.result, image.data.data(), n * 4, cudaMemcpyHostToDevice),
              "highlight GL frame upload");
  SATLAB_CUDA(cudaMemcpy(d.coc, coc.data.data(), n * 4, cudaMemcpyHostToDevice), "highlight GL frame upload");
}

HighlightGlFrame::~HighlightGlFrame() = default;

std::string HighlightGlFrame::shared_unavailable() const {
  return d_->shared.fallback_reason();
}

HighlightGlFrame::Times HighlightGlFrame::run(const Params& p, bool mapped) {
  Impl& d = *d_;
  const size_t bytes = highlight_records_bytes(p.highlight_cap);
  if (d.cap != p.highlight_cap) {
    cudaFree(d.records);
    d.records = nullptr;
    SATLAB_CUDA(cudaMalloc(&d.records, bytes), "highlight records (" + std::to_string(bytes) + " bytes)");
    d.cap = p.highlight_cap;
  }
  HighlightArgs a;
  a.image = d.image, a.coc = static_cast<const float*>(d.coc), a.width = d.w, a.height = d.h;
  a.params = &p, a.mode = &dof_mode_of(p), a.ws = &d.ws, a.stream = d.stream;
  hold_kernel<<<1, 1, 0, d.stream>>>(300000ull);  // 0.3 ms: longer than queuing the run takes
  SATLAB_LAUNCHED("highlight hold_kernel", "");
  int e = 0;
  a.phase = [&](const char*) { SATLAB_CUDA(cudaEventRecord(d.ev[e++], d.stream), "highlight event"); };
  highlights_prepare(a);  // events 0 compact, 1 sort, 2 splat
  SATLAB_CUDA(cudaEventRecord(d.ev[3], d.stream), "highlight event");
  highlights_add(a, d.result);
  SATLAB_CUDA(cudaEventRecord(d.ev[4], d.stream), "highlight event");
  highlight_records(a, d.records);
  SATLAB_CUDA(cudaEventRecord(d.ev[5], d.stream), "highlight event");
  const auto t0 = std::chrono::steady_clock::now();
  if (mapped || !d.shared.available()) {
    if (d.mapped_bytes != bytes) {
      if (d.mapped) SATLAB_CUDA(cudaGraphicsUnregisterResource(d.mapped), "highlight records unregister");
      d.mapped = nullptr;
      glDeleteBuffers(1, &d.mapped_buffer);
      glCreateBuffers(1, &d.mapped_buffer);
      glNamedBufferStorage(d.mapped_buffer, GLsizeiptr(bytes), nullptr, 0);
      SATLAB_CUDA(
          cudaGraphicsGLRegisterBuffer(&d.mapped, d.mapped_buffer, cudaGraphicsRegisterFlagsWriteDiscard),
          "cudaGraphicsGLRegisterBuffer of the highlight records");
      d.mapped_bytes = bytes;
    }
    SATLAB_CUDA(cudaGraphicsMapResources(1, &d.mapped, d.stream), "map of the highlight records");
    void* dst = nullptr;
    size_t have = 0;
    SATLAB_CUDA(cudaGraphicsResourceGetMappedPointer(&dst, &have, d.mapped), "highlight records pointer");
    SATLAB_CUDA(cudaMemcpyAsync(dst, d.records, bytes, cudaMemcpyDeviceToDevice, d.stream),
                "highlight records copy");
    SATLAB_CUDA(cudaGraphicsUnmapResources(1, &d.mapped, d.stream), "unmap of the highlight records");
    last_buffer_ = d.mapped_buffer;
  } else {
    // BufferWriter moves RGBA8 rows: a record is a row of 8 texels (32 bytes), the header one more row.
    if (!d.shared.write(8, p.highlight_cap + 1, d.records, d.stream))
      return run(p, true);  // the driver refused the shared allocation: fallback_reason() says why
    last_buffer_ = d.shared.buffer();
  }
  SATLAB_CUDA(cudaEventRecord(d.ev[6], d.stream), "highlight event");
  const double host =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  SATLAB_CUDA(cudaMemcpyAsync(d.stats, highlight_stats_device(d.ws), sizeof(d.stats), cudaMemcpyDeviceToHost,
                              d.stream),
              "highlight stats");
  SATLAB_CUDA(cudaStreamSynchronize(d.stream), "highlight GL frame");
  auto ms = [&](int i, int j) {
    float t = 0;
    SATLAB_CUDA(cudaEventElapsedTime(&t, d.ev[i], d.ev[j]), "highlight event time");
    return double(t);
  };
  Times t;
  t.compact = ms(0, 1), t.sort = ms(1, 2), t.splat = ms(2, 3), t.add = ms(3, 4), t.records = ms(4, 5);
  t.handover = ms(5, 6), t.handover_host = host;
  return t;
}

HighlightStats HighlightGlFrame::stats() const {
  HighlightStats s;
  s.valid = true, s.found = d_->stats[0], s.kept = d_->stats[1], s.far = d_->stats[2],
  s.cap = uint32_t(d_->cap);
  return s;
}

std::vector<hl::SpriteRecord> HighlightGlFrame::records() const {
  std::vector<hl::SpriteRecord> out(1 + d_->stats[1]);
  SATLAB_CUDA(
      cudaMemcpy(out.data(), d_->records, out.size() * sizeof(hl::SpriteRecord), cudaMemcpyDeviceToHost),
      "highlight records download");
  return out;
}

}  // namespace satlab::gpu
