// ICC colour profiles (phones tag their photos Display P3) converted to sRGB with lcms2, which is opened
// at run time (app/io/dynlib.hpp). Each function returns "" when the pixels were converted, else a short
// reason why they were left as they are (the loader shows it as a note).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

std::string icc_to_srgb(const std::vector<uint8_t>& profile, ImageRGBA8& image);
std::string icc_to_srgb(const std::vector<uint8_t>& profile, ImageF& rgba01);  // 4 channels in [0,1]

// The conversion of icc_to_srgb (RGBA8), made once and run over any number of pixels in as many calls as
// wanted: the rows of a streamed image come out as the whole image's would.
class SrgbConverter {
 public:
  explicit SrgbConverter(const std::vector<uint8_t>& profile);
  ~SrgbConverter();
  SrgbConverter(const SrgbConverter&) = delete;
  SrgbConverter& operator=(const SrgbConverter&) = delete;
  const std::string& why_not() const { return why_; }  // "" when it converts; else run() leaves pixels alone
  void run(uint8_t* rgba8, size_t pixels) const;

 private:
  void* transform_ = nullptr;
  std::string why_;
};
// CMYK pixels (4 bytes each; `inverted`: 255 is no ink, as Adobe writes them) through a CMYK profile into
// `out` (its size set by the caller); alpha is set opaque.
std::string icc_cmyk_to_srgb(const std::vector<uint8_t>& profile, const uint8_t* cmyk, bool inverted,
                             ImageRGBA8& out);

// An ICC profile with the sRGB curve and sRGB primaries, or with `p3` Display P3's, written by lcms2; for
// tests. Empty where lcms2 is not available.
std::vector<uint8_t> make_rgb_profile(bool p3);

}  // namespace satlab::io
