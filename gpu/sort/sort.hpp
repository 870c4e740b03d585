// Radix sort variants (uint32 keys with uint32 values, ascending, stable), one file each, listed in
// gpu/registry.cpp. The one-sweep sort is also callable at device level (gpu/sort/onesweep.hpp).
#pragma once
#include "core/variant.hpp"

namespace satlab::gpu::sort {

Variant radix_scan_variant();
Variant onesweep_variant();
Variant onesweep_32_variant();
Variant cub_sort_variant();

}  // namespace satlab::gpu::sort
