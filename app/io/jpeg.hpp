// JPEG through libjpeg-turbo (Debian's libjpeg62-turbo): Debian's stb_image 2.27 writes past its Huffman
// tables on corrupt JPEG files (found by fuzzing the loaders, docs/reliability.md), so JPEG data never
// reaches stb.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace satlab::io {

bool is_jpeg_file(const std::string& path);  // starts with the SOI marker

struct JpegMeta {
  int orientation = 0;                   // EXIF orientation from APP1, 0: none
  std::vector<uint8_t> icc;              // ICC profile from the APP2 chunks; cleared when already applied
  std::vector<std::string> notes;        // e.g. how CMYK was converted
};

// Decodes to 8-bit `channels` (1: grey, 4: RGBA with opaque alpha). CMYK and YCCK files are converted to
// RGB: through their ICC profile with lcms2 where they have one, else by the plain formula (Adobe's
// inverted CMYK recognised by its APP14 marker). The declared size is checked against the pixel limit and
// the file's size before anything is decoded. Throws satlab::Error naming the file.
std::vector<uint8_t> decode_jpeg(const std::string& path, int channels, int* width, int* height,
                                 JpegMeta* meta = nullptr);

// Colour model of the file write_jpeg writes. Rgb takes RGBA pixels (alpha dropped); Cmyk and Ycck take 4
// bytes of CMYK per pixel, stored as given with an Adobe marker (so pass inverted values, as Adobe does);
// CmykPlain stores ink amounts (255 = full ink) without the marker.
enum class JpegKind { Rgb, Cmyk, Ycck, CmykPlain };
// Writes a baseline JPEG with optional EXIF (APP1, with its "Exif\0\0" prefix) and ICC (APP2) blocks.
// Returns false where the file cannot be written.
bool write_jpeg(const std::string& path, const uint8_t* pixels, int width, int height, JpegKind kind,
                int quality, const std::vector<uint8_t>& exif = {}, const std::vector<uint8_t>& icc = {});

}  // namespace satlab::io
