// Every registered compaction against std::stable_partition (the kept part, in input order) on int32 in
// [-1000, 1000] at the sizes (0, 1, odd, tile edges, 2^20+7, 9000011, 2^26) with thresholds keeping about
// 10%, half, all and none, and on patterns that stress the ranks: alternating, runs across tile edges,
// one kept element per 33. Outputs and count are poisoned before every run (gpu::run_compact).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include <cuda_runtime.h>

#include "gpu/verify.hpp"
#include "gpu_fixtures.hpp"

namespace satlab {
namespace {

std::vector<size_t> compact_sizes() {
  std::vector<size_t> s = test::variant_test_sizes();
  for (size_t n : {size_t(4095), size_t(4096), size_t(4097), size_t(3 * 4096 + 17), size_t(8191), size_t(8192),
                   size_t(8193), size_t(3 * 8192 + 17)})
    if (n <= test::test_max_n()) s.push_back(n);
  return s;
}

// "" when the GPU's count and kept elements equal std::stable_partition's.
std::string against_stable_partition(const std::vector<int32_t>& in, int32_t threshold, uint32_t count,
                                     const std::vector<int32_t>& out) {
  std::vector<int32_t> want = in;
  want.erase(std::stable_partition(want.begin(), want.end(), [&](int32_t x) { return x >= threshold; }),
             want.end());
  if (count != want.size()) return "count " + std::to_string(count) + ", want " + std::to_string(want.size());
  const auto bad = std::mismatch(want.begin(), want.end(), out.begin());
  if (bad.first == want.end()) return "";
  return "kept element " + std::to_string(bad.first - want.begin()) + ": got " + std::to_string(*bad.second) +
         ", want " + std::to_string(*bad.first);
}

class CompactVariant : public test::VariantTest {};

TEST_P(CompactVariant, EqualsStablePartitionOnAwkwardSizesAndThresholds) {
  uint64_t seed = 1;
  for (size_t n : compact_sizes()) {
    if (!v->refuses(n, DType::I32).empty()) continue;
    const auto bits = gpu::random_input(n, DType::I32, seed++);
    std::vector<int32_t> in(n), out(n);
    if (n) std::memcpy(in.data(), bits.data(), n * 4);
    for (int32_t threshold : {800, 0, INT32_MIN, INT32_MAX}) {
      SCOPED_TRACE(v->name + " n=" + std::to_string(n) + " threshold " + std::to_string(threshold));
      const uint32_t count = gpu::run_compact(*v, in.data(), n, threshold, out.data());
      EXPECT_EQ(against_stable_partition(in, threshold, count, out), "");
    }
  }
}

TEST_P(CompactVariant, KeepsOrderOnAlternatingTileEdgeAndSparsePatterns) {
  const size_t n = std::min<size_t>(5 * 4096 + 33, test::test_max_n());
  for (int pattern = 0; pattern < 3; ++pattern) {
    std::vector<int32_t> in(n), out(n);
    for (size_t i = 0; i < n; ++i) {
      const bool keep = pattern == 0   ? i % 2 == 1
                        : pattern == 1 ? (i % 4096 < 40 || i % 4096 >= 4000)
                                       : i % 33 == 0;
      in[i] = keep ? int32_t(i) : -int32_t(i) - 1;  // distinct values: any reordering shows
    }
    SCOPED_TRACE(v->name + " pattern " + std::to_string(pattern));
    const uint32_t count = gpu::run_compact(*v, in.data(), n, 0, out.data());
    EXPECT_EQ(against_stable_partition(in, 0, count, out), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, CompactVariant, test::variants_of(Family::Compact),
                         test::variant_param_name);

// The single-pass compaction reads 16 bytes a lane from 16-byte-aligned inputs; an input one element past
// an allocation's start takes its 4-byte path, which must give the same result.
TEST(CompactSinglePass, EqualsStablePartitionFromAnInputOffByOneElement) {
  SKIP_WITHOUT_GPU();
  const Variant* v = test::find_variant("compact_single_pass");
  ASSERT_NE(v, nullptr);
  uint64_t seed = 7;
  for (size_t n : {size_t(1), size_t(5), size_t(8191), size_t(8193), size_t(3 * 8192 + 17)}) {
    n = std::min(n, test::test_max_n());
    std::vector<int32_t> in(n), out(n);
    for (auto& x : in) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      x = int32_t(seed >> 33) % 1001;
    }
    SCOPED_TRACE("n=" + std::to_string(n));
    gpu::DeviceBuffer din((n + 1) * 4), dout(n * 4), dcount(4), temp(v->temp_bytes(n, DType::I32));
    ASSERT_EQ(cudaMemcpy(static_cast<int32_t*>(din.p) + 1, in.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(dout.p, 0xA5, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMemset(dcount.p, 0xA5, 4), cudaSuccess);
    CompactArgs a;
    a.in = static_cast<const int32_t*>(din.p) + 1;
    a.out = dout.p;
    a.count = dcount.p;
    a.n = n;
    a.threshold = 900;
    a.temp = temp.p;
    v->compact(a);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    uint32_t count = 0;
    ASSERT_EQ(cudaMemcpy(&count, dcount.p, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(out.data(), dout.p, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(against_stable_partition(in, 900, count, out), "");
  }
}

// The check itself must be able to fail: a wrong count, a swapped pair, a poisoned element.
TEST(CompactCheck, RejectsAWrongCountASwapAndAPoisonedElement) {
  const std::vector<int32_t> in = {3, -5, 7, 9, -1, 11};
  std::vector<int32_t> good = {3, 7, 9, 11};
  EXPECT_EQ(gpu::check_compact(in.data(), in.size(), 0, good.data(), 4), "");
  EXPECT_EQ(against_stable_partition(in, 0, 4, good), "");
  EXPECT_NE(gpu::check_compact(in.data(), in.size(), 0, good.data(), 3), "");
  auto swapped = good;
  std::swap(swapped[1], swapped[2]);
  EXPECT_NE(gpu::check_compact(in.data(), in.size(), 0, swapped.data(), 4), "");
  EXPECT_NE(against_stable_partition(in, 0, 4, swapped), "");
  auto poisoned = good;
  std::memset(&poisoned[3], 0xA5, 4);
  EXPECT_NE(gpu::check_compact(in.data(), in.size(), 0, poisoned.data(), 4), "");
}

}  // namespace
}  // namespace satlab
