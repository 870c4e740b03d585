// The one-sweep radix sort at device level, for callers outside the registry (the pipeline's depth
// sort): uint32 keys with uint32 values, ascending by bits [0, end_bit) of the key, stable. CUB-style
// temp storage: onesweep_temp_bytes(n, end_bit) bytes, allocated once by the caller; no allocation here.
// Inputs are not modified; outputs must not overlap them. n < 2^30.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace satlab::gpu::sort {

size_t onesweep_temp_bytes(size_t n, int end_bit = 32);
void onesweep_sort_pairs(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
                         uint32_t* values_out, size_t n, void* temp, cudaStream_t s, int end_bit = 32);

}  // namespace satlab::gpu::sort
