// CUB DeviceReduce: the library baseline every variant is measured against. Bytes: reads n.
#include <cub/device/device_reduce.cuh>

#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t s) {
    size_t bytes = 0;
    SATLAB_CUDA(cub::DeviceReduce::Reduce(nullptr, bytes, in, out, n, Op(), Op::identity(), s), size_str(n));
    Scratch temp(bytes, s);
    SATLAB_CUDA(cub::DeviceReduce::Reduce(temp.as<void>(), bytes, in, out, n, Op(), Op::identity(), s), size_str(n));
  }
};

}  // namespace

Variant cub_variant() { return make_variant<Impl>("cub", "CUB DeviceReduce", "CUB (CCCL)"); }

}  // namespace satlab::gpu::reduce
