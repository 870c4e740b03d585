// The one table of GPU variants: the UI, the benchmarks, `satlab verify` and the tests iterate it.
// Reductions and scans are listed in the order of their tables (Harris's for reductions): the bench
// reports step and cumulative speedups in this order.
#include "gpu/compact/compact.hpp"
#include "gpu/device.hpp"
#include "gpu/filter/filter.hpp"
#include "gpu/npp_baseline.hpp"
#include "gpu/refine/refine_gpu.hpp"
#include "gpu/reduce/reduce.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/scan/scan.hpp"
#include "gpu/select/select_gpu.hpp"
#include "gpu/sort/sort.hpp"
#include "gpu/temporal/temporal_gpu.hpp"

namespace satlab::gpu {

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = [] {
    std::vector<Variant> t = {
      reduce::harris1_variant(),
      reduce::harris2_variant(),
      reduce::harris3_variant(),
      reduce::harris4_variant(),
      reduce::harris5_variant(),
      reduce::harris6_variant(),
      reduce::harris7_variant(),
      reduce::unroll2_variant(),
      reduce::unroll4_variant(),
      reduce::unroll8_variant(),
      reduce::atomic_variant(),
      reduce::warp_shuffle_variant(),
      reduce::vectorized_variant(),
      reduce::single_pass_variant(),
      reduce::bulk_ring_variant(),
      reduce::cub_variant(),
      scan::hillis_steele_variant(),
      scan::blelloch_variant(),
      scan::blelloch_padded_variant(),
      scan::shuffle_variant(),
      scan::cub_raking_variant(),
      scan::cub_warp_scans_variant(),
      scan::reduce_then_scan_variant(),
      scan::lookback_variant(),
      scan::lookback_128x16_variant(),
      scan::lookback_512x8_variant(),
      scan::lookback_speculative_variant(),
      scan::lookback_speculative_128x24_variant(),
      scan::lookback_pipelined_variant(),
      scan::lookback_bulk_512_variant(),
      scan::lookback_cluster8_variant(),
      scan::cub_device_scan_variant(),
      sat_tiled_variant(),
      sat_rows_transpose_shuffle_variant(),
      sat_rows_transpose_blelloch_variant(),
      sat_rows_transpose_hillis_steele_variant(),
      sat_rows_transpose_cub_variant(),
      sat_rows_columns_variant(),
      sat_single_pass_variant(),
      sat_lookback_2d_variant(),
      npp_integral_variant(),
      compact::scan_based_variant(),
      compact::single_pass_variant(),
      compact::cub_select_variant(),
      sort::radix_scan_variant(),
      sort::onesweep_variant(),
      sort::onesweep_32_variant(),
      sort::cub_sort_variant(),
    };
    for (Variant& v : dof_variants()) t.push_back(std::move(v));
    for (Variant& v : refine_variants()) t.push_back(std::move(v));
    for (Variant& v : select_variants()) t.push_back(std::move(v));
    for (Variant& v : temporal_variants()) t.push_back(std::move(v));
    return t;
  }();
  return table;
}

}  // namespace satlab::gpu
