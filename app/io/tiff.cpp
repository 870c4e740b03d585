// TIFF through libtiff (linked statically with the codecs Debian builds it with), read from the file a strip
// or a row of tiles at a time (stream_io.hpp); the whole-image loader is that reader over all rows.
// 16-bit greyscale and RGB(A) files keep their 16 bits (Decoded::high); every other layout libtiff knows is
// read at 8 bits through its RGBA interface. The Orientation tag is returned, not applied (image_io.cpp
// applies it).
#include <libdeflate.h>
#include <sys/stat.h>
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>

#include "app/io/atomic_file.hpp"
#include "app/io/decoded.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/image_io.hpp"
#include "app/io/stream_io.hpp"
#include "app/io/tiff.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace satlab::io {
namespace {

// libtiff's messages for one file: the first error is kept for the one line the user sees, warnings
// are dropped.
struct Messages {
  std::string error;
};
int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* m = static_cast<Messages*>(user);
  if (m && m->error.empty()) {
    char buf[256];
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    m->error = std::string(module ? module : "libtiff") + ": " + buf;
  }
  return 1;
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct Options {
  TIFFOpenOptions* o = TIFFOpenOptionsAlloc();
  explicit Options(Messages* m) {
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, m);
    // No single buffer above what the largest image allowed needs (16 bytes a pixel).
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, tmsize_t(std::min<uint64_t>(max_pixels(), uint64_t(1) << 36) * 16));
  }
  ~Options() { TIFFOpenOptionsFree(o); }
};

struct Close {
  void operator()(TIFF* t) const { TIFFClose(t); }
};

// The most pixels one byte of the file can hold under `compression`, for `bits` bits per pixel.
uint64_t max_pixels_per_byte(uint16_t compression, uint32_t bits) {
  uint64_t ratio;  // decoded bytes per stored byte, at best
  switch (compression) {
    case COMPRESSION_NONE: ratio = 1; break;
    case COMPRESSION_PACKBITS: ratio = 128; break;
    case COMPRESSION_LZW: ratio = 4096; break;  // one code of at least 9 bits yields at most 4096 bytes
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: ratio = 1032; break;
    case COMPRESSION_JPEG: return 2048;  // as in jpeg.cpp
    default: ratio = uint64_t(1) << 15;  // zstd, lzma, CCITT, JBIG, ...: a generous bound
  }
  return std::max<uint64_t>(1, ratio * 8 / std::max<uint32_t>(1, bits));
}

}  // namespace

bool is_tiff(const std::vector<uint8_t>& b) {
  return b.size() >= 4 && ((b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
                           (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43)));
}


