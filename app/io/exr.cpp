// OpenEXR through OpenEXRCore's C API (Debian 12: libopenexr-3-1-30), opened at run time like libheif, so
// the binary starts where it is not installed. Reading: the first part of a file, scanline or tiled (its
// full resolution level), every compression the library has; deep parts are refused. Writing: RGBA half,
// scanlines, ZIP. Colour (R, G, B and A,
// or Y) is linear light: encoded to sRGB for the 8-bit image, clamped to [0,1]. Depth is a channel as it
// is stored: Z, else depth, else the one named (set_exr_depth_channel), else the first.
#include "app/io/exr.hpp"

#include <OpenEXR/openexr.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>

#include "app/io/decoded.hpp"
#include "app/io/dynlib.hpp"
#include "app/io/format_guard.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

struct Exr {
  DynLib lib{"libOpenEXRCore-3_1.so.30"};
#define SATLAB_EXR(name) decltype(&::name) name = nullptr;
#define SATLAB_EXR_FUNCTIONS(X)                                                                         \
  X(exr_start_read)                                                                                     \
  X(exr_finish) X(exr_get_count) X(exr_get_storage) X(exr_get_data_window) X(exr_get_channels)          \
      X(exr_get_scanlines_per_chunk) X(exr_read_scanline_chunk_info) X(exr_read_tile_chunk_info)        \
          X(exr_get_tile_descriptor) X(exr_decoding_initialize) X(exr_decoding_choose_default_routines) \
              X(exr_decoding_update) X(exr_decoding_run) X(exr_decoding_destroy)                        \
                  X(exr_get_default_error_message) X(exr_start_write) X(exr_add_part)                   \
                      X(exr_initialize_required_attr_simple) X(exr_add_channel) X(exr_write_header)     \
                          X(exr_write_scanline_chunk_info) X(exr_encoding_initialize)                   \
                              X(exr_encoding_choose_default_routines) X(exr_encoding_update)            \
                                  X(exr_encoding_run) X(exr_encoding_destroy)
  SATLAB_EXR_FUNCTIONS(SATLAB_EXR)
#undef SATLAB_EXR
  Exr() {
#define SATLAB_EXR(name) lib.get(name, #name);
    SATLAB_EXR_FUNCTIONS(SATLAB_EXR)
#undef SATLAB_EXR
  }
};
#undef SATLAB_EXR_FUNCTIONS

const Exr& exr() {
  static const Exr e;
  return e;
}

std::string depth_channel_name;  // set_exr_depth_channel
std::mutex depth_channel_mutex;

// One part's channels, decoded to float planes of the data window.
struct Planes {
  int width = 0, height = 0;
  std::vector<std::string> names;
  std::vector<std::vector<float>> planes;  // one per name asked for; empty where the file lacks it
};

