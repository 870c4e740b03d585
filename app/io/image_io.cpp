// Loaders and writers: the format is found from the file's first bytes, decoded by stb or a library
// (decoded.hpp), then orientation and ICC profile are applied the same way for every format. Headers are checked (size, dimensions) before any pixel is decoded,
// and every failure names the file and the reason.
#include "app/io/image_io.hpp"

#include <stb_image.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>

#include "app/io/atomic_file.hpp"
#include "app/io/decoded.hpp"
#include "app/io/exr.hpp"
#include "app/io/exif.hpp"
#include "app/io/file_formats.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/icc.hpp"
#include "app/io/jpeg.hpp"
#include "app/io/tiff.hpp"
#include "app/io/webp.hpp"
#include "core/bilinear.hpp"
#include "core/error.hpp"
#include "core/refine.hpp"

namespace satlab::io {

bool write_png16_gray(const std::string& path, int width, int height, const std::vector<uint8_t>& rows);

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error(path + ": " + why);
}

std::string ext_lower(const std::string& path) {
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos) return "";
  std::string e = path.substr(dot + 1);
  for (auto& ch : e) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return e;
}

// Readable regular file, not empty.
void check_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) fail(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(path, "is a folder, not an image");
  if (st.st_size == 0) fail(path, "file is empty (0 bytes)");
  if (access(path.c_str(), R_OK) != 0) fail(path, "not readable: " + std::string(std::strerror(errno)));
}

// The size a PNG's IHDR declares, for a clear message where stb refuses the header as a whole.
bool png_declared_size(const std::string& path, uint32_t* w, uint32_t* h) {
  unsigned char b[24];
  std::ifstream f(path, std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(b), 24)) return false;
  if (std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) != 0 || std::memcmp(b + 12, "IHDR", 4) != 0) return false;
  *w = uint32_t(b[16]) << 24 | uint32_t(b[17]) << 16 | uint32_t(b[18]) << 8 | b[19];
  *h = uint32_t(b[20]) << 24 | uint32_t(b[21]) << 16 | uint32_t(b[22]) << 8 | b[23];
  return true;
}

// Dimensions from the header; refuses unknown formats and oversized images before decoding.
void check_header(const std::string& path, int* w, int* h, int* comp) {
  if (!stbi_info(path.c_str(), w, h, comp)) {
    uint32_t pw = 0, ph = 0;
    if (png_declared_size(path, &pw, &ph)) check_image_limits(path, pw, ph);
    fail(path, std::string("not a readable image (") + stbi_failure_reason() + ")");
  }
  if (*w <= 0 || *h <= 0) fail(path, "image has zero size");
  check_image_limits(path, uint64_t(*w), uint64_t(*h));
  check_untrusted_image(path, *w, *h);
}

struct StbFree {
  void operator()(void* p) const { stbi_image_free(p); }
};

ImageF load_pfm(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, std::strerror(errno));
  std::string magic;
  int w = 0, h = 0;
  double scale = 0;
  f >> magic >> w >> h >> scale;
  if (!f || (magic != "Pf" && magic != "PF")) fail(path, "not a PFM file (bad header)");
  if (w <= 0 || h <= 0 || w > (1 << 30) || h > (1 << 30))
    fail(path, "PFM size " + std::to_string(w) + "x" + std::to_string(h) + " out of range");
  check_image_limits(path, uint64_t(w), uint64_t(h));
  f.get();  // the single whitespace byte after the scale
  const int ch = magic == "PF" ? 3 : 1;
  const size_t need = size_t(w) * size_t(h) * size_t(ch) * sizeof(float);
  // Checked before allocating, so a short file declaring a large size costs nothing.
  const std::streamoff start = f.tellg();
  f.seekg(0, std::ios::end);
  const std::streamoff have = f.tellg() - start;
  f.seekg(start);
  if (!f || have < std::streamoff(need))
    fail(path, "PFM file is truncated (" + std::to_string(w) + "x" + std::to_string(h) + " needs " +
                   std::to_string(need) + " bytes of pixels, the file has " + std::to_string(have) + ")");
  std::vector<float> raw(size_t(w) * size_t(h) * size_t(ch));
  f.read(reinterpret_cast<char*>(raw.data()), std::streamsize(raw.size() * sizeof(float)));
  if (size_t(f.gcount()) != raw.size() * sizeof(float)) fail(path, "PFM file is truncated");
  const bool little = scale < 0;
  const uint16_t probe = 1;
  const bool host_little = *reinterpret_cast<const uint8_t*>(&probe) == 1;
  if (little != host_little)
    for (auto& v : raw) {
      uint32_t u;
      std::memcpy(&u, &v, 4);
      u = __builtin_bswap32(u);
      std::memcpy(&v, &u, 4);
    }
  ImageF d(w, h, 1);
  for (int y = 0; y < h; ++y)  // PFM rows run bottom to top
    for (int x = 0; x < w; ++x) d.at(x, y) = raw[(size_t(h - 1 - y) * size_t(w) + size_t(x)) * size_t(ch)];
  return d;
}

}  // namespace

