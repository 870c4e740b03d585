// TIFF through libtiff (linked statically with the codecs Debian builds it with). 16-bit greyscale and
// RGB(A) files keep their 16 bits (Decoded::high); every other layout libtiff knows is read at 8 bits
// through its RGBA interface. The Orientation tag is returned, not applied (image_io.cpp applies it).
#include <tiffio.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

#include "app/io/decoded.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/image_io.hpp"
#include "app/io/tiff.hpp"
#include "core/error.hpp"

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
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, tmsize_t(std::min<uint64_t>(uint64_t(max_pixels()) * 16, uint64_t(1) << 40)));
  }
  ~Options() { TIFFOpenOptionsFree(o); }
};

struct Close {
  void operator()(TIFF* t) const { TIFFClose(t); }
};

// A read-only file in memory for TIFFClientOpen.
struct Memory {
  const std::vector<uint8_t>* b;
  uint64_t at = 0;
};
tmsize_t mem_read(thandle_t h, void* buf, tmsize_t n) {
  auto* m = static_cast<Memory*>(h);
  if (n < 0 || m->at >= m->b->size()) return 0;
  const uint64_t k = std::min<uint64_t>(uint64_t(n), m->b->size() - m->at);
  std::memcpy(buf, m->b->data() + m->at, size_t(k));
  m->at += k;
  return tmsize_t(k);
}
tmsize_t mem_write(thandle_t, void*, tmsize_t) { return 0; }
toff_t mem_seek(thandle_t h, toff_t off, int whence) {
  auto* m = static_cast<Memory*>(h);
  const uint64_t base = whence == SEEK_CUR ? m->at : whence == SEEK_END ? m->b->size() : 0;
  m->at = base + off;
  return m->at;
}
int mem_close(thandle_t) { return 0; }
toff_t mem_size(thandle_t h) { return static_cast<Memory*>(h)->b->size(); }
int mem_map(thandle_t, void**, toff_t*) { return 0; }
void mem_unmap(thandle_t, void*, toff_t) {}

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

