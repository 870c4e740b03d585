// HEIC depth auxiliary images through libheif's depth-image API, loaded with dlopen so that the binary
// starts on machines without libheif (the GPU machine has none). Depth representation types (ISO/IEC
// 23008-12 via the HEVC depth representation info): uniform inverse Z and uniform disparity are 1/z
// quantised uniformly, bright = near (the pipeline's disparity mode); uniform Z is z quantised uniformly,
// 0 = near; nonuniform disparity is read as uniform (its nonlinear model is reported as ignored).
#include <cstring>
#include <string>
#include <vector>

#include "app/io/dynlib.hpp"
#include "app/io/embedded_depth.hpp"
#include "app/io/format_guard.hpp"
#include "core/error.hpp"

#if __has_include(<libheif/heif.h>)
#include <libheif/heif.h>
#define SATLAB_HAVE_HEIF_HEADER 1
#endif

namespace satlab::io {

#ifndef SATLAB_HAVE_HEIF_HEADER

EmbeddedDepth load_heic_depth(const std::string&, const std::vector<uint8_t>&) {
  throw Error("HEIC depth: this build has no libheif headers");
}

#else

namespace {

// The libheif entry points used, resolved once. `error` says why when the library is absent.
struct Heif {
#define SATLAB_HEIF_FN(name) decltype(&::name) name = nullptr
  SATLAB_HEIF_FN(heif_context_alloc);
  SATLAB_HEIF_FN(heif_context_free);
  SATLAB_HEIF_FN(heif_context_read_from_memory_without_copy);
  SATLAB_HEIF_FN(heif_context_get_primary_image_handle);
  SATLAB_HEIF_FN(heif_image_handle_release);
  SATLAB_HEIF_FN(heif_image_handle_has_depth_image);
  SATLAB_HEIF_FN(heif_image_handle_get_number_of_depth_images);
  SATLAB_HEIF_FN(heif_image_handle_get_list_of_depth_image_IDs);
  SATLAB_HEIF_FN(heif_image_handle_get_depth_image_handle);
  SATLAB_HEIF_FN(heif_image_handle_get_depth_image_representation_info);
  SATLAB_HEIF_FN(heif_depth_representation_info_free);
  SATLAB_HEIF_FN(heif_image_handle_get_width);
  SATLAB_HEIF_FN(heif_image_handle_get_height);
  SATLAB_HEIF_FN(heif_decode_image);
  SATLAB_HEIF_FN(heif_image_get_plane_readonly);
  SATLAB_HEIF_FN(heif_image_has_channel);
  SATLAB_HEIF_FN(heif_image_get_width);
  SATLAB_HEIF_FN(heif_image_get_height);
  SATLAB_HEIF_FN(heif_image_get_bits_per_pixel_range);
  SATLAB_HEIF_FN(heif_image_release);
#undef SATLAB_HEIF_FN
  std::string error;
};

const Heif& heif() {
  static const Heif h = [] {
    Heif r;
    static DynLib lib{"libheif.so.1"};
#define SATLAB_HEIF_LOAD(name) lib.get(r.name, #name)
    SATLAB_HEIF_LOAD(heif_context_alloc);
    SATLAB_HEIF_LOAD(heif_context_free);
    SATLAB_HEIF_LOAD(heif_context_read_from_memory_without_copy);
    SATLAB_HEIF_LOAD(heif_context_get_primary_image_handle);
    SATLAB_HEIF_LOAD(heif_image_handle_release);
    SATLAB_HEIF_LOAD(heif_image_handle_has_depth_image);
    SATLAB_HEIF_LOAD(heif_image_handle_get_number_of_depth_images);
    SATLAB_HEIF_LOAD(heif_image_handle_get_list_of_depth_image_IDs);
    SATLAB_HEIF_LOAD(heif_image_handle_get_depth_image_handle);
    SATLAB_HEIF_LOAD(heif_image_handle_get_depth_image_representation_info);
    SATLAB_HEIF_LOAD(heif_depth_representation_info_free);
    SATLAB_HEIF_LOAD(heif_image_handle_get_width);
    SATLAB_HEIF_LOAD(heif_image_handle_get_height);
    SATLAB_HEIF_LOAD(heif_decode_image);
    SATLAB_HEIF_LOAD(heif_image_get_plane_readonly);
    SATLAB_HEIF_LOAD(heif_image_has_channel);
    SATLAB_HEIF_LOAD(heif_image_get_width);
    SATLAB_HEIF_LOAD(heif_image_get_height);
    SATLAB_HEIF_LOAD(heif_image_get_bits_per_pixel_range);
    SATLAB_HEIF_LOAD(heif_image_release);
#undef SATLAB_HEIF_LOAD
    if (!lib.ok())
      r.error = lib.error().find("not found") != std::string::npos
                    ? "libheif.so.1 is not installed (Debian/Ubuntu package libheif1)"
                    : "libheif.so.1 is not usable (" + lib.error() + "; libheif >= 1.15 needed)";
    return r;
  }();
  return h;
}

void check(const heif_error& e, const char* what) {
  if (e.code != heif_error_Ok)
    throw Error(std::string("HEIC ") + what + ": " + (e.message ? e.message : "failed"));
}

struct Guard {
  const Heif& h;
  heif_context* ctx = nullptr;
  heif_image_handle *primary = nullptr, *depth = nullptr;
  heif_image* image = nullptr;
  const heif_depth_representation_info* info = nullptr;
  ~Guard() {
    if (info) h.heif_depth_representation_info_free(info);
    if (image) h.heif_image_release(image);
    if (depth) h.heif_image_handle_release(depth);
    if (primary) h.heif_image_handle_release(primary);
    if (ctx) h.heif_context_free(ctx);
  }
};

}  // namespace

EmbeddedDepth load_heic_depth(const std::string& path, const std::vector<uint8_t>& bytes) {
  const Heif& h = heif();
  if (!h.error.empty()) throw Error("HEIC depth: " + h.error);
  Guard g{h};
  g.ctx = h.heif_context_alloc();
  check(h.heif_context_read_from_memory_without_copy(g.ctx, bytes.data(), bytes.size(), nullptr), "file");
  check(h.heif_context_get_primary_image_handle(g.ctx, &g.primary), "primary image");
  EmbeddedDepth e;
  if (!h.heif_image_handle_has_depth_image(g.primary)) return e;
  const int count = h.heif_image_handle_get_number_of_depth_images(g.primary);
  if (count < 1) return e;
  std::vector<heif_item_id> ids(size_t(count), 0);
  h.heif_image_handle_get_list_of_depth_image_IDs(g.primary, ids.data(), count);
  if (count > 1) e.ignored.push_back(std::to_string(count - 1) + " further depth images");
  check(h.heif_image_handle_get_depth_image_handle(g.primary, ids[0], &g.depth), "depth image");
  const int w = h.heif_image_handle_get_width(g.depth), hh = h.heif_image_handle_get_height(g.depth);
  if (w <= 0 || hh <= 0) throw Error("HEIC depth image has no size");
  check_image_limits(path + " (depth image)", uint64_t(w), uint64_t(hh));
  // Decoded as stored (no colour conversion): depth is coded as monochrome or as the luma of YCbCr.
  check(h.heif_decode_image(g.depth, &g.image, heif_colorspace_undefined, heif_chroma_undefined, nullptr),
        "depth image decode");
  // Luma; a depth image that decodes to RGB (a derived image libheif converts) gives its red channel.
  heif_channel ch = heif_channel_Y;
  if (!h.heif_image_has_channel(g.image, ch) && h.heif_image_has_channel(g.image, heif_channel_R)) {
    ch = heif_channel_R;
    e.ignored.push_back("depth image decoded as RGB: red channel used");
  }
  int stride = 0;
  const uint8_t* plane = h.heif_image_get_plane_readonly(g.image, ch, &stride);
  const int iw = h.heif_image_get_width(g.image, ch), ih = h.heif_image_get_height(g.image, ch);
  const int bits = h.heif_image_get_bits_per_pixel_range(g.image, ch);
  if (!plane || iw <= 0 || ih <= 0 || bits < 1 || bits > 16 || stride < iw * (bits > 8 ? 2 : 1))
    throw Error("HEIC depth image has no usable luma plane (" + std::to_string(iw) + "x" +
                std::to_string(ih) + ", " + std::to_string(bits) + " bits" + (plane ? "" : ", absent") + ")");
  e.depth = ImageF(iw, ih, 1);
  const float scale = 1.0f / float((1u << bits) - 1);
  for (int y = 0; y < ih; ++y) {
    const uint8_t* row = plane + size_t(y) * size_t(stride);
    for (int x = 0; x < iw; ++x) {
      uint32_t v = row[x];
      if (bits > 8) {
        uint16_t s;
        std::memcpy(&s, row + 2 * size_t(x), 2);
        v = s;
      }
      e.depth.at(x, y) = float(v) * scale;
    }
  }

  // Representation: type and range, where the file gives them.
  std::string type = "uniform inverse Z";
  int rep = heif_depth_representation_type_uniform_inverse_Z;
  if (h.heif_image_handle_get_depth_image_representation_info(g.primary, ids[0], &g.info) && g.info) {
    rep = g.info->depth_representation_type;
    const auto& i = *g.info;
    if (rep == heif_depth_representation_type_uniform_inverse_Z ||
        rep == heif_depth_representation_type_uniform_Z) {
      if (i.has_z_near && i.has_z_far && i.z_near > 0 && i.z_far > i.z_near)
        e.near_depth = float(i.z_near), e.far_depth = float(i.z_far);
      else
        e.ignored.push_back("z_near/z_far missing or unusable");
    } else {  // disparity d_min..d_max: z proportional to 1/disparity (relative units)
      if (i.has_d_min && i.has_d_max && i.d_min > 0 && i.d_max > i.d_min)
        e.near_depth = float(1.0 / i.d_max), e.far_depth = float(1.0 / i.d_min);
      else
        e.ignored.push_back("d_min/d_max missing or unusable");
      if (i.disparity_reference_view) e.ignored.push_back("disparity reference view");
    }
    if (rep == heif_depth_representation_type_uniform_disparity)
      type = "uniform disparity";
    else if (rep == heif_depth_representation_type_uniform_Z)
      type = "uniform Z";
    else if (rep == heif_depth_representation_type_nonuniform_disparity) {
      type = "nonuniform disparity";
      e.ignored.push_back("nonlinear depth model (read as uniform disparity)");
    } else if (rep != heif_depth_representation_type_uniform_inverse_Z) {
      e.ignored.push_back("representation type " + std::to_string(rep) + " (read as uniform inverse Z)");
      rep = heif_depth_representation_type_uniform_inverse_Z;
    }
  } else {
    e.ignored.push_back("no depth representation info: uniform inverse Z (bright = near) assumed");
  }
  e.disparity = rep != heif_depth_representation_type_uniform_Z;
  e.source = "HEIC " + type;
  return e;
}

#endif

}  // namespace satlab::io