// Depth maps with holes (NaN: a pixel without depth, as stereo, phones and renderers write them) or
// infinities (the sky of some exporters): each infinity becomes the map's finite extreme of its sign, each
// NaN the value of the nearest pixel with depth on its row (the left one of two as near), and a row
// without any the nearest such row's values; a map without one finite value becomes flat (0). The
// format's meaning of the values (depth or disparity) is not known here, so the fill prefers neither side.
int fill_depth_holes(ImageF& d, std::vector<std::string>* notes) {
  size_t nans = 0, infs = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : d.data) {
    if (std::isnan(v))
      ++nans;
    else if (std::isinf(v))
      ++infs;
    else
      lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (nans + infs == 0) return 0;
  const bool none = !(lo <= hi);
  if (none) {
    std::fill(d.data.begin(), d.data.end(), 0.f);
  } else {
    for (float& v : d.data)
      if (std::isinf(v)) v = v > 0 ? hi : lo;
    std::vector<int> full_rows;  // rows with depth somewhere
    for (int y = 0; y < d.height; ++y) {
      float* row = d.data.data() + size_t(y) * size_t(d.width);
      int prev = -1;  // the last pixel with depth to the left
      for (int x = 0; x < d.width; ++x) {
        if (std::isnan(row[x])) continue;
        for (int g = prev + 1; g < x; ++g) row[g] = prev < 0 || x - g < g - prev ? row[x] : row[prev];
        prev = x;
      }
      if (prev < 0) continue;  // no depth on this row: from the rows above and below, below
      for (int g = prev + 1; g < d.width; ++g) row[g] = row[prev];
      full_rows.push_back(y);
    }
    size_t k = 0;
    for (int y = 0; y < d.height; ++y) {
      while (k + 1 < full_rows.size() && full_rows[k + 1] <= y) ++k;
      const int a = full_rows[k], b = k + 1 < full_rows.size() ? full_rows[k + 1] : a;
      const int from = y <= a || y - a <= b - y ? a : b;  // the nearest row with depth (the upper of two)
      if (from == y) continue;
      std::copy_n(d.data.begin() + ptrdiff_t(size_t(from) * size_t(d.width)), d.width,
                  d.data.begin() + ptrdiff_t(size_t(y) * size_t(d.width)));
    }
  }
  if (notes) {
    std::string n;
    if (none)
      n = "no pixel has a finite depth: the map is taken as flat";
    else {
      if (nans)
        n = std::to_string(nans) + " pixel" + (nans == 1 ? "" : "s") +
            " without depth (NaN) took the nearest depth on their row (on a row without any, the nearest "
            "such row's)";
      if (infs)
        n += (n.empty() ? "" : "; ") + std::to_string(infs) + " infinite value" + (infs == 1 ? "" : "s") +
             " taken as the map's farthest or nearest finite one";
    }
    notes->push_back(n);
  }
  return int(std::min(nans + infs, size_t(std::numeric_limits<int>::max())));
}