namespace {

uint64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

// Rows are decoded a block at a time and the last block kept: a strip, or a row of tiles. Grey and RGB(A)
// of 8 or 16 bits are read here from the decoded samples (not through TIFFRGBAImage, which premultiplies
// unassociated alpha and drops 16 bits); every other layout libtiff knows goes through its RGBA interface
// one block at a time, at 8 bits.
class TiffReader final : public ImageReader {
 public:
  // `check_limits`: the pixel limit and host memory too (format_guard.hpp), before anything else.
  TiffReader(const std::string& path, bool check_limits) : path_(path), opts_(&msg_) {
    tif_.reset(TIFFOpenExt(path.c_str(), "rm", opts_.o));  // m: read, not mapped (no file-sized RSS)
    if (!tif_) throw fail("not a readable TIFF image");
    TIFF* t = tif_.get();
    uint32_t w = 0, h = 0;
    uint16_t bps = 1, spp = 1, photometric = 0, planar = PLANARCONFIG_CONTIG, compression = COMPRESSION_NONE,
             orientation = ORIENTATION_TOPLEFT, sample_format = SAMPLEFORMAT_UINT;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &sample_format);
    const bool has_photometric = TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photometric) != 0;
    if (w == 0 || h == 0) throw fail("image has zero size");
    if (check_limits) check_image_limits(path, w, h);
    check_declared_size(path, file_size(path), uint64_t(w) * h, max_pixels_per_byte(compression, uint32_t(bps) * spp),
                        "TIFF");
    StreamHeader& hd = header_;
    hd.format = "TIFF";
    hd.width = w, hd.height = h;
    hd.channels = spp;
    hd.bits = bps;
    hd.bigtiff = TIFFIsBigTIFF(t) != 0;
    hd.orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    uint32_t icc_len = 0;
    void* icc = nullptr;
    if (TIFFGetField(t, TIFFTAG_ICCPROFILE, &icc_len, &icc) && icc && icc_len > 0)
      hd.icc.assign(static_cast<uint8_t*>(icc), static_cast<uint8_t*>(icc) + icc_len);
    tiled_ = TIFFIsTiled(t) != 0;
    if (tiled_) {
      TIFFGetField(t, TIFFTAG_TILEWIDTH, &hd.tile_width);
      TIFFGetField(t, TIFFTAG_TILELENGTH, &hd.tile_height);
      if (hd.tile_width == 0 || hd.tile_height == 0) throw fail("tiled TIFF without a tile size");
      block_rows_ = hd.tile_height;
    } else {
      uint32_t rps = h;
      TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rps);
      hd.rows_per_strip = std::min(std::max<uint32_t>(rps, 1), h);
      block_rows_ = hd.rows_per_strip;
    }
    const bool grey_or_rgb = has_photometric && ((photometric == PHOTOMETRIC_MINISBLACK && spp <= 2) ||
                                                 (photometric == PHOTOMETRIC_RGB && spp >= 3 && spp <= 4));
    samples_ = (bps == 8 || bps == 16) && sample_format == SAMPLEFORMAT_UINT && planar == PLANARCONFIG_CONTIG &&
               grey_or_rgb;
    const size_t pixel = samples_ ? size_t(spp) * size_t(bps / 8) : 4;
    hd.buffer_bytes = size_t(w) * block_rows_ * pixel + (tiled_ ? size_t(hd.tile_width) * hd.tile_height * pixel : 0);
    if (samples_) return;
    if (bps > 8) notes_.push_back("this " + std::to_string(bps) + "-bit TIFF layout is read at 8 bits");
    char emsg[1024] = "";
    if (!TIFFRGBAImageOK(t, emsg) || !TIFFRGBAImageBegin(&rgba_, t, 0, emsg))
      throw Error(path + ": unsupported TIFF layout (" + std::string(emsg) + ")");
    rgba_begun_ = true;
    rgba_.req_orientation = rgba_.orientation;  // rows as stored: the orientation is applied for all 8 values later
  }

  ~TiffReader() override {
    if (rgba_begun_) TIFFRGBAImageEnd(&rgba_);
  }

  void read_rows(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride, uint16_t* rgba16,
                 size_t stride16) override {
    const StreamHeader& hd = header_;
    if (y0 > y1 || y1 > hd.height) throw Error(path_ + ": rows " + std::to_string(y0) + "-" + std::to_string(y1) +
                                               " are outside the image's " + std::to_string(hd.height));
    const size_t w = hd.width;
    const bool deep = hd.bits == 16;
    for (uint32_t y = y0; y < y1; ++y) {
      const uint8_t* row = block_row(y);
      uint8_t* out8 = rgba8 + size_t(y - y0) * stride;
      uint16_t* out16 = rgba16 ? rgba16 + size_t(y - y0) * stride16 : nullptr;
      if (samples_) {
        samples_to_rgba(row, w, hd.channels, deep, out8, out16);
        continue;
      }
      const uint32_t* px = reinterpret_cast<const uint32_t*>(row);
      for (size_t x = 0; x < w; ++x) {
        const uint32_t p = px[x];
        const uint8_t v[4] = {uint8_t(TIFFGetR(p)), uint8_t(TIFFGetG(p)), uint8_t(TIFFGetB(p)), uint8_t(TIFFGetA(p))};
        for (int c = 0; c < 4; ++c) {
          out8[x * 4 + c] = v[c];
          if (out16) out16[x * 4 + c] = uint16_t(v[c] * 257);
        }
      }
    }
  }

 private:
  Error fail(const std::string& why) const {
    return Error(path_ + ": " + why + (msg_.error.empty() ? "" : " (" + msg_.error + ")"));
  }

  // Row y of the block that holds it, decoded now unless it is the one kept: samples as stored, or (the
  // RGBA interface) one uint32 ABGR a pixel.
  const uint8_t* block_row(uint32_t y) {
    const StreamHeader& hd = header_;
    const uint32_t b = y / block_rows_, first = b * block_rows_;
    const uint32_t rows = std::min(block_rows_, hd.height - first);
    const size_t w = hd.width;
    const size_t pixel = samples_ ? size_t(hd.channels) * size_t(hd.bits / 8) : 4;
    if (b != block_) {
      block_ = UINT32_MAX;  // nothing kept while a decode fails half way
      TIFF* t = tif_.get();
      block_data_.resize(w * rows * pixel);
      if (!samples_) {
        rgba_.row_offset = int(first);
        rgba_.col_offset = 0;
        if (!TIFFRGBAImageGet(&rgba_, reinterpret_cast<uint32_t*>(block_data_.data()), hd.width, rows))
          throw fail("cannot decode TIFF (corrupt or truncated data)");
      } else if (!tiled_) {
        const tmsize_t need = tmsize_t(w * rows * pixel);
        if (TIFFScanlineSize(t) < tmsize_t(w * pixel)) throw fail("bad scanline size");
        if (TIFFReadEncodedStrip(t, TIFFComputeStrip(t, first, 0), block_data_.data(), need) < need)
          throw fail("cannot decode TIFF (corrupt or truncated data)");
      } else {  // every tile of this row of tiles, each copied to its columns
        const size_t tw = hd.tile_width, th = hd.tile_height;
        const tmsize_t tile_bytes = tmsize_t(tw * th * pixel);
        if (TIFFTileSize(t) < tile_bytes) throw fail("bad tile size");
        tile_.resize(size_t(tile_bytes));
        for (size_t x0 = 0; x0 < w; x0 += tw) {
          if (TIFFReadEncodedTile(t, TIFFComputeTile(t, uint32_t(x0), first, 0, 0), tile_.data(), tile_bytes) < tile_bytes)
            throw fail("cannot decode TIFF (corrupt or truncated data)");
          const size_t cols = std::min(tw, w - x0);
          for (uint32_t r = 0; r < rows; ++r)
            std::memcpy(block_data_.data() + (size_t(r) * w + x0) * pixel, tile_.data() + size_t(r) * tw * pixel,
                        cols * pixel);
        }
      }
      block_ = b;
    }
    return block_data_.data() + size_t(y - first) * w * pixel;
  }

  std::string path_;
  Messages msg_;
  Options opts_;
  std::unique_ptr<TIFF, Close> tif_;
  bool tiled_ = false;
  bool samples_ = false;  // grey or RGB(A) samples read as stored; else TIFFRGBAImage
  TIFFRGBAImage rgba_{};
  bool rgba_begun_ = false;
  uint32_t block_rows_ = 1;
  uint32_t block_ = UINT32_MAX;  // the block kept in block_data_
  std::vector<uint8_t> block_data_, tile_;
};

