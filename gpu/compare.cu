// SatComparer: registered SAT builders on one image against core's reference SAT. The image and the
// reference are uploaded once per image; each run poisons the output, times the builder and its phases
// with CUDA events on the comparer's own stream, then counts differing elements on the device (one pass
// over both tables, 16-byte loads) and downloads two counters instead of the table.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "gpu/check.hpp"
#include "gpu/compare.hpp"
#include "gpu/device.hpp"

namespace satlab::gpu {
namespace {

constexpr int kThreads = 256;

// counters[0] += differing elements; counters[1] = min index of one.
__global__ void count_mismatches(const uint4* __restrict__ a, const uint4* __restrict__ b, size_t n4,
                                 unsigned long long* counters) {
  unsigned long long count = 0, first = ~0ull;
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n4; i += size_t(gridDim.x) * kThreads) {
    const uint4 x = a[i], y = b[i];
    const unsigned d[4] = {x.x != y.x, x.y != y.y, x.z != y.z, x.w != y.w};
    for (int k = 0; k < 4; ++k)
      if (d[k]) {
        ++count;
        first = min(first, (unsigned long long)(4 * i + k));
      }
  }
  if (count) {
    atomicAdd(&counters[0], count);
    atomicMin(&counters[1], first);
  }
}

struct Buffer {
  void* p = nullptr;
  size_t bytes = 0;
  void reset(size_t n, const char* what) {
    if (n == bytes) return;
    cudaFree(p);
    p = nullptr, bytes = 0;
    SATLAB_CUDA(cudaMalloc(&p, n), std::to_string(n >> 20) + " MiB for the comparison's " + what);
    bytes = n;
  }
  ~Buffer() { cudaFree(p); }
};

}  // namespace

struct SatComparer::Impl {
  cudaStream_t stream = nullptr;
  Buffer image, reference, output, counters;
  int width = 0, height = 0;
  std::vector<cudaEvent_t> events;
  bool corrupt = false;
  size_t corrupt_index = 0;

  cudaEvent_t event(size_t i) {
    while (events.size() <= i) {
      cudaEvent_t e;
      SATLAB_CUDA(cudaEventCreate(&e), "comparison timing");
      events.push_back(e);
    }
    return events[i];
  }
  ~Impl() {
    for (auto e : events) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }
};

SatComparer::SatComparer() : impl_(std::make_unique<Impl>()) {
  if (!probe().available) throw Error(probe().reason);
  SATLAB_CUDA(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking), "comparison stream");
}

SatComparer::~SatComparer() = default;

int SatComparer::width() const { return impl_->width; }
int SatComparer::height() const { return impl_->height; }

void SatComparer::set_image(const ImageRGBA8& image) {
  Impl& m = *impl_;
  m.width = m.height = 0;
  if (image.empty()) throw Error("the comparison needs an image");
  const size_t n = image.pixels();
  std::vector<uint32_t> ref;
  sat_rgba8(image, ref);
  m.image.reset(n * 4, "image");
  m.reference.reset(n * 16, "reference SAT");
  m.output.reset(n * 16, "output SAT");
  m.counters.reset(2 * sizeof(unsigned long long), "counters");
  SATLAB_CUDA(cudaMemcpy(m.image.p, image.data.data(), n * 4, cudaMemcpyHostToDevice), "comparison image upload");
  SATLAB_CUDA(cudaMemcpy(m.reference.p, ref.data(), n * 16, cudaMemcpyHostToDevice), "reference SAT upload");
  m.width = image.width, m.height = image.height;
}

std::vector<const Variant*> SatComparer::candidates() const {
  std::vector<const Variant*> r;
  const size_t n = size_t(impl_->width) * size_t(impl_->height);
  for (const Variant& v : variants()) {
    if (v.family != Family::Sat || !v.sat) continue;
    if (std::find(v.dtypes.begin(), v.dtypes.end(), DType::RGBA8) == v.dtypes.end()) continue;
    if (n == 0 || !v.refuses || v.refuses(n, DType::RGBA8).empty()) r.push_back(&v);
  }
  return r;
}

