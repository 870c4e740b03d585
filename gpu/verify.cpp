#include "gpu/verify.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <utility>

#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "gpu/check.hpp"
#include "gpu/device.hpp"
#include "gpu/host_timing.hpp"
#include "gpu/refine/refine_gpu.hpp"
#include "gpu/sat/sat_host.hpp"
#include "gpu/select/select_gpu.hpp"
#include "gpu/temporal/temporal_gpu.hpp"

namespace satlab::gpu {
namespace {

void require(const Variant& v, size_t n, DType t) {
  if (!probe().available) throw Error(probe().reason);
  const std::string why = v.refuses ? v.refuses(n, t) : "";
  if (!why.empty()) throw Error(v.name + " refuses n=" + std::to_string(n) + " " + to_string(t) + ": " + why);
}

std::string ctx(const Variant& v, size_t n, DType t) { return v.name + " n=" + std::to_string(n) + " " + to_string(t); }

}  // namespace

void run_reduce(const Variant& v, const void* in, size_t n, DType t, ReduceOp op, void* result,
                size_t offset) {
  require(v, n, t);
  if (!v.reduce) throw Error(v.name + " is not a reduction");
  const size_t es = dtype_size(t);
  DeviceBuffer din((n + offset) * es), dout(es);
  char* d_in = static_cast<char*>(din.p) + offset * es;
  SATLAB_CUDA(cudaMemcpy(d_in, in, n * es, cudaMemcpyHostToDevice), ctx(v, n, t));
  SATLAB_CUDA(cudaMemset(dout.p, 0xA5, es), ctx(v, n, t));
  ReduceArgs a;
  a.in = d_in;
  a.out = dout.p;
  a.n = n;
  a.dtype = t;
  a.op = op;
  v.reduce(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), ctx(v, n, t));
  SATLAB_CUDA(cudaMemcpy(result, dout.p, es, cudaMemcpyDeviceToHost), ctx(v, n, t));
}

void run_scan(const Variant& v, const void* in, size_t n, DType t, bool inclusive, void* out, size_t offset) {
  require(v, n, t);
  if (!v.scan) throw Error(v.name + " is not a scan");
  const size_t es = dtype_size(t);
  DeviceBuffer din((n + offset) * es), dout((n + offset) * es);
  char* d_in = static_cast<char*>(din.p) + offset * es;
  char* d_out = static_cast<char*>(dout.p) + offset * es;
  SATLAB_CUDA(cudaMemcpy(d_in, in, n * es, cudaMemcpyHostToDevice), ctx(v, n, t));
  SATLAB_CUDA(cudaMemset(dout.p, 0xA5, (n + offset) * es), ctx(v, n, t));
  ScanArgs a;
  a.in = d_in;
  a.out = d_out;
  a.n = n;
  a.dtype = t;
  a.inclusive = inclusive;
  v.scan(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), ctx(v, n, t));
  SATLAB_CUDA(cudaMemcpy(out, d_out, n * es, cudaMemcpyDeviceToHost), ctx(v, n, t));
}

uint32_t run_compact(const Variant& v, const int32_t* in, size_t n, int32_t threshold, int32_t* out) {
  require(v, n, DType::I32);
  if (!v.compact) throw Error(v.name + " is not a compaction");
  const std::string c = ctx(v, n, DType::I32);
  DeviceBuffer din(n * 4), dout(n * 4), dcount(4), temp(v.temp_bytes(n, DType::I32));
  SATLAB_CUDA(cudaMemcpy(din.p, in, n * 4, cudaMemcpyHostToDevice), c);
  SATLAB_CUDA(cudaMemset(dout.p, 0xA5, n * 4), c);
  SATLAB_CUDA(cudaMemset(dcount.p, 0xA5, 4), c);
  CompactArgs a;
  a.in = din.p;
  a.out = dout.p;
  a.count = dcount.p;
  a.n = n;
  a.threshold = threshold;
  a.temp = temp.p;
  v.compact(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), c);
  uint32_t count = 0;
  SATLAB_CUDA(cudaMemcpy(&count, dcount.p, 4, cudaMemcpyDeviceToHost), c);
  SATLAB_CUDA(cudaMemcpy(out, dout.p, std::min<size_t>(count, n) * 4, cudaMemcpyDeviceToHost), c);
  return count;
}

