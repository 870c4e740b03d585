// Fuzz target: satlab::io::load_truth_cases (the ground-truth manifest of `satlab quality` and the app) on
// arbitrary bytes. Any input must either throw satlab::Error or give cases with valid parameters, non-empty
// names and paths, and crops of non-negative size; crashes, leaks, hangs and other exceptions (an nlohmann
// exception escaping) are findings.
#include <cstdint>
#include <cstdio>

#include "app/io/ground_truth.hpp"
#include "core/error.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = satlab::fuzz::write_input(data, size, "json");
  try {
    for (const satlab::io::TruthCase& c : satlab::io::load_truth_cases(path)) {
      satlab::validate(c.params);
      if (c.name.empty() || c.image.empty() || c.depth.empty() || c.reference.empty()) __builtin_trap();
      if (c.crop.x < 0 || c.crop.y < 0 || c.crop.w < 0 || c.crop.h < 0) __builtin_trap();
    }
  } catch (const satlab::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
