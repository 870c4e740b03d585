// CUB DeviceRadixSort::SortPairs: the library baseline (one-sweep on current GPUs). Bytes: 16 a pair.
#include <cub/device/device_radix_sort.cuh>

#include "gpu/sort/sort.hpp"
#include "gpu/sort/sort_common.cuh"

namespace satlab::gpu::sort {
namespace {
struct Impl {
  static size_t temp_bytes(size_t n) {
    size_t bytes = 0;
    SATLAB_CUDA(cub::DeviceRadixSort::SortPairs(
                    nullptr, bytes, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                    static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n)),
                "cub sort query n=" + std::to_string(n));
    return bytes;
  }
  static void run(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
                  uint32_t* values_out, size_t n, void* temp, cudaStream_t s) {
    size_t bytes = temp_bytes(n);
    SATLAB_CUDA(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, int(n),
                                                0, 32, s),
                "cub sort n=" + std::to_string(n));
  }
};
}  // namespace

Variant cub_sort_variant() {
  return make_sort_variant<Impl>("cub_sort_pairs", "CUB DeviceRadixSort::SortPairs",
                                 "CUB (CCCL) DeviceRadixSort", (size_t(1) << 31) - 1);
}

}  // namespace satlab::gpu::sort
