// Internal to gpu/refine: one upload-run-download of a registered refiner, for refine_gpu and the checks.
#pragma once
#include <string>

#include "core/image.hpp"
#include "core/refine.hpp"
#include "core/variant.hpp"

namespace satlab::gpu::refine_detail {

// The registered variant of refiner `name`; throws satlab::Error naming the valid ones.
const Variant& refine_variant(const std::string& name);

// Runs `v` on `in` (checked as core checks it) with the output poisoned (0xA5 bytes); guided_info, when
// not null, receives the guided filter's offsets and fill value (RefineArgs::guided_offsets, 5 floats).
ImageF run_refine(const Variant& v, const RefineInput& in, float* guided_info = nullptr);

}  // namespace satlab::gpu::refine_detail
