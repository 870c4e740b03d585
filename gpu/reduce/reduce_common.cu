#include "gpu/device.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {

size_t fill_grid(size_t n, size_t per_block, int block, int per_sm) {
  const int sms = probe().sm_count > 0 ? probe().sm_count : 1;
  (void)block;
  const size_t want = (n + per_block - 1) / per_block;
  const size_t full = size_t(sms) * size_t(per_sm);
  return want < full ? (want ? want : 1) : full;
}

}  // namespace satlab::gpu::reduce
