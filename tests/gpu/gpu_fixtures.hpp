// The GPU tests' shared set-up beyond the skip rule (gpu_skip.hpp): VariantTest, the fixture of the
// reduction, scan, compaction and sort suites; the loop over the test sizes and a variant's types; the check
// that every DoF mode or refiner is registered. Device memory: gpu::DeviceBuffer (gpu/host_timing.hpp).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/variant.hpp"
#include "gpu/host_timing.hpp"
#include "gpu/verify.hpp"
#include "gpu_skip.hpp"
#include "variant_test_util.hpp"

namespace satlab::test {

// Derive a suite from it, then INSTANTIATE_TEST_SUITE_P(Registry, Suite, variants_of(Family::...),
// variant_param_name).
class VariantTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    v = find_variant(GetParam());
    ASSERT_NE(v, nullptr) << GetParam() << " is not registered";
  }
  const Variant* v = nullptr;
};

inline auto variants_of(Family f) {
  return ::testing::ValuesIn(variant_names(f));
}
inline std::string variant_param_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

// Every entry of `entries` (DoF modes, refiners: anything with a name) is registered in family f with its
// entry point `entry` (&Variant::dof, ...) set.
template <typename Entries, typename Entry>
void expect_registered(Family f, const Entries& entries, Entry Variant::*entry) {
  for (const auto& e : entries) {
    bool found = false;
    for (const Variant& v : gpu::variants()) found |= v.family == f && v.name == e.name && bool(v.*entry);
    EXPECT_TRUE(found) << e.name << " is not registered";
  }
}

// Calls check(n, t, in) for every test size and every type the variant takes, on random input
// (gpu::random_input, seeds 1, 2, ...); prints the size and type pairs it refuses.
template <typename Check>
void for_each_input(const Variant& v, Check check) {
  uint64_t seed = 1;
  for (size_t n : variant_test_sizes())
    for (DType t : v.dtypes) {
      const std::string why = v.refuses(n, t);
      if (!why.empty()) {
        std::printf("  %s refuses n=%zu %s: %s\n", v.name.c_str(), n, to_string(t), why.c_str());
        continue;
      }
      check(n, t, gpu::random_input(n, t, seed++));
    }
}

// The sizes of the alignment tests (below, across and well past one tile), each dtype the variant takes:
// `check(n, t, in)` on fresh random inputs; sizes over SATLAB_TEST_MAX_N and refused ones are left out.
template <typename Check>
void for_each_offset_input(const Variant& v, Check check) {
  uint64_t seed = 101;
  for (size_t n : {size_t(1), size_t(4097), size_t(70001), (size_t(1) << 20) + 7})
    for (DType t : v.dtypes) {
      if (n > test_max_n() || !v.refuses(n, t).empty()) continue;
      check(n, t, gpu::random_input(n, t, seed++));
    }
}

}  // namespace satlab::test