void run_sort(const Variant& v, const uint32_t* keys, const uint32_t* values, size_t n, uint32_t* keys_out,
              uint32_t* values_out) {
  require(v, n, DType::U32);
  if (!v.sort) throw Error(v.name + " is not a sort");
  const std::string c = ctx(v, n, DType::U32);
  DeviceBuffer dk(n * 4), dv(n * 4), dko(n * 4), dvo(n * 4), temp(v.temp_bytes(n, DType::U32));
  SATLAB_CUDA(cudaMemcpy(dk.p, keys, n * 4, cudaMemcpyHostToDevice), c);
  SATLAB_CUDA(cudaMemcpy(dv.p, values, n * 4, cudaMemcpyHostToDevice), c);
  SATLAB_CUDA(cudaMemset(dko.p, 0xA5, n * 4), c);
  SATLAB_CUDA(cudaMemset(dvo.p, 0xA5, n * 4), c);
  SortArgs a;
  a.keys_in = dk.p;
  a.values_in = dv.p;
  a.keys_out = dko.p;
  a.values_out = dvo.p;
  a.n = n;
  a.temp = temp.p;
  v.sort(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), c);
  SATLAB_CUDA(cudaMemcpy(keys_out, dko.p, n * 4, cudaMemcpyDeviceToHost), c);
  SATLAB_CUDA(cudaMemcpy(values_out, dvo.p, n * 4, cudaMemcpyDeviceToHost), c);
}

std::vector<uint32_t> random_input(size_t n, DType t, uint64_t seed) {
  std::vector<uint32_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) {
    const uint64_t r = rng();
    if (t == DType::I32) {
      const int32_t i = int32_t(r % 2001) - 1000;
      std::memcpy(&x, &i, 4);
    } else if (t == DType::F32) {
      const float f = float(double(r >> 11) * 0x1p-53 * 2.0 - 1.0);
      std::memcpy(&x, &f, 4);
    } else {
      x = uint32_t(r >> 32);
    }
  }
  return v;
}

// Float tolerance: a float sum computed in any order differs from the exact sum by at most
// k * eps * sum|x| (eps = 2^-24, k the longest chain of dependent roundings). Our tree, shuffle and
// three-phase variants have k <= ~64 (16 serial items per thread, 5 warp and 5 block levels, three
// recursion levels, the prefix add), so k * eps < 4e-6 < 1e-5. The long serial chains (the naive
// atomic sum, the look-back walk across tiles) round partial sums of random-sign inputs, which stay
// near sqrt(n) in size, so their error is far below eps * sum|x| per step. Min/max are exact.
std::string check_reduce(const void* in, size_t n, DType t, ReduceOp op, const void* result) {
  char buf[200];
  if (t == DType::I32) {
    const auto* x = static_cast<const int32_t*>(in);
    int32_t want;
    if (op == ReduceOp::Sum) {
      want = int32_t(uint32_t(uint64_t(sum_reduce(x, n))));
    } else {
      want = op == ReduceOp::Min ? INT32_MAX : INT32_MIN;
      for (size_t i = 0; i < n; ++i) want = op == ReduceOp::Min ? std::min(want, x[i]) : std::max(want, x[i]);
    }
    int32_t got;
    std::memcpy(&got, result, 4);
    if (got == want) return "";
    std::snprintf(buf, sizeof buf, "%s: got %d, want %d", to_string(op), got, want);
    return buf;
  }
  const auto* x = static_cast<const float*>(in);
  float got;
  std::memcpy(&got, result, 4);
  if (op == ReduceOp::Sum) {
    double want = n ? sum_reduce(x, n) : 0.0, abs = 0;
    for (size_t i = 0; i < n; ++i) abs += std::fabs(x[i]);
    if (std::fabs(double(got) - want) <= kFloatSumRelTol * abs) return "";
    std::snprintf(buf, sizeof buf, "sum: got %.9g, want %.9g (tolerance %.3g)", got, want, kFloatSumRelTol * abs);
    return buf;
  }
  float want = op == ReduceOp::Min ? 3.402823466e38f : -3.402823466e38f;
  if (n) {
    const MinMax m = minmax_reduce(x, n);
    want = op == ReduceOp::Min ? m.min : m.max;
  }
  if (got == want) return "";
  std::snprintf(buf, sizeof buf, "%s: got %.9g, want %.9g", to_string(op), got, want);
  return buf;
}

