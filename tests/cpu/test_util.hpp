// Shared helpers for the CPU tests: seeded random images (the seed is printed on failure).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "core/image.hpp"

namespace satlab::test {

// A fresh seed per call; SCOPED_TRACE it so a failure can be replayed.
inline uint32_t fresh_seed() {
  return std::random_device{}();
}

inline ImageRGBA8 random_image(int w, int h, uint32_t seed) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(seed);
  for (auto& v : img.data) v = uint8_t(rng() & 0xff);
  return img;
}

}  // namespace satlab::test
