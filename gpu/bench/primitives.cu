#include "gpu/bench/primitives.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "gpu/check.hpp"
#include "gpu/device.hpp"
#include "gpu/verify.hpp"

namespace satlab::gpu {
namespace {

struct Buffer {
  void* p = nullptr;
  explicit Buffer(size_t bytes) { SATLAB_CUDA(cudaMalloc(&p, bytes ? bytes : 1), std::to_string(bytes) + " bytes"); }
  ~Buffer() { cudaFree(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

struct Events {
  cudaEvent_t a, b;
  Events() {
    SATLAB_CUDA(cudaEventCreate(&a), "bench events");
    SATLAB_CUDA(cudaEventCreate(&b), "bench events");
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Times `work(i)` (i: run index, for rotating inputs): warm-up, then one event pair per run.
template <typename Work>
double time_median_ms(int warmup, int runs, Work work) {
  Events ev;
  for (int i = 0; i < warmup; ++i) work(i);
  SATLAB_CUDA(cudaDeviceSynchronize(), "bench warm-up");
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    SATLAB_CUDA(cudaEventRecord(ev.a), "bench");
    work(warmup + i);
    SATLAB_CUDA(cudaEventRecord(ev.b), "bench");
    SATLAB_CUDA(cudaEventSynchronize(ev.b), "bench");
    float t = 0;
    SATLAB_CUDA(cudaEventElapsedTime(&t, ev.a, ev.b), "bench");
    ms.push_back(t);
  }
  return median(ms);
}

// Read-only bandwidth: 16-byte loads over a grid stride, one word written per block.
__global__ void read_kernel(const int4* __restrict__ in, size_t n4, int* out) {
  int s = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
    const int4 v = in[i];
    s ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x7fffffff) out[blockIdx.x] = s;  // practically never: keeps the loads alive
}

// Compactions and sorts: inputs rotated like the others, the variant's scratch allocated once before its
// runs (outside the timed loop), outputs poisoned before the checked run.
std::vector<PrimitiveResult> bench_compact_sort(const PrimitiveBenchOptions& o,
                                                const std::function<void(const PrimitiveResult&)>& on_result) {
  const bool sort = o.family == Family::Sort;
  const DType t = sort ? DType::U32 : DType::I32;
  if (o.dtype != t) throw Error(std::string(to_string(o.family)) + " takes " + to_string(t) + " elements");
  const size_t n = o.n, bytes = n * 4;
  const int k = input_copies(sort ? 2 * bytes : bytes);
  std::vector<uint32_t> host = sort ? sort_keys(n, KeyPattern::Random, 0x5A71AB + n) : random_input(n, t, 0x5A71AB + n);
  std::vector<uint32_t> host_values(sort ? n : 0);
  for (size_t i = 0; i < host_values.size(); ++i) host_values[i] = uint32_t(i);
  std::vector<std::unique_ptr<Buffer>> in, values;
  for (int i = 0; i < k; ++i) {
    in.push_back(std::make_unique<Buffer>(bytes));
    SATLAB_CUDA(cudaMemcpy(in.back()->p, host.data(), bytes, cudaMemcpyHostToDevice), "bench input");
    if (!sort) continue;
    values.push_back(std::make_unique<Buffer>(bytes));
    SATLAB_CUDA(cudaMemcpy(values.back()->p, host_values.data(), bytes, cudaMemcpyHostToDevice), "bench input");
  }
  Buffer out(bytes), out_values(sort ? bytes : 4);
  std::vector<uint32_t> result(n), result_values(sort ? n : 0);
  std::vector<PrimitiveResult> rows;
  for (const Variant& v : variants()) {
    if (v.family != o.family) continue;
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), v.name) == o.only.end()) continue;
    PrimitiveResult r;
    r.family = to_string(v.family), r.variant = v.name, r.label = v.label, r.dtype = to_string(t), r.n = n;
    r.bytes = v.bytes(n, t);
    r.note = v.refuses(n, t);
    if (r.note.empty()) {
      Buffer temp(v.temp_bytes(n, t));
      auto launch = [&](int i) {
        if (sort) {
          SortArgs a;
          a.keys_in = in[i % k]->p;
          a.values_in = values[i % k]->p;
          a.keys_out = out.p;
          a.values_out = out_values.p;
          a.n = n;
          a.temp = temp.p;
          v.sort(a);
        } else {
          CompactArgs a;
          a.in = in[i % k]->p;
          a.out = out.p;
          a.count = out_values.p;
          a.n = n;
          a.threshold = kBenchCompactThreshold;
          a.temp = temp.p;
          v.compact(a);
        }
      };
      SATLAB_CUDA(cudaMemset(out.p, 0xA5, bytes), "bench poison");
      SATLAB_CUDA(cudaMemset(out_values.p, 0xA5, sort ? bytes : 4), "bench poison");
      launch(0);
      SATLAB_CUDA(cudaDeviceSynchronize(), v.name);
      SATLAB_CUDA(cudaMemcpy(result.data(), out.p, bytes, cudaMemcpyDeviceToHost), v.name);
      if (sort) {
        SATLAB_CUDA(cudaMemcpy(result_values.data(), out_values.p, bytes, cudaMemcpyDeviceToHost), v.name);
        r.note = check_sort(host.data(), host_values.data(), n, result.data(), result_values.data());
      } else {
        uint32_t count = 0;
        SATLAB_CUDA(cudaMemcpy(&count, out_values.p, 4, cudaMemcpyDeviceToHost), v.name);
        r.note = check_compact(reinterpret_cast<const int32_t*>(host.data()), n, kBenchCompactThreshold,
                               reinterpret_cast<const int32_t*>(result.data()), count);
        r.bytes += 4.0 * double(std::min<size_t>(count, n)) + 4;
      }
      r.correct = r.note.empty();
      r.median_ms = time_median_ms(o.warmup, o.runs, launch);
      r.gbps = r.median_ms > 0 ? r.bytes / (r.median_ms * 1e6) : 0;
    }
    if (on_result) on_result(r);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

Bandwidth measure_bandwidth(size_t bytes, int runs) {
  if (!probe().available) throw Error("bandwidth needs a CUDA device: " + probe().reason);
  bytes = bytes / 16 * 16;
  const int k = input_copies(bytes);
  std::vector<std::unique_ptr<Buffer>> in;
  for (int i = 0; i < k; ++i) {
    in.push_back(std::make_unique<Buffer>(bytes));
    SATLAB_CUDA(cudaMemset(in.back()->p, i + 1, bytes), "bandwidth input");
  }
  Buffer out(bytes), sink(4096 * sizeof(int));
  Bandwidth b;
  const double copy_ms = time_median_ms(3, runs, [&](int i) {
    SATLAB_CUDA(cudaMemcpyAsync(out.p, in[i % k]->p, bytes, cudaMemcpyDeviceToDevice), "copy bandwidth");
  });
  b.copy_gbps = 2.0 * double(bytes) / (copy_ms * 1e6);
  const int grid = probe().sm_count * 8;
  const double read_ms = time_median_ms(3, runs, [&](int i) {
    read_kernel<<<grid, 256>>>(static_cast<const int4*>(in[i % k]->p), bytes / 16, static_cast<int*>(sink.p));
    SATLAB_LAUNCHED("read_kernel", std::to_string(bytes) + " bytes");
  });
  b.read_gbps = double(bytes) / (read_ms * 1e6);
  return b;
}

HostCopyBandwidth measure_host_copy(size_t bytes, int runs) {
  if (!probe().available) throw Error("host copy bandwidth needs a CUDA device: " + probe().reason);
  struct Pinned {
    void* p = nullptr;
    explicit Pinned(size_t n) { SATLAB_CUDA(cudaMallocHost(&p, n), std::to_string(n) + " pinned bytes"); }
    ~Pinned() { cudaFreeHost(p); }
  } up(bytes), down(bytes);
  std::memset(up.p, 1, bytes);
  std::memset(down.p, 0, bytes);
  Buffer a(bytes), b(bytes);
  struct Streams {
    cudaStream_t s[2] = {};
    Streams() {
      for (cudaStream_t& x : s) SATLAB_CUDA(cudaStreamCreate(&x), "copy streams");
    }
    ~Streams() {
      for (cudaStream_t x : s) cudaStreamDestroy(x);
    }
  } st;
  // The events on the legacy default stream wait for both (blocking) streams, which run side by side.
  HostCopyBandwidth c;
  const double h2d_ms = time_median_ms(2, runs, [&](int) {
    SATLAB_CUDA(cudaMemcpyAsync(a.p, up.p, bytes, cudaMemcpyHostToDevice, st.s[0]), "H2D copy");
  });
  const double d2h_ms = time_median_ms(2, runs, [&](int) {
    SATLAB_CUDA(cudaMemcpyAsync(down.p, b.p, bytes, cudaMemcpyDeviceToHost, st.s[1]), "D2H copy");
  });
  const double both_ms = time_median_ms(2, runs, [&](int) {
    SATLAB_CUDA(cudaMemcpyAsync(a.p, up.p, bytes, cudaMemcpyHostToDevice, st.s[0]), "H2D copy");
    SATLAB_CUDA(cudaMemcpyAsync(down.p, b.p, bytes, cudaMemcpyDeviceToHost, st.s[1]), "D2H copy");
  });
  c.h2d_gbps = double(bytes) / (h2d_ms * 1e6);
  c.d2h_gbps = double(bytes) / (d2h_ms * 1e6);
  c.duplex_gbps = 2.0 * double(bytes) / (both_ms * 1e6);
  return c;
}

std::vector<PrimitiveResult> bench_primitives(const PrimitiveBenchOptions& o,
                                              const std::function<void(const PrimitiveResult&)>& on_result) {
  if (!probe().available) throw Error("bench needs a CUDA device: " + probe().reason);
  if (o.family == Family::Sat) throw Error("bench_primitives runs reductions, scans, compactions and sorts (SATs: satlab bench sat)");
  if (o.family == Family::Compact || o.family == Family::Sort) return bench_compact_sort(o, on_result);
  const size_t n = o.n, es = dtype_size(o.dtype), bytes = n * es;
  const int k = input_copies(bytes);
  // Inputs: k copies of one random array (so one reference serves all), outputs: one buffer.
  const std::vector<uint32_t> host = random_input(n, o.dtype, 0x5A71AB + n);
  std::vector<std::unique_ptr<Buffer>> in;
  for (int i = 0; i < k; ++i) {
    in.push_back(std::make_unique<Buffer>(bytes));
    SATLAB_CUDA(cudaMemcpy(in.back()->p, host.data(), bytes, cudaMemcpyHostToDevice), "bench input");
  }
  Buffer out(o.family == Family::Scan ? bytes : 16);
  std::vector<uint32_t> result(o.family == Family::Scan ? std::max<size_t>(n, 1) : 4);
  std::vector<PrimitiveResult> rows;
  for (const Variant& v : variants()) {
    if (v.family != o.family) continue;
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), v.name) == o.only.end()) continue;
    PrimitiveResult r;
    r.family = to_string(v.family), r.variant = v.name, r.label = v.label, r.dtype = to_string(o.dtype), r.n = n;
    r.bytes = v.bytes ? v.bytes(n, o.dtype) : double(bytes);
    const bool takes = std::find(v.dtypes.begin(), v.dtypes.end(), o.dtype) != v.dtypes.end();
    r.note = !takes ? std::string("no ") + to_string(o.dtype) : v.refuses ? v.refuses(n, o.dtype) : "";
    if (r.note.empty()) {
      auto launch = [&](int i) {
        if (v.reduce) {
          ReduceArgs a;
          a.in = in[i % k]->p;
          a.out = out.p;
          a.n = n;
          a.dtype = o.dtype;
          v.reduce(a);
        } else {
          ScanArgs a;
          a.in = in[i % k]->p;
          a.out = out.p;
          a.n = n;
          a.dtype = o.dtype;
          v.scan(a);
        }
      };
      // Correctness of the measured configuration, on a poisoned output.
      SATLAB_CUDA(cudaMemset(out.p, 0xA5, o.family == Family::Scan ? bytes : 16), "bench poison");
      launch(0);
      SATLAB_CUDA(cudaDeviceSynchronize(), v.name);
      SATLAB_CUDA(cudaMemcpy(result.data(), out.p, o.family == Family::Scan ? bytes : es, cudaMemcpyDeviceToHost),
                  v.name);
      r.note = v.reduce ? check_reduce(host.data(), n, o.dtype, ReduceOp::Sum, result.data())
                        : check_scan(host.data(), n, o.dtype, true, result.data());
      r.correct = r.note.empty();
      r.median_ms = time_median_ms(o.warmup, o.runs, launch);
      r.gbps = r.median_ms > 0 ? r.bytes / (r.median_ms * 1e6) : 0;
    }
    if (on_result) on_result(r);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace satlab::gpu