std::string check_scan(const void* in, size_t n, DType t, bool inclusive, const void* out) {
  char buf[200];
  if (t == DType::I32 || t == DType::U32) {
    std::vector<uint32_t> want(n);
    const auto* x = static_cast<const uint32_t*>(in);
    if (inclusive) inclusive_scan(x, want.data(), n);
    else exclusive_scan(x, want.data(), n);
    const auto* got = static_cast<const uint32_t*>(out);
    for (size_t i = 0; i < n; ++i)
      if (got[i] != want[i]) {
        std::snprintf(buf, sizeof buf, "element %zu of %zu: got 0x%08x, want 0x%08x", i, n, got[i], want[i]);
        return buf;
      }
    return "";
  }
  const auto* x = static_cast<const float*>(in);
  const auto* got = static_cast<const float*>(out);
  double sum = 0, abs = 0;
  for (size_t i = 0; i < n; ++i) {
    if (inclusive) sum += x[i], abs += std::fabs(x[i]);
    const double err = std::fabs(double(got[i]) - sum);
    if (!(err <= kFloatSumRelTol * abs)) {  // NaN (an unwritten 0xA5A5A5A5 is -2.9e-16, caught too) fails
      std::snprintf(buf, sizeof buf, "element %zu of %zu: got %.9g, want %.9g", i, n, got[i], sum);
      return buf;
    }
    if (!inclusive) sum += x[i], abs += std::fabs(x[i]);
  }
  return "";
}

std::string check_compact(const int32_t* in, size_t n, int32_t threshold, const int32_t* out, uint32_t count) {
  std::vector<int32_t> want(n);
  const size_t k = compact_at_least(in, n, threshold, want.data());
  char buf[200];
  if (count != k) {
    std::snprintf(buf, sizeof buf, "count %u, want %zu of %zu", count, k, n);
    return buf;
  }
  for (size_t i = 0; i < k; ++i)
    if (out[i] != want[i]) {
      std::snprintf(buf, sizeof buf, "kept element %zu of %zu: got %d, want %d", i, k, out[i], want[i]);
      return buf;
    }
  return "";
}

std::string check_sort(const uint32_t* keys, const uint32_t* values, size_t n, const uint32_t* keys_out,
                       const uint32_t* values_out) {
  std::vector<uint32_t> wk(n), wv(n);
  sort_pairs(keys, values, n, wk.data(), wv.data());
  char buf[200];
  for (size_t i = 0; i < n; ++i)
    if (keys_out[i] != wk[i] || values_out[i] != wv[i]) {
      std::snprintf(buf, sizeof buf, "pair %zu of %zu: got (0x%08x, %u), want (0x%08x, %u)", i, n, keys_out[i],
                    values_out[i], wk[i], wv[i]);
      return buf;
    }
  return "";
}

const char* to_string(KeyPattern p) {
  switch (p) {
    case KeyPattern::Random: return "random";
    case KeyPattern::AllEqual: return "all-equal";
    case KeyPattern::Sorted: return "sorted";
    case KeyPattern::Reversed: return "reversed";
    case KeyPattern::FewDistinct: return "few-distinct";
  }
  return "?";
}