namespace {

// Writes bytes to path through a temporary file and rename (atomic_file.hpp), so readers never see a
// partial file.
template <typename WriteFn>
void write_atomically(const std::string& path, WriteFn&& write) {
  TempFile file(path);
  errno = 0;
  if (!write(file.tmp())) fail(path, "cannot write (" + std::string(std::strerror(errno ? errno : EIO)) + ")");
  file.commit();
}

// Every file loaded as an image or depth map, so that no writer replaces one.
struct Inputs {
  std::mutex mutex;
  std::vector<std::string> paths;
  void add(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& p : paths)
      if (p == path) return;
    paths.push_back(path);
  }
};
Inputs& inputs() {
  static Inputs in;
  return in;
}

// The limit set on the command line, in pixels; 0: not set.
std::atomic<size_t> g_max_pixels{0};

size_t parse_megapixels(double mpx, const std::string& what) {
  if (!(mpx > 0) || !std::isfinite(mpx))
    throw Error(what + " must be a positive number of megapixels, got " + std::to_string(mpx));
  if (mpx >= 1.8e13) return SIZE_MAX;  // more pixels than any 2^32 x 2^32 image has
  return std::max<size_t>(1, size_t(std::llround(mpx * 1e6)));
}

}  // namespace

size_t max_pixels() {
  if (const size_t set = g_max_pixels.load()) return set;
  static const size_t from_env = [] {
    const char* e = std::getenv("SATLAB_MAX_MEGAPIXELS");
    if (!e || !*e) return SIZE_MAX;
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (*end != '\0') throw Error("SATLAB_MAX_MEGAPIXELS='" + std::string(e) + "' is not a number of megapixels");
    return parse_megapixels(v, "SATLAB_MAX_MEGAPIXELS");
  }();
  return from_env;
}

void set_max_megapixels(double megapixels) { g_max_pixels = parse_megapixels(megapixels, "--max-megapixels"); }
void clear_max_megapixels() { g_max_pixels = 0; }

void add_input(const std::string& path) { inputs().add(path); }

void refuse_overwriting_inputs(const std::string& path) {
  std::lock_guard<std::mutex> lock(inputs().mutex);
  for (const auto& in : inputs().paths) {
    std::error_code ec;  // a path that does not exist yet is no input
    if (std::filesystem::equivalent(path, in, ec))
      fail(path, "is an input of this run (" + in + "): refusing to overwrite it, write the result elsewhere");
  }
}

namespace {

// The whole file; `check_head`, where given, first sees its first 4 KiB (a header to check before the
// rest is read).
std::vector<uint8_t> read_all(const std::string& path,
                              void (*check_head)(const std::string&, const std::vector<uint8_t>&) = nullptr) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) fail(path, std::strerror(errno));
  const std::streamoff n = f.tellg();
  if (n < 0) fail(path, "cannot read");
  f.seekg(0);
  std::vector<uint8_t> b(size_t(std::min<std::streamoff>(n, check_head ? 4096 : n)), 0);
  if (!f.read(reinterpret_cast<char*>(b.data()), std::streamsize(b.size()))) fail(path, "cannot read");
  if (check_head) {
    check_head(path, b);
    b.resize(size_t(n));
    if (n > 4096 && !f.read(reinterpret_cast<char*>(b.data()) + 4096, n - 4096)) fail(path, "cannot read");
  }
  return b;
}

// The first bytes, to find the format.
std::vector<uint8_t> read_head(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> b(16, 0);
  f.read(reinterpret_cast<char*>(b.data()), 16);
  b.resize(size_t(std::max<std::streamsize>(f.gcount(), 0)));
  return b;
}

