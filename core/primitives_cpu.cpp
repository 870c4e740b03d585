// The CPU scan and reduction variants (core/primitives_cpu.hpp) and their table. Each step changes one
// thing: threads, the passes over memory, SIMD, then a single pass with its blocks in cache and stores
// that bypass the cache.
#include "core/primitives_cpu.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SATLAB_CPU_X86 1
#endif

#include "core/error.hpp"
#include "core/parallel.hpp"

// The scalar steps stay scalar: without this GCC vectorises the reduction loops at -O2 and above, and the
// table would not show what threads alone and SIMD alone each gain.
#if defined(__GNUC__) && !defined(__clang__)
#define SATLAB_SCALAR __attribute__((optimize("no-tree-vectorize")))
#else
#define SATLAB_SCALAR
#endif

namespace satlab {
namespace {

int resolve(int threads) {
  return threads <= 0 ? default_threads() : threads;
}

// --- Kernels over one contiguous run: a scan from `carry` (returns the last value) and a sum -----------
using ScanKernel = uint32_t (*)(const uint32_t* in, uint32_t* out, size_t n, uint32_t carry, bool stream);
using SumKernel = uint32_t (*)(const uint32_t* in, size_t n);
struct Kernels {
  ScanKernel scan;
  SumKernel sum;
};

SATLAB_SCALAR uint32_t scan_scalar(const uint32_t* in, uint32_t* out, size_t n, uint32_t carry, bool) {
  for (size_t i = 0; i < n; ++i) out[i] = carry += in[i];
  return carry;
}
SATLAB_SCALAR uint32_t sum_scalar(const uint32_t* in, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i < n; ++i) s += in[i];
  return s;
}
SATLAB_SCALAR void add_scalar(uint32_t* out, size_t n, uint32_t offset) {
  for (size_t i = 0; i < n; ++i) out[i] += offset;
}

#if SATLAB_CPU_X86
// SSE2 (every x86-64): a 4-lane in-register scan is two shift-and-adds (log2 4 steps), then the carry
// (the last lane of the previous vector, broadcast) is added. Two vectors per step, so that their shifts
// overlap and only the carry's add and shuffle are on the serial path.
inline __m128i scan4(__m128i x) {
  x = _mm_add_epi32(x, _mm_slli_si128(x, 4));
  return _mm_add_epi32(x, _mm_slli_si128(x, 8));
}
uint32_t scan_sse2(const uint32_t* in, uint32_t* out, size_t n, uint32_t carry, bool stream) {
  size_t i = 0;
  if (stream)  // non-temporal stores need 16-byte alignment
    for (; i < n && (reinterpret_cast<uintptr_t>(out + i) & 15); ++i) out[i] = carry += in[i];
  __m128i c = _mm_set1_epi32(int(carry));
  for (; i + 8 <= n; i += 8) {
    __m128i a = scan4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    __m128i b = scan4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 4)));
    a = _mm_add_epi32(a, c);
    b = _mm_add_epi32(b, _mm_shuffle_epi32(a, 0xFF));
    c = _mm_shuffle_epi32(b, 0xFF);
    if (stream) {
      _mm_stream_si128(reinterpret_cast<__m128i*>(out + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(out + i + 4), b);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 4), b);
    }
  }
  carry = uint32_t(_mm_cvtsi128_si32(c));
  for (; i < n; ++i) out[i] = carry += in[i];
  return carry;
}
uint32_t sum_sse2(const uint32_t* in, size_t n) {
  __m128i acc[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 4; ++k)
      acc[k] = _mm_add_epi32(acc[k], _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 4 * k)));
  __m128i s = _mm_add_epi32(_mm_add_epi32(acc[0], acc[1]), _mm_add_epi32(acc[2], acc[3]));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  uint32_t total = uint32_t(_mm_cvtsi128_si32(s));
  for (; i < n; ++i) total += in[i];
  return total;
}

