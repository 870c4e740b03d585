// Where the GPU Pipeline backend is created. Until the CUDA pipeline lands, it says so.
#include "core/error.hpp"
#include "gpu/device.hpp"

namespace satlab::gpu {

std::unique_ptr<Pipeline> make_pipeline() {
  if (!probe().available) throw Error(probe().reason);
  throw Error("the CUDA pipeline backend is not part of this build yet");
}

}  // namespace satlab::gpu