// stb's formats (PNG, BMP, TGA, HDR, ...), with PNG's eXIf and iCCP read beside.
Decoded decode_stb(const std::string& path, bool want_high) {
  int w = 0, h = 0, comp = 0;
  check_header(path, &w, &h, &comp);
  Decoded d;
  d.rgba = ImageRGBA8(w, h);
  const std::vector<uint8_t> head = read_head(path);
  const bool png = head.size() >= 4 && head[0] == 0x89 && head[1] == 'P';
  d.format = png ? "PNG" : "image";
  if (png) {
    std::string bad;
    bool critical = false;
    png_metadata(read_all(path), &d.orientation, &d.icc, &bad, &critical);
    if (critical) fail(path, "damaged PNG: the " + bad + " fails its CRC check");
    if (!bad.empty()) d.notes.push_back("the " + bad + " fails its CRC check (an ancillary chunk: ignored)");
  }
  if (stbi_is_hdr(path.c_str())) {
    d.format = "HDR";
    // Radiance HDR: clamp to [0,1] and encode with the sRGB-like gamma stb uses for LDR conversion.
    std::unique_ptr<float, StbFree> px(stbi_loadf(path.c_str(), &w, &h, &comp, 4));
    if (!px) fail(path, std::string("cannot decode (") + stbi_failure_reason() + ")");
    for (size_t i = 0; i < d.rgba.data.size(); ++i) {
      float v = px.get()[i];
      if (i % 4 != 3) v = std::pow(std::max(v, 0.f), 1.f / 2.2f);
      d.rgba.data[i] = uint8_t(std::lround(std::min(std::max(v, 0.f), 1.f) * 255.f));
    }
    return d;
  }
  if (stbi_is_16_bit(path.c_str())) {
    // 16-bit PNG: kept at 16 bits in `high`; the 8-bit image rounds (stbi_load would truncate, darkening
    // by up to one level).
    std::unique_ptr<uint16_t, StbFree> px(stbi_load_16(path.c_str(), &w, &h, &comp, 4));
    if (!px) fail(path, std::string("cannot decode (") + stbi_failure_reason() + ")");
    d.bits = 16;
    if (want_high) d.high = ImageF(w, h, 4);
    for (size_t i = 0; i < d.rgba.data.size(); ++i) {
      d.rgba.data[i] = uint8_t((uint32_t(px.get()[i]) * 255u + 32767u) / 65535u);
      if (want_high) d.high.data[i] = float(px.get()[i]) / 65535.f;
    }
    return d;
  }
  std::unique_ptr<uint8_t, StbFree> px(stbi_load(path.c_str(), &w, &h, &comp, 4));
  if (!px) fail(path, std::string("cannot decode (") + stbi_failure_reason() + ")");
  std::memcpy(d.rgba.data.data(), px.get(), d.rgba.data.size());
  return d;
}

Decoded decode_file(const std::string& path, bool want_high) {
  check_file(path);
  if (is_jpeg_file(path)) {
    JpegMeta meta;
    int jw = 0, jh = 0;
    Decoded d;
    d.format = "JPEG";
    d.rgba.data = decode_jpeg(path, 4, &jw, &jh, &meta);
    d.rgba.width = jw;
    d.rgba.height = jh;
    d.orientation = meta.orientation;
    d.icc = std::move(meta.icc);
    d.notes = std::move(meta.notes);
    return d;
  }
  const std::vector<uint8_t> head = read_head(path);
  if (is_webp(head)) return decode_webp(path, read_all(path, check_webp_header));
  if (is_tiff(head)) return decode_tiff(path, want_high);
  if (is_heif(head)) return decode_heif(path, read_all(path), want_high);
  if (is_exr(head)) return decode_exr(path, want_high);
  return decode_stb(path, want_high);
}

// ICC profile, then orientation, on both the 8-bit and the deep pixels; notes for what was done.
void finish(Decoded& d) {
  if (!d.icc.empty()) {
    const std::string why = icc_to_srgb(d.icc, d.rgba);
    if (why.empty() && !d.high.empty()) icc_to_srgb(d.icc, d.high);
    d.notes.push_back(why.empty() ? "ICC profile converted to sRGB" : why + ": colours are shown as if sRGB");
  }
  if (d.orientation >= 2 && d.orientation <= 8) {
    d.rgba = apply_orientation(d.rgba, d.orientation);
    if (!d.high.empty()) d.high = apply_orientation(d.high, d.orientation);
    d.notes.push_back("turned upright (EXIF orientation " + std::to_string(d.orientation) + ")");
  }
}