// AVX2: the same within each 128-bit lane, then the low lane's total added to the high lane
// (permute2x128 with the low half zeroed): log2 8 = 3 steps and one cross-lane add.
__attribute__((target("avx2"))) inline __m256i scan8(__m256i x) {
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  const __m256i t = _mm256_shuffle_epi32(x, 0xFF);
  return _mm256_add_epi32(x, _mm256_permute2x128_si256(t, t, 0x08));
}
__attribute__((target("avx2"))) uint32_t scan_avx2(const uint32_t* in, uint32_t* out, size_t n,
                                                   uint32_t carry, bool stream) {
  size_t i = 0;
  if (stream)
    for (; i < n && (reinterpret_cast<uintptr_t>(out + i) & 31); ++i) out[i] = carry += in[i];
  const __m256i last = _mm256_set1_epi32(7);
  __m256i c = _mm256_set1_epi32(int(carry));
  for (; i + 16 <= n; i += 16) {
    __m256i a = scan8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    __m256i b = scan8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8)));
    a = _mm256_add_epi32(a, c);
    b = _mm256_add_epi32(b, _mm256_permutevar8x32_epi32(a, last));
    c = _mm256_permutevar8x32_epi32(b, last);
    if (stream) {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(out + i), a);
      _mm256_stream_si256(reinterpret_cast<__m256i*>(out + i + 8), b);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), a);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 8), b);
    }
  }
  carry = uint32_t(_mm_cvtsi128_si32(_mm256_castsi256_si128(c)));
  for (; i < n; ++i) out[i] = carry += in[i];
  return carry;
}
__attribute__((target("avx2"))) uint32_t sum_avx2(const uint32_t* in, size_t n) {
  __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k)
      acc[k] = _mm256_add_epi32(acc[k], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8 * k)));
  const __m256i s8 = _mm256_add_epi32(_mm256_add_epi32(acc[0], acc[1]), _mm256_add_epi32(acc[2], acc[3]));
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  uint32_t total = uint32_t(_mm_cvtsi128_si32(s));
  for (; i < n; ++i) total += in[i];
  return total;
}
bool has_avx2() {
  return __builtin_cpu_supports("avx2");
}
void store_fence() {
  _mm_sfence();
}  // non-temporal stores are weakly ordered
void spin_pause() {
  _mm_pause();
}
#else
bool has_avx2() {
  return false;
}
void store_fence() {}
void spin_pause() {}
#endif

constexpr Kernels kScalar = {scan_scalar, sum_scalar};
#if SATLAB_CPU_X86
constexpr Kernels kSse2 = {scan_sse2, sum_sse2};
constexpr Kernels kAvx2 = {scan_avx2, sum_avx2};
#endif
Kernels best_kernels() {
#if SATLAB_CPU_X86
  return has_avx2() ? kAvx2 : kSse2;
#else
  return kScalar;
#endif
}

// --- Multi-threaded shapes ------------------------------------------------------------------------------
// Chunk t of T over n elements; every boundary but the ends on a 64-byte line, so that two threads never
// write one line.
size_t chunk_edge(size_t n, int T, int t) {
  if (t <= 0) return 0;
  if (t >= T) return n;
  return std::min(n, (n * size_t(t) / size_t(T) + 15) & ~size_t(15));
}
// Threads worth starting: at least 64 Ki elements each (fewer threads below that).
int threads_for(size_t n, int threads) {
  return int(std::max<size_t>(1, std::min<size_t>(size_t(resolve(threads)), n >> 16)));
}
// fn(t, begin, end) for each of T chunks, on T threads.
template <typename F>
void for_chunks(size_t n, int T, F&& fn) {
  parallel_for(
      0, T,
      [&](long b, long e) {
        for (long t = b; t < e; ++t) fn(int(t), chunk_edge(n, T, int(t)), chunk_edge(n, T, int(t) + 1));
      },
      T);
}
// Exclusive scan of the chunk totals in place: each becomes its chunk's offset.
void offsets_from_totals(std::vector<uint32_t>& v) {
  uint32_t s = 0;
  for (auto& x : v) {
    const uint32_t t = x;
    x = s;
    s += t;
  }
}

// Three passes: each chunk scanned from 0, the chunk totals scanned, each chunk's offset added (reads n,
// writes n, then reads and writes n again).
void scan_three_pass(const Kernels& k, const uint32_t* in, uint32_t* out, size_t n, int threads) {
  const int T = threads_for(n, threads);
  std::vector<uint32_t> off(size_t(T), 0);
  for_chunks(n, T,
             [&](int t, size_t b, size_t e) { off[size_t(t)] = k.scan(in + b, out + b, e - b, 0, false); });
  offsets_from_totals(off);
  for_chunks(n, T, [&](int t, size_t b, size_t e) {
    if (t > 0) add_scalar(out + b, e - b, off[size_t(t)]);
  });
}

