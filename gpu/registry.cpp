// The one table of GPU variants: the UI, the benchmarks, `satlab verify` and the tests iterate it.
#include "gpu/device.hpp"
#include "gpu/npp_baseline.hpp"
#include "gpu/sat/sat.hpp"

namespace satlab::gpu {

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = {
      sat_tiled_variant(),
      npp_integral_variant(),
  };
  return table;
}

}  // namespace satlab::gpu
