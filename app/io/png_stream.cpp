// PNG through libpng's row interface (stream_io.hpp): the header and the chunks before the image data
// first, then one row at a time. Like stb_image, which the whole-image loader uses, CRCs are not checked
// and a broken ancillary chunk is skipped, so both read the same pixels from the same files.
#include <png.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app/io/atomic_file.hpp"
#include "app/io/decoded.hpp"
#include "app/io/exif.hpp"
#include "app/io/format_guard.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

// libpng's first error message, then a longjmp back to the member that called libpng.
struct Messages {
  char error[256] = "";
};
void on_error(png_structp png, png_const_charp msg) {
  auto* m = static_cast<Messages*>(png_get_error_ptr(png));
  if (m && !m->error[0]) std::snprintf(m->error, sizeof(m->error), "%s", msg);
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

struct File {
  FILE* f = nullptr;
  ~File() {
    if (f) std::fclose(f);
  }
};

// Every PNG satlab writes (rows streamed or a whole image): zlib level 1 with libpng's adaptive filters. On
// a 12 Mpx result (2 cores): 0.67 s and 20.4 MB, where stb's writer took 2.60 s for 27.5 MB and zlib's
// default level 6 4.51 s for 17.5 MB (level 3: 1.10 s, 19.1 MB).
void set_png_compression(png_structp png) {
  png_set_compression_level(png, 1);
}

// The orientation of an eXIf chunk after the image data (PNG allows it there; libpng's header read stops at
// IDAT), walking the chunk headers of the file and seeking past their data; 0 if there is none. The
// whole-image loader reads it (png_metadata), so the row reader must too.
int late_exif_orientation(const std::string& path) {
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (!file.f || std::fseek(file.f, 8, SEEK_SET) != 0) return 0;
  unsigned char h[8];
  while (std::fread(h, 1, 8, file.f) == 8) {
    const uint32_t n = uint32_t(h[0]) << 24 | uint32_t(h[1]) << 16 | uint32_t(h[2]) << 8 | h[3];
    if (std::memcmp(h + 4, "IEND", 4) == 0 || n > 0x7fffffffu) return 0;
    if (std::memcmp(h + 4, "eXIf", 4) == 0) {
      std::vector<uint8_t> exif(std::min<uint32_t>(n, 1u << 20));
      if (std::fread(exif.data(), 1, exif.size(), file.f) != exif.size()) return 0;
      return exif_orientation(exif.data(), exif.size());
    }
    if (std::fseek(file.f, long(n) + 4, SEEK_CUR) != 0) return 0;
  }
  return 0;
}

bool little_endian() {
  const uint16_t probe = 1;
  return *reinterpret_cast<const uint8_t*>(&probe) == 1;
}

class PngReader final : public ImageReader {
 public:
  explicit PngReader(const std::string& path) : path_(path) {
    file_.f = std::fopen(path.c_str(), "rb");
    if (!file_.f) throw Error(path + ": " + std::strerror(errno));
    struct stat st {};
    const uint64_t size = ::fstat(fileno(file_.f), &st) == 0 ? uint64_t(st.st_size) : 0;
    s_.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &msg_, on_error, on_warning);
    if (s_.png) s_.info = png_create_info_struct(s_.png);
    if (!s_.png || !s_.info) throw Error(path + ": out of memory for the PNG reader");
    if (!start()) throw fail("not a readable PNG image");
    if (header_.width == 0 || header_.height == 0) throw fail("image has zero size");
    // Deflate cannot beat 1032:1 and every pixel costs at least one bit before compression. Checked
    // before libpng allocates its row buffers.
    check_declared_size(path, size, uint64_t(header_.width) * header_.height, 1032 * 8, "PNG");
    check_png_data(path, uint64_t(size), header_.width, header_.height);
    if (!transform()) throw fail("not a readable PNG image");
    row_.resize(png_get_rowbytes(s_.png, s_.info));
    header_.buffer_bytes = row_.size() * (passes_ > 1 ? size_t(header_.height) : 1);
  }

  void read_rows(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride, uint16_t* rgba16,
                 size_t stride16) override {
    if (y0 < next_ || y1 > header_.height || y0 > y1)
      throw Error(path_ + ": PNG rows are read forward only (asked for " + std::to_string(y0) + "-" +
                  std::to_string(y1) + " after " + std::to_string(next_) + ")");
    for (uint32_t y = y0; y < y1; ++y) {
      const uint8_t* row = failed_ ? nullptr : next_row(y);
      failed_ = !row;  // libpng's state after an error is not to be used again
      if (!row) throw fail("cannot decode PNG (corrupt or truncated data)");
      samples_to_rgba(row, header_.width, channels_, deep_, rgba8 + size_t(y - y0) * stride,
                      rgba16 ? rgba16 + size_t(y - y0) * stride16 : nullptr);
    }
  }

 private:
  Error fail(const std::string& why) const {
    return Error(path_ + ": " + why + (msg_.error[0] ? " (" + std::string(msg_.error) + ")" : ""));
  }

  bool start() {
    if (setjmp(png_jmpbuf(s_.png))) return false;
    png_init_io(s_.png, file_.f);
    png_set_crc_action(s_.png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
    png_set_benign_errors(s_.png, 1);
    png_set_user_limits(s_.png, 0x7fffffff, 0x7fffffff);  // sizes are the caller's to limit
    png_read_info(s_.png, s_.info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, colour = 0, interlace = 0;
    png_get_IHDR(s_.png, s_.info, &w, &h, &depth, &colour, &interlace, nullptr, nullptr);
    header_.format = "PNG";
    header_.width = w, header_.height = h;
    header_.bits = depth;
    interlaced_ = interlace != PNG_INTERLACE_NONE;
    png_charp name = nullptr;
    int compression = 0;
    png_bytep profile = nullptr;
    png_uint_32 profile_len = 0;
    if (png_get_iCCP(s_.png, s_.info, &name, &compression, &profile, &profile_len) && profile)
      header_.icc.assign(profile, profile + profile_len);
    png_uint_32 exif_len = 0;
    png_bytep exif = nullptr;
    const int o = png_get_eXIf_1(s_.png, s_.info, &exif_len, &exif) && exif ? exif_orientation(exif, exif_len)
                                                                            : late_exif_orientation(path_);
    header_.orientation = o >= 1 && o <= 8 ? o : 1;
    return true;
  }

  // Every row to 8 or 16 bits of 1-4 channels.
  bool transform() {
    if (setjmp(png_jmpbuf(s_.png))) return false;
    png_set_expand(s_.png);  // palette to RGB, grey below 8 bits to 8, tRNS to alpha
    if (header_.bits == 16 && little_endian()) png_set_swap(s_.png);
    if (interlaced_) passes_ = png_set_interlace_handling(s_.png);
    png_read_update_info(s_.png, s_.info);
    channels_ = header_.channels = png_get_channels(s_.png, s_.info);
    deep_ = png_get_bit_depth(s_.png, s_.info) == 16;
    return true;
  }

  // Row y, the rows before it read past; null where libpng failed. An interlaced file is read whole at
  // the first row (its passes cover the whole image).
  const uint8_t* next_row(uint32_t y) {
    if (passes_ > 1 && whole_.empty()) {  // allocated here: a longjmp skips the destructors of this frame
      whole_.resize(row_.size() * header_.height);
      whole_rows_.resize(header_.height);
      for (uint32_t r = 0; r < header_.height; ++r) whole_rows_[r] = whole_.data() + size_t(r) * row_.size();
    }
    return decode_row(y);
  }
  const uint8_t* decode_row(uint32_t y) {
    if (setjmp(png_jmpbuf(s_.png))) return nullptr;
    if (passes_ > 1) {
      if (!whole_done_) {
        png_read_image(s_.png, whole_rows_.data());
        png_read_end(s_.png, nullptr);
        whole_done_ = true;
      }
      next_ = y + 1;
      return whole_.data() + size_t(y) * row_.size();
    }
    for (; next_ <= y; ++next_) png_read_row(s_.png, row_.data(), nullptr);
    if (next_ == header_.height) png_read_end(s_.png, nullptr);
    return row_.data();
  }

  std::string path_;
  File file_;
  Messages msg_;
  struct Structs {  // destroyed also when the constructor throws
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~Structs() { png_destroy_read_struct(&png, &info, nullptr); }
  } s_;
  int channels_ = 4, passes_ = 1;
  bool deep_ = false, interlaced_ = false;
  uint32_t next_ = 0;  // the next row libpng gives
  std::vector<uint8_t> row_, whole_;
  std::vector<png_bytep> whole_rows_;
  bool whole_done_ = false, failed_ = false;
};

// libpng's write structures, destroyed however the writer ends.
struct WriteStructs {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~WriteStructs() { png_destroy_write_struct(&png, &info); }
};

class PngWriter final : public ImageWriter {
 public:
  PngWriter(const std::string& path, const StreamSpec& spec) : file_(path) {
    spec_ = spec;
    if ((spec.bits != 8 && spec.bits != 16) || spec.channels < 1 || spec.channels > 4)
      throw Error(path + ": PNG takes 8- or 16-bit rows of 1 to 4 channels");
    out_.f = std::fopen(file_.tmp().c_str(), "wb");
    if (!out_.f) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
    s_.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &msg_, on_error, on_warning);
    if (s_.png) s_.info = png_create_info_struct(s_.png);
    if (!s_.png || !s_.info || !start()) throw fail();
  }

  void write_rows(uint32_t n, const void* rows, size_t stride) override {
    take_rows(file_.path(), n);
    if (!rows_out(n, static_cast<const uint8_t*>(rows), stride)) throw fail();
  }

  void finish() override {
    check_all_rows(file_.path());
    if (!end() || !file_.close_and_commit(out_.f)) throw fail();
  }

 private:
  Error fail() const {
    return Error(file_.path() + ": cannot write PNG" +
                 (msg_.error[0] ? " (" + std::string(msg_.error) + ")" : ""));
  }
  bool start() {
    if (setjmp(png_jmpbuf(s_.png))) return false;
    png_init_io(s_.png, out_.f);
    static const int kColour[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                   PNG_COLOR_TYPE_RGB_ALPHA};
    set_png_compression(s_.png);
    png_set_IHDR(s_.png, s_.info, spec_.width, spec_.height, spec_.bits, kColour[spec_.channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(s_.png, s_.info);
    if (spec_.bits == 16 && little_endian()) png_set_swap(s_.png);
    return true;
  }
  bool rows_out(uint32_t n, const uint8_t* rows, size_t stride) {
    if (setjmp(png_jmpbuf(s_.png))) return false;
    for (uint32_t i = 0; i < n; ++i) png_write_row(s_.png, rows + size_t(i) * stride);
    return true;
  }
  bool end() {
    if (setjmp(png_jmpbuf(s_.png))) return false;
    png_write_end(s_.png, nullptr);
    return true;
  }

  TempFile file_;
  File out_;
  Messages msg_;
  WriteStructs s_;
};

}  // namespace

// The whole image as 8-bit RGBA rows, as PngWriter writes rows.
bool encode_png_rgba8(const std::string& tmp, const ImageRGBA8& image) {
  File out;
  out.f = std::fopen(tmp.c_str(), "wb");
  if (!out.f) return false;
  Messages msg;
  WriteStructs s;
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &msg, on_error, on_warning);
  if (s.png) s.info = png_create_info_struct(s.png);
  if (!s.png || !s.info) return false;
  if (setjmp(png_jmpbuf(s.png))) {
    if (!errno) errno = EIO;
    return false;
  }
  png_init_io(s.png, out.f);
  set_png_compression(s.png);
  png_set_IHDR(s.png, s.info, png_uint_32(image.width), png_uint_32(image.height), 8,
               PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(s.png, s.info);
  for (int y = 0; y < image.height; ++y) png_write_row(s.png, image.px(0, y));
  png_write_end(s.png, nullptr);
  // Every write, the flush and the close checked: on a full disk the close may be the first to fail.
  const bool written = std::fflush(out.f) == 0 && !std::ferror(out.f);
  const bool closed = std::fclose(out.f) == 0;
  out.f = nullptr;
  return written && closed;
}

std::unique_ptr<ImageReader> open_png_reader(const std::string& path) {
  return std::make_unique<PngReader>(path);
}

std::unique_ptr<ImageWriter> open_png_writer(const std::string& path, const StreamSpec& spec) {
  return std::make_unique<PngWriter>(path, spec);
}

}  // namespace satlab::io
