// Grain on the GPU (core/grain.hpp; gpu/filter/grain.cu).
#pragma once
#include "core/grain.hpp"

namespace satlab::gpu {

// The noise estimate's sums over a device RGBA8 image (`scratch`: 6 device words); waits for them.
GrainSums grain_sums_gpu(const void* image, int width, int height, unsigned long long* scratch, void* stream);
// In place on the device result, as apply_grain.
void apply_grain_gpu(void* out, const float* coc, int width, int height, float amount, const GrainNoise& noise,
                     void* stream);

}  // namespace satlab::gpu
