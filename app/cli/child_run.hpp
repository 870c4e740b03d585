// A child process of the benchmarks (`satlab bench stream`, `satlab bench video`): satlab itself run to
// its end, so that its peak RSS is its own (wait4's ru_maxrss), with the device's used memory sampled
// every 2 ms meanwhile.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace satlab::cli {

struct ChildRun {
  double wall_s = 0;
  uint64_t peak_rss = 0;     // bytes
  uint64_t peak_device = 0;  // bytes above the device's use before it started (0 unless sampled)
};

// Runs `args` (args[0] the program): its stdout to /dev/null, its stderr to `log` where given (else
// ours). Throws satlab::Error (`what` naming the caller) when it cannot start or does not exit 0.
ChildRun run_child(const std::vector<std::string>& args, bool sample_device, const std::string& log, const char* what);

// satlab's own binary (/proc/self/exe); throws satlab::Error.
std::string self_path();

}  // namespace satlab::cli
