// Reduction variants (sum over int32 and float, min/max), one file each, listed in gpu/registry.cpp in
// the order of Harris's table.
#pragma once
#include "core/variant.hpp"

namespace satlab::gpu::reduce {

Variant harris1_variant();
Variant harris2_variant();
Variant harris3_variant();
Variant harris4_variant();
Variant harris5_variant();
Variant harris6_variant();
Variant harris7_variant();
Variant unroll2_variant();
Variant unroll4_variant();
Variant unroll8_variant();
Variant atomic_variant();
Variant warp_shuffle_variant();
Variant vectorized_variant();
Variant single_pass_variant();
Variant bulk_ring_variant();
Variant cub_variant();

}  // namespace satlab::gpu::reduce
