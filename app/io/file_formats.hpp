// The file formats satlab reads and writes, in one table: the loaders' formats (image_io.cpp), what
// save_image writes, the file browser's filters and every --help text derive from it.
#pragma once
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

struct FileFormat {
  const char* name;        // "JPEG"
  const char* extensions;  // lower case, space separated: "jpg jpeg"
  const char* read_note;   // what is read, for help texts: "8/16-bit"; "" for nothing to add
  bool image;              // load_image reads it
  bool depth;              // load_depth reads it
  bool depth_listed;       // the file browser's depth-map filter shows it (the formats depth maps come in)
  const char* write_note;  // save_image writes it, as this says ("quality 95"); nullptr: not written
  // The writer save_image calls: `image` into the new file `tmp` (save_image renames it); false, errno set,
  // on failure. nullptr exactly where write_note is.
  bool (*write)(const std::string& tmp, const ImageRGBA8& image);
};

// The writers' entry points (image_io.cpp; OpenEXR's in exr.hpp).
bool write_png_rgba8(const std::string& tmp, const ImageRGBA8& image);
bool write_jpeg_rgba8(const std::string& tmp, const ImageRGBA8& image);  // quality 95
bool write_webp_rgba8(const std::string& tmp, const ImageRGBA8& image);  // lossless
bool write_tiff_rgba8(const std::string& tmp, const ImageRGBA8& image);  // deflate

const std::vector<FileFormat>& file_formats();

// Extensions (no dot, lower case) of the formats that pass `want`, in table order.
std::vector<std::string> format_extensions(bool FileFormat::*want);
std::vector<std::string> saveable_format_extensions();  // those save_image writes
// The format save_image writes for this extension (no dot, any case); nullptr: none.
const FileFormat* writer_for_extension(const std::string& extension);

// For help texts: "JPEG, PNG (8/16-bit), ..." for the images load_image reads, the depth maps load_depth
// reads, and the formats save_image writes with their extensions ("PNG (.png), JPEG (.jpg .jpeg, quality
// 95), ...").
std::string image_formats_text();
std::string depth_formats_text();
std::string written_formats_text();

}  // namespace satlab::io