ImageRGBA8 load_image_file(const std::string& path, LoadInfo* info) {
  Decoded d = decode_file(path, info && info->want_high);
  const int sw = d.rgba.width, sh = d.rgba.height;
  finish(d);
  if (info) {
    info->format = d.format;
    info->orientation = d.orientation >= 1 && d.orientation <= 8 ? d.orientation : 1;
    info->stored_width = sw;
    info->stored_height = sh;
    info->bits = d.bits;
    info->high = std::move(d.high);
    info->notes = std::move(d.notes);
  }
  return std::move(d.rgba);
}

ImageF load_depth_file(const std::string& path, LoadInfo* info) {
  check_file(path);
  if (ext_lower(path) == "pfm") {
    ImageF d = load_pfm(path);
    if (info)
      info->format = "PFM", info->bits = 32, info->stored_width = d.width, info->stored_height = d.height;
    return d;
  }
  ImageF d;
  int orientation = 0;
  std::string format = "image";
  int bits = 8;
  if (is_jpeg_file(path)) {
    JpegMeta meta;
    int jw = 0, jh = 0;
    std::vector<uint8_t> px = decode_jpeg(path, 1, &jw, &jh, &meta);
    d = ImageF(jw, jh, 1);
    for (size_t i = 0; i < d.data.size(); ++i) d.data[i] = float(px[i]) / 255.f;
    orientation = meta.orientation;
    format = "JPEG";
  } else if (const std::vector<uint8_t> head = read_head(path); is_exr(head)) {
    std::string channel;
    d = load_exr_depth(path, &channel);
    format = "OpenEXR (" + channel + ")", bits = 32;
  } else if (is_webp(head) || is_tiff(head) || is_heif(head)) {
    Decoded dec = is_webp(head)   ? decode_webp(path, read_all(path, check_webp_header))
                  : is_tiff(head) ? decode_tiff(path, true)
                                  : decode_heif(path, read_all(path), true);
    d = ImageF(dec.rgba.width, dec.rgba.height, 1);
    for (size_t i = 0; i < d.data.size(); ++i)
      d.data[i] = dec.high.empty() ? float(dec.rgba.data[i * 4]) / 255.f : dec.high.data[i * 4];
    orientation = dec.orientation;  // HEIF's own transformations are already applied (0 here)
    format = dec.format;
    bits = dec.bits;
  } else {
    int w = 0, h = 0, comp = 0;
    check_header(path, &w, &h, &comp);
    d = ImageF(w, h, 1);
    if (stbi_is_hdr(path.c_str())) {
      // Loaded as stored (RGB) and the first channel kept, like every other format (asking stb for one
      // channel would average the three).
      std::unique_ptr<float, StbFree> px(stbi_loadf(path.c_str(), &w, &h, &comp, 0));
      if (!px) fail(path, std::string("cannot decode (") + stbi_failure_reason() + ")");
      for (size_t i = 0; i < d.data.size(); ++i) d.data[i] = px.get()[i * size_t(comp)];
      format = "HDR", bits = 32;
    } else if (stbi_is_16_bit(path.c_str())) {
      std::unique_ptr<uint16_t, StbFree> px(stbi_load_16(path.c_str(), &w, &h, &comp, 0));
      if (!px) fail(path, std::string("cannot decode (") + stbi_failure_reason() + ")");
      for (size_t i = 0; i < d.data.size(); ++i) d.data[i] = float(px.get()[i * size_t(comp)]) / 65535.f;
      bits = 16;
    } else {
      std::unique_ptr<uint8_t, StbFree> px(stbi_load(path.c_str(), &w, &h, &comp, 0));
      if (!px) fail(path, std::string("cannot decode (") + stbi_failure_reason() + ")");
      for (size_t i = 0; i < d.data.size(); ++i) d.data[i] = float(px.get()[i * size_t(comp)]) / 255.f;
    }
    if (head.size() >= 4 && head[0] == 0x89 && head[1] == 'P') {
      std::vector<uint8_t> icc;
      std::string bad;
      bool critical = false;
      png_metadata(read_all(path), &orientation, &icc, &bad, &critical);
      if (critical) fail(path, "damaged PNG: the " + bad + " fails its CRC check");
      format = "PNG";
    }
  }
  if (info) {
    info->format = format;
    info->bits = bits;
    info->stored_width = d.width;
    info->stored_height = d.height;
    info->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
  }
  if (orientation >= 2 && orientation <= 8) {
    d = apply_orientation(d, orientation);
    if (info) info->notes.push_back("depth map turned upright by its own EXIF orientation " + std::to_string(orientation));
  }
  return d;
}

}  // namespace