class Reader {
 public:
  Reader(const std::string& path) : e_(exr()), path_(path) {
    std::string why;
    if (!exr_available(&why)) throw Error(path + ": " + why);
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.flags = EXR_CONTEXT_FLAG_SILENT_HEADER_PARSE;
    init.max_image_width = init.max_image_height = 1 << 16;
    init.max_tile_width = init.max_tile_height = 1 << 14;
    check(e_.exr_start_read(&ctx_, path.c_str(), &init), "not a readable OpenEXR file");
    try {
      read_header();
    } catch (...) {
      e_.exr_finish(&ctx_);  // a constructor that throws runs no destructor
      throw;
    }
  }
  void read_header() {
    const std::string& path = path_;
    int parts = 0;
    check(e_.exr_get_count(ctx_, &parts), "no parts");
    if (parts < 1) throw Error(path + ": an OpenEXR file with no part");
    check(e_.exr_get_storage(ctx_, 0, &storage_), "no storage type");
    if (storage_ == EXR_STORAGE_DEEP_SCANLINE || storage_ == EXR_STORAGE_DEEP_TILED)
      throw Error(path + ": deep OpenEXR data (several samples a pixel) is not read");
    check(e_.exr_get_data_window(ctx_, 0, &dw_), "no data window");
    const int64_t w = int64_t(dw_.max.x) - dw_.min.x + 1, h = int64_t(dw_.max.y) - dw_.min.y + 1;
    if (w <= 0 || h <= 0 || w > (1 << 16) || h > (1 << 16))
      throw Error(path + ": the data window is empty or too large");
    width_ = int(w), height_ = int(h);
    check_image_limits(path, uint64_t(w), uint64_t(h));
    check(e_.exr_get_channels(ctx_, 0, &channels_), "no channel list");
    if (!channels_ || channels_->num_channels < 1) throw Error(path + ": no channel");
  }
  ~Reader() {
    if (ctx_) e_.exr_finish(&ctx_);
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  std::vector<std::string> channel_names() const {
    std::vector<std::string> n;
    for (int i = 0; i < channels_->num_channels; ++i) n.push_back(channels_->entries[i].name.str);
    return n;
  }
  int width() const { return width_; }
  int height() const { return height_; }

  // The channels named (missing ones left empty), as float, each width x height.
  Planes read(const std::vector<std::string>& names) {
    Planes p;
    p.width = width_, p.height = height_, p.names = names;
    p.planes.resize(names.size());
    for (size_t i = 0; i < names.size(); ++i)
      for (int c = 0; c < channels_->num_channels; ++c)
        if (names[i] == channels_->entries[c].name.str) {
          p.planes[i].assign(size_t(width_) * size_t(height_), 0.f);
        }
    for (int c = 0; c < channels_->num_channels; ++c)
      if (channels_->entries[c].x_sampling != 1 || channels_->entries[c].y_sampling != 1)
        throw Error(path_ + ": channel " + channels_->entries[c].name.str +
                    " is subsampled, which is not read");
    if (storage_ == EXR_STORAGE_TILED)
      read_tiles(p);
    else
      read_scanlines(p);
    return p;
  }

 private:
  void check(exr_result_t r, const char* what) const {
    if (r != EXR_ERR_SUCCESS)
      throw Error(path_ + ": " + what + " (" + e_.exr_get_default_error_message(r) + ")");
  }
  // Points the decoder's channels at the planes for the chunk at (x0, y0) of cw x ch pixels (data window
  // coordinates made 0-based), then runs it.
  // `tw`, `th`: a tiled part's tile size (a tile chunk's start is its tile's index), else 0.
  void decode_chunk(const exr_chunk_info_t& ci, Planes& p, exr_decode_pipeline_t& dec, bool& initialised,
                    int64_t tw = 0, int64_t th = 0) {
    if (!initialised) {
      check(e_.exr_decoding_initialize(ctx_, 0, &ci, &dec), "cannot start decoding");
      initialised = true;
    } else {
      check(e_.exr_decoding_update(ctx_, 0, &ci, &dec), "cannot decode a chunk");
    }
    const int64_t x0 = tw ? int64_t(ci.start_x) * tw : int64_t(ci.start_x) - dw_.min.x;
    const int64_t y0 = th ? int64_t(ci.start_y) * th : int64_t(ci.start_y) - dw_.min.y;
    if (x0 < 0 || y0 < 0 || x0 + ci.width > width_ || y0 + ci.height > height_)
      throw Error(path_ + ": a chunk lies outside the data window");
    // Every channel is decoded: those not asked for into one scratch plane (OpenEXRCore 3.1.5's unpacking
    // of half floats crashed with a channel left out).
    if (scratch_.size() < size_t(width_) * size_t(height_))
      scratch_.assign(size_t(width_) * size_t(height_), 0.f);
    for (int c = 0; c < dec.channel_count; ++c) {
      exr_coding_channel_info_t& ch = dec.channels[c];
      float* plane = scratch_.data();
      for (size_t i = 0; i < p.names.size(); ++i)
        if (!p.planes[i].empty() && p.names[i] == ch.channel_name) plane = p.planes[i].data();
      ch.decode_to_ptr = reinterpret_cast<uint8_t*>(plane + size_t(y0) * size_t(width_) + size_t(x0));
      ch.user_pixel_stride = 4;
      ch.user_line_stride = 4 * width_;
      ch.user_bytes_per_element = 4;
      ch.user_data_type = EXR_PIXEL_FLOAT;
    }
    // Chosen once the pointers are set; again at every chunk (a chunk's channels may be skipped or not).
    check(e_.exr_decoding_choose_default_routines(ctx_, 0, &dec), "no decoder for its pixel layout");
    check(e_.exr_decoding_run(ctx_, 0, &dec), "a chunk does not decode (the file may be cut or damaged)");
  }
  void read_scanlines(Planes& p) {
    int32_t lines = 0;
    check(e_.exr_get_scanlines_per_chunk(ctx_, 0, &lines), "no scanlines per chunk");
    if (lines < 1) throw Error(path_ + ": bad scanlines per chunk");
    exr_decode_pipeline_t dec{};
    bool initialised = false;
    try {
      for (int64_t y = dw_.min.y; y <= dw_.max.y; y += lines) {
        exr_chunk_info_t ci{};
        check(e_.exr_read_scanline_chunk_info(ctx_, 0, int(y), &ci), "a scanline chunk cannot be read");
        decode_chunk(ci, p, dec, initialised);
      }
    } catch (...) {
      if (initialised) e_.exr_decoding_destroy(ctx_, &dec);
      throw;
    }
    if (initialised) e_.exr_decoding_destroy(ctx_, &dec);
  }
  void read_tiles(Planes& p) {
    uint32_t tw = 0, th = 0;
    exr_tile_level_mode_t level;
    exr_tile_round_mode_t round;
    check(e_.exr_get_tile_descriptor(ctx_, 0, &tw, &th, &level, &round), "no tile description");
    if (tw < 1 || th < 1) throw Error(path_ + ": bad tile size");
    exr_decode_pipeline_t dec{};
    bool initialised = false;
    try {
      for (int ty = 0; int64_t(ty) * th < height_; ++ty)
        for (int tx = 0; int64_t(tx) * tw < width_; ++tx) {
          exr_chunk_info_t ci{};
          check(e_.exr_read_tile_chunk_info(ctx_, 0, tx, ty, 0, 0, &ci), "a tile cannot be read");
          decode_chunk(ci, p, dec, initialised, tw, th);
        }
    } catch (...) {
      if (initialised) e_.exr_decoding_destroy(ctx_, &dec);
      throw;
    }
    if (initialised) e_.exr_decoding_destroy(ctx_, &dec);
  }

  const Exr& e_;
  std::string path_;
  exr_context_t ctx_ = nullptr;
  exr_storage_t storage_ = EXR_STORAGE_SCANLINE;
  exr_attr_box2i_t dw_{};
  const exr_attr_chlist_t* channels_ = nullptr;
  int width_ = 0, height_ = 0;
  std::vector<float> scratch_;  // where the channels not asked for are decoded
};

float srgb_encode(float v) {
  if (!(v > 0.f)) return 0.f;  // NaN and negatives: black
  if (v >= 1.f) return 1.f;
  return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.f / 2.4f) - 0.055f;
}