std::vector<uint32_t> sort_keys(size_t n, KeyPattern p, uint64_t seed) {
  std::vector<uint32_t> k(n);
  std::mt19937_64 rng(seed);
  const uint32_t equal = uint32_t(rng() >> 32);
  for (size_t i = 0; i < n; ++i) {
    switch (p) {
      case KeyPattern::Random: k[i] = uint32_t(rng() >> 32); break;
      case KeyPattern::AllEqual: k[i] = equal; break;
      // Sorted and reversed over the full range (every digit of every pass varies), with repeats.
      case KeyPattern::Sorted: k[i] = uint32_t(uint64_t(i) * 0xFFFFFFFFull / std::max<size_t>(n, 1)); break;
      case KeyPattern::Reversed: k[i] = ~uint32_t(uint64_t(i) * 0xFFFFFFFFull / std::max<size_t>(n, 1)); break;
      case KeyPattern::FewDistinct: k[i] = uint32_t(rng() % 16) * 0x11111111u; break;
    }
  }
  return k;
}

// The first difference between the GPU's and the CPU's result (and CoC map) of one DoF frame, or "".
std::string check_dof(const ImageRGBA8& gpu_out, const ImageRGBA8& cpu_out, const ImageF& gpu_coc,
                      const ImageF& cpu_coc) {
  if (gpu_out.width != cpu_out.width || gpu_out.height != cpu_out.height)
    return "result " + std::to_string(gpu_out.width) + "x" + std::to_string(gpu_out.height) + ", CPU's " +
           std::to_string(cpu_out.width) + "x" + std::to_string(cpu_out.height);
  if (gpu_coc.data.size() != cpu_coc.data.size() ||
      std::memcmp(gpu_coc.data.data(), cpu_coc.data.data(), gpu_coc.data.size() * sizeof(float)) != 0)
    return "CoC map differs";
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < gpu_out.data.size(); ++i)
    if (gpu_out.data[i] != cpu_out.data[i] && bad++ == 0) first = i;
  if (!bad) return "";
  const size_t px = first / 4;
  return std::to_string(bad) + " bytes differ, first at (" + std::to_string(px % size_t(gpu_out.width)) +
         ", " + std::to_string(px / size_t(gpu_out.width)) + ") channel " + std::to_string(first % 4) + ": " +
         std::to_string(gpu_out.data[first]) + ", CPU " + std::to_string(cpu_out.data[first]);
}

