// The primitives benchmark behind `satlab bench primitives` and the Lab panel: every reduction, scan,
// compaction or sort variant at one size and type, timed with CUDA events (median of `runs` after `warmup`), inputs
// rotated through enough buffers to exceed L2, checked once against the CPU reference. The copy
// bandwidth C (cudaMemcpy device to device, read + write bytes) and a read-only bandwidth (16-byte
// loads, grid stride) are measured in the same process. Plain C++; without CUDA it throws.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/variant.hpp"

namespace satlab::gpu {

struct Bandwidth {
  double copy_gbps = 0;  // C: bytes read + bytes written per second, GB/s (1e9)
  double read_gbps = 0;
};
// Both bandwidths over buffers of `bytes` (median of `runs`).
Bandwidth measure_bandwidth(size_t bytes, int runs = 20);

// Pinned host memory to and from the device (cudaMallocHost, `bytes` each way, median of `runs`): each
// direction alone, and both at once on two streams (duplex_gbps: bytes up + bytes down per second), the
// bound of a pipeline that streams an image through the GPU (satlab bench stream).
struct HostCopyBandwidth {
  double h2d_gbps = 0, d2h_gbps = 0, duplex_gbps = 0;
};
HostCopyBandwidth measure_host_copy(size_t bytes, int runs = 20);

struct PrimitiveResult {
  std::string family, variant, label, dtype;
  size_t n = 0;
  double median_ms = 0, bytes = 0, gbps = 0;
  bool correct = false;
  std::string note;  // refusal or mismatch, when any
};

// Compactions keep x >= kBenchCompactThreshold of random int32 in [-1000, 1000]: 201 of 2001 values,
// a 10% keep rate. Their bytes are n read plus the kept elements written (and the count), from the
// count measured. Sorts: uint32 keys over the full range, values 0..n-1; 16 bytes a pair.
constexpr int32_t kBenchCompactThreshold = 800;

struct PrimitiveBenchOptions {
  Family family = Family::Reduce;
  DType dtype = DType::I32;
  size_t n = size_t(1) << 22;
  int warmup = 5, runs = 20;
  std::vector<std::string> only;  // variant names; empty: all of the family
};

// The look-back scans' and the single-pass compaction's pause before their first look-back read
// (gpu/scan/first_poll.cuh), forced to `ns` nanoseconds at every size for the launches that follow (`satlab
// bench primitives --first-poll-ns` sweeps; tests, to cover the pause at small sizes); -1 restores each
// variant's tuned pause (a compile-time constant of the variant, taken where a launch has at least 4
// rounds of tiles).
void force_first_poll_ns(long ns);

// Every variant of the family in registry order; `on_result` is called as each one finishes.
std::vector<PrimitiveResult> bench_primitives(const PrimitiveBenchOptions& o,
                                              const std::function<void(const PrimitiveResult&)>& on_result = {});

}  // namespace satlab::gpu
