// CUB BlockScan inside our device-level driver: 256 threads x 8 items, cub::BlockScan with the RAKING
// or the WARP_SCANS algorithm as the block layer; tile totals scanned recursively, prefixes added.
// Shows what the library's block layer gains over ours with the device layer held fixed.
// Bytes: 4n (scan pass + add pass).
#include "gpu/scan/device_scan.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {
template <bool RAKING>
struct Impl {
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    if constexpr (RAKING) scan_1d<CubRakingBlockScan, 256, 8>(in, out, n, inclusive, Scheme::ScanThenAdd, s);
    else scan_1d<CubWarpScansBlockScan, 256, 8>(in, out, n, inclusive, Scheme::ScanThenAdd, s);
  }
};
}  // namespace

Variant cub_raking_variant() {
  return make_scan_variant<Impl<true>>("cub_raking", "CUB BlockScan RAKING, 3-phase", "CUB (CCCL) BlockScan");
}
Variant cub_warp_scans_variant() {
  return make_scan_variant<Impl<false>>("cub_warp_scans", "CUB BlockScan WARP_SCANS, 3-phase",
                                        "CUB (CCCL) BlockScan");
}

}  // namespace satlab::gpu::scan
