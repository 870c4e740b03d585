// The one table of GPU variants: the UI, the benchmarks, `satlab verify` and the tests iterate it.
#include "gpu/device.hpp"

namespace satlab::gpu {

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = {};
  return table;
}

}  // namespace satlab::gpu