// Round to nearest even; infinities and NaN kept (the writer gives finite values in [0, 1]).
uint16_t half_of(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u, fexp = (x >> 23) & 0xFFu, mant = x & 0x7FFFFFu;
  if (fexp == 0xFFu) return uint16_t(sign | 0x7C00u | (mant ? 0x200u : 0u));
  const int exp = int(fexp) - 127 + 15;
  if (exp >= 31) return uint16_t(sign | 0x7C00u);
  const auto rounded = [](uint32_t h, uint32_t rem, uint32_t halfway) {
    return rem > halfway || (rem == halfway && (h & 1u)) ? h + 1 : h;  // a carry into the exponent is right
  };
  if (exp <= 0) {  // a subnormal half: m 2^-24
    if (exp < -10) return uint16_t(sign);
    const uint32_t m = mant | 0x800000u;
    const int shift = 14 - exp;
    return uint16_t(sign | rounded(m >> shift, m & ((1u << shift) - 1), 1u << (shift - 1)));
  }
  return uint16_t(sign | rounded((uint32_t(exp) << 10) | (mant >> 13), mant & 0x1FFFu, 0x1000u));
}

bool has(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

}  // namespace

bool is_exr(const std::vector<uint8_t>& b) {
  return b.size() >= 4 && b[0] == 0x76 && b[1] == 0x2f && b[2] == 0x31 && b[3] == 0x01;
}

