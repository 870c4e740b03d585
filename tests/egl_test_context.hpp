// For tests that draw: the app's own headless context (gui::open_headless: the first EGL device, or
// Mesa's surfaceless platform, that gives OpenGL 4.5 core; NVIDIA's on the GPU machine, Mesa's software
// device in CI), made once and kept current on this thread for the rest of the test binary. It is never
// torn down: Mesa's EGL teardown at exit leaves allocations LeakSanitizer reports (asan preset).
#pragma once
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <string>

#include "app/gui/surface.hpp"
#include "core/error.hpp"

namespace satlab::test {

// "" when a context is current, else why not (for GTEST_SKIP).
inline std::string make_egl_context() {
  static std::string why;
  static gui::Surface* const surface = []() -> gui::Surface* {  // reachable to the end: not a leak
    try {
      return gui::open_headless(16, 16).release();
    } catch (const Error& e) {
      why = e.what();
      return nullptr;
    }
  }();
  (void)surface;
  return why;
}

}  // namespace satlab::test

// For a test that draws: skips it, with the reason, where no context can be made.
#define SKIP_WITHOUT_EGL()                                                                 \
  do {                                                                                     \
    const std::string satlab_why_ = ::satlab::test::make_egl_context();                    \
    if (!satlab_why_.empty()) GTEST_SKIP() << satlab_why_;                                 \
  } while (0)
