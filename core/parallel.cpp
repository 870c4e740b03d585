#include "core/parallel.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace satlab {

int default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}

void parallel_for(long begin, long end, const std::function<void(long, long)>& fn, int threads) {
  if (end <= begin) return;
  long n = end - begin;
  long t = std::min<long>(threads <= 0 ? default_threads() : threads, n);
  if (t <= 1) {
    fn(begin, end);
    return;
  }
  std::exception_ptr first;
  std::mutex m;
  auto run = [&](long b, long e) {
    try {
      fn(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      if (!first) first = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(size_t(t - 1));
  long chunk = n / t, extra = n % t, b = begin;
  for (long i = 0; i < t; ++i) {
    long e = b + chunk + (i < extra ? 1 : 0);
    if (i == t - 1) {
      run(b, e);  // the calling thread takes the last chunk
    } else {
      try {
        pool.emplace_back(run, b, e);
      } catch (...) {  // no thread to be had: this chunk runs here
        run(b, e);
      }
    }
    b = e;
  }
  for (auto& th : pool) th.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace satlab
