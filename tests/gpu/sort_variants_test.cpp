// Every registered radix sort against std::stable_sort by key (values 0..n-1, so an unstable pair shows)
// on random, all-equal, sorted, reverse-sorted and few-distinct keys at sizes 0, 1, odd, tile edges and
// 2^20+7 (2^26 is left to the compactions: a CPU stable_sort of it per pattern would dominate the suite);
// outputs poisoned before every run (gpu::run_sort). Also the one-sweep sort's device-level entry with
// fewer key bits (one, two and three passes: the ping-pong must end in the output).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "gpu/sort/onesweep.hpp"
#include "gpu/verify.hpp"
#include "gpu_fixtures.hpp"

namespace satlab {
namespace {

std::vector<size_t> sort_sizes() {
  std::vector<size_t> s;
  for (size_t n : test::variant_test_sizes())
    if (n <= (size_t(1) << 21)) s.push_back(n);
  // Tile edges of every shape: 4096 (radix_scan, radix_onesweep), 8192 pairs (radix_onesweep_32x2); 6144 too.
  for (size_t n : {size_t(4095), size_t(4096), size_t(4097), size_t(3 * 4096 + 17), size_t(6143), size_t(6144),
                   size_t(6145), size_t(2 * 6144 + 17), size_t(8191), size_t(8192), size_t(8193),
                   size_t(2 * 8192 + 17)})
    if (n <= test::test_max_n()) s.push_back(n);
  return s;
}

// "" when keys and values equal std::stable_sort's by (key & mask).
std::string against_stable_sort(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& values,
                                const std::vector<uint32_t>& ko, const std::vector<uint32_t>& vo,
                                uint32_t mask = 0xFFFFFFFFu) {
  std::vector<std::pair<uint32_t, uint32_t>> want(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) want[i] = {keys[i], values[i]};
  std::stable_sort(want.begin(), want.end(),
                   [&](const auto& a, const auto& b) { return (a.first & mask) < (b.first & mask); });
  for (size_t i = 0; i < want.size(); ++i)
    if (ko[i] != want[i].first || vo[i] != want[i].second)
      return "pair " + std::to_string(i) + " of " + std::to_string(want.size()) + ": got (" +
             std::to_string(ko[i]) + ", " + std::to_string(vo[i]) + "), want (" +
             std::to_string(want[i].first) + ", " + std::to_string(want[i].second) + ")";
  return "";
}

class SortVariant : public test::VariantTest {};

TEST_P(SortVariant, EqualsStableSortOnEveryKeyPattern) {
  uint64_t seed = 1;
  for (size_t n : sort_sizes()) {
    if (!v->refuses(n, DType::U32).empty()) continue;
    std::vector<uint32_t> values(n), ko(n), vo(n);
    std::iota(values.begin(), values.end(), 0u);
    for (gpu::KeyPattern p : {gpu::KeyPattern::Random, gpu::KeyPattern::AllEqual, gpu::KeyPattern::Sorted,
                              gpu::KeyPattern::Reversed, gpu::KeyPattern::FewDistinct}) {
      SCOPED_TRACE(v->name + " n=" + std::to_string(n) + " " + gpu::to_string(p));
      const auto keys = gpu::sort_keys(n, p, seed++);
      gpu::run_sort(*v, keys.data(), values.data(), n, ko.data(), vo.data());
      EXPECT_EQ(against_stable_sort(keys, values, ko, vo), "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SortVariant, test::variants_of(Family::Sort), test::variant_param_name);

TEST(OnesweepSort, SortsByTheLowEndBitsOnlyAndStably) {
  SKIP_WITHOUT_GPU();
  const size_t n = std::min<size_t>(3 * 4096 + 1001, test::test_max_n());
  const auto keys = gpu::sort_keys(n, gpu::KeyPattern::Random, 99);
  std::vector<uint32_t> values(n), ko(n), vo(n);
  std::iota(values.begin(), values.end(), 0u);
  for (int end_bit : {8, 16, 24, 32}) {
    SCOPED_TRACE("end_bit " + std::to_string(end_bit));
    gpu::DeviceBuffer k(n * 4), v(n * 4), kout(n * 4), vout(n * 4),
        temp(gpu::sort::onesweep_temp_bytes(n, end_bit));
    ASSERT_EQ(cudaMemcpy(k.p, keys.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(v.p, values.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(kout.p, 0xA5, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMemset(vout.p, 0xA5, n * 4), cudaSuccess);
    gpu::sort::onesweep_sort_pairs(static_cast<const uint32_t*>(k.p), static_cast<const uint32_t*>(v.p),
                                   static_cast<uint32_t*>(kout.p), static_cast<uint32_t*>(vout.p), n, temp.p,
                                   nullptr, end_bit);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(ko.data(), kout.p, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(vo.data(), vout.p, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    const uint32_t mask = end_bit == 32 ? 0xFFFFFFFFu : (1u << end_bit) - 1u;
    EXPECT_EQ(against_stable_sort(keys, values, ko, vo, mask), "");
  }
}

// The histogram pass reads 16 bytes at a time from the first 16-byte boundary on: keys one element past
// an allocation's start (and odd lengths) take its head and tail paths.
TEST(OnesweepSort, SortsKeysOffByOneElementFromAnAllocation) {
  SKIP_WITHOUT_GPU();
  for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(4096 + 3), size_t(3 * 4096 + 1001)}) {
    n = std::min(n, test::test_max_n());
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto keys = gpu::sort_keys(n, gpu::KeyPattern::Random, 1000 + n);
    std::vector<uint32_t> values(n), ko(n), vo(n);
    std::iota(values.begin(), values.end(), 0u);
    gpu::DeviceBuffer k((n + 1) * 4), v((n + 1) * 4), kout(n * 4), vout(n * 4), temp(gpu::sort::onesweep_temp_bytes(n));
    const auto* kin = static_cast<const uint32_t*>(k.p) + 1;
    const auto* vin = static_cast<const uint32_t*>(v.p) + 1;
    ASSERT_EQ(cudaMemcpy(const_cast<uint32_t*>(kin), keys.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(const_cast<uint32_t*>(vin), values.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(kout.p, 0xA5, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMemset(vout.p, 0xA5, n * 4), cudaSuccess);
    gpu::sort::onesweep_sort_pairs(kin, vin, static_cast<uint32_t*>(kout.p), static_cast<uint32_t*>(vout.p), n,
                                   temp.p, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(ko.data(), kout.p, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(vo.data(), vout.p, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(against_stable_sort(keys, values, ko, vo), "");
  }
}

// The check itself must be able to fail: two equal keys with their values swapped (unstable), a wrong key.
TEST(SortCheck, RejectsAnUnstablePairAndAWrongKey) {
  const std::vector<uint32_t> keys = {5, 3, 5, 1}, values = {0, 1, 2, 3};
  const std::vector<uint32_t> ko = {1, 3, 5, 5}, vo = {3, 1, 0, 2};
  EXPECT_EQ(gpu::check_sort(keys.data(), values.data(), 4, ko.data(), vo.data()), "");
  EXPECT_EQ(against_stable_sort(keys, values, ko, vo), "");
  const std::vector<uint32_t> unstable = {3, 1, 2, 0};
  EXPECT_NE(gpu::check_sort(keys.data(), values.data(), 4, ko.data(), unstable.data()), "");
  EXPECT_NE(against_stable_sort(keys, values, ko, unstable), "");
  const std::vector<uint32_t> wrong = {1, 3, 4, 5};
  EXPECT_NE(gpu::check_sort(keys.data(), values.data(), 4, wrong.data(), vo.data()), "");
}

}  // namespace
}  // namespace satlab
