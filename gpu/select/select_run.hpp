// The GPU selector's device-level entry (gpu/select/select.cu), for its host side (select_host.cu).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/variant.hpp"

namespace satlab::gpu::select_detail {

// Enqueues core/select.hpp's stages on a.stream; synchronises it once (the colour models are built on the
// host from the device's histograms). Throws satlab::Error on bad input or a CUDA error.
void select_geodesic(const SelectArgs& a);
// core's geodesic_passes on device arrays.
void geodesic_passes_gpu(uint32_t* d, int w, int h, const uint32_t* ch, const uint32_t* cv, int iterations,
                         cudaStream_t s);

}  // namespace satlab::gpu::select_detail
