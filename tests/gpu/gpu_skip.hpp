// The GPU tests' one skip rule: without a usable CUDA device a test is skipped with the probe's reason
// (CTest reports it as skipped, never as passed).
#pragma once
#include <gtest/gtest.h>

#include "gpu/device.hpp"

#define SKIP_WITHOUT_GPU()                                                              \
  do {                                                                                  \
    if (!::satlab::gpu::probe().available) GTEST_SKIP() << ::satlab::gpu::probe().reason; \
  } while (0)
