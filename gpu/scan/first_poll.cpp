// The look-back scans' and the single-pass compaction's first-poll pause forced at every size
// (gpu/scan/first_poll.cuh, first_poll_ns): a bench sweep's and the sanitizer runs' setting, never the
// app's.
#include "gpu/bench/primitives.hpp"

namespace satlab::gpu {

namespace scan::lookback {
long& forced_first_poll_ns() {
  static long ns = -1;
  return ns;
}
}  // namespace scan::lookback

void force_first_poll_ns(long ns) {
  scan::lookback::forced_first_poll_ns() = ns < 0 ? -1 : ns;
}

}  // namespace satlab::gpu
