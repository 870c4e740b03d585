// The one place that turns a backend name ("auto", "cpu" or "gpu") into where work runs: the Pipeline,
// the stereo matcher and the depth refiners all ask choose_backend.
#pragma once
#include <memory>
#include <string>

#include "core/pipeline.hpp"

namespace satlab {

struct BackendChoice {
  bool gpu = false;     // run on the GPU
  std::string why_cpu;  // with "auto" on the CPU: why no GPU (the device probe's reason), else ""
};

// "cpu": the CPU; "gpu": the GPU, or satlab::Error "GPU backend unavailable: <reason>" without a device;
// "auto": the GPU where a CUDA device exists, else the CPU with the reason. Another name: satlab::Error
// "unknown backend '<name>' (expected auto, cpu or gpu)".
BackendChoice choose_backend(const std::string& which);

// The Pipeline on the backend choose_backend picks; under "auto" a GPU pipeline that cannot be created
// (not enough memory, ...) gives the CPU one as well. With "auto", `note` says why the CPU was chosen
// when it was ("using the CPU backend: <reason>").
std::unique_ptr<Pipeline> make_backend(const std::string& which, std::string* note = nullptr);

}  // namespace satlab