// Several readers of one file, each decoding its share of the rows asked for on a thread of its own: the
// shares are whole strips or rows of tiles, so no block is decoded twice. Rows come out as one reader's.
class ParallelTiffReader final : public ImageReader {
 public:
  ParallelTiffReader(const std::string& path, int threads) {
    readers_.push_back(std::make_unique<TiffReader>(path, false));
    header_ = readers_[0]->header();
    notes_ = readers_[0]->notes();
    for (int i = 1; i < threads; ++i) readers_.push_back(std::make_unique<TiffReader>(path, false));
    header_.buffer_bytes *= readers_.size();
    block_rows_ = std::max<uint32_t>(1, header_.tile_height ? header_.tile_height : header_.rows_per_strip);
  }

  void read_rows(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride, uint16_t* rgba16,
                 size_t stride16) override {
    if (y0 > y1 || y1 > header_.height) return readers_[0]->read_rows(y0, y1, rgba8, stride, rgba16, stride16);
    // Shares of whole blocks: the k-th starts at the first block boundary at or past y0 + k * share.
    const uint32_t n = uint32_t(readers_.size()), share = (y1 - y0 + n - 1) / n;
    std::vector<std::pair<uint32_t, uint32_t>> parts;
    for (uint32_t k = 0, a = y0; k < n && a < y1; ++k) {
      const uint64_t at = uint64_t(y0) + uint64_t(k + 1) * share;
      const uint32_t b = uint32_t(std::min<uint64_t>(y1, (at + block_rows_ - 1) / block_rows_ * block_rows_));
      if (b > a) parts.emplace_back(a, b), a = b;
    }
    parallel_for(0, long(parts.size()), [&](long k0, long k1) {
      for (long k = k0; k < k1; ++k) {
        const auto [a, b] = parts[size_t(k)];
        readers_[size_t(k)]->read_rows(a, b, rgba8 + size_t(a - y0) * stride, stride,
                                       rgba16 ? rgba16 + size_t(a - y0) * stride16 : nullptr, stride16);
      }
    }, int(parts.size()));
  }