// Two passes: each chunk reduced, the totals scanned, each chunk scanned from its offset (reads n, then
// reads n and writes n).
void scan_reduce_then_scan(const Kernels& k, const uint32_t* in, uint32_t* out, size_t n, int threads) {
  const int T = threads_for(n, threads);
  std::vector<uint32_t> off(size_t(T), 0);
  if (T > 1) {
    for_chunks(n, T, [&](int t, size_t b, size_t e) { off[size_t(t)] = k.sum(in + b, e - b); });
    offsets_from_totals(off);
  }
  for_chunks(n, T, [&](int t, size_t b, size_t e) { k.scan(in + b, out + b, e - b, off[size_t(t)], false); });
}

// One pass over memory: blocks of 256 KiB (64 Ki elements; 16 Ki lost 15% at 2^27 on 2 cores, 128 Ki
// gained nothing) are claimed in order; each is reduced (which brings it into the
// core's L2), waits for the previous block's inclusive prefix, publishes its own at once (prefix + total:
// the chain costs one cache line's transfer a block, not a block's work), then is scanned from L2 into the
// output. Claiming in order makes it deadlock-free on any number of threads: a block waited for was
// claimed earlier by a thread that is running. `stream`: non-temporal stores, so that writing the output
// does not first read it into the cache (3 passes over memory become 2).
constexpr size_t kSinglePassBlock = 65536;
struct alignas(64) BlockPrefix {
  std::atomic<uint64_t> v{0};  // bit 32 set: published; low 32 bits: the inclusive prefix
};
// `prefetch`: as a thread scans its block it asks for the lines of block b + T (into L2), 16 lines every
// 1 KiB scanned: the block it will most likely claim next, as the threads claim in turn. The reads of one
// block then overlap the scan and the writes of another, where otherwise a core waits for memory, then
// computes. A guess, never a claim: a wrong one costs bandwidth, not order.
void prefetch_l2(const uint32_t* p) {
#if SATLAB_CPU_X86
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T1);
#else
  (void)p;
#endif
}
void scan_single_pass(const Kernels& k, const uint32_t* in, uint32_t* out, size_t n, int threads, bool stream,
                      bool prefetch = false) {
  const size_t blocks = (n + kSinglePassBlock - 1) / kSinglePassBlock;
  const int T = int(std::min<size_t>(size_t(resolve(threads)), blocks));
  if (T <= 1 && !prefetch) {
    k.scan(in, out, n, 0, stream);
    if (stream) store_fence();
    return;
  }
  std::unique_ptr<BlockPrefix[]> prefix(new BlockPrefix[blocks]);
  std::atomic<size_t> next{0};
  parallel_for(
      0, T,
      [&](long, long) {
        for (size_t b = next.fetch_add(1, std::memory_order_relaxed); b < blocks;) {
          const size_t after = prefetch ? b + size_t(T) : blocks;
          const size_t lo = b * kSinglePassBlock, len = std::min(kSinglePassBlock, n - lo);
          const uint32_t total = k.sum(in + lo, len);
          uint32_t before = 0;
          if (b > 0) {
            uint64_t v;
            for (int spins = 0; !((v = prefix[b - 1].v.load(std::memory_order_acquire)) >> 32); ++spins)
              if (spins < 4096)
                spin_pause();
              else
                std::this_thread::yield();  // more threads than cores: let the one awaited run
            before = uint32_t(v);
          }
          prefix[b].v.store((uint64_t(1) << 32) | uint64_t(uint32_t(before + total)),
                            std::memory_order_release);
          if (after < blocks) {
            constexpr size_t kStep = 256;  // elements scanned per 16 lines asked for
            const size_t alo = after * kSinglePassBlock, alen = std::min(kSinglePassBlock, n - alo);
            uint32_t carry = before;
            // Pieces that start on the output's 64-byte lines: a scalar store into a line that the
            // non-temporal stores are filling would flush it half written.
            const size_t skew = ((64 - (reinterpret_cast<uintptr_t>(out + lo) & 63)) & 63) / sizeof(uint32_t);
            for (size_t i = 0, end = std::min(len, skew + kStep); i < len;
                 i = end, end = std::min(len, end + kStep)) {
              for (size_t line = i; line < end && line < alen; line += 16) prefetch_l2(in + alo + line);
              carry = k.scan(in + lo + i, out + lo + i, end - i, carry, stream);
            }
          } else {
            k.scan(in + lo, out + lo, len, before, stream);
          }
          b = next.fetch_add(1, std::memory_order_relaxed);
        }
        if (stream) store_fence();
      },
      T);
}

