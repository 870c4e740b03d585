// Scan-based compaction, the textbook form (seed 004_e8f3d016c5b30542.txt, "Stream Compaction"):
//   1. flag: flags[i] = keep(in[i]) ? 1 : 0                        (reads n, writes n)
//   2. exclusive scan of the flags with the project's own look-back scan, looked up in the registry
//      by name (kScan): offsets[i] = where in[i] goes if kept      (reads n, writes n)
//   3. scatter: out[offsets[i]] = in[i] where kept; the last element also writes the count
//                                                                   (reads 2n, writes the kept ones)
// 6n words through memory where a single pass needs n: the lesson of the family.
#include <algorithm>

#include "gpu/compact/compact.hpp"
#include "gpu/compact/compact_common.cuh"
#include "gpu/device.hpp"
#include "gpu/registered_scan.hpp"

namespace satlab::gpu::compact {
namespace {

constexpr const char* kScan = "lookback_pipelined";
constexpr int kBlock = 256;

__global__ void __launch_bounds__(kBlock)
    flag(const int32_t* __restrict__ in, AtLeast keep, uint32_t* __restrict__ flags, size_t n) {
  for (size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x; i < n; i += size_t(gridDim.x) * kBlock)
    flags[i] = keep(in[i]) ? 1u : 0u;
}

__global__ void __launch_bounds__(kBlock)
    scatter(const int32_t* __restrict__ in, AtLeast keep, const uint32_t* __restrict__ offsets,
            int32_t* __restrict__ out, uint32_t* count, size_t n) {
  for (size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x; i < n; i += size_t(gridDim.x) * kBlock) {
    const int32_t x = in[i];
    const bool kept = keep(x);
    if (kept) out[offsets[i]] = x;
    if (i == n - 1) *count = offsets[i] + (kept ? 1u : 0u);
  }
}

const Variant& offset_scan() {
  static const Variant& v = registered_scan(kScan, "scan-based compaction");
  return v;
}

struct Impl {
  static size_t temp_bytes(size_t n) { return 2 * n * sizeof(uint32_t); }
  static void run(const int32_t* in, AtLeast keep, int32_t* out, uint32_t* count, size_t n, void* temp,
                  cudaStream_t s) {
    const std::string ctx = "scan-based compaction n=" + std::to_string(n);
    if (n == 0) {
      SATLAB_CUDA(cudaMemsetAsync(count, 0, sizeof(uint32_t), s), ctx);
      return;
    }
    auto* flags = static_cast<uint32_t*>(temp);
    uint32_t* offsets = flags + n;
    const unsigned grid =
        unsigned(std::min<size_t>((n + kBlock - 1) / kBlock, size_t(std::max(probe().sm_count, 1)) * 16));
    flag<<<grid, kBlock, 0, s>>>(in, keep, flags, n);
    SATLAB_LAUNCHED("compact flag", ctx);
    exclusive_scan_u32(offset_scan(), flags, offsets, n, s);
    scatter<<<grid, kBlock, 0, s>>>(in, keep, offsets, out, count, n);
    SATLAB_LAUNCHED("compact scatter", ctx);
  }
};

}  // namespace

Variant scan_based_variant() {
  return make_compact_variant<Impl>("compact_scan",
                                    std::string("flag, exclusive scan (") + kScan + "), scatter",
                                    "seed 004_e8f3d016c5b30542.txt");
}

}  // namespace satlab::gpu::compact
