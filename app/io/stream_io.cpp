// The format of a streamed file from its first bytes (readers) or its extension (writers), and the one
// conversion of stored samples to RGBA that the readers share.
#include "app/io/stream_io.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "app/io/decoded.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::io {

void samples_to_rgba(const void* samples, size_t n, int channels, bool deep, uint8_t* rgba8, uint16_t* rgba16) {
  if (!deep && !rgba16) {  // the streamed path's common case: 8 bits, no 16-bit copy; one loop per layout
    const auto* s = static_cast<const uint8_t*>(samples);
    switch (channels) {
      case 4:
        std::memcpy(rgba8, s, n * 4);
        return;
      case 3:
        for (size_t x = 0; x < n; ++x, s += 3, rgba8 += 4) rgba8[0] = s[0], rgba8[1] = s[1], rgba8[2] = s[2], rgba8[3] = 255;
        return;
      case 2:
        for (size_t x = 0; x < n; ++x, s += 2, rgba8 += 4) rgba8[0] = rgba8[1] = rgba8[2] = s[0], rgba8[3] = s[1];
        return;
      default:
        for (size_t x = 0; x < n; ++x, ++s, rgba8 += 4) rgba8[0] = rgba8[1] = rgba8[2] = s[0], rgba8[3] = 255;
        return;
    }
  }
  const bool grey = channels <= 2, alpha = channels == 2 || channels == 4;
  const auto* s8 = static_cast<const uint8_t*>(samples);
  const auto* s16 = static_cast<const uint16_t*>(samples);
  for (size_t x = 0; x < n; ++x) {
    const size_t i = x * size_t(channels);
    uint16_t v[4];
    if (deep) {
      v[0] = s16[i], v[1] = grey ? s16[i] : s16[i + 1], v[2] = grey ? s16[i] : s16[i + 2];
      v[3] = alpha ? s16[i + size_t(channels) - 1] : uint16_t(65535);
      for (int c = 0; c < 4; ++c) rgba8[x * 4 + size_t(c)] = uint8_t((uint32_t(v[c]) * 255u + 32767u) / 65535u);
    } else {
      v[0] = s8[i], v[1] = grey ? s8[i] : s8[i + 1], v[2] = grey ? s8[i] : s8[i + 2];
      v[3] = alpha ? s8[i + size_t(channels) - 1] : uint16_t(255);
      for (int c = 0; c < 4; ++c) rgba8[x * 4 + size_t(c)] = uint8_t(v[c]), v[c] = uint16_t(v[c] * 257);
    }
    if (rgba16)
      for (int c = 0; c < 4; ++c) rgba16[x * 4 + size_t(c)] = v[c];
  }
}

namespace {

// The format of the first bytes of a file, or "" for one read whole.
std::string format_of(const std::vector<uint8_t>& head) {
  if (is_tiff(head)) return "TIFF";
  if (head.size() >= 8 && std::memcmp(head.data(), "\x89PNG\r\n\x1a\n", 8) == 0) return "PNG";
  if (head.size() >= 2 && head[0] == 0xFF && head[1] == 0xD8) return "JPEG";
  return "";
}

}  // namespace

std::string row_format(const std::string& path) {
  std::vector<uint8_t> head(8, 0);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return "";
  head.resize(std::fread(head.data(), 1, head.size(), f));
  std::fclose(f);
  return format_of(head);
}

int io_threads() {
  return int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
}

int result_channels(const StreamHeader& input) {
  return input.channels == 1 || input.channels == 3 ? 3 : 4;
}

void rgba_to_rgb(const uint8_t* rgba, size_t n, uint8_t* rgb) {
  for (size_t x = 0; x < n; ++x, rgba += 4, rgb += 3) rgb[0] = rgba[0], rgb[1] = rgba[1], rgb[2] = rgba[2];
}

bool is_tiff_path(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext == "tif" || ext == "tiff";
}

std::unique_ptr<ImageReader> open_image_reader(const std::string& path, int threads) {
  std::vector<uint8_t> head(8, 0);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": " + std::strerror(errno));
  head.resize(std::fread(head.data(), 1, head.size(), f));
  std::fclose(f);
  const std::string format = format_of(head);
  std::unique_ptr<ImageReader> r;
  if (format == "TIFF")
    r = open_tiff_reader(path, threads);
  else if (format == "PNG")
    r = open_png_reader(path);
  else if (format == "JPEG")
    r = open_jpeg_reader(path);
  else
    throw Error(path + ": not a TIFF, PNG or JPEG file (the formats read by rows)");
  add_input(path);  // no writer of this run may replace it
  return r;
}

void ImageWriter::take_rows(const std::string& path, uint32_t n) {
  if (n > spec_.height - rows_)
    throw Error(path + ": more rows written than the image's " + std::to_string(spec_.height));
  rows_ += n;
}

void ImageWriter::check_all_rows(const std::string& path) const {
  if (rows_ != spec_.height)
    throw Error(path + ": only " + std::to_string(rows_) + " of " + std::to_string(spec_.height) + " rows written");
}

std::unique_ptr<ImageWriter> open_image_writer(const std::string& path, const StreamSpec& spec) {
  if (spec.width == 0 || spec.height == 0) throw Error(path + ": nothing to write (empty image)");
  const size_t dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (spec.bits != 8 && spec.bits != 16) throw Error(path + ": rows of 8 or 16 bits are written, not " + std::to_string(spec.bits));
  if (ext == "tif" || ext == "tiff") {
    if (spec.tile % 16 != 0) throw Error(path + ": TIFF tiles are a multiple of 16 pixels, not " + std::to_string(spec.tile));
    return open_tiff_writer(path, spec);
  }
  if (ext == "png") return open_png_writer(path, spec);
  if (ext == "jpg" || ext == "jpeg") return open_jpeg_writer(path, spec);
  throw Error(path + ": rows are written to .tif, .tiff, .png, .jpg or .jpeg files");
}

}  // namespace satlab::io
