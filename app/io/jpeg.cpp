#include "app/io/jpeg.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>

#include "app/io/exif.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/icc.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}
void on_message(j_common_ptr) {}  // warnings (e.g. premature end of data) are not fatal: stay quiet

struct File {
  FILE* f;
  ~File() {
    if (f) std::fclose(f);
  }
};

// The EXIF orientation in the first APP1 marker that holds EXIF.
int orientation_of(const jpeg_decompress_struct& cinfo) {
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next)
    if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0)
      return exif_orientation(m->data, m->data_length);
  return 0;
}

// CMYK as decoded (inverted: Adobe's, 255 = no ink) to RGBA by the plain formula R = (1-C)(1-K).
void cmyk_to_rgba(const uint8_t* cmyk, bool inverted, size_t pixels, uint8_t* rgba) {
  for (size_t i = 0; i < pixels; ++i) {
    uint32_t c = cmyk[i * 4], m = cmyk[i * 4 + 1], y = cmyk[i * 4 + 2], k = cmyk[i * 4 + 3];
    if (!inverted) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;  // now 255 = no ink
    rgba[i * 4 + 0] = uint8_t((c * k + 127) / 255);
    rgba[i * 4 + 1] = uint8_t((m * k + 127) / 255);
    rgba[i * 4 + 2] = uint8_t((y * k + 127) / 255);
    rgba[i * 4 + 3] = 255;
  }
}

}  // namespace

bool is_jpeg_file(const std::string& path) {
  File file{std::fopen(path.c_str(), "rb")};
  unsigned char b[2] = {0, 0};
  return file.f && std::fread(b, 1, 2, file.f) == 2 && b[0] == 0xFF && b[1] == 0xD8;
}

std::vector<uint8_t> decode_jpeg(const std::string& path, int channels, int* width, int* height, JpegMeta* meta) {
  File file{std::fopen(path.c_str(), "rb")};
  if (!file.f) throw Error(path + ": cannot open");
  std::fseek(file.f, 0, SEEK_END);
  const long file_size = std::ftell(file.f);
  std::fseek(file.f, 0, SEEK_SET);

  // Declared before setjmp: a longjmp back here skips no destructor.
  std::vector<uint8_t> pixels, cmyk;
  std::string failure;
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.output_message = on_message;
  JOCTET* icc_data = nullptr;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    std::free(icc_data);
    throw Error(path + ": cannot decode JPEG (" + err.message + ")");
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file.f);
  if (meta) {
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);  // EXIF
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);  // ICC
  }
  jpeg_read_header(&cinfo, TRUE);
  const uint64_t w = cinfo.image_width, h = cinfo.image_height, px = w * h;
  if (w == 0 || h == 0) failure = "image has zero size";
  try {
    if (failure.empty()) check_image_limits(path, w, h);
  } catch (const Error&) {
    jpeg_destroy_decompress(&cinfo);
    throw;
  }
  // Every 8x8 block of a baseline or progressive JPEG costs at least a few bits.
  if (failure.empty() && uint64_t(file_size) * 2048 < px)
    failure = "JPEG of " + std::to_string(file_size) + " bytes cannot hold the " + std::to_string(w) + "x" +
              std::to_string(h) + " pixels it declares (truncated or corrupt)";
  if (!failure.empty()) {
    jpeg_destroy_decompress(&cinfo);
    throw Error(path + ": " + failure);
  }
  if (meta) {
    meta->orientation = orientation_of(cinfo);
    unsigned int icc_len = 0;
    if (jpeg_read_icc_profile(&cinfo, &icc_data, &icc_len) && icc_data) {
      meta->icc.assign(icc_data, icc_data + icc_len);
      std::free(icc_data);
      icc_data = nullptr;
    }
  }
  const bool is_cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  const bool inverted = is_cmyk && cinfo.saw_Adobe_marker;
  const char* model = cinfo.jpeg_color_space == JCS_YCCK ? "YCCK" : "CMYK";
  cinfo.out_color_space = is_cmyk ? JCS_CMYK : channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBA;
  const int out_channels = is_cmyk ? 4 : channels;
  jpeg_start_decompress(&cinfo);
  std::vector<uint8_t>& target = is_cmyk ? cmyk : pixels;
  target.resize(size_t(px) * size_t(out_channels));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = target.data() + size_t(cinfo.output_scanline) * size_t(w) * size_t(out_channels);
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (is_cmyk) {
    std::vector<uint8_t> rgba(size_t(px) * 4);
    std::string how;
    bool done = false;
    if (meta && !meta->icc.empty()) {
      ImageRGBA8 out{int(w), int(h)};
      const std::string why = icc_cmyk_to_srgb(meta->icc, cmyk.data(), inverted, out);
      if (why.empty()) {
        rgba = std::move(out.data);
        done = true;
        how = std::string(model) + " converted to sRGB through its ICC profile";
      } else {
        how = std::string(model) + " converted to RGB by the plain formula (" + why + ")";
      }
      meta->icc.clear();  // a CMYK profile says nothing about the RGB result
    } else {
      how = std::string(model) + " converted to RGB by the plain formula (no ICC profile: colours are approximate)";
    }
    if (!done) cmyk_to_rgba(cmyk.data(), inverted, size_t(px), rgba.data());
    if (meta) meta->notes.push_back(how + (inverted ? ", Adobe inverted values" : ""));
    if (channels == 4) {
      pixels = std::move(rgba);
    } else {
      pixels.resize(size_t(px));
      for (size_t i = 0; i < size_t(px); ++i) pixels[i] = rgba[i * 4];
    }
  }
  *width = int(w);
  *height = int(h);
  return pixels;
}

bool write_jpeg(const std::string& path, const uint8_t* pixels, int width, int height, JpegKind kind, int quality,
                const std::vector<uint8_t>& exif, const std::vector<uint8_t>& icc) {
  File file{std::fopen(path.c_str(), "wb")};
  if (!file.f) return false;
  jpeg_compress_struct cinfo;
  ErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.output_message = on_message;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_stdio_dest(&cinfo, file.f);
  cinfo.image_width = JDIMENSION(width);
  cinfo.image_height = JDIMENSION(height);
  cinfo.input_components = 4;
  cinfo.in_color_space = kind == JpegKind::Rgb ? JCS_EXT_RGBA : JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  if (kind == JpegKind::Ycck) jpeg_set_colorspace(&cinfo, JCS_YCCK);
  if (kind == JpegKind::CmykPlain) cinfo.write_Adobe_marker = FALSE;
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  if (!exif.empty()) jpeg_write_marker(&cinfo, JPEG_APP0 + 1, exif.data(), unsigned(exif.size()));
  if (!icc.empty()) jpeg_write_icc_profile(&cinfo, icc.data(), unsigned(icc.size()));
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(pixels) + size_t(cinfo.next_scanline) * size_t(width) * 4;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  const bool ok = std::fflush(file.f) == 0 && !std::ferror(file.f);
  return ok;
}

}  // namespace satlab::io
