// Picks the Pipeline backend by name: "cpu", "gpu", or "auto" (the GPU where a CUDA device exists).
#pragma once
#include <memory>
#include <string>

#include "core/pipeline.hpp"

namespace satlab {

// Throws satlab::Error for an unknown name or a "gpu" request that cannot be met (with the reason).
// With "auto", `note` says why the CPU was chosen when it was.
std::unique_ptr<Pipeline> make_backend(const std::string& which, std::string* note = nullptr);

}  // namespace satlab
