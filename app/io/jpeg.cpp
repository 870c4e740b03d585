#include "app/io/jpeg.hpp"

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>
#include <jerror.h>

#include "app/io/atomic_file.hpp"
#include "app/io/decoded.hpp"
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
  bool truncated = false;  // the data ended early (libjpeg only warns and fills the rest with grey)
};

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}
void on_message(j_common_ptr) {}  // warnings (e.g. premature end of data) are not fatal: stay quiet
// Warnings are counted quietly; the end of the data before the last row is remembered.
void on_emit(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  ++cinfo->err->num_warnings;
  // The data ends (the file, or its entropy-coded segment at a marker such as EOI) before the rows the
  // header declares: libjpeg fills the rest with grey; satlab refuses the file instead.
  if (cinfo->err->msg_code == JWRN_JPEG_EOF || cinfo->err->msg_code == JWRN_HIT_MARKER)
    reinterpret_cast<ErrorManager*>(cinfo->err)->truncated = true;
}

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

namespace {

// libjpeg-turbo's scanline interface, a few rows at a time. Errors longjmp back into the member that
// called libjpeg; no object with a destructor lives in those frames.
class JpegReader final : public ImageReader {
 public:
  // `channels`: 1 (grey) or 4 (RGBA) bytes a pixel from read_into. `check_limits`: the pixel limit and host
  // memory too (format_guard.hpp). `want_meta`: the EXIF orientation and ICC profile are read.
  JpegReader(const std::string& path, int channels, bool check_limits, bool want_meta)
      : path_(path), file_{std::fopen(path.c_str(), "rb")}, channels_(channels) {
    if (!file_.f) throw Error(path + ": cannot open");
    std::fseek(file_.f, 0, SEEK_END);
    const long size = std::ftell(file_.f);
    std::fseek(file_.f, 0, SEEK_SET);
    cinfo_.err = jpeg_std_error(&err_.pub);
    err_.pub.error_exit = on_error;
    err_.pub.output_message = on_message;
    err_.pub.emit_message = on_emit;
    jpeg_create_decompress(&cinfo_);
    // libjpeg allocates no more than this (a progressive file's coefficients past it fail, as libjpeg
    // has no backing store here), so a file that cannot fit is refused rather than decoded into swap.
    if (const size_t limit = decode_memory_limit())
      cinfo_.mem->max_memory_to_use = long(std::min<size_t>(limit, size_t(std::numeric_limits<long>::max())));
    const bool started = start(want_meta);
    if (icc_) header_.icc.assign(icc_, icc_ + icc_len_);
    std::free(icc_);
    icc_ = nullptr;
    if (!started) throw Error(path + ": cannot decode JPEG (" + err_.message + ")");
    const uint64_t w = cinfo_.image_width, h = cinfo_.image_height;
    if (w == 0 || h == 0) throw Error(path + ": image has zero size");
    if (check_limits) check_image_limits(path, w, h);
    // Every 8x8 block of a baseline or progressive JPEG costs at least a few bits.
    check_declared_size(path, uint64_t(std::max(size, 0L)), w * h, 2048, "JPEG");
    header_.format = "JPEG";
    header_.width = uint32_t(w), header_.height = uint32_t(h);
    header_.channels = cinfo_.num_components;
    header_.bits = 8;
    cmyk_ = cinfo_.jpeg_color_space == JCS_CMYK || cinfo_.jpeg_color_space == JCS_YCCK;
    inverted_ = cmyk_ && cinfo_.saw_Adobe_marker;
    if (want_meta) header_.orientation = orientation_of(cinfo_);
    if (cmyk_) {  // a CMYK profile says nothing about the RGB result: kept here for the conversion
      cmyk_icc_ = std::move(header_.icc);
      header_.icc.clear();
    }
    cinfo_.out_color_space = cmyk_ ? JCS_CMYK : channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBA;
    // A file of several scans (progressive) keeps every component's coefficients, 2 bytes each; one scan
    // needs a few rows of blocks. Known from the header: decompression (which decodes every scan of a
    // progressive file) starts with the first rows read, after the caller has checked its budget.
    const bool whole = jpeg_has_multiple_scans(&cinfo_);
    for (int c = 0; c < cinfo_.num_components; ++c) {
      const jpeg_component_info& k = cinfo_.comp_info[c];
      header_.buffer_bytes += size_t(k.width_in_blocks) * 128 * (whole ? size_t(k.height_in_blocks) : 2 * size_t(k.v_samp_factor));
    }
  }

