// Aperture images from files (core/aperture_image.hpp): `--aperture-image`, presets and ground-truth cases
// name a built-in picture or a greyscale image file; files are read here and registered with core.
#pragma once
#include <string>

namespace satlab::io {

// The key Params::aperture_image takes for `spec`: a built-in's name as it is; a file read (any format
// load_image reads), checked (aperture_image_from_pixels) and registered under its path. Throws
// satlab::Error with one line naming the file and what is wrong.
std::string use_aperture_image(const std::string& spec);

}  // namespace satlab::io
