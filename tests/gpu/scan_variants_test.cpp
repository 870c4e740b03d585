// Every registered scan, inclusive and exclusive, against the CPU reference over int32, uint32 (full
// range: sums wrap around) and float ([-1, 1)), on sizes 0, 1, 31, 32, 33, 1023, 1024, 1025, 2^20+7
// and 2^26, the output poisoned with 0xA5 bytes before every run so unwritten elements fail. Integer
// scans match bit for bit; float prefixes within gpu::kFloatSumRelTol * sum|x| of the prefix (the
// bound is justified in gpu/verify.cpp).
#include <gtest/gtest.h>

#include <cstring>

#include "gpu/verify.hpp"
#include "variant_test_util.hpp"

namespace satlab {
namespace {

class ScanVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(ScanVariant, MatchesCpuReferenceOnAwkwardSizesAndPoisonedOutput) {
  if (!gpu::probe().available) GTEST_SKIP() << gpu::probe().reason;
  const Variant* v = test::find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  uint64_t seed = 1;
  for (size_t n : test::variant_test_sizes()) {
    for (DType t : v->dtypes) {
      const std::string why = v->refuses(n, t);
      if (!why.empty()) {
        std::printf("  %s refuses n=%zu %s: %s\n", v->name.c_str(), n, to_string(t), why.c_str());
        continue;
      }
      const auto in = gpu::random_input(n, t, seed++);
      std::vector<uint32_t> out(n + 1);
      for (bool inclusive : {true, false}) {
        SCOPED_TRACE(v->name + " n=" + std::to_string(n) + " " + to_string(t) + (inclusive ? " inclusive" : " exclusive"));
        gpu::run_scan(*v, in.data(), n, t, inclusive, out.data());
        EXPECT_EQ(gpu::check_scan(in.data(), n, t, inclusive, out.data()), "");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, ScanVariant, ::testing::ValuesIn(test::variant_names(Family::Scan)),
                         [](const auto& info) { return info.param; });

// The check itself must be able to fail: one wrong or unwritten element is reported.
TEST(ScanCheck, RejectsOneWrongElementAndAPoisonedTail) {
  for (DType t : {DType::U32, DType::F32}) {
    const auto in = gpu::random_input(3000, t, 5);
    std::vector<uint32_t> out(in.size());
    if (t == DType::U32) {
      uint32_t s = 0;
      for (size_t i = 0; i < in.size(); ++i) out[i] = s += in[i];
    } else {
      double s = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        float x, y;
        std::memcpy(&x, &in[i], 4);
        s += x;
        y = float(s);
        std::memcpy(&out[i], &y, 4);
      }
    }
    EXPECT_EQ(gpu::check_scan(in.data(), in.size(), t, true, out.data()), "");
    auto wrong = out;
    wrong[1234] ^= 0x00400000u;
    EXPECT_NE(gpu::check_scan(in.data(), in.size(), t, true, wrong.data()), "");
    auto poisoned = out;
    std::memset(&poisoned[2990], 0xA5, 10 * 4);
    EXPECT_NE(gpu::check_scan(in.data(), in.size(), t, true, poisoned.data()), "");
  }
}

}  // namespace
}  // namespace satlab
