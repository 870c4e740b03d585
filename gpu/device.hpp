// The GPU library's plain C++ face: callable from app/ and tests whether or not CUDA was built in.
// Without CUDA (or without a device) everything here reports why instead of failing obscurely.
#pragma once
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

struct DeviceInfo {
  bool available = false;
  std::string name;       // "NVIDIA H100 80GB HBM3"
  std::string reason;     // why not available ("satlab was built without CUDA", "no CUDA device: ...")
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  size_t total_memory = 0;
  size_t l2_bytes = 0;
};

// Probes once (cached); never throws.
const DeviceInfo& probe();

// Every registered GPU variant, in table order (empty without CUDA).
const std::vector<Variant>& variants();

// How many copies of a `bytes` input a benchmark takes in turn so that no run finds its input in L2 from
// the runs before: together at least twice the L2 (one copy when it alone is), at least `at_least`, at
// most 64.
inline int input_copies(size_t bytes, int at_least = 1) {
  const size_t l2 = probe().l2_bytes ? probe().l2_bytes : (size_t(50) << 20);
  const size_t copies = bytes >= 2 * l2 ? 1 : (2 * l2 + bytes - 1) / std::max<size_t>(bytes, 1) + 1;
  return int(std::clamp<size_t>(copies, size_t(std::max(at_least, 1)), 64));
}

// Bytes of device memory in use on device 0 (total - free, all processes); 0 without a device.
size_t device_memory_in_use();

// The GPU backend of the Pipeline interface. Throws satlab::Error (with the reason) when it cannot be
// created: no device, not enough memory, or a build without CUDA.
std::unique_ptr<Pipeline> make_pipeline();

}  // namespace satlab::gpu
