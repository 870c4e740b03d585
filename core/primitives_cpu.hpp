// The CPU's own scan and reduction variants, so that the comparison of variants the Lab and `satlab bench`
// exist for works on every machine, a CUDA-less one included: from a sequential loop through a
// work-efficient tree, threaded three- and two-pass scans and SIMD in-register scans (SSE2, AVX2 chosen at
// run time from the CPU's features) to a single pass whose blocks stay in cache between their reduce and
// their scan. One table (cpu_variants), in the order of its steps; the bench measures each against the
// CPU's own copy bandwidth C in the same run. Elements are 32-bit integers with wrap-around arithmetic:
// int32 and uint32 give the same bits, as on the GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/variant.hpp"

namespace satlab {

struct CpuVariant {
  std::string name;              // stable id: "cpu_sequential", "cpu_single_pass_nt", ...
  Family family = Family::Scan;  // Scan or Reduce
  std::string label;             // shown in the Lab
  std::string source;            // where the method comes from
  // Minimum bytes through memory for n elements (scan: n read + n written; reduction: n read).
  std::function<double(size_t n)> bytes;
  // "" when this CPU can run it, else why not (AVX2 missing).
  std::function<std::string()> refuses;
  // Exactly one is set, matching `family`. threads <= 0: default_threads(). out may not alias in.
  std::function<void(const uint32_t* in, uint32_t* out, size_t n, int threads)> scan;  // inclusive
  std::function<uint32_t(const uint32_t* in, size_t n, int threads)> reduce;           // sum, wrapping
};

const std::vector<CpuVariant>& cpu_variants();
const CpuVariant* find_cpu_variant(const std::string& name);  // nullptr: none of that name
// The SIMD the CPU offers the variants: "avx2", "sse2" or "none".
std::string cpu_simd();

struct CpuPrimitiveRow {
  std::string variant, label;
  double median_ms = 0, bytes = 0, gbps = 0;  // median_ms 0: refused (note says why)
  bool correct = false;
  std::string note;
};
struct CpuPrimitiveTable {
  int threads = 0;
  double copy_gbps = 0;  // C: the fastest of three threaded copies as large as the output (cpu_copy_gbps),
                         // read + write bytes per second
  std::string simd;
  std::vector<CpuPrimitiveRow> rows;
};
// Every variant of `family` (Scan or Reduce) at n elements of random data: each run once and checked
// against the reference (poisoned output), then the median of `runs` timed after `warmup`; C measured in
// the same call, as the median of as many runs.
CpuPrimitiveTable bench_cpu_primitives(Family family, size_t n, int threads, int warmup = 2, int runs = 7);
// Whether `bytes` of data exceed the last-level cache, in words ("in + out 32 MiB, within the 480 MiB
// last-level cache: a cache's speed, not memory's"); its size from the C library where it says.
std::string cpu_cache_note(double bytes);
// C alone: the fastest of the medians of `runs` threaded copies of `bytes` (memcpy; non-temporal stores;
// and 256 KiB blocks claimed in turn, each read, then streamed out, as the single-pass scans move memory),
// in GB/s (read + write). With memcpy alone, a 16-thread scan with streaming stores passed 1.29 C on the
// GPU machine's host (glibc's memcpy kept to ordinary stores there); with the first two, 1.16 C.
double cpu_copy_gbps(size_t bytes, int threads, int runs);

}  // namespace satlab