// Brent and Kung's work-efficient tree (1982; Blelloch's up-sweep and down-sweep, inclusive form): log2 n
// strided passes up, then down, each level's adds spread over the threads. For the contrast: O(n) adds
// like the sequential loop, but about 2 log2 n passes over memory where the loop makes one.
void scan_tree(const uint32_t* in, uint32_t* out, size_t n, int threads) {
  for_chunks(n, threads_for(n, threads),
             [&](int, size_t b, size_t e) { std::memcpy(out + b, in + b, (e - b) * sizeof(uint32_t)); });
  // out[i] += out[i - s] for i = first, first + 2s, ... < n.
  auto level = [&](size_t s, size_t first) {
    if (first >= n) return;
    const size_t count = (n - 1 - first) / (2 * s) + 1;
    const int T = threads_for(count, threads);
    for_chunks(count, T, [&](int, size_t b, size_t e) {
      for (size_t j = b; j < e; ++j) out[first + j * 2 * s] += out[first + j * 2 * s - s];
    });
  };
  size_t s = 1;
  for (; 2 * s <= n; s *= 2) level(s, 2 * s - 1);    // up: blocks of 2s summed at their last element
  for (s /= 2; s >= 1; s /= 2) level(s, 3 * s - 1);  // down: the prefix carried into each half block
}

uint32_t reduce_threads(const Kernels& k, const uint32_t* in, size_t n, int threads) {
  const int T = threads_for(n, threads);
  std::vector<uint32_t> part(size_t(T), 0);
  for_chunks(n, T, [&](int t, size_t b, size_t e) { part[size_t(t)] = k.sum(in + b, e - b); });
  uint32_t s = 0;
  for (uint32_t p : part) s += p;
  return s;
}

std::string runs_anywhere() {
  return "";
}
std::string needs_avx2() {
  return has_avx2() ? "" : "this CPU has no AVX2";
}

// A row of the table without its entry point: bytes from the family (scan n read + n written, reduction n
// read).
CpuVariant row_of(Family family, std::string name, std::string label, std::string source,
                  std::function<std::string()> refuses) {
  CpuVariant v;
  v.name = std::move(name);
  v.family = family;
  v.label = std::move(label);
  v.source = std::move(source);
  v.bytes = [family](size_t n) { return (family == Family::Scan ? 8.0 : 4.0) * double(n); };
  v.refuses = std::move(refuses);
  return v;
}
CpuVariant scan_variant(std::string name, std::string label, std::string source,
                        std::function<void(const uint32_t*, uint32_t*, size_t, int)> fn,
                        std::function<std::string()> refuses = runs_anywhere) {
  CpuVariant v =
      row_of(Family::Scan, std::move(name), std::move(label), std::move(source), std::move(refuses));
  v.scan = std::move(fn);
  return v;
}
CpuVariant reduce_variant(std::string name, std::string label, std::string source,
                          std::function<uint32_t(const uint32_t*, size_t, int)> fn,
                          std::function<std::string()> refuses = runs_anywhere) {
  CpuVariant v =
      row_of(Family::Reduce, std::move(name), std::move(label), std::move(source), std::move(refuses));
  v.reduce = std::move(fn);
  return v;
}

}  // namespace

std::string cpu_simd() {
#if SATLAB_CPU_X86
  return has_avx2() ? "avx2" : "sse2";
#else
  return "none";
#endif
}

