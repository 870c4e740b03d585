// One table of file formats (app/io/file_formats.hpp) that the help texts, the file browser's filters and the
// writers agree with.
#include "app/io/file_formats.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "app/io/dir_listing.hpp"
#include "app/io/image_io.hpp"

namespace {

using namespace satlab::io;

TEST(FileFormats, WhatSaveImageWritesIsWhatTheTableSaysItWrites) {
  for (const FileFormat& f : file_formats()) {
    std::istringstream extensions(f.extensions);
    for (std::string e; extensions >> e;) {
      EXPECT_EQ(can_save("out." + e), f.write_note != nullptr) << e;
      EXPECT_EQ(writer_for_extension(e), f.write_note ? &f : nullptr) << e;  // the row's own entry point
    }
    EXPECT_EQ(f.write != nullptr, f.write_note != nullptr) << f.name;
  }
  EXPECT_EQ(writer_for_extension("TIFF"), writer_for_extension("tif"));
  EXPECT_EQ(writer_for_extension("bmp"), nullptr);
  std::string listed;
  for (const std::string& e : saveable_format_extensions()) listed += (listed.empty() ? "." : ", .") + e;
  EXPECT_EQ(listed, saveable_extensions());
}

TEST(FileFormats, HelpTextsNameEveryFormatReadAndWritten) {
  const std::string images = image_formats_text(), depth = depth_formats_text(),
                    written = written_formats_text();
  for (const char* name : {"JPEG", "PNG (8/16-bit)", "WebP", "TIFF (8/16-bit)", "HEIC/HEIF/AVIF", "BMP",
                           "TGA", "Radiance HDR", "OpenEXR"}) {
    EXPECT_NE(images.find(name), std::string::npos) << name << " in " << images;
    EXPECT_NE(depth.find(name), std::string::npos) << name << " in " << depth;
  }
  EXPECT_EQ(images.find("PFM"), std::string::npos) << "PFM is read as depth only";
  EXPECT_NE(depth.find("PFM (float)"), std::string::npos);
  EXPECT_EQ(written,
            "PNG (.png, 8-bit RGBA), JPEG (.jpg .jpeg, quality 95), WebP (.webp, lossless), "
            "TIFF (.tif .tiff, 8-bit RGBA), OpenEXR (.exr, RGBA half, linear light from the 8-bit "
            "result; with libopenexr installed)");
}

TEST(FileFormats, BrowserFiltersTakeTheTablesExtensions) {
  EXPECT_STREQ(to_string(FileFilter::Images),
               "images and clips (png jpg jpeg webp tif tiff heic heif avif bmp tga hdr exr mp4 m4v mov mkv "
               "webm avi)");
  EXPECT_STREQ(to_string(FileFilter::Depth), "depth maps (png webp tif tiff hdr pfm exr)");
  for (const std::string& e : format_extensions(&FileFormat::image))
    EXPECT_TRUE(passes(FileFilter::Images, "a." + e));
  for (const std::string& e : format_extensions(&FileFormat::depth_listed))
    EXPECT_TRUE(passes(FileFilter::Depth, "a." + e));
  EXPECT_FALSE(passes(FileFilter::Images, "a.pfm"));
}

}  // namespace
