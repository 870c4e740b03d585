#include "app/io/file_formats.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "app/io/exr.hpp"

namespace satlab::io {

const std::vector<FileFormat>& file_formats() {
  static const std::vector<FileFormat> formats = {
      // name, extensions, read note, image, depth, depth_listed, write note, writer
      {"PNG", "png", "8/16-bit", true, true, true, "8-bit RGBA", write_png_rgba8},
      {"JPEG", "jpg jpeg", "RGB, grey, CMYK", true, true, false, "quality 95", write_jpeg_rgba8},
      {"WebP", "webp", "", true, true, true, "lossless", write_webp_rgba8},
      {"TIFF", "tif tiff", "8/16-bit", true, true, true, "8-bit RGBA", write_tiff_rgba8},
      {"HEIC/HEIF/AVIF", "heic heif avif", "with libheif installed", true, true, false, nullptr, nullptr},
      {"BMP", "bmp", "", true, true, false, nullptr, nullptr},
      {"TGA", "tga", "", true, true, false, nullptr, nullptr},
      {"Radiance HDR", "hdr", "", true, true, true, nullptr, nullptr},
      {"PFM", "pfm", "float", false, true, true, nullptr, nullptr},
      {"OpenEXR", "exr", "float, linear; depth: the Z channel; with libopenexr installed", true, true, true,
       "RGBA half, linear light from the 8-bit result; with libopenexr installed", write_exr_rgba8},
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

const FileFormat* writer_for_extension(const std::string& extension) {
  std::string e = extension;
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const FileFormat& f : file_formats()) {
    if (!f.write) continue;
    const std::vector<std::string> exts = split(f.extensions);
    if (std::find(exts.begin(), exts.end(), e) != exts.end()) return &f;
  }
  return nullptr;
}

std::string image_formats_text() {
  return listed(&FileFormat::image);
}
std::string depth_formats_text() {
  return listed(&FileFormat::depth);
}

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
