// The CPU's scan and reduction variants (core/primitives_cpu.hpp): every one equals the reference on
// awkward sizes (0, 1, primes, one either side of the SIMD widths and of the single pass's 64 Ki block, sizes
// that split over several threads), on all-ones bits (wrap-around) and random words, on 1 to 7 threads,
// with the output poisoned and the pointers off their vector alignment; and the bench checks and times each.
#include "core/primitives_cpu.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

const std::vector<size_t> kSizes = {0,     1,     2,     3,     5,      7,      8,      9,      15,
                                    16,    17,    31,    32,    33,     97,     1000,   16383,  16384,
                                    16385, 65535, 65536, 65537, 131073, 262147, 300007, 1048583};

TEST(CpuPrimitives, EveryVariantEqualsTheReferenceOnAwkwardSizesAndThreadCounts) {
  std::mt19937 rng(20261203);
  int ran = 0;
  for (const CpuVariant& v : cpu_variants()) {
    if (!v.refuses().empty()) {
      std::printf("%s: not run here: %s\n", v.name.c_str(), v.refuses().c_str());
      continue;
    }
    for (size_t n : kSizes)
      for (int pattern = 0; pattern < 2; ++pattern)
        for (int threads : {1, 2, 3, 7}) {
          if (n > 20000 && threads == 3 && pattern == 0) continue;  // enough of the large ones
          // One element of slack each side: the data starts off the 16- and 32-byte alignment.
          std::vector<uint32_t> in_buf(n + 2), out_buf(n + 2, 0xDEADBEEFu), ref(n);
          uint32_t* in = in_buf.data() + 1;
          uint32_t* out = out_buf.data() + 1;
          for (size_t i = 0; i < n; ++i) in[i] = pattern == 0 ? 0xFFFFFFFFu : uint32_t(rng());
          const std::string where = v.name + " n=" + std::to_string(n) +
                                    " threads=" + std::to_string(threads) +
                                    (pattern == 0 ? " all ones" : " random");
          if (v.scan) {
            inclusive_scan(in, ref.data(), n);
            v.scan(in, out, n, threads);
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], ref[i]) << where << " at " << i;
            EXPECT_EQ(out_buf.front(), 0xDEADBEEFu) << where << ": wrote before the output";
            EXPECT_EQ(out_buf.back(), 0xDEADBEEFu) << where << ": wrote past the output";
          } else {
            uint32_t sum = 0;
            for (size_t i = 0; i < n; ++i) sum += in[i];
            ASSERT_EQ(v.reduce(in, n, threads), sum) << where;
          }
          ++ran;
        }
  }
  EXPECT_GT(ran, 0);
}

TEST(CpuPrimitives, TheTableHasBothFamiliesUniqueNamesAndASource) {
  std::set<std::string> names;
  int scans = 0, reductions = 0;
  for (const CpuVariant& v : cpu_variants()) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_FALSE(v.label.empty()) << v.name;
    EXPECT_FALSE(v.source.empty()) << v.name;
    EXPECT_EQ(bool(v.scan), v.family == Family::Scan) << v.name;
    EXPECT_EQ(bool(v.reduce), v.family == Family::Reduce) << v.name;
    EXPECT_EQ(v.bytes(10), v.family == Family::Scan ? 80.0 : 40.0) << v.name;
    (v.family == Family::Scan ? scans : reductions)++;
    EXPECT_EQ(find_cpu_variant(v.name), &v);
  }
  EXPECT_GE(scans, 4);
  EXPECT_GE(reductions, 2);
  EXPECT_EQ(find_cpu_variant("no_such_variant"), nullptr);
  EXPECT_TRUE(cpu_simd() == "avx2" || cpu_simd() == "sse2" || cpu_simd() == "none") << cpu_simd();
}

TEST(CpuPrimitives, TheBenchChecksAndTimesEveryVariantOfTheFamily) {
  for (Family f : {Family::Scan, Family::Reduce}) {
    const CpuPrimitiveTable t = bench_cpu_primitives(f, 100003, 2, 0, 1);
    EXPECT_EQ(t.threads, 2);
    EXPECT_GT(t.copy_gbps, 0);
    size_t expected = 0;
    for (const CpuVariant& v : cpu_variants()) expected += v.family == f;
    ASSERT_EQ(t.rows.size(), expected);
    for (const CpuPrimitiveRow& r : t.rows) {
      if (r.median_ms <= 0) {  // refused: says why
        EXPECT_FALSE(r.note.empty()) << r.variant;
        continue;
      }
      EXPECT_TRUE(r.correct) << r.variant << ": " << r.note;
      EXPECT_GT(r.gbps, 0) << r.variant;
      EXPECT_DOUBLE_EQ(r.bytes, f == Family::Scan ? 8.0 * 100003 : 4.0 * 100003);
    }
  }
  EXPECT_THROW(bench_cpu_primitives(Family::Sort, 16, 1), Error);
  EXPECT_THROW(bench_cpu_primitives(Family::Scan, 0, 1), Error);
}

TEST(CpuPrimitives, TheCacheNoteSaysWhetherTheDataFitsTheLastCache) {
  const std::string small = cpu_cache_note(1024), huge = cpu_cache_note(double(size_t(1) << 40));
  EXPECT_NE(small.find("data "), std::string::npos) << small;
  if (small.find("unknown") == std::string::npos) {
    EXPECT_NE(small.find("within"), std::string::npos) << small;
    EXPECT_NE(huge.find("over twice"), std::string::npos) << huge;
  }
}

}  // namespace
}  // namespace satlab