ImageRGBA8 load_image(const std::string& path) { return load_image(path, nullptr); }

ImageRGBA8 load_image(const std::string& path, LoadInfo* info) {
  ImageRGBA8 img = load_image_file(path, info);
  inputs().add(path);
  return img;
}

// PFM, HDR, float TIFF or HEIF may hold NaN or inf: filled once the map is upright.
namespace {

// The loaders' "PATH: why" as "PATH (depth map): why", so that a refusal says which of the files it was.
ImageF load_depth_named(const std::string& path, LoadInfo* info) {
  try {
    return load_depth_file(path, info);
  } catch (const Error& e) {
    const std::string m = e.what();
    if (m.rfind(path + ": ", 0) == 0) throw Error(path + " (depth map): " + m.substr(path.size() + 2));
    throw Error(path + " (depth map): " + m);
  }
}

// "3:2", or "1.78:1" where the ratio has no small terms.
std::string aspect_text(int w, int h) {
  int a = w, b = h;
  while (b) a %= b, std::swap(a, b);
  char buf[32];
  if (w / a <= 32 && h / a <= 32)
    std::snprintf(buf, sizeof(buf), "%d:%d", w / a, h / a);
  else
    std::snprintf(buf, sizeof(buf), "%.2f:1", double(w) / double(h));
  return buf;
}

}  // namespace

ImageF load_depth(const std::string& path) {
  ImageF d = load_depth_named(path, nullptr);
  inputs().add(path);
  fill_depth_holes(d, nullptr);
  return d;
}

ImageF load_depth(const std::string& path, const LoadInfo& image, LoadInfo* info) {
  LoadInfo own;
  ImageF d = load_depth_named(path, &own);
  inputs().add(path);
  const int o = image.orientation;
  if (own.orientation == 1 && orientation_swaps_axes(o) && d.width == image.stored_width &&
      d.height == image.stored_height && d.width != d.height) {
    d = apply_orientation(d, o);
    own.notes.push_back("depth map has the image's stored size: given the image's orientation " + std::to_string(o));
  }
  fill_depth_holes(d, &own.notes);  // rows as displayed
  // A depth map of another shape than the image is stretched to it: accepted, and said.
  const bool swaps = orientation_swaps_axes(o);
  const int iw = swaps ? image.stored_height : image.stored_width, ih = swaps ? image.stored_width : image.stored_height;
  if (iw > 0 && ih > 0 && d.width > 0 && d.height > 0 &&
      std::fabs(double(d.width) * ih / (double(d.height) * iw) - 1.0) > 0.01)
    own.notes.push_back("depth map is " + std::to_string(d.width) + "x" + std::to_string(d.height) + " (" +
                        aspect_text(d.width, d.height) + "), the image " + std::to_string(iw) + "x" +
                        std::to_string(ih) + " (" + aspect_text(iw, ih) + "): stretched to the image's shape");
  if (info) *info = std::move(own);
  return d;
}

ImageF resample_depth(const ImageF& depth, int width, int height) {
  return resample_bilinear(depth, width, height);
}

ImageRGBA8 resample_image(const ImageRGBA8& image, int width, int height) {
  if (image.width == width && image.height == height) return image;
  if (image.empty() || width <= 0 || height <= 0) throw Error("resample_image: empty size");
  ImageRGBA8 out(width, height);
  bilinear(image.width, image.height, width, height, [&](int x, int y, const auto& sample) {
    for (int c = 0; c < 4; ++c)
      out.px(x, y)[c] =
          uint8_t(std::lround(sample([&](int sx, int sy) { return float(image.px(sx, sy)[c]); })));
  });
  return out;
}