namespace {

// A SAT builder on awkward image sizes (1x1, single rows and columns, primes, non-multiples of every tile,
// a random size) of each type it takes: random 8-bit (and one all-255 image: the largest values), random
// RGBA16 (and one all-0xFFFF image), float
// with 1, 2 and 4 channels; outputs poisoned (run_sat_*), compared by check_sat.
void verify_sat(const Variant& v, std::mt19937_64& rng, VerifyLine& line) {
  struct Size {
    int w, h;
  };
  std::vector<Size> sizes = {{1, 1}, {1, 777}, {1013, 1}, {2, 3}, {31, 29}, {127, 257}, {509, 263}, {4097, 3}, {3, 2049}};
  sizes.push_back({int(1 + rng() % 1500), int(1 + rng() % 1500)});
  auto fail = [&](const Size& s, const std::string& what, const std::string& d) {
    if (d.empty() || !line.ok) return;
    line.ok = false;
    line.detail = std::to_string(s.w) + "x" + std::to_string(s.h) + " " + what + ": " + d;
  };
  for (const DType t : v.dtypes) {
    for (const Size& s : sizes) {
      const size_t px = size_t(s.w) * size_t(s.h);
      if (const std::string why = v.refuses ? v.refuses(px, t) : ""; !why.empty()) {
        line.refused = why;
        continue;
      }
      if (t == DType::F32) {
        for (int ch : {1, 2, 4}) {
          std::vector<float> in(px * size_t(ch));
          for (auto& f : in) f = float(double(rng() >> 11) * 0x1p-53);
          const auto got = run_sat_f32(v, in.data(), s.w, s.h, ch);
          ++line.cases;
          fail(s, "f32 x" + std::to_string(ch), check_sat(t, ch, s.w, s.h, in.data(), got.data()));
        }
      } else if (t == DType::RGBA16) {
        for (bool white : {false, true}) {  // all-0xFFFF: the largest values
          if (white && s.w * s.h < 1000) continue;
          std::vector<uint16_t> in(px * 4, 0xFFFF);
          if (!white)
            for (auto& e : in) e = uint16_t(rng());
          const auto got = run_sat_u16(v, in.data(), s.w, s.h);
          ++line.cases;
          fail(s, std::string("rgba16") + (white ? " all-0xFFFF" : ""),
               check_sat(t, 4, s.w, s.h, in.data(), got.data()));
        }
      } else {
        const int ch = t == DType::RGBA8 ? 4 : 1;
        for (bool white : {false, true}) {
          if (white && s.w * s.h < 1000) continue;
          std::vector<uint8_t> in(px * size_t(ch), 255);
          if (!white)
            for (auto& b : in) b = uint8_t(rng());
          const auto got = run_sat_u32(v, in.data(), s.w, s.h, ch);
          ++line.cases;
          fail(s, std::string(to_string(t)) + (white ? " all-255" : ""), check_sat(t, ch, s.w, s.h, in.data(), got.data()));
        }
      }
    }
  }
}

// A compaction at each size with thresholds keeping about 10% (the bench's rate), half, all and none of
// the int32 inputs in [-1000, 1000].
void verify_compact(const Variant& v, const std::vector<size_t>& sizes, std::mt19937_64& rng, VerifyLine& line) {
  for (size_t n : sizes) {
    if (const std::string why = v.refuses(n, DType::I32); !why.empty()) {
      line.refused = why;
      continue;
    }
    const auto bits = random_input(n, DType::I32, rng());
    std::vector<int32_t> in(n), out(n);
    if (n) std::memcpy(in.data(), bits.data(), n * 4);
    for (int32_t threshold : {800, 0, INT32_MIN, INT32_MAX}) {
      const uint32_t count = run_compact(v, in.data(), n, threshold, out.data());
      ++line.cases;
      const std::string d = check_compact(in.data(), n, threshold, out.data(), count);
      if (!d.empty() && line.ok) {
        line.ok = false;
        line.detail = "n=" + std::to_string(n) + " threshold " + std::to_string(threshold) + ": " + d;
      }
    }
  }
}

// A sort at each size of every key pattern, values 0..n-1.
void verify_sort(const Variant& v, const std::vector<size_t>& sizes, std::mt19937_64& rng, VerifyLine& line) {
  for (size_t n : sizes) {
    if (const std::string why = v.refuses(n, DType::U32); !why.empty()) {
      line.refused = why;
      continue;
    }
    std::vector<uint32_t> values(n), keys_out(n), values_out(n);
    for (size_t i = 0; i < n; ++i) values[i] = uint32_t(i);
    for (KeyPattern p : {KeyPattern::Random, KeyPattern::AllEqual, KeyPattern::Sorted, KeyPattern::Reversed,
                         KeyPattern::FewDistinct}) {
      const auto keys = sort_keys(n, p, rng());
      run_sort(v, keys.data(), values.data(), n, keys_out.data(), values_out.data());
      ++line.cases;
      const std::string d = check_sort(keys.data(), values.data(), n, keys_out.data(), values_out.data());
      if (!d.empty() && line.ok) {
        line.ok = false;
        line.detail = "n=" + std::to_string(n) + " " + to_string(p) + ": " + d;
      }
    }
  }
}

// A DoF mode through the GPU pipeline against the CPU pipeline, bit for bit (result and CoC map): awkward
// sizes (1x1, single rows and columns, primes, a random size), each with a random image over blocky
// random depth, an all-255 image with NaN depth holes, flat depth, a near disc over a far plane and large
// CoCs of both signs along the frame's edges; every aperture shape, blade counts and rotations, 2 to 8
// layers, the SAT builders in turn, the camera response on and off. The GPU's result is poisoned before
// each run, and the pipeline first runs on other depth, so a stale or skipped pixel shows.
void verify_dof(const Variant& v, Pipeline& gpu_pipe, Pipeline& cpu_pipe, std::mt19937_64& rng,
                VerifyLine& line) {
  struct Size {
    int w, h;
    float max_radius;
  };
  std::vector<Size> sizes = {{1, 1, 5.f},     {1, 61, 9.f},     {67, 1, 9.f},    {2, 3, 4.f},
                             {97, 89, 17.5f}, {263, 131, 40.f}, {509, 257, 25.f}};
  sizes.push_back({int(1 + rng() % 700), int(1 + rng() % 500), float(2 + rng() % 60)});
  std::vector<std::string> builders;
  for (const std::string& b : gpu_pipe.sat_builders())
    if (b.rfind("sat_", 0) == 0) builders.push_back(b);  // the project's own builders (not NPP's)
  if (builders.empty()) builders.push_back(gpu_pipe.algorithms().sat_builder);
  const DofMode* mode = find_dof_mode(v.name);
  if (!mode) throw Error("verify: " + v.name + " is registered in family dof but is not a DoF mode");
  std::uniform_real_distribution<float> u(0.f, 1.f);
  int k = 0;
  for (const Size& s : sizes) {
    for (int input = 0; input < 5; ++input) {
      ImageRGBA8 img(s.w, s.h);
      for (auto& b : img.data) b = input == 1 ? 255 : uint8_t(rng());
      ImageF depth(s.w, s.h, 1), other(s.w, s.h, 1);
      const float cx = 0.6f * float(s.w), cy = 0.4f * float(s.h), rr = 0.2f * float(std::min(s.w, s.h)) + 1.f;
      for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
          const float dx = float(x) - cx, dy = float(y) - cy;
          const float edge = float(std::min(std::min(x, s.w - 1 - x), std::min(y, s.h - 1 - y)));
          depth.at(x, y) = input == 2   ? 0.25f
                           : input == 3 ? (dx * dx + dy * dy < rr * rr ? 0.05f : 1.f)
                           : input == 4 ? (edge < s.max_radius ? (u(rng) < 0.5f ? 0.02f : 1.f) : 0.4f)
                                        : float((x / 7 + y / 5) % 4) + 0.5f * u(rng);
          other.at(x, y) = float((x / 11 + y / 3) % 5) + 0.3f * u(rng);
        }
      if (input == 1)
        for (size_t i = 0; i < depth.data.size(); i += 5) depth.data[i] = std::nanf("");
      Params p = dof_sweep_params(v.name, k, s.max_radius);
      p.response_shoulder = k % 2 ? 0.4f : 0.f;
      gpu_pipe.set_algorithms({builders[size_t(k) % builders.size()], ""});
      ++k;
      for (Pipeline* pipe : {&gpu_pipe, &cpu_pipe}) {
        pipe->set_image(img);
        pipe->set_depth(depth);
        pipe->set_params(p);
      }
      gpu_pipe.set_depth(other);
      gpu_pipe.run();
      gpu_pipe.set_depth(depth);
      void* stream = nullptr;
      void* out = const_cast<void*>(gpu_pipe.device_result(&stream));
      if (!out) throw Error("verify " + v.name + ": the GPU pipeline has no device result to poison");
      SATLAB_CUDA(cudaStreamSynchronize(cudaStream_t(stream)), "verify " + v.name);
      SATLAB_CUDA(cudaMemsetAsync(out, 0xAB, img.data.size(), cudaStream_t(stream)),
                  "verify " + v.name);  // ordered before the run
      gpu_pipe.run();
      cpu_pipe.run();
      ++line.cases;
      const std::string d = check_dof(gpu_pipe.result(), cpu_pipe.result(), gpu_pipe.coc(), cpu_pipe.coc());
      if (!d.empty() && line.ok) {
        line.ok = false;
        line.detail = std::to_string(s.w) + "x" + std::to_string(s.h) + " input " + std::to_string(input) +
                      " " + to_string(p.aperture_shape) + " layers " + std::to_string(p.dof_layers) + ": " +
                      d;
      }
    }
  }
}

