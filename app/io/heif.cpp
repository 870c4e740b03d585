// HEIC/HEIF and AVIF through libheif, opened at run time (Debian ships no static libheif; app/io/dynlib.hpp).
// libheif applies the file's transformations (irot, imir, clap) when decoding, which is how HEIF stores
// orientation; the EXIF Orientation a HEIC may also carry describes the untransformed image and is
// therefore not applied again (the HEIF standard gives irot/imir precedence).
#include <libheif/heif.h>

#include <cstring>
#include <memory>

#include "app/io/decoded.hpp"
#include "app/io/dynlib.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/heif.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

struct Heif {
  DynLib lib{"libheif.so.1"};
  decltype(&heif_init) init;
  decltype(&heif_context_alloc) ctx_alloc;
  decltype(&heif_context_free) ctx_free;
  decltype(&heif_context_read_from_memory_without_copy) read;
  decltype(&heif_context_set_maximum_image_size_limit) set_limit;
  decltype(&heif_context_get_primary_image_handle) primary;
  decltype(&heif_image_handle_release) handle_release;
  decltype(&heif_image_handle_get_width) handle_width;
  decltype(&heif_image_handle_get_height) handle_height;
  decltype(&heif_image_handle_get_luma_bits_per_pixel) handle_bits;
  decltype(&heif_image_handle_get_color_profile_type) profile_type;
  decltype(&heif_image_handle_get_raw_color_profile_size) profile_size;
  decltype(&heif_image_handle_get_raw_color_profile) profile;
  decltype(&heif_decode_image) decode;
  decltype(&heif_image_get_width) image_width;
  decltype(&heif_image_get_height) image_height;
  decltype(&heif_image_get_plane_readonly) plane_readonly;
  decltype(&heif_image_get_bits_per_pixel_range) image_bits;
  decltype(&heif_image_release) image_release;
  // Encoding, for tests.
  decltype(&heif_have_encoder_for_format) have_encoder;
  decltype(&heif_context_get_encoder_for_format) encoder_for;
  decltype(&heif_encoder_set_lossy_quality) set_quality;
  decltype(&heif_encoder_release) encoder_release;
  decltype(&heif_image_create) image_create;
  decltype(&heif_image_add_plane) add_plane;
  decltype(&heif_image_get_plane) plane;
  decltype(&heif_encoding_options_alloc) options_alloc;
  decltype(&heif_encoding_options_free) options_free;
  decltype(&heif_context_encode_image) encode;
  decltype(&heif_context_write_to_file) write;
  decltype(&heif_context_add_exif_metadata) add_exif;
  decltype(&heif_image_handle_get_nclx_color_profile) nclx;
  decltype(&heif_nclx_color_profile_free) nclx_free;
  decltype(&heif_nclx_color_profile_alloc) nclx_alloc;
  decltype(&heif_image_get_nclx_color_profile) image_nclx;
  decltype(&heif_image_set_nclx_color_profile) set_nclx;
  Heif() {
    lib.get(nclx_alloc, "heif_nclx_color_profile_alloc");
    lib.get(image_nclx, "heif_image_get_nclx_color_profile");
    lib.get(set_nclx, "heif_image_set_nclx_color_profile");
    lib.get(nclx, "heif_image_handle_get_nclx_color_profile");
    lib.get(nclx_free, "heif_nclx_color_profile_free");
    lib.get(add_exif, "heif_context_add_exif_metadata");
    lib.get(init, "heif_init");
    lib.get(ctx_alloc, "heif_context_alloc");
    lib.get(ctx_free, "heif_context_free");
    lib.get(read, "heif_context_read_from_memory_without_copy");
    lib.get(set_limit, "heif_context_set_maximum_image_size_limit");
    lib.get(primary, "heif_context_get_primary_image_handle");
    lib.get(handle_release, "heif_image_handle_release");
    lib.get(handle_width, "heif_image_handle_get_width");
    lib.get(handle_height, "heif_image_handle_get_height");
    lib.get(handle_bits, "heif_image_handle_get_luma_bits_per_pixel");
    lib.get(profile_type, "heif_image_handle_get_color_profile_type");
    lib.get(profile_size, "heif_image_handle_get_raw_color_profile_size");
    lib.get(profile, "heif_image_handle_get_raw_color_profile");
    lib.get(decode, "heif_decode_image");
    lib.get(image_width, "heif_image_get_width");
    lib.get(image_height, "heif_image_get_height");
    lib.get(plane_readonly, "heif_image_get_plane_readonly");
    lib.get(image_bits, "heif_image_get_bits_per_pixel_range");
    lib.get(image_release, "heif_image_release");
    lib.get(have_encoder, "heif_have_encoder_for_format");
    lib.get(encoder_for, "heif_context_get_encoder_for_format");
    lib.get(set_quality, "heif_encoder_set_lossy_quality");
    lib.get(encoder_release, "heif_encoder_release");
    lib.get(image_create, "heif_image_create");
    lib.get(add_plane, "heif_image_add_plane");
    lib.get(plane, "heif_image_get_plane");
    lib.get(options_alloc, "heif_encoding_options_alloc");
    lib.get(options_free, "heif_encoding_options_free");
    lib.get(encode, "heif_context_encode_image");
    lib.get(write, "heif_context_write_to_file");
    if (lib.ok()) init(nullptr);  // loads the decoder plugins; never deinitialised (process lifetime)
  }
};

