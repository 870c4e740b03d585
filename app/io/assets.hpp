// Where the bundled scenes live: $SATLAB_ASSETS, then next to the executable (build tree or install
// prefix), then the source tree the binary was built from.
#pragma once
#include <string>

namespace satlab::io {

std::string assets_dir();  // throws satlab::Error listing the places it looked
std::string default_scene_image();
std::string default_scene_depth();

}  // namespace satlab::io