// A refiner against core's reference on refine_cases (awkward sizes, depth at 1/1..1/8, 2/3 and 3/2 of the
// image, NaN holes, all-255 images, flat depth, no depth, with and without confidence; outputs poisoned):
// bit for bit, guided within core's bound; the sample-based ones first check the GPU's weight arithmetic.
void verify_refine(const Variant& v, std::mt19937_64& rng, VerifyLine& line) {
  auto fail = [&](const std::string& what, const std::string& d) {
    if (d.empty() || !line.ok) return;
    line.ok = false;
    line.detail = what + ": " + d;
  };
  if (v.name == "wmedian" || v.name == "jbu" || v.name == "snap") {
    ++line.cases;
    fail("weights", check_refine_weights());
  }
  std::string note;
  for (const RefineCase& c : refine_cases(rng())) {
    std::string n;
    ++line.cases;
    fail(c.what, check_refine(v.name, c.input(), &n));
    if (!n.empty()) note = "last case: " + n;  // guided: its worst difference and its bound
  }
  if (line.ok && !note.empty()) line.detail = note;
}

// The selector on odd sizes and working scales, random blocky images with a disc, with subject and
// background clicks (check_select: the label bit for bit, the matte within the guided filter's bound).
void verify_select(const Variant& v, std::mt19937_64& rng, VerifyLine& line) {
  std::string note;
  const int sizes[][3] = {{1, 1, 1024}, {1, 61, 1024}, {67, 1, 1024}, {127, 131, 1024}, {641, 479, 160}};
  for (const auto& sz : sizes) {
    const int W = sz[0] + int(rng() % 3), H = sz[1] + int(rng() % 3);
    ImageRGBA8 img(W, H);
    const uint64_t seed = rng();
    std::mt19937_64 r(seed);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const float dx = float(x) - 0.5f * float(W), dy = float(y) - 0.5f * float(H);
        const bool disc = dx * dx + dy * dy < 0.06f * float(W) * float(H);
        for (int c = 0; c < 3; ++c)
          img.px(x, y)[c] = uint8_t(disc ? 200 - int(r() % 24) : 60 * ((x / 5 + y / 3 + c) % 3) + int(r() % 24));
        img.px(x, y)[3] = 255;
      }
    SelectParams p;
    p.work_side = sz[2];
    for (bool with_background : {false, true}) {
      std::vector<SelectClick> clicks = {{0.5f * float(W), 0.5f * float(H), false}};
      if (with_background) clicks.push_back({0.f, float(H - 1), true});
      ++line.cases;
      const std::string d = check_select(img, clicks, p, &note);
      if (!d.empty() && line.ok) {
        line.ok = false;
        line.detail = v.name + " " + std::to_string(W) + "x" + std::to_string(H) + ": " + d;
      }
    }
  }
  if (line.ok) line.detail = "last case: " + note;
}

