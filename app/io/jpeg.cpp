#include "app/io/jpeg.hpp"

#include <csetjmp>
#include <cstdio>
// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>

#include "app/io/format_guard.hpp"
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

}  // namespace

bool is_jpeg_file(const std::string& path) {
  File file{std::fopen(path.c_str(), "rb")};
  unsigned char b[2] = {0, 0};
  return file.f && std::fread(b, 1, 2, file.f) == 2 && b[0] == 0xFF && b[1] == 0xD8;
}

std::vector<uint8_t> decode_jpeg(const std::string& path, int channels, int* width, int* height) {
  File file{std::fopen(path.c_str(), "rb")};
  if (!file.f) throw Error(path + ": cannot open");
  std::fseek(file.f, 0, SEEK_END);
  const long file_size = std::ftell(file.f);
  std::fseek(file.f, 0, SEEK_SET);

  std::vector<uint8_t> pixels;  // declared before setjmp: a longjmp back here skips no destructor
  std::string failure;
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.output_message = on_message;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw Error(path + ": cannot decode JPEG (" + err.message + ")");
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file.f);
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
  cinfo.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBA;
  jpeg_start_decompress(&cinfo);
  pixels.resize(size_t(px) * size_t(channels));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = pixels.data() + size_t(cinfo.output_scanline) * size_t(w) * size_t(channels);
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  *width = int(w);
  *height = int(h);
  return pixels;
}

}  // namespace satlab::io
