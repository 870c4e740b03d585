// Every registered scan, inclusive and exclusive, against the CPU reference over int32, uint32 (full
// range: sums wrap around) and float ([-1, 1)), on sizes 0, 1, 31, 32, 33, 1023, 1024, 1025, 2^20+7,
// 9000011 and 2^26, the output poisoned with 0xA5 bytes before every run so unwritten elements fail. Integer
// scans match bit for bit; float prefixes within gpu::kFloatSumRelTol * sum|x| of the prefix (the
// bound is justified in gpu/verify.cpp).
#include <gtest/gtest.h>

#include <cstring>

#include "gpu/verify.hpp"
#include "gpu_fixtures.hpp"

namespace satlab {
namespace {

class ScanVariant : public test::VariantTest {};

TEST_P(ScanVariant, MatchesCpuReferenceOnAwkwardSizesAndPoisonedOutput) {
  test::for_each_input(*v, [&](size_t n, DType t, const std::vector<uint32_t>& in) {
    std::vector<uint32_t> out(n + 1);
    for (bool inclusive : {true, false}) {
      SCOPED_TRACE(v->name + " n=" + std::to_string(n) + " " + to_string(t) + (inclusive ? " inclusive" : " exclusive"));
      gpu::run_scan(*v, in.data(), n, t, inclusive, out.data());
      EXPECT_EQ(gpu::check_scan(in.data(), n, t, inclusive, out.data()), "");
    }
  });
}

// Input and output one element past an allocation's start (4-byte but not 16-byte aligned), as a caller's
// sub-range is: variants with 16-byte vector loads or bulk copies take their scalar paths and still match.
TEST_P(ScanVariant, MatchesOnInputAndOutputOffTheirAlignment) {
  test::for_each_offset_input(*v, [&](size_t n, DType t, const std::vector<uint32_t>& in) {
    std::vector<uint32_t> out(n);
    SCOPED_TRACE(v->name + " n=" + std::to_string(n) + " " + to_string(t) + " offset 1");
    gpu::run_scan(*v, in.data(), n, t, true, out.data(), 1);
    EXPECT_EQ(gpu::check_scan(in.data(), n, t, true, out.data()), "");
  });
}

INSTANTIATE_TEST_SUITE_P(Registry, ScanVariant, test::variants_of(Family::Scan), test::variant_param_name);

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