bool exr_available(std::string* why) {
  const Exr& e = exr();
  if (e.lib.ok()) return true;
  if (why) *why = "OpenEXR needs its library (" + e.lib.error() + "): install libopenexr-3-1-30 (Debian 12)";
  return false;
}

void set_exr_depth_channel(const std::string& name) {
  std::lock_guard<std::mutex> l(depth_channel_mutex);
  depth_channel_name = name;
}

std::vector<std::string> exr_channels(const std::string& path) {
  return Reader(path).channel_names();
}

bool exr_has_depth(const std::string& path) {
  std::string asked;
  {
    std::lock_guard<std::mutex> l(depth_channel_mutex);
    asked = depth_channel_name;
  }
  try {
    std::ifstream f(path, std::ios::binary);
    std::vector<uint8_t> head(4);
    if (!f.read(reinterpret_cast<char*>(head.data()), 4) || !is_exr(head) || !exr_available()) return false;
    const std::vector<std::string> names = exr_channels(path);
    // A channel asked for by name counts as there: load_depth then refuses a file without it, naming those it
    // has.
    return asked.empty() ? has(names, "Z") || has(names, "depth") || has(names, "Depth") : true;
  } catch (const Error&) {
    return false;
  }
}

Decoded decode_exr(const std::string& path, bool want_high) {
  Reader r(path);
  const std::vector<std::string> names = r.channel_names();
  std::vector<std::string> want;
  bool grey = false;
  if (has(names, "R") || has(names, "G") || has(names, "B"))
    want = {"R", "G", "B", "A"};
  else if (has(names, "Y"))
    want = {"Y", "A"}, grey = true;
  else
    throw Error(path + ": no colour channel (R, G, B or Y) among " + std::to_string(names.size()) +
                " (a depth-only file: give it as the depth)");
  const Planes p = r.read(want);
  Decoded d;
  d.format = "OpenEXR";
  d.bits = 32;
  d.rgba = ImageRGBA8(p.width, p.height);
  if (want_high) d.high = ImageF(p.width, p.height, 4);
  const size_t n = size_t(p.width) * size_t(p.height);
  for (size_t i = 0; i < n; ++i) {
    float c[4];
    for (int k = 0; k < 3; ++k) {
      const std::vector<float>& pl = p.planes[grey ? 0 : size_t(k)];
      c[k] = pl.empty() ? 0.f : srgb_encode(pl[i]);
    }
    const std::vector<float>& a = p.planes[grey ? 1 : 3];
    c[3] = a.empty() ? 1.f : std::isfinite(a[i]) ? std::clamp(a[i], 0.f, 1.f) : 1.f;
    for (int k = 0; k < 4; ++k) {
      d.rgba.data[i * 4 + size_t(k)] = uint8_t(std::lround(c[k] * 255.f));
      if (want_high) d.high.data[i * 4 + size_t(k)] = c[k];
    }
  }
  d.notes.push_back("OpenEXR: linear light encoded to sRGB (values above 1 clipped)");
  return d;
}