Heif& heif() {
  static Heif h;
  return h;
}

struct Ctx {
  heif_context* c;
  ~Ctx() {
    if (c) heif().ctx_free(c);
  }
};
struct Handle {
  heif_image_handle* h = nullptr;
  ~Handle() {
    if (h) heif().handle_release(h);
  }
};
struct Image {
  heif_image* i = nullptr;
  ~Image() {
    if (i) heif().image_release(i);
  }
};

}  // namespace

bool heif_available(std::string* why) {
  if (heif().lib.ok()) return true;
  if (why) *why = "HEIC/AVIF need libheif (Debian/Ubuntu package libheif1), which is not installed: " + heif().lib.error();
  return false;
}

bool is_heif(const std::vector<uint8_t>& b) {
  if (b.size() < 12 || std::memcmp(b.data() + 4, "ftyp", 4) != 0) return false;
  static const char* brands[] = {"heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "avif", "avis"};
  for (const char* br : brands)
    if (std::memcmp(b.data() + 8, br, 4) == 0) return true;
  return false;
}

Decoded decode_heif(const std::string& path, const std::vector<uint8_t>& bytes, bool want_high) {
  std::string why;
  if (!heif_available(&why)) throw Error(path + ": " + why);
  Heif& L = heif();
  Ctx ctx{L.ctx_alloc()};
  if (!ctx.c) throw Error(path + ": cannot decode HEIF (out of memory)");
  L.set_limit(ctx.c, 16384);
  heif_error e = L.read(ctx.c, bytes.data(), bytes.size(), nullptr);
  if (e.code != heif_error_Ok) throw Error(path + ": not a readable HEIF/AVIF image (" + e.message + ")");
  Handle h;
  e = L.primary(ctx.c, &h.h);
  if (e.code != heif_error_Ok) throw Error(path + ": HEIF file has no primary image (" + std::string(e.message) + ")");
  const int w = L.handle_width(h.h), hh = L.handle_height(h.h);
  if (w <= 0 || hh <= 0) throw Error(path + ": image has zero size");
  check_image_limits(path, uint64_t(w), uint64_t(hh));
  // HEVC and AV1 code a 64x64 block that repeats its neighbour in a few bits: a generous bound.
  check_declared_size(path, bytes.size(), uint64_t(w) * uint64_t(hh), uint64_t(1) << 15, "HEIF");
  const int bits = L.handle_bits(h.h);
  const bool deep = bits > 8;
  Image img;
  e = L.decode(h.h, &img.i, heif_colorspace_RGB, deep ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RGBA,
               nullptr);
  if (e.code != heif_error_Ok || !img.i) throw Error(path + ": cannot decode HEIF (" + std::string(e.message) + ")");
  const int iw = L.image_width(img.i, heif_channel_interleaved), ih = L.image_height(img.i, heif_channel_interleaved);
  if (iw <= 0 || ih <= 0) throw Error(path + ": cannot decode HEIF (empty image)");
  check_image_limits(path, uint64_t(iw), uint64_t(ih));  // after clap/irot: never larger, checked anyway
  int stride = 0;
  const uint8_t* p = L.plane_readonly(img.i, heif_channel_interleaved, &stride);
  if (!p || stride < iw * (deep ? 8 : 4)) throw Error(path + ": cannot decode HEIF (no pixel plane)");
  Decoded d;
  d.format = "HEIF";
  d.bits = deep ? bits : 8;
  d.rgba = ImageRGBA8(iw, ih);
  if (deep) {
    const int range = L.image_bits(img.i, heif_channel_interleaved);
    const float maxv = float((1u << std::min(std::max(range, 1), 16)) - 1);
    if (want_high) d.high = ImageF(iw, ih, 4);
    for (int y = 0; y < ih; ++y)
      for (int x = 0; x < iw * 4; ++x) {
        const uint8_t* s = p + size_t(y) * size_t(stride) + size_t(x) * 2;
        const float v = std::min(float(uint32_t(s[0]) | uint32_t(s[1]) << 8) / maxv, 1.f);
        if (want_high) d.high.data[size_t(y) * size_t(iw) * 4 + size_t(x)] = v;
        d.rgba.data[size_t(y) * size_t(iw) * 4 + size_t(x)] = uint8_t(v * 255.f + 0.5f);
      }
  } else {
    for (int y = 0; y < ih; ++y) std::memcpy(d.rgba.px(0, y), p + size_t(y) * size_t(stride), size_t(iw) * 4);
  }
  const heif_color_profile_type t = L.profile_type(h.h);
  if (t == heif_color_profile_type_prof || t == heif_color_profile_type_rICC) {
    const size_t n = L.profile_size(h.h);
    if (n > 0 && n < (size_t(1) << 24)) {
      d.icc.resize(n);
      if (L.profile(h.h, d.icc.data()).code != heif_error_Ok) d.icc.clear();
    }
  } else {
    // Colour described by code points (ISO/IEC 23091-2) instead of an ICC profile, in the file's colr box
    // or else in the coded stream (HEVC's VUI, which libheif reports on the decoded image): only BT.709/sRGB
    // primaries (1) or unspecified (2) are what the pixels are taken to be; others are said, not converted.
    heif_color_profile_nclx* c = nullptr;
    const bool boxed = t == heif_color_profile_type_nclx && L.nclx(h.h, &c).code == heif_error_Ok && c;
    if (!boxed && L.image_nclx(img.i, &c).code != heif_error_Ok) c = nullptr;
    if (c) {
      const int primaries = int(c->color_primaries);
      L.nclx_free(c);
      if (primaries != 1 && primaries != 2)
        d.notes.push_back("colour primaries " + std::to_string(primaries) + (primaries == 12 ? " (Display P3)" : "") +
                          " from the HEIF nclx box not converted to sRGB: colours are shown as if sRGB");
    }
  }
  return d;
}

std::string write_heif(const std::string& path, const ImageRGBA8& image, bool avif, int orientation,
                       const std::vector<uint8_t>& exif, int nclx_primaries) {
  std::string why;
  if (!heif_available(&why)) return why;
  Heif& L = heif();
  const heif_compression_format format = avif ? heif_compression_AV1 : heif_compression_HEVC;
  if (!L.have_encoder(format)) return std::string("this libheif has no ") + (avif ? "AV1" : "HEVC") + " encoder";
  Ctx ctx{L.ctx_alloc()};
  Image img;
  heif_error e = L.image_create(image.width, image.height, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, &img.i);
  if (e.code != heif_error_Ok) return e.message;
  e = L.add_plane(img.i, heif_channel_interleaved, image.width, image.height, 8);
  if (e.code != heif_error_Ok) return e.message;
  int stride = 0;
  uint8_t* p = L.plane(img.i, heif_channel_interleaved, &stride);
  for (int y = 0; y < image.height; ++y) std::memcpy(p + size_t(y) * size_t(stride), image.px(0, y), size_t(image.width) * 4);
  if (nclx_primaries > 0) {
    heif_color_profile_nclx* c = L.nclx_alloc();
    if (!c) return "cannot allocate an nclx profile";
    c->color_primaries = heif_color_primaries(nclx_primaries);
    e = L.set_nclx(img.i, c);
    L.nclx_free(c);
    if (e.code != heif_error_Ok) return e.message;
  }
  heif_encoder* enc = nullptr;
  e = L.encoder_for(ctx.c, format, &enc);
  if (e.code != heif_error_Ok) return e.message;
  L.set_quality(enc, 95);
  heif_encoding_options* opts = L.options_alloc();
  opts->image_orientation = heif_orientation(orientation);
  Handle out;
  e = L.encode(ctx.c, img.i, enc, opts, &out.h);
  L.options_free(opts);
  L.encoder_release(enc);
  if (e.code != heif_error_Ok) return e.message;
  if (!exif.empty()) {
    e = L.add_exif(ctx.c, out.h, exif.data(), int(exif.size()));
    if (e.code != heif_error_Ok) return e.message;
  }
  e = L.write(ctx.c, path.c_str());
  if (e.code != heif_error_Ok) return e.message;
  return "";
}

}  // namespace satlab::io
