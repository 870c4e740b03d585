// Images read and written by rows, never whole: TIFF (striped and tiled, BigTIFF) through libtiff's strip
// and tile API, PNG through libpng's row interface, JPEG through libjpeg-turbo's scanlines. Opening reads
// the header only; pixels are decoded when their rows are asked for, so memory stays at a strip, a row of
// tiles or a JPEG's few rows whatever the image's size. The whole-image loaders of TIFF and JPEG
// (image_io.hpp) are these readers run over all rows. Every failure throws satlab::Error with one line
// naming the file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace satlab::io {

// What the header says, before any pixel is decoded.
struct StreamHeader {
  std::string format;            // "TIFF", "PNG", "JPEG"
  uint32_t width = 0, height = 0;
  int channels = 0;              // in the file: 1 grey, 2 grey+alpha, 3 colour, 4 colour+alpha (CMYK: 4)
  int bits = 8;                  // per channel in the file
  bool bigtiff = false;          // TIFF: the 64-bit offsets variant
  uint32_t tile_width = 0, tile_height = 0;  // TIFF: the tile size of a tiled file; 0 for strips
  uint32_t rows_per_strip = 0;   // TIFF: rows in one strip (striped files)
  int orientation = 1;           // the stored EXIF/TIFF orientation; rows are read as stored, not turned
  std::vector<uint8_t> icc;      // the embedded ICC profile, empty if none (the reader does not apply it)
  // Host memory the reader holds while rows are read (its decoded strip or row of tiles, libjpeg's
  // coefficients of a progressive JPEG, the whole of an interlaced PNG), for a caller's memory budget.
  size_t buffer_bytes = 0;
};

// Reads rows of RGBA pixels as stored (grey is spread to R, G, B; missing alpha is opaque).
class ImageReader {
 public:
  virtual ~ImageReader() = default;
  const StreamHeader& header() const { return header_; }
  // Rows [y0, y1) into `rgba8` (4 bytes a pixel, rows `stride` bytes apart) and, when `rgba16` is not
  // null, the same pixels at 16 bits (8-bit files: v * 257), rows `stride16` samples apart. TIFF rows come
  // in any order; PNG and JPEG rows only forward (y0 at or past the end of the last call).
  virtual void read_rows(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride, uint16_t* rgba16 = nullptr,
                         size_t stride16 = 0) = 0;
  // Notes on what was done beside decoding (e.g. how CMYK was converted); filled as rows are read.
  const std::vector<std::string>& notes() const { return notes_; }

 protected:
  StreamHeader header_;
  std::vector<std::string> notes_;
};

// "TIFF", "PNG" or "JPEG" where `path`'s first bytes are those of a format read by rows; else "" (a
// file that cannot be opened too).
std::string row_format(const std::string& path);

// Opens `path` (TIFF, PNG or JPEG, found from its first bytes) and reads its header. Checks that the file
// can hold the pixels it declares; the pixel limit (format_guard.hpp) is the caller's to check. TIFF, whose
// rows come in any order, is decoded by up to `threads` readers at once, each a share of the rows of a call
// (header().buffer_bytes counts them all); PNG and JPEG by one.
std::unique_ptr<ImageReader> open_image_reader(const std::string& path, int threads = 1);

// Threads for decoding or encoding one image: the machine's hardware threads, at most 8.
int io_threads();

// The channels of a TIFF result filtered from an input with this header: 3 (RGB) where the input's rows
// carry no alpha (grey or colour: 1 or 3 channels), else 4 (RGBA: grey+alpha, RGBA, and CMYK, whose
// fourth channel is read as opaque alpha). Both render paths write the same layout.
int result_channels(const StreamHeader& input);
// `n` RGBA8 pixels to RGB8, alpha dropped.
void rgba_to_rgb(const uint8_t* rgba, size_t n, uint8_t* rgb);
// .tif or .tiff, any case.
bool is_tiff_path(const std::string& path);

// What an ImageWriter writes.
struct StreamSpec {
  uint32_t width = 0, height = 0;
  int channels = 4;        // of the rows given: 1 grey, 3 RGB, 4 RGBA (JPEG drops alpha)
  int bits = 8;            // 8, or 16 for PNG and TIFF (rows of native-endian uint16)
  uint32_t tile = 0;       // TIFF: tiles of tile x tile pixels (a multiple of 16); 0: strips
  int jpeg_quality = 95;
  bool bigtiff = false;    // TIFF: BigTIFF even when the classic format would do
  bool compress = true;    // TIFF: deflate; false: uncompressed (what an I/O-bound pipeline reads fastest)
  int threads = 0;         // TIFF strips: deflate on this many threads at once (0: io_threads())
};

// Takes rows in order into `path` (format from its extension: .tif/.tiff, .png, .jpg/.jpeg). The file is
// written under a temporary name beside `path` and renamed by finish(); a writer destroyed without
// finish(), or a process ended by SIGINT/SIGTERM/SIGHUP while writing, leaves nothing behind. TIFF is
// written as BigTIFF when the classic format's 4 GB might not hold it. Refuses to overwrite an input.
class ImageWriter {
 public:
  virtual ~ImageWriter() = default;
  const StreamSpec& spec() const { return spec_; }
  // The next `n` rows, `stride` bytes apart.
  virtual void write_rows(uint32_t n, const void* rows, size_t stride) = 0;
  // All rows written: closes the file and gives it its name.
  virtual void finish() = 0;

 protected:
  // Counts `n` more rows (rows_ before the call is the first of them), refusing rows past the image's
  // height; satlab::Error naming `path`.
  void take_rows(const std::string& path, uint32_t n);
  void check_all_rows(const std::string& path) const;  // refuses finishing before the last row

  StreamSpec spec_;
  uint32_t rows_ = 0;  // rows written so far
};

std::unique_ptr<ImageWriter> open_image_writer(const std::string& path, const StreamSpec& spec);

}  // namespace satlab::io