  // The next rows up to y1 (after skipping to y0) into `out`, `channels` bytes a pixel.
  void read_into(uint32_t y0, uint32_t y1, uint8_t* out, size_t stride) {
    if (y0 < cinfo_.output_scanline || y1 > header_.height || y0 > y1)
      throw Error(path_ + ": JPEG rows are read forward only (asked for " + std::to_string(y0) + "-" +
                  std::to_string(y1) + " after " + std::to_string(cinfo_.output_scanline) + ")");
    if (y0 == y1) return;
    if (failed_) throw Error(path_ + ": cannot decode JPEG (" + err_.message + ")");
    if (!decompressing_) {
      failed_ = !start_decompress();
      if (failed_) throw Error(path_ + ": cannot decode JPEG (" + decompress_error() + ")");
      decompressing_ = true;
    }
    const size_t w = header_.width;
    failed_ = true;  // until the rows are in: libjpeg's state after an error is not to be used again
    if (!cmyk_) {
      if (!scan(y0, y1, out, stride)) throw Error(path_ + ": cannot decode JPEG (" + err_.message + ")");
    } else {
      band_.resize(size_t(y1 - y0) * w * 4);
      if (!scan(y0, y1, band_.data(), w * 4)) throw Error(path_ + ": cannot decode JPEG (" + err_.message + ")");
      cmyk_rows(y1 - y0, out, stride);
    }
    failed_ = false;
    if (err_.truncated)
      throw Error(path_ + ": cannot decode JPEG (the file is truncated: its data ends before row " +
                  std::to_string(y1) + " of " + std::to_string(header_.height) + ")");
    if (cinfo_.output_scanline == cinfo_.output_height && !finished_) {
      finished_ = true;
      failed_ = !finish();
      if (failed_) throw Error(path_ + ": cannot decode JPEG (" + err_.message + ")");
    }
  }

  void read_rows(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride, uint16_t* rgba16,
                 size_t stride16) override {
    read_into(y0, y1, rgba8, stride);
    if (rgba16)
      for (uint32_t r = 0; r < y1 - y0; ++r)
        for (size_t i = 0; i < size_t(header_.width) * 4; ++i)
          rgba16[r * stride16 + i] = uint16_t(rgba8[r * stride + i] * 257);
  }

 private:
  // The libjpeg calls, each behind its own setjmp; false where libjpeg failed (err_.message says why).
  bool start(bool want_meta) {
    if (setjmp(err_.jump)) return false;
    jpeg_stdio_src(&cinfo_, file_.f);
    if (want_meta) {
      jpeg_save_markers(&cinfo_, JPEG_APP0 + 1, 0xFFFF);  // EXIF
      jpeg_save_markers(&cinfo_, JPEG_APP0 + 2, 0xFFFF);  // ICC
    }
    jpeg_read_header(&cinfo_, TRUE);
    if (want_meta && !jpeg_read_icc_profile(&cinfo_, &icc_, &icc_len_)) icc_ = nullptr;
    return true;
  }
  bool start_decompress() {
    if (setjmp(err_.jump)) return false;
    jpeg_start_decompress(&cinfo_);
    return true;
  }
  bool scan(uint32_t y0, uint32_t y1, uint8_t* out, size_t stride) {
    if (setjmp(err_.jump)) return false;
    while (cinfo_.output_scanline < y0) {  // rows before y0 are decoded into the first output row
      JSAMPROW row = out;
      jpeg_read_scanlines(&cinfo_, &row, 1);
    }
    while (cinfo_.output_scanline < y1) {
      JSAMPROW row = out + size_t(cinfo_.output_scanline - y0) * stride;
      jpeg_read_scanlines(&cinfo_, &row, 1);
    }
    return true;
  }
  bool finish() {
    if (setjmp(err_.jump)) return false;
    jpeg_finish_decompress(&cinfo_);
    return true;
  }

  // The band of CMYK rows in band_ to `channels_` bytes a pixel: through the file's profile with lcms2
  // where it has one, else by the plain formula; the note says which, once.
  void cmyk_rows(uint32_t rows, uint8_t* out, size_t stride) {
    const size_t w = header_.width, px = w * rows;
    const char* model = cinfo_.jpeg_color_space == JCS_YCCK ? "YCCK" : "CMYK";
    ImageRGBA8 rgba{int(w), int(rows)};
    std::string how;
    bool done = false;
    if (!cmyk_icc_.empty()) {
      const std::string why = icc_cmyk_to_srgb(cmyk_icc_, band_.data(), inverted_, rgba);
      done = why.empty();
      how = done ? std::string(model) + " converted to sRGB through its ICC profile"
                 : std::string(model) + " converted to RGB by the plain formula (" + why + ")";
    } else {
      how = std::string(model) + " converted to RGB by the plain formula (no ICC profile: colours are approximate)";
    }
    if (!done) cmyk_to_rgba(band_.data(), inverted_, px, rgba.data.data());
    if (notes_.empty()) notes_.push_back(how + (inverted_ ? ", Adobe inverted values" : ""));
    for (uint32_t r = 0; r < rows; ++r)
      for (size_t x = 0; x < w; ++x)
        for (int c = 0; c < channels_; ++c) out[r * stride + x * size_t(channels_) + size_t(c)] = rgba.data[(r * w + x) * 4 + size_t(c)];
  }

