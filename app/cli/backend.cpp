#include "app/backend.hpp"

#include "core/error.hpp"
#include "gpu/device.hpp"

namespace satlab {

std::unique_ptr<Pipeline> make_backend(const std::string& which, std::string* note) {
  if (which == "cpu") return make_cpu_pipeline();
  if (which != "gpu" && which != "auto") throw Error("unknown backend '" + which + "' (expected auto, cpu or gpu)");
  const auto& dev = gpu::probe();
  std::string why = dev.available ? "" : dev.reason;
  if (dev.available) {
    try {
      return gpu::make_pipeline();
    } catch (const Error& e) {
      why = e.what();
    }
  }
  if (which == "gpu") throw Error("GPU backend unavailable: " + why);
  if (note) *note = "using the CPU backend: " + why;
  return make_cpu_pipeline();
}

}  // namespace satlab
