// Hillis-Steele scan at device level: one element per thread, 512-thread tiles scanned by the
// double-buffered HillisSteeleBlockScan (log2 512 = 9 steps, O(n log n) adds), tile totals scanned
// recursively, tile prefixes added (seed 004_e8f3d016c5b30542.txt; Hillis & Steele 1986).
// Bytes: reads n, writes n, then reads and writes n again to add the prefixes (4n).
#include "gpu/scan/device_scan.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {
struct Impl {
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    scan_1d<HillisSteeleBlockScan, 512, 1>(in, out, n, inclusive, Scheme::ScanThenAdd, s);
  }
};
}  // namespace

Variant hillis_steele_variant() {
  return make_scan_variant<Impl>("hillis_steele", "Hillis-Steele (double-buffered), 3-phase",
                                 "seed 004; Hillis & Steele 1986");
}

}  // namespace satlab::gpu::scan
