// Linked when satlab is configured with SATLAB_WITH_GUI=OFF.
#include <cstdio>

#include "app/gui/gui.hpp"

namespace satlab::gui {

int run(const Options&) {
  std::fprintf(stderr, "satlab: built without the GUI (SATLAB_WITH_GUI=OFF); use `satlab render`\n");
  return 2;
}

}  // namespace satlab::gui
