// Shared by the reduction, scan, compaction and sort variant tests: the sizes of the issue (plus 0),
// limited by the environment variable SATLAB_TEST_MAX_N (the sanitizer runs use a small limit), and the
// registry's variants of one family as test parameters.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "gpu/bench/primitives.hpp"
#include "gpu/device.hpp"

namespace satlab::test {

// The largest element (or pixel) count a GPU test may use: SATLAB_TEST_MAX_N, unlimited when unset. The
// sanitizer runs (tools/device.sh sanitize-all) set it; the SAT and pipeline tests skip larger cases too.
inline size_t test_max_n() {
  const char* e = std::getenv("SATLAB_TEST_MAX_N");
  return e && *e ? std::strtoull(e, nullptr, 10) : ~size_t(0);
}

// SATLAB_TEST_FIRST_POLL_NS=NS forces the look-back scans' and the compaction's first-poll pause to NS at
// every size (gpu::force_first_poll_ns), so that the sanitizer runs (tools/device.sh primitives), which
// take small sizes only, cover the pause too. Applied once, before any test runs.
inline const bool kFirstPollForced = [] {
  const char* e = std::getenv("SATLAB_TEST_FIRST_POLL_NS");
  if (!e || !*e) return false;
  gpu::force_first_poll_ns(long(std::strtoul(e, nullptr, 10)));
  return true;
}();

inline std::vector<size_t> variant_test_sizes() {
  // 9000011: several rounds of tiles of every persistent grid (each block's ring of stages wraps around).
  const size_t all[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, (size_t(1) << 20) + 7, 9000011, size_t(1) << 26};
  const size_t max = test_max_n();
  std::vector<size_t> s;
  for (size_t n : all)
    if (n <= max) s.push_back(n);
  return s;
}

inline std::vector<std::string> variant_names(Family f) {
  std::vector<std::string> names;
  for (const Variant& v : gpu::variants())
    if (v.family == f) names.push_back(v.name);
  if (names.empty()) names.push_back("none");  // a build without variants still shows one skipped test
  return names;
}

inline const Variant* find_variant(const std::string& name) {
  for (const Variant& v : gpu::variants())
    if (v.name == name) return &v;
  return nullptr;
}

// Bytes where a GPU image differs from the CPU's: how many, the first one, and a message naming it.
struct ByteDiff {
  size_t bad = 0, first = 0;
  std::string message;  // "" when equal
};
inline ByteDiff byte_diff(const ImageRGBA8& gpu, const ImageRGBA8& cpu) {
  ByteDiff d;
  if (gpu.data.size() != cpu.data.size()) {
    d.bad = ~size_t(0), d.message = "sizes differ";
    return d;
  }
  for (size_t i = 0; i < cpu.data.size(); ++i)
    if (gpu.data[i] != cpu.data[i] && d.bad++ == 0) d.first = i;
  if (d.bad)
    d.message = std::to_string(d.bad) + " bytes differ, the first at byte " + std::to_string(d.first) + " (" +
                std::to_string(int(gpu.data[d.first])) + " vs " + std::to_string(int(cpu.data[d.first])) + ")";
  return d;
}

}  // namespace satlab::test
