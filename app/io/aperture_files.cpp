#include "app/io/aperture_files.hpp"

#include "app/io/image_io.hpp"
#include "core/aperture_image.hpp"
#include "core/error.hpp"

namespace satlab::io {

std::string use_aperture_image(const std::string& spec) {
  if (spec.empty() || is_builtin_aperture(spec)) return spec;
  ImageRGBA8 img;
  try {
    img = load_image(spec);
  } catch (const Error& e) {
    throw Error("aperture image: " + std::string(e.what()) + " (or a built-in: " + builtin_aperture_list() + ")");
  }
  register_aperture_image(spec, aperture_image_from_pixels(img, "'" + spec + "'"));
  return spec;
}

}  // namespace satlab::io
