// parallel_for (core/parallel.hpp): its pool of threads runs every chunk exactly once, with the chunk
// boundaries of an even split, from nested calls, concurrent callers and a forked child, and passes the
// first exception on.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "core/parallel.hpp"

namespace satlab {
namespace {

// The chunks a call made, as (begin, end) pairs.
std::set<std::pair<long, long>> chunks_of(long begin, long end, int threads) {
  std::mutex m;
  std::set<std::pair<long, long>> seen;
  parallel_for(begin, end, [&](long b, long e) {
    std::lock_guard<std::mutex> lock(m);
    seen.insert({b, e});
  }, threads);
  return seen;
}

TEST(Parallel, ChunksSplitTheRangeEvenlyAndCoverItOnce) {
  const std::vector<std::pair<long, int>> cases = {{1, 4}, {7, 3}, {100, 7}, {5, 16}, {1000, 1}, {37, 37}};
  for (const auto& [n, t] : cases) {
    const auto seen = chunks_of(10, 10 + n, t);
    const long k = std::min<long>(t, n), chunk = n / k, extra = n % k;
    ASSERT_EQ(long(seen.size()), k) << n << " over " << t;
    long b = 10, i = 0;
    for (const auto& [cb, ce] : seen) {  // ordered by begin
      EXPECT_EQ(cb, b);
      EXPECT_EQ(ce - cb, chunk + (i < extra ? 1 : 0)) << "chunk " << i << " of " << n << " over " << t;
      b = ce, ++i;
    }
    EXPECT_EQ(b, 10 + n);
  }
  EXPECT_TRUE(chunks_of(5, 5, 4).empty());
}

TEST(Parallel, NestedAndConcurrentCallsRunEveryElementOnce) {
  constexpr long kOuter = 24, kInner = 1000;
  std::vector<std::atomic<int>> hits(size_t(4 * kOuter * kInner));
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round)
        parallel_for(0, kOuter, [&](long a, long b) {
          for (long o = a; o < b; ++o)
            parallel_for(0, kInner, [&](long x, long y) {
              for (long i = x; i < y; ++i)
                if (round == 0) hits[size_t((c * kOuter + o) * kInner + i)]++;
            }, 5);
        }, 8);
    });
  for (std::thread& t : callers) t.join();
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "element " << i;
}

TEST(Parallel, TheFirstExceptionReachesTheCallerAfterEveryChunkEnded) {
  std::atomic<int> ended{0};
  EXPECT_THROW(parallel_for(0, 64, [&](long b, long) {
                 if ((b / 4) % 2) {
                   ended++;
                   throw std::runtime_error("chunk failed");
                 }
                 std::this_thread::sleep_for(std::chrono::milliseconds(2));
                 ended++;
               }, 16),
               std::runtime_error);
  EXPECT_EQ(ended.load(), 16);
  // The pool still works after it.
  EXPECT_EQ(chunks_of(0, 9, 3).size(), 3u);
}

TEST(Parallel, AForkedChildRunsItsCallsAlone) {
  EXPECT_EQ(chunks_of(0, 100, 8).size(), 8u);  // the pool is made in this process first
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const auto seen = chunks_of(0, 100, 8);
    long sum = 0;
    parallel_for(0, 100, [&](long b, long e) {
      for (long i = b; i < e; ++i) sum += i;  // no lock: one thread in the child
    }, 8);
    ::_exit(seen.size() == 8 && sum == 4950 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace satlab