void SatComparer::corrupt_next_output(size_t index) {
  impl_->corrupt = true;
  impl_->corrupt_index = index;
}

SatComparison SatComparer::run(const Variant& v) {
  Impl& m = *impl_;
  SatComparison r;
  r.variant = v.name;
  const size_t n = size_t(m.width) * size_t(m.height);
  r.elements = n * 4;
  if (n == 0) {
    r.error = "no image";
    return r;
  }
  if (v.refuses) r.error = v.refuses(n, DType::RGBA8);
  if (!v.sat) r.error = "not a SAT builder";
  if (!r.error.empty()) return r;
  std::vector<std::string> names;
  try {
    const cudaStream_t s = m.stream;
    SATLAB_CUDA(cudaMemsetAsync(m.output.p, 0xAB, m.output.bytes, s), "poisoning the output");
    SatArgs a;
    a.in = m.image.p, a.out = m.output.p, a.width = m.width, a.height = m.height, a.channels = 4;
    a.dtype = DType::RGBA8, a.stream = s;
    a.phase = [&](const char* name) {
      SATLAB_CUDA(cudaEventRecord(m.event(names.size() + 1), s), name);
      names.push_back(name);
    };
    SATLAB_CUDA(cudaEventRecord(m.event(0), s), "comparison timing");
    v.sat(a);
    const cudaEvent_t end = m.event(names.size() + 1);
    SATLAB_CUDA(cudaEventRecord(end, s), "comparison timing");
    SATLAB_CUDA(cudaEventSynchronize(end), v.name + " on " + std::to_string(m.width) + "x" + std::to_string(m.height));
    float ms = 0;
    SATLAB_CUDA(cudaEventElapsedTime(&ms, m.event(0), end), "comparison timing");
    r.ms = ms;
    for (size_t i = 0; i < names.size(); ++i) {
      SATLAB_CUDA(cudaEventElapsedTime(&ms, m.event(i + 1), m.event(i + 2)), "phase timing");
      r.phases.emplace_back(names[i], double(ms));
    }
    if (m.corrupt && m.corrupt_index < r.elements) {
      uint32_t x = 0;
      uint32_t* p = static_cast<uint32_t*>(m.output.p) + m.corrupt_index;
      SATLAB_CUDA(cudaMemcpy(&x, p, 4, cudaMemcpyDeviceToHost), "test corruption");
      x ^= 1u;
      SATLAB_CUDA(cudaMemcpy(p, &x, 4, cudaMemcpyHostToDevice), "test corruption");
    }
    m.corrupt = false;
    const unsigned long long init[2] = {0, ~0ull};
    SATLAB_CUDA(cudaMemcpyAsync(m.counters.p, init, sizeof(init), cudaMemcpyHostToDevice, s), "comparison counters");
    const size_t n4 = n;  // n pixels * 4 uint32 = n uint4
    const unsigned blocks = unsigned(std::min<size_t>((n4 + kThreads - 1) / kThreads, 4096));
    count_mismatches<<<blocks, kThreads, 0, s>>>(static_cast<const uint4*>(m.output.p),
                                                 static_cast<const uint4*>(m.reference.p), n4,
                                                 static_cast<unsigned long long*>(m.counters.p));
    SATLAB_LAUNCHED("count_mismatches", std::to_string(n4) + " uint4");
    unsigned long long got[2] = {0, 0};
    SATLAB_CUDA(cudaMemcpyAsync(got, m.counters.p, sizeof(got), cudaMemcpyDeviceToHost, s), "comparison counters");
    SATLAB_CUDA(cudaStreamSynchronize(s), "comparison");
    r.mismatches = size_t(got[0]);
    r.first_mismatch = got[0] ? size_t(got[1]) : 0;
  } catch (const Error& e) {
    m.corrupt = false;
    r.error = e.what();
    r.phases.clear();
  }
  return r;
}

}  // namespace satlab::gpu
