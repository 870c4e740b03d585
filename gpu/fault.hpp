// Fault injection for the GPU backend's reliability tests: makes a chosen upcoming device allocation or
// frame check fail as if CUDA had returned an error, so the paths that handle an out-of-memory or a
// failing launch run on demand. Compiled in always; with nothing armed a check costs one relaxed atomic
// load. Scripted runs arm it through the environment: SATLAB_FAULT=alloc:N or launch:N (both: comma
// separated) makes the N-th next allocation or frame fail, once.
#pragma once
#include <atomic>

namespace satlab::gpu {

enum class Fault { Alloc, Launch };

namespace detail {
extern std::atomic<int> g_faults_armed;
bool take_fault(Fault f);
}  // namespace detail

// True when an injected fault of kind f is due at this check (it is then used up). The GPU pipeline asks
// before each device allocation (Alloc) and at each frame's launch check (Launch).
inline bool fault_due(Fault f) {
  return detail::g_faults_armed.load(std::memory_order_relaxed) != 0 && detail::take_fault(f);
}

namespace testing {
void fail_next(Fault f, int n = 1);  // the n-th next check of kind f fails, once (n >= 1)
void clear_faults();
int faults_injected();  // faults that fired so far in this process
}  // namespace testing

}  // namespace satlab::gpu
