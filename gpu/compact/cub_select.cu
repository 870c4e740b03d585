// CUB DeviceSelect::If: the library baseline (single pass, decoupled look-back). Bytes: reads n, writes
// the kept ones.
#include <cub/device/device_select.cuh>

#include "gpu/compact/compact.hpp"
#include "gpu/compact/compact_common.cuh"

namespace satlab::gpu::compact {
namespace {
struct Impl {
  static size_t temp_bytes(size_t n) {
    size_t bytes = 0;
    SATLAB_CUDA(cub::DeviceSelect::If(nullptr, bytes, static_cast<const int32_t*>(nullptr),
                                      static_cast<int32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n),
                                      AtLeast{0}),
                "cub select query n=" + std::to_string(n));
    return bytes;
  }
  static void run(const int32_t* in, AtLeast keep, int32_t* out, uint32_t* count, size_t n, void* temp,
                  cudaStream_t s) {
    if (n == 0) {
      SATLAB_CUDA(cudaMemsetAsync(count, 0, sizeof(uint32_t), s), "cub select n=0");
      return;
    }
    size_t bytes = temp_bytes(n);
    SATLAB_CUDA(cub::DeviceSelect::If(temp, bytes, in, out, count, int(n), keep, s),
                "cub select n=" + std::to_string(n));
  }
};
}  // namespace

Variant cub_select_variant() {
  return make_compact_variant<Impl>("cub_select", "CUB DeviceSelect::If", "CUB (CCCL) DeviceSelect");
}

}  // namespace satlab::gpu::compact
