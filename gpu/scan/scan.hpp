// Scan variants (inclusive and exclusive prefix sums over int32, uint32 and float), one file each,
// listed in gpu/registry.cpp. Block-level algorithms live in gpu/scan/block_scan.cuh, the device-level
// driver in gpu/scan/device_scan.cuh.
#pragma once
#include "core/variant.hpp"

namespace satlab::gpu::scan {

Variant hillis_steele_variant();
Variant blelloch_variant();
Variant blelloch_padded_variant();
Variant shuffle_variant();
Variant cub_raking_variant();
Variant cub_warp_scans_variant();
Variant reduce_then_scan_variant();
Variant lookback_variant();
Variant lookback_128x16_variant();
Variant lookback_512x8_variant();
Variant lookback_speculative_variant();
Variant lookback_speculative_128x24_variant();
Variant lookback_pipelined_variant();
Variant lookback_bulk_512_variant();
Variant lookback_cluster8_variant();
Variant cub_device_scan_variant();

}  // namespace satlab::gpu::scan