bool write_exr_rgba8(const std::string& tmp, const ImageRGBA8& image) {
  const Exr& e = exr();
  std::string why;
  if (!exr_available(&why)) throw Error(why);
  // RGBA half, interleaved: the 8-bit result's sRGB codes decoded to linear light, alpha as it is.
  static const std::array<uint16_t, 256> linear = [] {
    std::array<uint16_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
      const double v = c / 255.0;
      t[size_t(c)] = half_of(float(v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4)));
    }
    return t;
  }();
  const size_t n = image.pixels();
  std::vector<uint16_t> px(n * 4);
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) px[i * 4 + size_t(k)] = linear[image.data[i * 4 + size_t(k)]];
    px[i * 4 + 3] = half_of(float(image.data[i * 4 + 3]) / 255.f);
  }
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  init.flags = EXR_CONTEXT_FLAG_SILENT_HEADER_PARSE;
  exr_context_t ctx = nullptr;
  if (e.exr_start_write(&ctx, tmp.c_str(), EXR_WRITE_FILE_DIRECTLY, &init) != EXR_ERR_SUCCESS) return false;
  struct Finish {  // closes the file however this ends
    const Exr& e;
    exr_context_t& ctx;
    ~Finish() {
      if (ctx) e.exr_finish(&ctx);
    }
  } finish{e, ctx};
  int part = 0;
  bool ok = e.exr_add_part(ctx, "rgba", EXR_STORAGE_SCANLINE, &part) == EXR_ERR_SUCCESS &&
            e.exr_initialize_required_attr_simple(ctx, part, image.width, image.height,
                                                  EXR_COMPRESSION_ZIP) == EXR_ERR_SUCCESS;
  static const char* kNames[4] = {"R", "G", "B", "A"};
  for (int k = 0; ok && k < 4; ++k)
    ok = e.exr_add_channel(ctx, part, kNames[k], EXR_PIXEL_HALF,
                           k < 3 ? EXR_PERCEPTUALLY_LOGARITHMIC : EXR_PERCEPTUALLY_LINEAR, 1,
                           1) == EXR_ERR_SUCCESS;
  ok = ok && e.exr_write_header(ctx) == EXR_ERR_SUCCESS;
  int32_t lines = 1;
  ok = ok && e.exr_get_scanlines_per_chunk(ctx, part, &lines) == EXR_ERR_SUCCESS && lines > 0;
  exr_encode_pipeline_t enc{};
  bool started = false;
  for (int y = 0; ok && y < image.height; y += lines) {
    exr_chunk_info_t chunk;
    ok = e.exr_write_scanline_chunk_info(ctx, part, y, &chunk) == EXR_ERR_SUCCESS;
    if (!ok) break;
    ok = (started ? e.exr_encoding_update(ctx, part, &chunk, &enc)
                  : e.exr_encoding_initialize(ctx, part, &chunk, &enc)) == EXR_ERR_SUCCESS;
    if (!ok) break;
    for (int c = 0; c < enc.channel_count; ++c) {
      exr_coding_channel_info_t& ch = enc.channels[c];
      int k = 0;
      while (k < 4 && std::strcmp(ch.channel_name, kNames[k]) != 0) ++k;
      if (k == 4) {  // a channel this writer did not add
        ok = false;
        break;
      }
      ch.user_data_type = EXR_PIXEL_HALF;
      ch.user_bytes_per_element = 2;
      ch.user_pixel_stride = 8;
      ch.user_line_stride = image.width * 8;
      ch.encode_from_ptr =
          reinterpret_cast<const uint8_t*>(px.data() + (size_t(y) * size_t(image.width)) * 4 + size_t(k));
    }
    started = true;
    if (!ok) break;
    if (y == 0) ok = e.exr_encoding_choose_default_routines(ctx, part, &enc) == EXR_ERR_SUCCESS;
    ok = ok && e.exr_encoding_run(ctx, part, &enc) == EXR_ERR_SUCCESS;
  }
  if (started) e.exr_encoding_destroy(ctx, &enc);
  const exr_result_t closed = e.exr_finish(&ctx);  // writes the chunk table
  ctx = nullptr;
  if (!ok || closed != EXR_ERR_SUCCESS) {
    if (!errno) errno = EIO;
    return false;
  }
  return true;
}

ImageF load_exr_depth(const std::string& path, std::string* channel_used) {
  Reader r(path);
  const std::vector<std::string> names = r.channel_names();
  std::string asked;
  {
    std::lock_guard<std::mutex> l(depth_channel_mutex);
    asked = depth_channel_name;
  }
  std::string c;
  if (!asked.empty()) {
    if (!has(names, asked)) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw Error(path + ": no channel named '" + asked + "' (it has " + list + ")");
    }
    c = asked;
  } else {
    c = has(names, "Z") ? "Z" : has(names, "depth") ? "depth" : has(names, "Depth") ? "Depth" : names.front();
  }
  Planes p = r.read({c});
  ImageF d(p.width, p.height, 1);
  d.data = std::move(p.planes[0]);
  if (channel_used) *channel_used = c;
  return d;
}

}  // namespace satlab::io
