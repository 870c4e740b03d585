// Single-pass compaction (ours): predicate, warp ballot and popc for ranks inside a tile, decoupled
// look-back across tiles, kept elements staged in shared memory and written contiguously
// (gpu/compact/single_pass.cuh; Merrill & Garland 2016). Bytes: reads n, writes the kept ones
// (+ 8 bytes of status per 4096 elements).
#include "gpu/compact/compact.hpp"
#include "gpu/compact/compact_common.cuh"
#include "gpu/compact/single_pass.cuh"

#include <vector>

namespace satlab::gpu::compact {
namespace {
template <int kBlock, int kItems, int kVec = 1, bool kStage = true, unsigned kPollNs = 0, int kMinBlocks = 1>
struct Impl {
  static size_t temp_bytes(size_t n) { return single_pass_temp_bytes<kBlock * kItems>(n); }
  static void run(const int32_t* in, AtLeast keep, int32_t* out, uint32_t* count, size_t n, void* temp,
                  cudaStream_t s) {
    single_pass_detail::launch<kBlock, kItems, kVec, kStage, kPollNs, kMinBlocks>(in, keep, out, count, n, temp, s);
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


// Tuning candidates (temporary; the losers are removed once their numbers are in docs/performance.md).
std::vector<Variant> single_pass_candidates() {
  const char* src = "Merrill & Garland 2016";
  return {
      make_compact_variant<Impl<256, 32, 4, true, 0, 4>>("cps_256x32_v4_stage_p0_b4", "256x32 vec4 staged", src),
      make_compact_variant<Impl<256, 32, 4, true, 1150, 4>>("cps_256x32_v4_stage_p1150_b4", "256x32 vec4 staged", src),
      make_compact_variant<Impl<256, 32, 4, true, 2500, 4>>("cps_256x32_v4_stage_p2500_b4", "256x32 vec4 staged", src),
      make_compact_variant<Impl<256, 32, 4, true, 1150, 3>>("cps_256x32_v4_stage_p1150_b3", "256x32 vec4 staged", src),
      make_compact_variant<Impl<256, 24, 4, true, 1150, 4>>("cps_256x24_v4_stage_p1150_b4", "256x24 vec4 staged", src),
      make_compact_variant<Impl<384, 16, 4, true, 1150, 3>>("cps_384x16_v4_stage_p1150_b3", "384x16 vec4 staged", src),
      make_compact_variant<Impl<512, 16, 4, true, 1150, 2>>("cps_512x16_v4_stage_p1150_b2", "512x16 vec4 staged", src),
      make_compact_variant<Impl<256, 32, 4, false, 1150, 4>>("cps_256x32_v4_direct_p1150_b4", "256x32 vec4 direct", src),
      make_compact_variant<Impl<128, 32, 4, false, 1150, 8>>("cps_128x32_v4_direct_p1150_b8", "128x32 vec4 direct", src),
  };
}

}  // namespace satlab::gpu::compact
