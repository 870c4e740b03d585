// CUB DeviceScan: the library baseline (single-pass decoupled look-back). Bytes: reads n, writes n.
#include <cub/device/device_scan.cuh>

#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {
struct Impl {
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    const std::string ctx = "n=" + std::to_string(n);
    size_t bytes = 0;
    if (inclusive) SATLAB_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, s), ctx);
    else SATLAB_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, s), ctx);
    Scratch temp(bytes, s);
    if (inclusive) SATLAB_CUDA(cub::DeviceScan::InclusiveSum(temp.as<void>(), bytes, in, out, n, s), ctx);
    else SATLAB_CUDA(cub::DeviceScan::ExclusiveSum(temp.as<void>(), bytes, in, out, n, s), ctx);
  }
};
}  // namespace

Variant cub_device_scan_variant() {
  return make_scan_variant<Impl>("cub_scan", "CUB DeviceScan", "CUB (CCCL) DeviceScan");
}

}  // namespace satlab::gpu::scan