void verify_temporal(const Variant& v, std::mt19937_64& rng, VerifyLine& line) {
  const int sizes[][2] = {{1, 1}, {1, 37}, {53, 1}, {127, 131}, {641, 479}};
  for (const auto& sz : sizes) {
    const int W = sz[0] + int(rng() % 3), H = sz[1] + int(rng() % 3);
    ++line.cases;
    const std::string d = check_temporal(W, H, 6, rng());
    if (!d.empty() && line.ok) line.ok = false, line.detail = v.name + " " + std::to_string(W) + "x" + std::to_string(H) + ": " + d;
  }
  if (line.ok) line.detail = "6 frames each, bit for bit";
}

}  // namespace

std::vector<VerifyLine> verify_variants(uint64_t seed, const std::function<void(const VerifyLine&)>& on_line,
                                        const std::vector<Family>& families) {
  if (!probe().available) throw Error("verify needs a CUDA device: " + probe().reason);
  std::mt19937_64 rng(seed);
  auto awkward = [&] {
    std::vector<size_t> s = {0, 1, 31, 33};
    for (size_t base : {size_t(256), size_t(512), size_t(1024), size_t(4096), size_t(2048 * 512), size_t(1) << 22})
      s.push_back(base + rng() % 7 - 3);  // around block, tile and recursion boundaries
    s.push_back(1000 + rng() % 100000);
    s.push_back((size_t(1) << 24) + rng() % 100000);  // millions: three levels of tile sums
    return s;
  };
  std::vector<VerifyLine> lines;
  // A variant no case reached was not checked: skipped with its reason if it refused every input (an
  // optional baseline whose library is missing), else it fails rather than reads "ok".
  const auto finish = [&](VerifyLine& line) {
    if (line.cases == 0 && line.ok) {
      if (!line.refused.empty())
        line.skipped = true, line.detail = "not run: it refused every input (" + line.refused + ")";
      else
        line.ok = false, line.detail = "no case was run: nothing checked";
    }
    on_line(line);
    lines.push_back(line);
  };
  std::pair<std::unique_ptr<Pipeline>, std::unique_ptr<Pipeline>> dof_pipes;  // made on the first DoF mode
  for (const Variant& v : variants()) {
    if (!families.empty() && std::find(families.begin(), families.end(), v.family) == families.end()) continue;
    VerifyLine line{v.name, to_string(v.family), true, 0, "", "", false};
    if (v.family == Family::Sat || v.family == Family::Compact || v.family == Family::Sort ||
        v.family == Family::Dof || v.family == Family::Refine || v.family == Family::Select ||
        v.family == Family::Temporal) {
      if (v.family == Family::Sat) verify_sat(v, rng, line);
      else if (v.family == Family::Select) verify_select(v, rng, line);
      else if (v.family == Family::Temporal) verify_temporal(v, rng, line);
      else if (v.family == Family::Refine) verify_refine(v, rng, line);
      else if (v.family == Family::Compact) verify_compact(v, awkward(), rng, line);
      else if (v.family == Family::Sort)
        verify_sort(v, awkward(), rng, line);
      else {
        if (!dof_pipes.first) dof_pipes = {make_pipeline(), make_cpu_pipeline()};
        verify_dof(v, *dof_pipes.first, *dof_pipes.second, rng, line);
      }
      finish(line);
      continue;
    }
    for (size_t n : awkward()) {
      for (DType t : v.dtypes) {
        const std::string why = v.refuses ? v.refuses(n, t) : "";
        if (!why.empty()) {
          line.refused = why;
          continue;
        }
        const auto in = random_input(n, t, rng());
        std::vector<uint32_t> out(std::max<size_t>(n, 1));
        std::vector<std::string> fails;
        if (v.reduce) {
          for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max}) {
            run_reduce(v, in.data(), n, t, op, out.data());
            ++line.cases;
            const std::string d = check_reduce(in.data(), n, t, op, out.data());
            if (!d.empty()) fails.push_back(d);
          }
        } else if (v.scan) {
          for (bool inclusive : {true, false}) {
            run_scan(v, in.data(), n, t, inclusive, out.data());
            ++line.cases;
            const std::string d = check_scan(in.data(), n, t, inclusive, out.data());
            if (!d.empty()) fails.push_back(std::string(inclusive ? "inclusive " : "exclusive ") + d);
          }
        }
        if (!fails.empty() && line.ok) {
          line.ok = false;
          line.detail = "n=" + std::to_string(n) + " " + to_string(t) + ": " + fails.front();
        }
      }
    }
    finish(line);
  }
  return lines;
}

}  // namespace satlab::gpu
