// Stream compaction variants (keep the int32 elements x >= threshold, in input order), one file each,
// listed in gpu/registry.cpp. The single-pass algorithm is also a device-level template for any input
// and predicate (gpu/compact/single_pass.cuh): the pipeline compacts pixel indices with its own test.
#pragma once
#include "core/variant.hpp"

namespace satlab::gpu::compact {

Variant scan_based_variant();
Variant single_pass_variant();
Variant cub_select_variant();

}  // namespace satlab::gpu::compact
