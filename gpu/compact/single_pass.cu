// Single-pass compaction (ours): predicate, warp ballot and popc for ranks inside a tile, decoupled
// look-back across tiles, kept elements staged in shared memory and written contiguously
// (gpu/compact/single_pass.cuh; Merrill & Garland 2016). Bytes: reads n, writes the kept ones
// (+ 8 bytes of status per 4096 elements).
#include "gpu/compact/compact.hpp"
#include "gpu/compact/compact_common.cuh"
#include "gpu/compact/single_pass.cuh"

namespace satlab::gpu::compact {
namespace {
template <int kBlock, int kItems>
struct Impl {
  static size_t temp_bytes(size_t n) { return single_pass_temp_bytes<kBlock * kItems>(n); }
  static void run(const int32_t* in, AtLeast keep, int32_t* out, uint32_t* count, size_t n, void* temp,
                  cudaStream_t s) {
    compact_single_pass<kBlock, kItems>(in, keep, out, count, n, temp, s);
  }
};
}  // namespace

Variant single_pass_variant() {
  return make_compact_variant<Impl<256, 16>>(
      "compact_single_pass", "single pass: ballot + popc in warps, decoupled look-back, 256x16 (ours)",
      "Merrill & Garland 2016");
}
Variant single_pass_256x32_variant() {
  return make_compact_variant<Impl<256, 32>>(
      "compact_single_pass_256x32", "single pass: ballot + popc in warps, decoupled look-back, 256x32 (ours)",
      "Merrill & Garland 2016");
}

}  // namespace satlab::gpu::compact
