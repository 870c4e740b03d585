// Where the bundled scenes live: $SATLAB_ASSETS, then PREFIX/share/satlab/assets beside an installed
// executable (PREFIX/bin), then, for binaries of the build tree only, the source tree they were built from.
#pragma once
#include <string>

namespace satlab::io {

std::string assets_dir();  // throws satlab::Error listing the places it looked
std::string default_scene_image();
std::string default_scene_depth();

}  // namespace satlab::io
