// HEIC/HEIF and AVIF: libheif is opened at run time (app/io/dynlib.hpp); the reader is in decoded.hpp,
// reached through load_image.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

// Whether libheif could be opened; else `why` says which package to install.
bool heif_available(std::string* why);

// Writes `image` as HEIC (HEVC) or AVIF (AV1) with libheif's encoder, stored with the HEIF transformation
// of EXIF orientation `orientation` (irot/imir). For tests. Returns "" on success, else why not (no
// libheif, no encoder for the format, an encoder error). `exif`: an EXIF block stored beside (as phones
// store one, whose Orientation repeats what irot/imir say). `nclx_primaries` > 0: the colour primaries
// code point of the nclx colour box (12: Display P3).
std::string write_heif(const std::string& path, const ImageRGBA8& image, bool avif, int orientation = 1,
                       const std::vector<uint8_t>& exif = {}, int nclx_primaries = 0);

}  // namespace satlab::io
