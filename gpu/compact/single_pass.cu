// Single-pass compaction (ours): 16-byte loads, predicate, warp ballots and popc for ranks inside a tile,
// decoupled look-back across tiles, kept elements staged in shared memory while warp 0 looks back and
// written contiguously (gpu/compact/single_pass.cuh; Merrill & Garland 2016). Bytes: reads n, writes the
// kept ones (+ 8 bytes of status per 8192 elements).
#include "gpu/compact/compact.hpp"
#include "gpu/compact/compact_common.cuh"
#include "gpu/compact/single_pass.cuh"

namespace satlab::gpu::compact {
namespace {
struct Impl {
  static size_t temp_bytes(size_t n) { return single_pass_temp_bytes(n); }
  static void run(const int32_t* in, AtLeast keep, int32_t* out, uint32_t* count, size_t n, void* temp,
                  cudaStream_t s) {
    compact_single_pass(in, keep, out, count, n, temp, s);
  }
};
}  // namespace

Variant single_pass_variant() {
  return make_compact_variant<Impl>(
      "compact_single_pass",
      "single pass: 16-byte loads, ballots in warps, staged while warp 0 looks back, 256x32 (ours)",
      "Merrill & Garland 2016");
}

}  // namespace satlab::gpu::compact