 private:
  std::vector<std::unique_ptr<TiffReader>> readers_;
  uint32_t block_rows_ = 1;
};

// The fields of every file satlab writes: contiguous grey or RGB(A) samples, deflate (or none, where asked
// for), unassociated alpha.
void set_fields(TIFF* t, uint32_t width, uint32_t height, int channels, int bits, int orientation,
                bool compress = true) {
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, uint16_t(bits));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, uint16_t(channels));
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, compress ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
  TIFFSetField(t, TIFFTAG_ORIENTATION, uint16_t(orientation));
  if (channels == 2 || channels == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, uint16_t(1), &extra);
  }
}

// Strips of about kStripBytes, written raw (deflated on several threads at once, or as they are), or tiles
// gathered from a row of tiles' rows through libtiff's codec.
class TiffWriter final : public ImageWriter {
 public:
  static constexpr size_t kStripBytes = size_t(256) << 10;
  static constexpr uint32_t kBatchStrips = 32;  // strips deflated at once, then written in order

  TiffWriter(const std::string& path, const StreamSpec& spec) : file_(path), opts_(&msg_) {
    spec_ = spec;
    const uint64_t raw = uint64_t(spec.width) * spec.height * uint64_t(spec.channels) * uint64_t(spec.bits / 8);
    // Deflate may not shrink the data at all: classic TIFF's 32-bit offsets need headroom below 4 GiB.
    const bool big = spec.bigtiff || raw > (uint64_t(1) << 32) - (uint64_t(1) << 28);
    tif_.reset(TIFFOpenExt(file_.tmp().c_str(), big ? "w8" : "w", opts_.o));
    if (!tif_) throw fail();
    TIFF* t = tif_.get();
    set_fields(t, spec.width, spec.height, spec.channels, spec.bits, 1, spec.compress);
    row_bytes_ = size_t(spec.width) * size_t(spec.channels) * size_t(spec.bits / 8);
    if (spec.tile) {
      TIFFSetField(t, TIFFTAG_TILEWIDTH, spec.tile);
      TIFFSetField(t, TIFFTAG_TILELENGTH, spec.tile);
      band_.assign(row_bytes_ * spec.tile, 0);
      tile_.resize(size_t(spec.tile) * spec.tile * size_t(spec.channels) * size_t(spec.bits / 8));
    } else {
      strip_rows_ = uint32_t(std::clamp<size_t>(kStripBytes / row_bytes_, 1, spec.height));
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, strip_rows_);
      threads_ = spec.compress ? std::max(1, spec.threads > 0 ? spec.threads : io_threads()) : 1;
    }
  }
  ~TiffWriter() override {
    for (libdeflate_compressor* c : deflaters_) libdeflate_free_compressor(c);
  }

  void write_rows(uint32_t n, const void* rows, size_t stride) override {
    take_rows(file_.path(), n);
    const auto* in = static_cast<const uint8_t*>(rows);
    if (!spec_.tile) return take_strip_rows(n, in, stride);
    for (uint32_t i = 0, y = rows_ - n; i < n; ++i, ++y) {
      std::memcpy(band_.data() + size_t(y % spec_.tile) * row_bytes_, in + size_t(i) * stride, row_bytes_);
      if (y % spec_.tile == spec_.tile - 1 || y + 1 == spec_.height) write_tiles(y - y % spec_.tile);
    }
  }

  void finish() override {
    check_all_rows(file_.path());
    if (!TIFFFlush(tif_.get()) || !msg_.error.empty()) throw fail();
    tif_.reset();
    file_.commit();
  }

 private:
  Error fail() const {
    return Error(file_.path() + ": cannot write TIFF" + (msg_.error.empty() ? "" : " (" + msg_.error + ")"));
  }

  // Rows of a strip, the last strip's fewer.
  uint32_t rows_of_strip(uint32_t s) const {
    return std::min(strip_rows_, spec_.height - s * strip_rows_);
  }

  // The next `n` rows (the image's rows rows_ - n ..): whole strips straight from the caller's rows where
  // they lie packed, the rest gathered in pending_ until its strip is complete.
  void take_strip_rows(uint32_t n, const uint8_t* in, size_t stride) {
    uint32_t y = rows_ - n;  // the image's row of in[0]
    const uint32_t end = rows_;
    while (y < end) {
      const uint32_t s = y / strip_rows_, first = s * strip_rows_, rows = rows_of_strip(s);
      if (y == first && stride == row_bytes_ && end - y >= rows) {
        uint32_t strips = 1;  // as many whole strips as the rows given hold
        while (s + strips < strip_count() && (s + strips) * strip_rows_ + rows_of_strip(s + strips) <= end) ++strips;
        write_strips(s, strips, in);
        const uint32_t past = (s + strips) * strip_rows_;
        const uint32_t done = std::min(past, spec_.height) - y;
        in += size_t(done) * stride, y += done;
        continue;
      }
      pending_.resize(size_t(strip_rows_) * row_bytes_);
      const uint32_t take = std::min(end, first + rows) - y;
      for (uint32_t i = 0; i < take; ++i)
        std::memcpy(pending_.data() + size_t(y - first + i) * row_bytes_, in + size_t(i) * stride, row_bytes_);
      in += size_t(take) * stride, y += take;
      if (y == first + rows) write_strips(s, 1, pending_.data());
    }
  }

  uint32_t strip_count() const { return (spec_.height + strip_rows_ - 1) / strip_rows_; }

  // Strips [s0, s0 + n) from their packed rows: written as they are, or deflated kBatchStrips at a time on
  // threads_ threads and written in order.
  void write_strips(uint32_t s0, uint32_t n, const uint8_t* data) {
    TIFF* t = tif_.get();
    const auto bytes_of = [&](uint32_t s) { return size_t(rows_of_strip(s)) * row_bytes_; };
    if (!spec_.compress) {
      const uint8_t* p = data;
      for (uint32_t i = 0; i < n; ++i) {
        const size_t b = bytes_of(s0 + i);
        if (TIFFWriteRawStrip(t, s0 + i, const_cast<uint8_t*>(p), tmsize_t(b)) != tmsize_t(b)) throw fail();
        p += b;
      }
      return;
    }
    const int workers = threads_;
    while (int(deflaters_.size()) < workers) {
      libdeflate_compressor* c = libdeflate_alloc_compressor(6);  // zlib's default level, as libtiff's
      if (!c) throw Error(file_.path() + ": cannot write TIFF (out of memory for the compressor)");
      deflaters_.push_back(c);
    }
    for (uint32_t b0 = 0; b0 < n; b0 += kBatchStrips) {
      const uint32_t batch = std::min(kBatchStrips, n - b0);
      packed_.resize(batch);
      sizes_.assign(batch, 0);
      const int used = std::min<int>(workers, int(batch));
      parallel_for(0, used, [&](long k0, long k1) {  // compressor k deflates strips k, k + used, ...
        for (long k = k0; k < k1; ++k)
          for (uint32_t i = uint32_t(k); i < batch; i += uint32_t(used)) {
            const uint32_t s = s0 + b0 + i;
            const size_t in_bytes = bytes_of(s);
            const uint8_t* src = data + size_t(s - s0) * strip_rows_ * row_bytes_;
            std::vector<uint8_t>& out = packed_[i];
            out.resize(libdeflate_zlib_compress_bound(deflaters_[size_t(k)], in_bytes));
            sizes_[i] = libdeflate_zlib_compress(deflaters_[size_t(k)], src, in_bytes, out.data(), out.size());
          }
      }, used);
      for (uint32_t i = 0; i < batch; ++i) {
        if (sizes_[i] == 0) throw fail();
        if (TIFFWriteRawStrip(t, s0 + b0 + i, packed_[i].data(), tmsize_t(sizes_[i])) != tmsize_t(sizes_[i]))
          throw fail();
      }
    }
  }

  // The tiles of the row of tiles starting at row `first`, padded with zeros past the image's edges.
  void write_tiles(uint32_t first) {
    const size_t tile = spec_.tile, pixel = row_bytes_ / spec_.width;
    const size_t rows = std::min<size_t>(tile, spec_.height - first);
    for (size_t x0 = 0; x0 < spec_.width; x0 += tile) {
      std::fill(tile_.begin(), tile_.end(), uint8_t(0));
      const size_t cols = std::min<size_t>(tile, spec_.width - x0);
      for (size_t r = 0; r < rows; ++r)
        std::memcpy(tile_.data() + r * tile * pixel, band_.data() + r * row_bytes_ + x0 * pixel, cols * pixel);
      if (TIFFWriteTile(tif_.get(), tile_.data(), uint32_t(x0), first, 0, 0) < 0) throw fail();
    }
  }

  TempFile file_;
  Messages msg_;
  Options opts_;
  std::unique_ptr<TIFF, Close> tif_;
  size_t row_bytes_ = 0;
  std::vector<uint8_t> band_, tile_;  // tiled files: a row of tiles' rows, one tile
  uint32_t strip_rows_ = 1;           // striped files: rows per strip
  int threads_ = 1;                   // deflating at once
  std::vector<uint8_t> pending_;      // the rows of a strip not yet complete
  std::vector<std::vector<uint8_t>> packed_;  // a batch's deflated strips
  std::vector<size_t> sizes_;
  std::vector<libdeflate_compressor*> deflaters_;  // one a thread
};

}  // namespace

