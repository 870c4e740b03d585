// The single-pass SAT builders' look-back words (sat_lookback.cuh): one buffer per device and stream, kept
// from launch to launch, zeroed when it is (re)allocated and when the epochs run out, and otherwise handed
// out with the next epoch, so that a launch starts at once instead of after a reset of its words (a memset of
// up to 1/8 B per element, and the gap before the launch that follows it).
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "gpu/sat/sat_common.cuh"
#include "gpu/sat/sat_host.hpp"
#include "gpu/sat/sat_lookback.cuh"

namespace satlab::gpu {
namespace sat_detail {
namespace {

struct Buffer {
  unsigned long long* words = nullptr;
  size_t count = 0;
  unsigned epoch = 0;  // the last one handed out
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { cudaFree(words); }  // at exit: an error there has no one to report to
};

std::mutex& buffers_mutex() {
  static std::mutex m;
  return m;
}
// Freed at exit: first used after a CUDA call, so its destructor is registered after the CUDA runtime's
// own exit handler and runs while the context still exists (compute-sanitizer's leak check finds nothing).
std::map<std::pair<int, void*>, Buffer>& buffers() {  // by device and stream
  static std::map<std::pair<int, void*>, Buffer> b;
  return b;
}

}  // namespace

constexpr size_t kCounterWords = 32;  // the counter's own 256 bytes, then the words

LookbackWords lookback_words(size_t count, const SatArgs& a) {
  const cudaStream_t st = cudaStream_t(a.stream);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cuda_check(cudaStreamIsCapturing(st, &capture), "cudaStreamIsCapturing", a);
  if (capture != cudaStreamCaptureStatusNone)
    throw Error(
        "the single-pass SAT builders cannot be captured into a CUDA graph (their look-back words "
        "take a new epoch at every launch)");
  int device = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice", a);
  std::lock_guard<std::mutex> lock(buffers_mutex());
  Buffer& b = buffers()[{device, a.stream}];
  count += kCounterWords;
  if (b.count < count) {
    if (b.words) {
      cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize before the look-back words grow", a);
      cudaFree(b.words);
      b.words = nullptr;
      b.count = 0;
    }
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, count * sizeof(unsigned long long)), "cudaMalloc of the look-back words", a);
    b.words = static_cast<unsigned long long*>(p);
    b.count = count;
    b.epoch = kMaxEpoch;  // zeroed just below
  }
  if (b.epoch >= kMaxEpoch) {
    cuda_check(cudaMemsetAsync(b.words, 0, b.count * sizeof(unsigned long long), st),
               "cudaMemsetAsync of the look-back words", a);
    b.epoch = 0;
  }
  return {b.words + kCounterWords, reinterpret_cast<unsigned*>(b.words), ++b.epoch};
}

}  // namespace sat_detail

void set_lookback_epochs_left_for_testing(unsigned left) {
  std::lock_guard<std::mutex> lock(sat_detail::buffers_mutex());
  for (auto& [key, b] : sat_detail::buffers())
    b.epoch = sat_detail::kMaxEpoch - std::min(left, sat_detail::kMaxEpoch);
}

}  // namespace satlab::gpu
