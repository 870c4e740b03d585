// OpenEXR (app/io/exr.cpp): read through OpenEXRCore, opened at run time (Debian 12: libopenexr-3-1-30).
// Colour files reach load_image (linear light encoded to sRGB), depth reaches load_depth (the Z channel as
// stored); a sequence of them is a clip (app/io/clip.hpp), a beauty pass with its Z pass per frame.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

bool is_exr(const std::vector<uint8_t>& head);  // the magic number 76 2f 31 01
// Whether OpenEXRCore could be opened; else `why` names the package to install.
bool exr_available(std::string* why = nullptr);
// The channel load_depth reads from an OpenEXR file: "" (the default) takes Z, else depth, else the first;
// a name takes that channel (and refuses a file without it, naming those it has). `--z-channel` sets it.
void set_exr_depth_channel(const std::string& name);
// Whether `path` is an OpenEXR file whose first part has a depth channel (Z or depth), or any OpenEXR file
// once a channel is named (load_depth then refuses one without it): a render or the app then takes its
// depth from the file itself. Never throws.
bool exr_has_depth(const std::string& path);
// The channels of the file's first part, sorted as stored; throws satlab::Error naming the file.
std::vector<std::string> exr_channels(const std::string& path);
// The depth channel (as set_exr_depth_channel says) of the first part, as stored (NaN and inf kept for
// load_depth to fill); `channel_used` receives its name.
ImageF load_exr_depth(const std::string& path, std::string* channel_used = nullptr);
// Writes `image` to `tmp` (a new file: save_image renames it) as OpenEXR RGBA half, ZIP-compressed scanlines:
// the 8-bit sRGB codes decoded to linear light, alpha as it is; reading it back gives the same 8-bit image.
// The pipeline filters 8-bit RGBA, so a result holds no value above 1 and no more than 8 bits of precision.
// false, errno set, when the library fails to write; throws satlab::Error without the library.
bool write_exr_rgba8(const std::string& tmp, const ImageRGBA8& image);

}  // namespace satlab::io
