#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

namespace satlab {

int default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}

namespace {

// One parallel_for call: `count` chunks of [begin, end), claimed one at a time by the caller and by any
// idle pool thread.
struct Job {
  const std::function<void(long, long)>* fn;
  long begin, chunk, extra, count;
  std::atomic<long> next{0};  // the next chunk to claim
  long finished = 0;          // chunks run to their end (under `m`)
  std::exception_ptr first;   // the first chunk's exception (under `m`)
  std::mutex m;
  std::condition_variable all_done;

  // Claims and runs chunks until none is left; false when there was none to claim.
  bool work() {
    bool ran = false;
    for (long i; (i = next.fetch_add(1)) < count;) {
      ran = true;
      const long b = begin + i * chunk + std::min(i, extra), e = b + chunk + (i < extra ? 1 : 0);
      std::exception_ptr failed;
      try {
        (*fn)(b, e);
      } catch (...) {
        failed = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(m);
      if (failed && !first) first = failed;
      if (++finished == count) all_done.notify_all();
    }
    return ran;
  }
};

// Threads kept for the life of the process (created at the first parallel_for that needs them), so that a
// call costs a wake-up, not a thread's creation: the streamed CPU backend makes several calls a tile, and
// 16 threads created for each of them took longer than the tiles' work (docs/streaming.md).
class Pool {
 public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i) {
      try {
        threads_.emplace_back([this] { serve(); });
      } catch (...) {  // fewer threads to be had: the callers do the rest
        break;
      }
    }
  }
  // Offers the job's chunks to the pool's threads (the caller works on them too).
  void offer(const std::shared_ptr<Job>& job, int helpers) {
    {
      std::lock_guard<std::mutex> lock(m_);
      jobs_.push_back(job);
    }
    if (helpers >= int(threads_.size()))
      wake_.notify_all();
    else
      for (int i = 0; i < helpers; ++i) wake_.notify_one();
  }
  void withdraw(const std::shared_ptr<Job>& job) {
    std::lock_guard<std::mutex> lock(m_);
    jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), job), jobs_.end());
  }
  int size() const { return int(threads_.size()); }

 private:
  void serve() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return !jobs_.empty(); });
        job = jobs_.front();
        // A job whose chunks are all claimed leaves the queue; its caller waits for the running ones.
        if (job->next.load() >= job->count) {
          jobs_.pop_front();
          continue;
        }
      }
      job->work();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;
};

// The process the pool's threads belong to: a child of fork() has none of them, and the pool's lock may
// have been held at the fork, so a child runs its calls on the calling thread alone.
pid_t pool_owner = 0;

Pool* pool() {
  // Never destroyed: its threads wait for work until the process exits.
  static Pool* p = [] {
    pool_owner = getpid();
    return new Pool(std::max(0, default_threads() - 1));
  }();
  return getpid() == pool_owner ? p : nullptr;
}

}  // namespace

void parallel_for(long begin, long end, const std::function<void(long, long)>& fn, int threads) {
  if (end <= begin) return;
  const long n = end - begin;
  const long t = std::min<long>(threads <= 0 ? default_threads() : threads, n);
  if (t <= 1) {
    fn(begin, end);
    return;
  }
  Pool* p = pool();
  if (!p) {  // a forked child: the same chunks, one after the other
    const long chunk = n / t, extra = n % t;
    for (long i = 0, b = begin; i < t; ++i) {
      const long e = b + chunk + (i < extra ? 1 : 0);
      fn(b, e);
      b = e;
    }
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->begin = begin, job->count = t, job->chunk = n / t, job->extra = n % t;
  p->offer(job, int(t - 1));
  job->work();  // the caller claims chunks too: every chunk runs even if the pool's threads are all busy
  p->withdraw(job);
  std::unique_lock<std::mutex> lock(job->m);
  job->all_done.wait(lock, [&] { return job->finished == job->count; });
  if (job->first) std::rethrow_exception(job->first);
}

}  // namespace satlab
