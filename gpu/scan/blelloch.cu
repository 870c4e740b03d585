// Blelloch work-efficient scan at device level: one element per thread, 512-thread tiles; up-sweep
// builds partial sums in a balanced tree, down-sweep distributes them (O(n) adds, 2 log n barriers);
// tile totals scanned recursively, prefixes added. The padded form inserts one word every 32 so the
// tree's power-of-two strides do not pile onto one shared-memory bank (seed 004_e8f3d016c5b30542.txt;
// GPU Gems 3 ch. 39). Bytes: 4n (scan pass + add pass).
#include "gpu/scan/device_scan.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {
template <bool PADDED>
struct Impl {
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    if constexpr (PADDED) scan_1d<BlellochPaddedBlockScan, 512, 1>(in, out, n, inclusive, Scheme::ScanThenAdd, s);
    else scan_1d<BlellochUnpaddedBlockScan, 512, 1>(in, out, n, inclusive, Scheme::ScanThenAdd, s);
  }
};
}  // namespace

Variant blelloch_variant() {
  return make_scan_variant<Impl<false>>("blelloch", "Blelloch up/down-sweep, unpadded, 3-phase",
                                        "seed 004; GPU Gems 3 ch. 39");
}
Variant blelloch_padded_variant() {
  return make_scan_variant<Impl<true>>("blelloch_padded", "Blelloch up/down-sweep, bank-conflict padding, 3-phase",
                                       "seed 004; GPU Gems 3 ch. 39");
}

}  // namespace satlab::gpu::scan
