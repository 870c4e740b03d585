// Every registered reduction against the CPU reference: sum, min and max over int32 and float, on
// random inputs (int32 in [-1000, 1000], float in [-1, 1): negative values, no NaN) of sizes 0, 1, 31,
// 32, 33, 1023, 1024, 1025, 2^20+7, 9000011 and 2^26, the output poisoned before every run. Int32 sums wrap
// modulo 2^32 and must match bit for bit; float sums are compared within gpu::kFloatSumRelTol * sum|x|
// (the bound is justified in gpu/verify.cpp); min and max are exact.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu/verify.hpp"
#include "gpu_fixtures.hpp"

namespace satlab {
namespace {

class ReduceVariant : public test::VariantTest {};

TEST_P(ReduceVariant, MatchesCpuReferenceOnAwkwardSizesAndPoisonedOutput) {
  test::for_each_input(*v, [&](size_t n, DType t, const std::vector<uint32_t>& in) {
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max}) {
      SCOPED_TRACE(v->name + " n=" + std::to_string(n) + " " + to_string(t) + " " + to_string(op));
      uint32_t result = 0;
      gpu::run_reduce(*v, in.data(), n, t, op, &result);
      EXPECT_EQ(gpu::check_reduce(in.data(), n, t, op, &result), "");
    }
  });
}

// The input one element past an allocation's start (not 16-byte aligned): vector and bulk loads give way.
TEST_P(ReduceVariant, MatchesOnAnInputOffItsAlignment) {
  test::for_each_offset_input(*v, [&](size_t n, DType t, const std::vector<uint32_t>& in) {
    SCOPED_TRACE(v->name + " n=" + std::to_string(n) + " " + to_string(t) + " offset 1");
    uint32_t result = 0;
    gpu::run_reduce(*v, in.data(), n, t, ReduceOp::Sum, &result, 1);
    EXPECT_EQ(gpu::check_reduce(in.data(), n, t, ReduceOp::Sum, &result), "");
  });
}

INSTANTIATE_TEST_SUITE_P(Registry, ReduceVariant, test::variants_of(Family::Reduce),
                         test::variant_param_name);

// The check itself must be able to fail: a result off by one, or left poisoned, is reported.
TEST(ReduceCheck, RejectsAWrongSumAndAPoisonedResult) {
  const auto in = gpu::random_input(1000, DType::I32, 3);
  int32_t sum = 0;
  for (uint32_t x : in) sum = int32_t(uint32_t(sum) + x);
  int32_t wrong = sum + 1, poison;
  std::memset(&poison, 0xA5, 4);
  EXPECT_EQ(gpu::check_reduce(in.data(), in.size(), DType::I32, ReduceOp::Sum, &sum), "");
  EXPECT_NE(gpu::check_reduce(in.data(), in.size(), DType::I32, ReduceOp::Sum, &wrong), "");
  EXPECT_NE(gpu::check_reduce(in.data(), in.size(), DType::I32, ReduceOp::Max, &poison), "");
}

}  // namespace
}  // namespace satlab
