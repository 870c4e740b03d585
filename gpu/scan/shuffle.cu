// Warp-shuffle scan at device level: 256 threads x 8 items; each thread scans its 8 items serially,
// the thread totals are scanned with __shfl_up_sync inside warps and once more across warp totals
// (ShuffleBlockScan); tile totals scanned recursively, prefixes added (seed 004 for the scan; the
// shuffle form replaces the seeds' warp-synchronous shared-memory code, a race since Volta).
// Bytes: 4n (scan pass + add pass).
#include "gpu/scan/device_scan.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {
struct Impl {
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    scan_1d<ShuffleBlockScan, 256, 8>(in, out, n, inclusive, Scheme::ScanThenAdd, s);
  }
};
}  // namespace

Variant shuffle_variant() {
  return make_scan_variant<Impl>("shuffle_scan", "warp shuffle + serial 8 items/thread, 3-phase",
                                 "seed 004; CUDA samples shfl_scan");
}

}  // namespace satlab::gpu::scan