std::unique_ptr<ImageReader> open_tiff_reader(const std::string& path, int threads) {
  if (threads > 1) return std::make_unique<ParallelTiffReader>(path, threads);
  return std::make_unique<TiffReader>(path, false);
}

std::unique_ptr<ImageWriter> open_tiff_writer(const std::string& path, const StreamSpec& spec) {
  return std::make_unique<TiffWriter>(path, spec);
}

Decoded decode_tiff(const std::string& path, bool want_high) {
  TiffReader r(path, true);
  const StreamHeader& hd = r.header();
  Decoded d;
  d.format = "TIFF";
  d.bits = hd.bits;
  d.orientation = hd.orientation;
  d.icc = hd.icc;
  d.rgba = ImageRGBA8(int(hd.width), int(hd.height));
  const bool high = want_high && hd.bits == 16 && hd.channels <= 4;
  if (!high) {
    r.read_rows(0, hd.height, d.rgba.data.data(), size_t(hd.width) * 4, nullptr, 0);
  } else {  // by bands, so that the 16-bit samples never exist for the whole image beside the floats
    d.high = ImageF(int(hd.width), int(hd.height), 4);
    const uint32_t band = 64;
    std::vector<uint16_t> deep(size_t(hd.width) * 4 * band);
    for (uint32_t y = 0; y < hd.height; y += band) {
      const uint32_t y1 = std::min(hd.height, y + band);
      r.read_rows(y, y1, d.rgba.px(0, int(y)), size_t(hd.width) * 4, deep.data(), size_t(hd.width) * 4);
      float* f = d.high.data.data() + size_t(y) * hd.width * 4;
      for (size_t i = 0; i < size_t(y1 - y) * hd.width * 4; ++i) f[i] = float(deep[i]) / 65535.f;
    }
  }
  d.notes = r.notes();
  return d;
}

bool write_tiff(const std::string& path, int width, int height, int channels, int bits, const void* samples,
                int orientation) {
  Messages msg;
  Options opts(&msg);
  std::unique_ptr<TIFF, Close> tif(TIFFOpenExt(path.c_str(), "w", opts.o));
  if (!tif) return false;
  TIFF* t = tif.get();
  set_fields(t, uint32_t(width), uint32_t(height), channels, bits, orientation);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
  const size_t row = size_t(width) * size_t(channels) * size_t(bits / 8);
  std::vector<uint8_t> line(row);
  for (int y = 0; y < height; ++y) {
    std::memcpy(line.data(), static_cast<const uint8_t*>(samples) + size_t(y) * row, row);
    if (TIFFWriteScanline(t, line.data(), uint32_t(y), 0) < 0) return false;
  }
  if (!TIFFFlush(t)) return false;
  return msg.error.empty();
}

}  // namespace satlab::io
