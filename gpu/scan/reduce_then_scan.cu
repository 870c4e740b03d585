// Reduce-then-scan: the first pass only reduces every tile to its total (reads n), the totals are
// scanned recursively, then every tile is read again and scanned from its prefix (reads n, writes n):
// 3n bytes instead of the scan-then-add scheme's 4n. 256 threads x 8 items, ShuffleBlockScan
// (Merrill & Grimshaw, "Parallel Scan for Stream Architectures", 2009).
#include "gpu/scan/device_scan.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {
struct Impl {
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    scan_1d<ShuffleBlockScan, 256, 8>(in, out, n, inclusive, Scheme::ReduceThenScan, s);
  }
};
}  // namespace

Variant reduce_then_scan_variant() {
  return make_scan_variant<Impl>("reduce_then_scan", "reduce-then-scan (3n bytes)",
                                 "Merrill & Grimshaw 2009");
}

}  // namespace satlab::gpu::scan
