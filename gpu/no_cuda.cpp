// Built instead of the CUDA library when no CUDA toolkit was found at configure time.
#include "core/error.hpp"
#include "gpu/device.hpp"

namespace satlab::gpu {

const DeviceInfo& probe() {
  static const DeviceInfo info = [] {
    DeviceInfo d;
    d.reason = "satlab was built without CUDA (no CUDA toolkit at configure time)";
    return d;
  }();
  return info;
}

const std::vector<Variant>& variants() {
  static const std::vector<Variant> none;
  return none;
}

std::unique_ptr<Pipeline> make_pipeline() { throw Error(probe().reason); }

}  // namespace satlab::gpu