bool write_png_rgba8(const std::string& tmp, const ImageRGBA8& image) { return encode_png_rgba8(tmp, image); }
bool write_jpeg_rgba8(const std::string& tmp, const ImageRGBA8& image) {
  return write_jpeg(tmp, image.data.data(), image.width, image.height, JpegKind::Rgb, 95);
}
bool write_webp_rgba8(const std::string& tmp, const ImageRGBA8& image) { return write_webp(tmp, image, 101); }
bool write_tiff_rgba8(const std::string& tmp, const ImageRGBA8& image) {
  return write_tiff(tmp, image.width, image.height, 4, 8, image.data.data());
}

void save_png(const std::string& path, const ImageRGBA8& image) {
  if (image.empty()) fail(path, "nothing to save (empty image)");
  write_atomically(path, [&](const std::string& tmp) { return write_png_rgba8(tmp, image); });
}

void save_png16_raw(const std::string& path, int width, int height, const std::vector<uint16_t>& samples) {
  if (width <= 0 || height <= 0 || samples.size() != size_t(width) * size_t(height))
    fail(path, "nothing to save (empty or mis-sized 16-bit image)");
  // stb writes 8-bit PNGs only: 16-bit greyscale goes through png16.cpp.
  std::vector<uint8_t> raw;
  raw.reserve((size_t(width) * 2 + 1) * size_t(height));
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);  // filter: none
    for (int x = 0; x < width; ++x) {
      const uint16_t q = samples[size_t(y) * size_t(width) + size_t(x)];
      raw.push_back(uint8_t(q >> 8));
      raw.push_back(uint8_t(q & 0xff));
    }
  }
  write_atomically(path, [&](const std::string& tmp) { return write_png16_gray(tmp, width, height, raw); });
}

void save_png16(const std::string& path, const ImageF& grey01) {
  if (grey01.empty() || grey01.channels != 1) fail(path, "nothing to save (need a 1-channel image)");
  std::vector<uint16_t> q(grey01.pixels());
  for (size_t i = 0; i < q.size(); ++i)
    q[i] = uint16_t(std::lround(std::min(std::max(grey01.data[i], 0.f), 1.f) * 65535.f));
  save_png16_raw(path, grey01.width, grey01.height, q);
}

void save_text(const std::string& path, const std::string& text) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream f(tmp, std::ios::binary);
    return bool(f.write(text.data(), std::streamsize(text.size())).flush());
  });
}

// The writers below and the table (file_formats.hpp) name the same formats: tests/cpu/file_formats_test.cpp.
const char* saveable_extensions() {
  static const std::string list = [] {
    std::string out;
    for (const std::string& e : saveable_format_extensions()) out += (out.empty() ? "." : ", .") + e;
    return out;
  }();
  return list.c_str();
}

bool can_save(const std::string& path) {
  static const std::vector<std::string> extensions = saveable_format_extensions();
  return std::find(extensions.begin(), extensions.end(), ext_lower(path)) != extensions.end();
}

void save_image(const std::string& path, const ImageRGBA8& image) {
  if (image.empty()) fail(path, "nothing to save (empty image)");
  const FileFormat* f = writer_for_extension(ext_lower(path));  // the table's row, by its entry point
  if (!f) fail(path, "cannot write this format: the extension must be one of " + std::string(saveable_extensions()));
  write_atomically(path, [&](const std::string& tmp) { return f->write(tmp, image); });
}

void save_tiff16(const std::string& path, const ImageF& image01) {
  if (image01.empty() || (image01.channels != 1 && image01.channels != 4))
    fail(path, "nothing to save (need a 1- or 4-channel image)");
  std::vector<uint16_t> q(image01.data.size());
  for (size_t i = 0; i < q.size(); ++i)
    q[i] = uint16_t(std::lround(std::min(std::max(image01.data[i], 0.f), 1.f) * 65535.f));
  write_atomically(path, [&](const std::string& tmp) {
    return write_tiff(tmp, image01.width, image01.height, image01.channels, 16, q.data());
  });
}

}  // namespace satlab::io