  // Destroyed (even when the constructor throws) before the error manager and the file it uses.
  struct Decompress : jpeg_decompress_struct {
    Decompress() : jpeg_decompress_struct{} {}
    ~Decompress() { jpeg_destroy_decompress(this); }  // nothing to free before jpeg_create_decompress
  };

  std::string path_;
  File file_;
  int channels_;
  ErrorManager err_{};
  Decompress cinfo_;
  bool finished_ = false, failed_ = false, decompressing_ = false;
  // libjpeg's message where decompression failed, with what the limit means where it was the limit.
  std::string decompress_error() const {
    if (std::string(err_.message).find("Backing store not supported") == std::string::npos) return err_.message;
    return "its " + std::to_string(header_.buffer_bytes >> 20) + " MiB of coefficients (a progressive file is "
           "decoded whole) exceed the memory limit of " + std::to_string(decode_memory_limit() >> 20) + " MiB";
  }
  JOCTET* icc_ = nullptr;
  unsigned int icc_len_ = 0;
  bool cmyk_ = false, inverted_ = false;
  std::vector<uint8_t> cmyk_icc_, band_;
};

}  // namespace

std::unique_ptr<ImageReader> open_jpeg_reader(const std::string& path) {
  return std::make_unique<JpegReader>(path, 4, false, true);
}

std::vector<uint8_t> decode_jpeg(const std::string& path, int channels, int* width, int* height, JpegMeta* meta) {
  JpegReader r(path, channels, true, meta != nullptr);
  const StreamHeader& hd = r.header();
  std::vector<uint8_t> pixels(size_t(hd.width) * hd.height * size_t(channels));
  r.read_into(0, hd.height, pixels.data(), size_t(hd.width) * size_t(channels));
  if (meta) {
    meta->orientation = hd.orientation;
    meta->icc = hd.icc;
    meta->notes = r.notes();
  }
  *width = int(hd.width);
  *height = int(hd.height);
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

namespace {

// Scanlines to a baseline JPEG through a temporary file (atomic_file.hpp).
class JpegWriter final : public ImageWriter {
 public:
  JpegWriter(const std::string& path, const StreamSpec& spec) : file_(path), out_{nullptr} {
    spec_ = spec;
    if (spec.bits != 8 || (spec.channels != 1 && spec.channels != 3 && spec.channels != 4))
      throw Error(path + ": JPEG takes 8-bit grey, RGB or RGBA rows");
    out_.f = std::fopen(file_.tmp().c_str(), "wb");
    if (!out_.f) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
    cinfo_.err = jpeg_std_error(&err_.pub);
    err_.pub.error_exit = on_error;
    err_.pub.output_message = on_message;
    jpeg_create_compress(&cinfo_);
    if (!start()) throw fail();
  }

  void write_rows(uint32_t n, const void* rows, size_t stride) override {
    take_rows(file_.path(), n);
    if (!scan(n, static_cast<const uint8_t*>(rows), stride)) throw fail();
  }

  void finish() override {
    check_all_rows(file_.path());
    if (!end() || !file_.close_and_commit(out_.f)) throw fail();
  }

 private:
  Error fail() const { return Error(file_.path() + ": cannot write JPEG (" + std::string(err_.message) + ")"); }

  bool start() {
    if (setjmp(err_.jump)) return false;
    jpeg_stdio_dest(&cinfo_, out_.f);
    cinfo_.image_width = JDIMENSION(spec_.width);
    cinfo_.image_height = JDIMENSION(spec_.height);
    cinfo_.input_components = spec_.channels;
    cinfo_.in_color_space = spec_.channels == 1 ? JCS_GRAYSCALE : spec_.channels == 3 ? JCS_RGB : JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo_);
    jpeg_set_quality(&cinfo_, spec_.jpeg_quality, TRUE);
    jpeg_start_compress(&cinfo_, TRUE);
    return true;
  }
  bool scan(uint32_t n, const uint8_t* rows, size_t stride) {
    if (setjmp(err_.jump)) return false;
    for (uint32_t i = 0; i < n; ++i) {
      JSAMPROW row = const_cast<uint8_t*>(rows + size_t(i) * stride);
      jpeg_write_scanlines(&cinfo_, &row, 1);
    }
    return true;
  }
  bool end() {
    if (setjmp(err_.jump)) return false;
    jpeg_finish_compress(&cinfo_);
    return true;
  }

  struct Compress : jpeg_compress_struct {
    Compress() : jpeg_compress_struct{} {}
    ~Compress() { jpeg_destroy_compress(this); }
  };

  TempFile file_;
  File out_;  // closed before the temporary file is renamed or removed
  ErrorManager err_{};
  Compress cinfo_;
};

}  // namespace

std::unique_ptr<ImageWriter> open_jpeg_writer(const std::string& path, const StreamSpec& spec) {
  return std::make_unique<JpegWriter>(path, spec);
}

}  // namespace satlab::io
