// The CPU references of the compaction and sort families (core/reference.hpp) against the standard
// library: compact_at_least equals std::stable_partition's kept part, sort_pairs equals std::stable_sort
// by key (values of equal keys in input order), on random inputs of odd sizes, 0 and 1 elements, all-equal,
// sorted, reverse-sorted and few-distinct keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "core/reference.hpp"

namespace satlab {
namespace {

const size_t kSizes[] = {0, 1, 2, 31, 255, 256, 257, 4097, 65537, 100003};

std::vector<int32_t> stable_partition_kept(std::vector<int32_t> v, int32_t threshold) {
  const auto mid = std::stable_partition(v.begin(), v.end(), [&](int32_t x) { return x >= threshold; });
  v.erase(mid, v.end());
  return v;
}

TEST(CompactReference, EqualsStablePartitionForEveryThreshold) {
  std::mt19937 rng(7);
  for (size_t n : kSizes) {
    std::vector<int32_t> in(n);
    for (auto& x : in) x = int32_t(rng() % 2001) - 1000;
    for (int32_t threshold : {800, 0, -1000, 1000, 1001, INT32_MIN, INT32_MAX}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " threshold " + std::to_string(threshold));
      std::vector<int32_t> out(n, 0x5a5a5a5a);
      const size_t k = compact_at_least(in.data(), n, threshold, out.data());
      out.resize(k);
      EXPECT_EQ(out, stable_partition_kept(in, threshold));
    }
  }
}

TEST(CompactReference, KeepsTheInputOrderOfEqualAndExtremeValues) {
  const std::vector<int32_t> in = {5, INT32_MIN, 5, INT32_MAX, -1, 5, 0, INT32_MAX};
  std::vector<int32_t> out(in.size());
  out.resize(compact_at_least(in.data(), in.size(), 0, out.data()));
  EXPECT_EQ(out, (std::vector<int32_t>{5, 5, INT32_MAX, 5, 0, INT32_MAX}));
}

// kind 0: random over the full range, 1: all equal, 2: repeats in the high digit only, 3: sorted
// (n * 40503 < 2^32), 4: reverse sorted, 5: few distinct values in which every digit varies.
uint32_t key_of(size_t i, int kind, std::mt19937& rng) {
  if (kind == 0) return rng();
  if (kind == 1) return 0xDEADBEEFu;
  if (kind == 2) return uint32_t(i * 2654435761u % 7919u) << 20;
  if (kind == 3) return uint32_t(i) * 40503u;
  if (kind == 4) return ~(uint32_t(i) * 40503u);
  return (rng() % 16) * 0x11111111u;
}

std::vector<uint32_t> keys_of(size_t n, int kind, std::mt19937& rng) {
  std::vector<uint32_t> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = key_of(i, kind, rng);
  return k;
}

TEST(SortReference, EqualsStableSortByKeyWithValuesInInputOrder) {
  std::mt19937 rng(11);
  for (size_t n : kSizes) {
    for (int kind = 0; kind < 6; ++kind) {
      SCOPED_TRACE("n=" + std::to_string(n) + " kind " + std::to_string(kind));
      const auto keys = keys_of(n, kind, rng);
      std::vector<uint32_t> values(n);
      std::iota(values.begin(), values.end(), 0u);
      std::vector<std::pair<uint32_t, uint32_t>> want(n);
      for (size_t i = 0; i < n; ++i) want[i] = {keys[i], values[i]};
      std::stable_sort(want.begin(), want.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<uint32_t> ko(n, 0xA5A5A5A5u), vo(n, 0xA5A5A5A5u);
      sort_pairs(keys.data(), values.data(), n, ko.data(), vo.data());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(ko[i], want[i].first) << "pair " << i;
        ASSERT_EQ(vo[i], want[i].second) << "pair " << i;
      }
    }
  }
}

}  // namespace
}  // namespace satlab