const std::vector<CpuVariant>& cpu_variants() {
  static const std::vector<CpuVariant> table = [] {
    std::vector<CpuVariant> t;
    t.push_back(reduce_variant("cpu_reduce_sequential", "sequential loop, one thread", "the definition",
                               [](const uint32_t* in, size_t n, int) { return sum_scalar(in, n); }));
    t.push_back(reduce_variant(
        "cpu_reduce_threads", "threads, a scalar loop each", "fork-join over chunks",
        [](const uint32_t* in, size_t n, int th) { return reduce_threads(kScalar, in, n, th); }));
#if SATLAB_CPU_X86
    t.push_back(reduce_variant(
        "cpu_reduce_sse2", "threads, SSE2 (4 lanes x 4 accumulators)", "Intel intrinsics",
        [](const uint32_t* in, size_t n, int th) { return reduce_threads(kSse2, in, n, th); }));
    t.push_back(reduce_variant(
        "cpu_reduce_avx2", "threads, AVX2 (8 lanes x 4 accumulators)", "Intel intrinsics",
        [](const uint32_t* in, size_t n, int th) { return reduce_threads(kAvx2, in, n, th); }, needs_avx2));
#endif
    t.push_back(scan_variant(
        "cpu_sequential", "sequential loop, one thread", "the definition",
        [](const uint32_t* in, uint32_t* out, size_t n, int) { scan_scalar(in, out, n, 0, false); }));
    t.push_back(
        scan_variant("cpu_tree", "work-efficient tree (up-sweep, down-sweep), threads per level",
                     "Brent and Kung 1982; Blelloch 1990",
                     [](const uint32_t* in, uint32_t* out, size_t n, int th) { scan_tree(in, out, n, th); }));
    t.push_back(scan_variant("cpu_three_pass", "threads: scan chunks, scan totals, add offsets",
                             "scan-then-propagate (Blelloch 1990)",
                             [](const uint32_t* in, uint32_t* out, size_t n, int th) {
                               scan_three_pass(kScalar, in, out, n, th);
                             }));
    t.push_back(scan_variant("cpu_reduce_then_scan", "threads: reduce chunks, scan totals, scan from offsets",
                             "reduce-then-scan (Merrill and Garland 2016)",
                             [](const uint32_t* in, uint32_t* out, size_t n, int th) {
                               scan_reduce_then_scan(kScalar, in, out, n, th);
                             }));
#if SATLAB_CPU_X86
    t.push_back(scan_variant("cpu_reduce_then_scan_sse2", "the same, SSE2 in-register scans (2 shift-adds)",
                             "Hillis and Steele within a register",
                             [](const uint32_t* in, uint32_t* out, size_t n, int th) {
                               scan_reduce_then_scan(kSse2, in, out, n, th);
                             }));
    t.push_back(scan_variant(
        "cpu_reduce_then_scan_avx2", "the same, AVX2 in-register scans (3 shift-adds + lane carry)",
        "Hillis and Steele within a register",
        [](const uint32_t* in, uint32_t* out, size_t n, int th) {
          scan_reduce_then_scan(kAvx2, in, out, n, th);
        },
        needs_avx2));
#endif
    t.push_back(scan_variant("cpu_single_pass", "one pass: 256 KiB blocks reduced, chained, scanned from L2",
                             "chained scan (Yan, Long and Zhang 2013) with the best SIMD",
                             [](const uint32_t* in, uint32_t* out, size_t n, int th) {
                               scan_single_pass(best_kernels(), in, out, n, th, false);
                             }));
    t.push_back(scan_variant("cpu_single_pass_nt", "the same, non-temporal stores (no read for ownership)",
                             "streaming stores (Intel optimisation manual)",
                             [](const uint32_t* in, uint32_t* out, size_t n, int th) {
                               scan_single_pass(best_kernels(), in, out, n, th, true);
                             }));
    t.push_back(scan_variant("cpu_single_pass_prefetch",
                             "the same, the next block prefetched while this one is scanned",
                             "software prefetch (Intel optimisation manual)",
                             [](const uint32_t* in, uint32_t* out, size_t n, int th) {
                               scan_single_pass(best_kernels(), in, out, n, th, true, true);
                             }));
    return t;
  }();
  return table;
}

const CpuVariant* find_cpu_variant(const std::string& name) {
  for (const CpuVariant& v : cpu_variants())
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace satlab
