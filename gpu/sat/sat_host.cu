// Host-side drivers of the SAT variants: correctness runs (poisoned output) and CUDA-event timings.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "gpu/device.hpp"
#include "gpu/filter/filter.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_host.hpp"

namespace satlab::gpu {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw Error(what + ": " + cudaGetErrorString(e));
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    check(cudaMalloc(&p, std::max<size_t>(bytes, 1)),
          "cudaMalloc of " + std::to_string(bytes) + " bytes for a SAT run");
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <typename Out, typename In>
std::vector<Out> run_sat(const Variant& v, const In* data, int w, int h, int ch, DType t,
                         std::vector<std::string>* phases = nullptr) {
  if (!v.sat) throw Error(v.name + " is not a SAT variant");
  const std::string why = v.refuses ? v.refuses(size_t(w) * size_t(h), t) : "";
  if (!why.empty()) throw Error(v.name + " refuses this input: " + why);
  const size_t n = size_t(w) * size_t(h) * size_t(ch);
  DeviceBuffer in(n * sizeof(In)), out(n * sizeof(Out));
  check(cudaMemcpy(in.p, data, n * sizeof(In), cudaMemcpyHostToDevice), "upload of the SAT input");
  check(cudaMemset(out.p, 0xAB, n * sizeof(Out)), "poisoning the SAT output");
  SatArgs a;
  a.in = in.p, a.out = out.p, a.width = w, a.height = h, a.channels = ch, a.dtype = t;
  if (phases) a.phase = [phases](const char* name) { phases->push_back(name); };
  v.sat(a);
  check(cudaDeviceSynchronize(), v.name + " on " + std::to_string(w) + "x" + std::to_string(h));
  std::vector<Out> result(n);
  check(cudaMemcpy(result.data(), out.p, n * sizeof(Out), cudaMemcpyDeviceToHost), "download of the SAT");
  return result;
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : double(v[v.size() / 2]);
}

BenchTiming g_timing = BenchTiming::Queued;

// Holds the default stream until the host sets *flag (mapped pinned memory) or `limit_ns` have passed, so
// that the runs queued behind it start back to back.
__global__ void hold_until(const volatile int* flag, unsigned long long limit_ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (*flag == 0 && t - t0 < limit_ns);
}

// `warmup` untimed calls of f, then `runs` calls each timed with CUDA events on the default stream: queued
// back to back behind hold_until (BenchTiming::Queued: the events bracket the GPU's work alone, as in a
// pipeline that keeps the GPU fed) or each waited for before the next is issued (Synced: each time also
// holds the host's work between the first event and the launch reaching the GPU).
template <typename F>
SatTiming time_runs(const std::string& what, int warmup, int runs, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  check(cudaDeviceSynchronize(), what + " warm-up");
  const size_t n = size_t(std::max(runs, 1));
  std::vector<cudaEvent_t> ev(2 * n, nullptr);
  struct Events {  // destroyed on every path out
    std::vector<cudaEvent_t>& ev;
    ~Events() {
      for (cudaEvent_t e : ev)
        if (e) cudaEventDestroy(e);
    }
  } guard{ev};
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  const bool queued = g_timing == BenchTiming::Queued;
  struct Hold {  // queued: the GPU held until every run is issued; released on every path out, then freed
    int* flag = nullptr;
    ~Hold() {
      if (!flag) return;
      *reinterpret_cast<volatile int*>(flag) = 1;
      cudaFreeHost(flag);
    }
  } hold;
  if (queued) {
    check(cudaHostAlloc(&hold.flag, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc of the bench's hold flag");
    *reinterpret_cast<volatile int*>(hold.flag) = 0;
    int* dflag = nullptr;
    check(cudaHostGetDevicePointer(&dflag, hold.flag, 0), "cudaHostGetDevicePointer");
    hold_until<<<1, 1>>>(dflag, 200000000ull);  // at most 0.2 s, should a run wait for the GPU itself
    check(cudaGetLastError(), "hold_until");
  }
  for (size_t k = 0; k < n; ++k) {
    cudaEventRecord(ev[2 * k]);
    f();
    cudaEventRecord(ev[2 * k + 1]);
    if (!queued) check(cudaEventSynchronize(ev[2 * k + 1]), what + " timed run");
  }
  if (queued) *reinterpret_cast<volatile int*>(hold.flag) = 1;
  check(cudaEventSynchronize(ev.back()), what + " timed runs");
  std::vector<float> ms(n);
  for (size_t k = 0; k < n; ++k)
    check(cudaEventElapsedTime(&ms[k], ev[2 * k], ev[2 * k + 1]), "cudaEventElapsedTime");
  SatTiming r;
  r.median_ms = median(ms);
  r.min_ms = double(*std::min_element(ms.begin(), ms.end()));
  r.runs = int(ms.size());
  return r;
}

}  // namespace

void set_bench_timing(BenchTiming t) { g_timing = t; }

std::string check_sat(DType t, int ch, int w, int h, const void* in, const void* sat, double* worst) {
  const size_t n = size_t(w) * size_t(h) * size_t(ch);
  size_t bad = 0, first = 0;
  std::string what;
  auto where = [&](size_t i) {
    const size_t px = i / size_t(ch);
    return "(" + std::to_string(px % size_t(w)) + ", " + std::to_string(px / size_t(w)) + ") channel " +
           std::to_string(i % size_t(ch));
  };
  if (t == DType::F32) {
    ImageF im(w, h, ch);
    std::memcpy(im.data.data(), in, n * 4);
    std::vector<double> want;
    sat_float(im, want);
    const float* got = static_cast<const float*>(sat);
    double w_err = 0;
    for (size_t i = 0; i < n; ++i) {
      const double e = std::fabs(double(got[i]) - want[i]) / std::max(std::fabs(want[i]), 1e-30);
      if (!(e <= kFloatSatRelBound)) {  // NaN (an unwritten poisoned element) counts too
        if (bad++ == 0) first = i, what = "got " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
      }
      if (e > w_err || std::isnan(e)) w_err = std::isnan(e) ? INFINITY : e;
    }
    if (worst) *worst = w_err;
  } else {
    std::vector<uint32_t> want;
    if (t == DType::RGBA8) {
      ImageRGBA8 im(w, h);
      std::memcpy(im.data.data(), in, n);
      sat_rgba8(im, want);
    } else if (t == DType::RGBA16) {
      sat_u16(static_cast<const uint16_t*>(in), w, h, 4, want);
    } else {
      sat_u8(static_cast<const uint8_t*>(in), w, h, want);
    }
    const uint32_t* got = static_cast<const uint32_t*>(sat);
    for (size_t i = 0; i < n; ++i)
      if (got[i] != want[i] && bad++ == 0)
        first = i, what = "got " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    if (worst) *worst = 0;
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " of " + std::to_string(n) + " elements differ, first at " + where(first) + ": " + what;
}

std::vector<uint32_t> run_sat_u32(const Variant& v, const uint8_t* data, int w, int h, int ch,
                                  std::vector<std::string>* phases) {
  return run_sat<uint32_t>(v, data, w, h, ch, ch == 4 ? DType::RGBA8 : DType::U8, phases);
}

std::vector<uint32_t> run_sat_u16(const Variant& v, const uint16_t* data, int w, int h) {
  return run_sat<uint32_t>(v, data, w, h, 4, DType::RGBA16);
}

std::vector<float> run_sat_f32(const Variant& v, const float* data, int w, int h, int ch) {
  return run_sat<float>(v, data, w, h, ch, DType::F32);
}

SatTiming time_sat(const Variant& v, DType t, int ch, int w, int h, int warmup, int runs, bool phases, bool check_output) {
  if (t == DType::U8) ch = 1;
  if (t == DType::RGBA8 || t == DType::RGBA16) ch = 4;
  const size_t n = size_t(w) * size_t(h) * size_t(ch);
  const size_t in_size = t == DType::F32 ? 4 : t == DType::RGBA16 ? 2 : 1;
  // Copies of the input, taken in turn, so that no run finds its input in L2 from the run before (a
  // builder that re-reads its input, in an order that leaves the part it reads first in L2, would
  // otherwise gain across runs): at least 2 even where one alone is larger than twice the L2.
  const size_t copies = size_t(input_copies(n * in_size, 2));
  std::vector<std::unique_ptr<DeviceBuffer>> ins;
  for (size_t c = 0; c < copies; ++c) ins.push_back(std::make_unique<DeviceBuffer>(n * in_size));
  DeviceBuffer& in = *ins[0];
  DeviceBuffer out(n * 4);
  {
    std::vector<uint32_t> host((n * in_size + 3) / 4);
    std::mt19937 rng(12345);
    if (t == DType::F32)
      for (auto& x : host) {
        float f = float(rng() % 65536) / 65536.0f;
        std::memcpy(&x, &f, 4);
      }
    else
      for (auto& x : host) x = rng();
    for (auto& b : ins)
      check(cudaMemcpy(b->p, host.data(), n * in_size, cudaMemcpyHostToDevice), "upload of the bench input");
  }
  SatArgs a;
  a.in = in.p, a.out = out.p, a.width = w, a.height = h, a.channels = ch, a.dtype = t;
  size_t turn = 0;
  auto next_input = [&] { a.in = ins[turn++ % copies]->p; };
  SatTiming r = time_runs(v.name, warmup, runs, [&] {
    next_input();
    v.sat(a);
  });
  if (check_output) {
    a.in = in.p;
    check(cudaMemset(out.p, 0xAB, n * 4), "poisoning the SAT output");
    v.sat(a);
    check(cudaDeviceSynchronize(), v.name + " checked run");
    std::vector<uint32_t> got(n);
    check(cudaMemcpy(got.data(), out.p, n * 4, cudaMemcpyDeviceToHost), "download of the SAT");
    std::vector<uint32_t> host_in((n * in_size + 3) / 4);
    check(cudaMemcpy(host_in.data(), in.p, n * in_size, cudaMemcpyDeviceToHost), "download of the bench input");
    r.checked = true;
    r.mismatch = check_sat(t, ch, w, h, host_in.data(), got.data());
  }
  if (!phases) return r;
  std::vector<cudaEvent_t> ev;  // one per phase, then the end
  std::vector<std::string> names;
  std::vector<std::vector<float>> ms;
  size_t next = 0;
  auto record = [&](const char* name) {
    if (next == ev.size()) {
      ev.emplace_back();
      check(cudaEventCreate(&ev.back()), "cudaEventCreate");
      names.push_back(name ? name : "");
    }
    cudaEventRecord(ev[next++]);
  };
  a.phase = record;
  for (int i = 0; i < std::max(runs, 1); ++i) {
    next = 0;
    next_input();
    v.sat(a);
    record(nullptr);
    check(cudaEventSynchronize(ev[next - 1]), v.name + " phase-timed run");
    ms.resize(next - 1);
    for (size_t p = 0; p + 1 < next; ++p) {
      float m = 0;
      cudaEventElapsedTime(&m, ev[p], ev[p + 1]);
      ms[p].push_back(m);
    }
  }
  for (size_t p = 0; p < ms.size(); ++p) r.phases.emplace_back(names[p], median(ms[p]));
  for (cudaEvent_t e : ev) cudaEventDestroy(e);
  return r;
}

SatTiming time_blur(int w, int h, const std::string& coc_kind, bool fractional, int radius, int warmup, int runs) {
  const size_t n = size_t(w) * size_t(h);
  DeviceBuffer img(n * 4), sat(n * 16), coc(n * 4), out(n * 4);
  std::mt19937 rng(99);
  {
    std::vector<uint32_t> host(n);
    for (auto& x : host) x = rng();
    check(cudaMemcpy(img.p, host.data(), n * 4, cudaMemcpyHostToDevice), "upload of the blur input");
  }
  if (coc_kind != "none") {
    std::vector<float> host(n);
    std::uniform_real_distribution<float> u(-24.f, 24.f);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        host[size_t(y) * w + x] = coc_kind == "random" ? u(rng) : 24.f * (2.f * float(x + y) / float(w + h) - 1.f);
    check(cudaMemcpy(coc.p, host.data(), n * 4, cudaMemcpyHostToDevice), "upload of the CoC");
  }
  SatArgs a;
  a.in = img.p, a.out = sat.p, a.width = w, a.height = h, a.channels = 4, a.dtype = DType::RGBA8;
  sat_tiled(a);
  const float* c = coc_kind == "none" ? nullptr : static_cast<const float*>(coc.p);
  return time_runs("blur", warmup, runs, [&] {
    blur_rgba8(static_cast<const uint32_t*>(sat.p), c, radius, w, h, static_cast<uint8_t*>(out.p), nullptr,
               fractional);
  });
}

double copy_bandwidth_gbs(size_t bytes, int runs) {
  DeviceBuffer a(bytes), b(bytes);
  check(cudaMemset(a.p, 1, bytes), "cudaMemset");
  const SatTiming t = time_runs("device copy", 3, runs, [&] { cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice); });
  return 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
}

}  // namespace satlab::gpu
