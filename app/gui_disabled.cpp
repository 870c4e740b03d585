// Linked when satlab is configured with SATLAB_WITH_GUI=OFF.
#include <cstdio>

#include "app/gui/bench_highlights_gl.hpp"
#include "app/gui/gui.hpp"

namespace satlab::gui {

int run(const Options&) {
  std::fprintf(stderr, "satlab: built without the GUI (SATLAB_WITH_GUI=OFF); use `satlab render`\n");
  return 2;
}

std::vector<HighlightBenchRow> bench_highlights_gl(int, int, int, int) {
  return {{"highlights_gl.skipped", "built without the GUI (no OpenGL)", 0}};
}

}  // namespace satlab::gui
