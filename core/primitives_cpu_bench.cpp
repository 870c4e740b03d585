// The CPU variants' bench (core/primitives_cpu.hpp): checked once on poisoned output, then timed; C is a
// threaded copy of the output's size in the same call (cpu_copy_gbps).
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SATLAB_BENCH_X86 1
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/primitives_cpu.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

template <typename F>
double median_ms(int warmup, int runs, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> ms;
  for (int i = 0; i < std::max(runs, 1); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ms.begin(), ms.begin() + long(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

// fn(begin, end) over [0, n) in one chunk per thread.
template <typename F>
void threaded(size_t n, int threads, F&& fn) {
  const long T = long(std::max<size_t>(1, std::min<size_t>(size_t(threads), n >> 12)));
  parallel_for(
      0, T,
      [&](long b, long e) {
        for (long t = b; t < e; ++t) fn(n * size_t(t) / size_t(T), n * size_t(t + 1) / size_t(T));
      },
      int(T));
}

std::string mib(double bytes) {
  char b[32];
  if (bytes >= double(1 << 30))
    std::snprintf(b, sizeof b, "%.3g GiB", bytes / double(1 << 30));
  else
    std::snprintf(b, sizeof b, "%.3g MiB", bytes / double(1 << 20));
  return b;
}

// A copy with non-temporal stores (16-byte SSE2 streams from the first aligned byte on): where memcpy
// keeps to ordinary stores (glibc's below its non-temporal threshold, which depends on the cache's size and
// the thread count), each destination line is first read for ownership, and a copy moves 3 bytes for 2.
void copy_streaming(uint8_t* dst, const uint8_t* src, size_t bytes) {
#if SATLAB_BENCH_X86
  size_t i = 0;
  const size_t head = std::min(bytes, size_t((16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15));
  std::memcpy(dst, src, head);
  for (i = head; i + 64 <= bytes; i += 64)
    for (int k = 0; k < 4; ++k)
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16 * k),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16 * k)));
  std::memcpy(dst + i, src + i, bytes - i);
  _mm_sfence();
#else
  std::memcpy(dst, src, bytes);
#endif
}

// The copy shaped as the single-pass scans move memory: blocks of 256 KiB claimed in turn by the threads,
// each read into the core's caches first (a load a line), then streamed out. On the GPU machine's host
// (16 threads) a scan of that shape outran both copies above by 16%: this one is the copy to beat there.
void copy_blocks(uint8_t* dst, const uint8_t* src, size_t bytes, int threads) {
  constexpr size_t kBlock = size_t(256) << 10;
  const size_t blocks = (bytes + kBlock - 1) / kBlock;
  std::atomic<size_t> next{0};
  std::atomic<uint32_t> sink{0};
  parallel_for(
      0, std::max(1, int(std::min<size_t>(size_t(threads), blocks))),
      [&](long, long) {
        uint32_t touched = 0;
        for (size_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < blocks;) {
          const size_t lo = b * kBlock, len = std::min(kBlock, bytes - lo);
          for (size_t i = 0; i < len; i += 64) touched += src[lo + i];
          copy_streaming(dst + lo, src + lo, len);
        }
        sink += touched;  // keeps the loads
      },
      threads);
}

}  // namespace

std::string cpu_cache_note(double bytes) {
  long llc = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  const std::string data = "data " + mib(bytes);
  if (llc <= 0) return data + " (the cache's size unknown)";
  if (bytes <= double(llc))
    return data + ", within the " + mib(double(llc)) + " last-level cache: a cache's speed, not memory's";
  return data + ", " + (bytes >= 2.0 * double(llc) ? "over twice" : "more than") + " the " +
         mib(double(llc)) + " last-level cache";
}

double cpu_copy_gbps(size_t bytes, int threads, int runs) {
  if (bytes == 0) throw Error("cpu_copy_gbps: no bytes");
  const int T = threads <= 0 ? default_threads() : threads;
  std::vector<uint8_t> src(bytes, 1), dst(bytes, 0);  // both written: their pages are in memory
  const double ms = median_ms(1, runs, [&] {
    threaded(bytes, T, [&](size_t b, size_t e) { std::memcpy(dst.data() + b, src.data() + b, e - b); });
  });
  const double nt_ms = median_ms(1, runs, [&] {
    threaded(bytes, T, [&](size_t b, size_t e) { copy_streaming(dst.data() + b, src.data() + b, e - b); });
  });
  const double block_ms = median_ms(1, runs, [&] { copy_blocks(dst.data(), src.data(), bytes, T); });
  return 2.0 * double(bytes) / std::min({ms, nt_ms, block_ms}) * 1e-6;
}

CpuPrimitiveTable bench_cpu_primitives(Family family, size_t n, int threads, int warmup, int runs) {
  if (family != Family::Scan && family != Family::Reduce)
    throw Error(std::string("the CPU has no ") + to_string(family) + " variants (scans and reductions only)");
  if (n == 0) throw Error("the CPU bench needs at least one element");
  CpuPrimitiveTable table;
  table.threads = threads <= 0 ? default_threads() : threads;
  table.simd = cpu_simd();
  std::vector<uint32_t> in(n), out(n), ref(family == Family::Scan ? n : 0);
  threaded(n, table.threads, [&](size_t b, size_t e) {  // xorshift32 from the index: the same on every run
    for (size_t i = b; i < e; ++i) {
      uint32_t x = uint32_t(i) * 2654435761u + 0x9E3779B9u;
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      in[i] = x;
    }
  });
  uint32_t ref_sum = 0;
  if (family == Family::Scan)
    inclusive_scan(in.data(), ref.data(), n);
  else
    for (uint32_t v : in) ref_sum += v;
  table.copy_gbps = cpu_copy_gbps(n * sizeof(uint32_t), table.threads, runs);
  for (const CpuVariant& v : cpu_variants()) {
    if (v.family != family) continue;
    CpuPrimitiveRow row;
    row.variant = v.name;
    row.label = v.label;
    row.bytes = v.bytes(n);
    row.note = v.refuses();
    if (!row.note.empty()) {
      table.rows.push_back(row);
      continue;
    }
    uint32_t sum = 0;
    if (v.scan) {
      std::fill(out.begin(), out.end(), 0xDEADBEEFu);  // poison: an element not written is seen
      v.scan(in.data(), out.data(), n, table.threads);
      const auto bad = std::mismatch(out.begin(), out.end(), ref.begin());
      row.correct = bad.first == out.end();
      if (!row.correct)
        row.note = "element " + std::to_string(bad.first - out.begin()) + " is " +
                   std::to_string(*bad.first) + ", not " + std::to_string(*bad.second);
      row.median_ms = median_ms(warmup, runs, [&] { v.scan(in.data(), out.data(), n, table.threads); });
    } else {
      sum = v.reduce(in.data(), n, table.threads);
      row.correct = sum == ref_sum;
      if (!row.correct) row.note = "sum " + std::to_string(sum) + ", not " + std::to_string(ref_sum);
      row.median_ms = median_ms(warmup, runs, [&] { sum += v.reduce(in.data(), n, table.threads); });
    }
    row.gbps = row.bytes / row.median_ms * 1e-6;
    table.rows.push_back(row);
  }
  return table;
}

}  // namespace satlab
