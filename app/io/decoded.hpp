// What a format's decoder hands to image_io.cpp: the pixels as stored, plus what the file says about
// them (orientation, ICC profile) and what the decoder noted. image_io.cpp applies the profile and the
// orientation the same way for every format. Internal to app/io.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/io/stream_io.hpp"
#include "core/image.hpp"

namespace satlab::io {

struct Decoded {
  ImageRGBA8 rgba;             // 8 bits per channel, as stored (orientation not yet applied)
  ImageF high;                 // deep sources, when asked for: the same pixels, RGBA in [0,1]; else empty
  int bits = 8;                // bits per channel in the file
  std::vector<uint8_t> icc;    // the embedded ICC profile, empty if none (or already applied)
  int orientation = 0;         // EXIF orientation to apply, 0 or 1: none
  std::string format;          // "JPEG", "WebP", ...
  std::vector<std::string> notes;
};

// Each throws satlab::Error naming `path` with one line, after the format guards (format_guard.hpp).
// `bytes` is the whole file.
Decoded decode_webp(const std::string& path, const std::vector<uint8_t>& bytes);
// The pixel limit (format_guard.hpp) from the first bytes of a WebP file, before the rest is read; a
// header it cannot parse is left to decode_webp.
void check_webp_header(const std::string& path, const std::vector<uint8_t>& head);
// `want_high`: fill Decoded::high for deep files (else only the 8-bit image is made). Reads the file by
// strips or tiles (open_tiff_reader), after checking its header.
Decoded decode_tiff(const std::string& path, bool want_high);
Decoded decode_heif(const std::string& path, const std::vector<uint8_t>& bytes, bool want_high);
// OpenEXR's first part: R, G, B (and A) or Y, linear light encoded to sRGB (app/io/exr.cpp).
Decoded decode_exr(const std::string& path, bool want_high);

bool is_webp(const std::vector<uint8_t>& b);
bool is_tiff(const std::vector<uint8_t>& b);
bool is_heif(const std::vector<uint8_t>& b);  // an ISO-BMFF ftyp of HEIF or AVIF

// The readers and writers of stream_io.hpp, one per format. `threads` > 1: that many readers of the file,
// each decoding a share of the rows asked for on a thread of its own.
std::unique_ptr<ImageReader> open_tiff_reader(const std::string& path, int threads = 1);
std::unique_ptr<ImageReader> open_png_reader(const std::string& path);
std::unique_ptr<ImageReader> open_jpeg_reader(const std::string& path);
std::unique_ptr<ImageWriter> open_tiff_writer(const std::string& path, const StreamSpec& spec);
std::unique_ptr<ImageWriter> open_png_writer(const std::string& path, const StreamSpec& spec);
// A whole 8-bit RGBA image into the new file `tmp` with the same libpng settings as open_png_writer's rows;
// false, errno set, on failure (save_image's PNG).
bool encode_png_rgba8(const std::string& tmp, const ImageRGBA8& image);
std::unique_ptr<ImageWriter> open_jpeg_writer(const std::string& path, const StreamSpec& spec);

// `n` pixels of stored samples (`channels` 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA; `deep`: native-endian
// uint16, else bytes) to RGBA8 (16 bits rounded to the nearest 8-bit code) and, where `rgba16` is not
// null, to RGBA16 (8 bits: v * 257). Missing alpha is opaque.
void samples_to_rgba(const void* samples, size_t n, int channels, bool deep, uint8_t* rgba8, uint16_t* rgba16);

// PNG metadata stb does not return: the eXIf chunk's orientation and the iCCP profile (inflated, at most
// 16 MiB). Walks the chunks with every length checked; `bad_crc`, where given, receives the first chunk
// whose CRC does not match ("IDAT chunk at byte 1234"; stb checks none), `critical` whether it was one the
// image needs (IHDR, PLTE, IDAT, IEND).
void png_metadata(const std::vector<uint8_t>& bytes, int* orientation, std::vector<uint8_t>* icc,
                  std::string* bad_crc = nullptr, bool* critical = nullptr);

}  // namespace satlab::io
