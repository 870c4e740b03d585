#include "app/ops/backend_choice.hpp"

#include "core/error.hpp"
#include "gpu/device.hpp"

namespace satlab {

BackendChoice choose_backend(const std::string& which) {
  if (which == "cpu") return {};
  if (which != "gpu" && which != "auto") throw Error("unknown backend '" + which + "' (expected auto, cpu or gpu)");
  const gpu::DeviceInfo& dev = gpu::probe();
  if (dev.available) return {true, ""};
  if (which == "gpu") throw Error("GPU backend unavailable: " + dev.reason);
  return {false, dev.reason};
}

std::unique_ptr<Pipeline> make_backend(const std::string& which, std::string* note) {
  BackendChoice c = choose_backend(which);
  if (c.gpu) {
    try {
      return gpu::make_pipeline();
    } catch (const Error& e) {
      if (which == "gpu") throw Error(std::string("GPU backend unavailable: ") + e.what());
      c.why_cpu = e.what();
    }
  }
  if (note && !c.why_cpu.empty()) *note = "using the CPU backend: " + c.why_cpu;
  return make_cpu_pipeline();
}

}  // namespace satlab