Decoded decode_tiff(const std::string& path, const std::vector<uint8_t>& bytes, bool want_high) {
  Messages msg;
  Options opts(&msg);
  Memory mem{&bytes};
  std::unique_ptr<TIFF, Close> tif(TIFFClientOpenExt(path.c_str(), "rm", &mem, mem_read, mem_write, mem_seek, mem_close,
                                                     mem_size, mem_map, mem_unmap, opts.o));
  auto fail = [&](const std::string& why) -> Error {
    return Error(path + ": " + why + (msg.error.empty() ? "" : " (" + msg.error + ")"));
  };
  if (!tif) throw fail("not a readable TIFF image");
  uint32_t w = 0, h = 0;
  uint16_t bps = 1, spp = 1, photometric = 0, planar = PLANARCONFIG_CONTIG, compression = COMPRESSION_NONE,
           orientation = ORIENTATION_TOPLEFT, sample_format = SAMPLEFORMAT_UINT;
  TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &h);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_BITSPERSAMPLE, &bps);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_COMPRESSION, &compression);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ORIENTATION, &orientation);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLEFORMAT, &sample_format);
  const bool has_photometric = TIFFGetField(tif.get(), TIFFTAG_PHOTOMETRIC, &photometric) != 0;
  if (w == 0 || h == 0) throw fail("image has zero size");
  check_image_limits(path, w, h);
  check_declared_size(path, bytes.size(), uint64_t(w) * h, max_pixels_per_byte(compression, uint32_t(bps) * spp), "TIFF");

  Decoded d;
  d.format = "TIFF";
  d.bits = bps;
  d.orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
  uint32_t icc_len = 0;
  void* icc = nullptr;
  if (TIFFGetField(tif.get(), TIFFTAG_ICCPROFILE, &icc_len, &icc) && icc && icc_len > 0)
    d.icc.assign(static_cast<uint8_t*>(icc), static_cast<uint8_t*>(icc) + icc_len);
  d.rgba = ImageRGBA8(int(w), int(h));

  const bool grey_or_rgb = has_photometric && ((photometric == PHOTOMETRIC_MINISBLACK && spp <= 2) ||
                                               (photometric == PHOTOMETRIC_RGB && spp >= 3 && spp <= 4));
  if ((bps == 8 || bps == 16) && sample_format == SAMPLEFORMAT_UINT && planar == PLANARCONFIG_CONTIG && grey_or_rgb &&
      !TIFFIsTiled(tif.get())) {
    // Read here rather than through TIFFRGBAImage, which premultiplies unassociated alpha and drops 16 bits.
    const bool deep = bps == 16;
    const tmsize_t line = TIFFScanlineSize(tif.get());
    if (line < tmsize_t(size_t(w) * spp * (deep ? 2 : 1))) throw fail("bad scanline size");
    std::vector<uint16_t> row(size_t(line) / 2 + 1);
    std::vector<uint8_t> row8(deep ? 0 : size_t(line));
    if (deep && want_high) d.high = ImageF(int(w), int(h), 4);
    const bool grey = photometric == PHOTOMETRIC_MINISBLACK;
    const bool alpha = spp == 2 || spp == 4;
    for (uint32_t y = 0; y < h; ++y) {
      if (TIFFReadScanline(tif.get(), deep ? static_cast<void*>(row.data()) : row8.data(), y, 0) < 0)
        throw fail("cannot decode TIFF (corrupt or truncated data)");
      for (uint32_t x = 0; x < w; ++x) {
        if (!deep) {
          const uint8_t* s = row8.data() + size_t(x) * spp;
          uint8_t* p = d.rgba.px(int(x), int(y));
          p[0] = s[0], p[1] = grey ? s[0] : s[1], p[2] = grey ? s[0] : s[2], p[3] = alpha ? s[spp - 1] : 255;
          continue;
        }
        const uint16_t* s = row.data() + size_t(x) * spp;
        const uint16_t v[4] = {s[0], grey ? s[0] : s[1], grey ? s[0] : s[2], alpha ? s[spp - 1] : uint16_t(65535)};
        uint8_t* p = d.rgba.px(int(x), int(y));
        for (int c = 0; c < 4; ++c) p[c] = uint8_t((uint32_t(v[c]) * 255u + 32767u) / 65535u);
        if (want_high)
          for (int c = 0; c < 4; ++c) d.high.at(int(x), int(y), c) = float(v[c]) / 65535.f;
      }
    }
    return d;
  }
  if (bps > 8) d.notes.push_back("this " + std::to_string(bps) + "-bit TIFF layout is read at 8 bits");
  char emsg[1024] = "";
  TIFFRGBAImage img;
  if (!TIFFRGBAImageOK(tif.get(), emsg) || !TIFFRGBAImageBegin(&img, tif.get(), 0, emsg))
    throw Error(path + ": unsupported TIFF layout (" + std::string(emsg) + ")");
  img.req_orientation = img.orientation;  // rows as stored: the orientation is applied for all 8 values later
  std::vector<uint32_t> raster(size_t(w) * h);
  const int ok = TIFFRGBAImageGet(&img, raster.data(), w, h);
  TIFFRGBAImageEnd(&img);
  if (!ok) throw fail("cannot decode TIFF (corrupt or truncated data)");
  for (size_t i = 0; i < raster.size(); ++i) {
    const uint32_t p = raster[i];
    d.rgba.data[i * 4 + 0] = uint8_t(TIFFGetR(p));
    d.rgba.data[i * 4 + 1] = uint8_t(TIFFGetG(p));
    d.rgba.data[i * 4 + 2] = uint8_t(TIFFGetB(p));
    d.rgba.data[i * 4 + 3] = uint8_t(TIFFGetA(p));
  }
  return d;
}

bool write_tiff(const std::string& path, int width, int height, int channels, int bits, const void* samples,
                int orientation) {
  Messages msg;
  Options opts(&msg);
  std::unique_ptr<TIFF, Close> tif(TIFFOpenExt(path.c_str(), "w", opts.o));
  if (!tif) return false;
  TIFF* t = tif.get();
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, uint32_t(width));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, uint32_t(height));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, uint16_t(bits));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, uint16_t(channels));
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_ORIENTATION, uint16_t(orientation));
  if (channels == 2 || channels == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, uint16_t(1), &extra);
  }
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
