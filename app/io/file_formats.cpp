#include "app/io/file_formats.hpp"

#include <sstream>

namespace satlab::io {

const std::vector<FileFormat>& file_formats() {
  static const std::vector<FileFormat> formats = {
      // name, extensions, read note, image, depth, depth_listed, write note
      {"PNG", "png", "8/16-bit", true, true, true, "8-bit RGBA"},
      {"JPEG", "jpg jpeg", "RGB, grey, CMYK", true, true, false, "quality 95"},
      {"WebP", "webp", "", true, true, true, "lossless"},
      {"TIFF", "tif tiff", "8/16-bit", true, true, true, "8-bit RGBA"},
      {"HEIC/HEIF/AVIF", "heic heif avif", "with libheif installed", true, true, false, nullptr},
      {"BMP", "bmp", "", true, true, false, nullptr},
      {"TGA", "tga", "", true, true, false, nullptr},
      {"Radiance HDR", "hdr", "", true, true, true, nullptr},
      {"PFM", "pfm", "float", false, true, true, nullptr},
      {"OpenEXR", "exr", "float, linear; depth: the Z channel; with libopenexr installed", true, true, true, nullptr},
  };
  return formats;
}

namespace {

std::vector<std::string> split(const char* words) {
  std::istringstream in(words);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string listed(bool FileFormat::*want) {
  std::string out;
  for (const FileFormat& f : file_formats()) {
    if (!(f.*want)) continue;
    out += (out.empty() ? "" : ", ") + std::string(f.name);
    if (*f.read_note) out += std::string(" (") + f.read_note + ")";
  }
  return out;
}

}  // namespace

std::vector<std::string> format_extensions(bool FileFormat::*want) {
  std::vector<std::string> out;
  for (const FileFormat& f : file_formats())
    if (f.*want)
      for (const std::string& e : split(f.extensions)) out.push_back(e);
  return out;
}

std::vector<std::string> saveable_format_extensions() {
  std::vector<std::string> out;
  for (const FileFormat& f : file_formats())
    if (f.write_note)
      for (const std::string& e : split(f.extensions)) out.push_back(e);
  return out;
}

std::string image_formats_text() { return listed(&FileFormat::image); }
std::string depth_formats_text() { return listed(&FileFormat::depth); }

std::string written_formats_text() {
  std::string out;
  for (const FileFormat& f : file_formats()) {
    if (!f.write_note) continue;
    std::string exts;
    for (const std::string& e : split(f.extensions)) exts += (exts.empty() ? "." : " .") + e;
    out += (out.empty() ? "" : ", ") + std::string(f.name) + " (" + exts + ", " + f.write_note + ")";
  }
  return out;
}

}  // namespace satlab::io
