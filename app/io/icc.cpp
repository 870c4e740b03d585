#include "app/io/icc.hpp"

#include <lcms2.h>

#include <algorithm>

#include "app/io/dynlib.hpp"

namespace satlab::io {
namespace {

struct Lcms {
  DynLib lib{"liblcms2.so.2", "liblcms2.so"};
  decltype(&cmsOpenProfileFromMem) open_mem;
  decltype(&cmsCreate_sRGBProfile) srgb;
  decltype(&cmsCreateTransform) create;
  decltype(&cmsDoTransform) run;
  decltype(&cmsDeleteTransform) del;
  decltype(&cmsCloseProfile) close;
  decltype(&cmsGetColorSpace) space;
  decltype(&cmsSetLogErrorHandler) log;
  decltype(&cmsCreateRGBProfile) create_rgb;
  decltype(&cmsBuildGamma) gamma;
  decltype(&cmsFreeToneCurve) free_curve;
  decltype(&cmsSaveProfileToMem) save;
  decltype(&cmsBuildParametricToneCurve) parametric;
  Lcms() {
    lib.get(parametric, "cmsBuildParametricToneCurve");
    lib.get(open_mem, "cmsOpenProfileFromMem");
    lib.get(srgb, "cmsCreate_sRGBProfile");
    lib.get(create, "cmsCreateTransform");
    lib.get(run, "cmsDoTransform");
    lib.get(del, "cmsDeleteTransform");
    lib.get(close, "cmsCloseProfile");
    lib.get(space, "cmsGetColorSpace");
    lib.get(log, "cmsSetLogErrorHandler");
    lib.get(create_rgb, "cmsCreateRGBProfile");
    lib.get(gamma, "cmsBuildGamma");
    lib.get(free_curve, "cmsFreeToneCurve");
    lib.get(save, "cmsSaveProfileToMem");
    if (lib.ok()) log([](cmsContext, cmsUInt32Number, const char*) {});  // failures come back as nulls
  }
};

Lcms& lcms() {
  static Lcms l;
  return l;
}

// A transform from `profile` (of colour space `want`) to sRGB; null with `why` set where none can be made.
cmsHTRANSFORM make_transform(const std::vector<uint8_t>& profile, cmsColorSpaceSignature want,
                             cmsUInt32Number in_format, cmsUInt32Number out_format, std::string* why) {
  Lcms& l = lcms();
  if (!l.lib.ok()) return *why = "ICC profile not applied: lcms2 is not installed (" + l.lib.error() + ")", nullptr;
  cmsHPROFILE src = l.open_mem(profile.data(), cmsUInt32Number(profile.size()));
  if (!src) return *why = "ICC profile not applied: the profile is malformed", nullptr;
  if (l.space(src) != want) {
    l.close(src);
    return *why = "ICC profile not applied: its colour space does not match the pixels", nullptr;
  }
  cmsHPROFILE dst = l.srgb();
  const cmsUInt32Number flags = (T_EXTRA(in_format) && T_EXTRA(out_format)) ? cmsFLAGS_COPY_ALPHA : 0;
  cmsHTRANSFORM t = l.create(src, in_format, dst, out_format, INTENT_PERCEPTUAL, flags);
  l.close(src);
  l.close(dst);
  if (!t) *why = "ICC profile not applied: lcms2 cannot convert from it";
  return t;
}

// Runs `pixels` through `t` in rows of at most 2^20 pixels: cmsDoTransform counts pixels in 32 bits.
void run_transform(cmsHTRANSFORM t, cmsUInt32Number in_format, cmsUInt32Number out_format, const void* in,
                   void* out, size_t pixels) {
  const size_t in_px = T_BYTES(in_format) ? size_t(T_BYTES(in_format)) * size_t(T_CHANNELS(in_format) + T_EXTRA(in_format)) : sizeof(float) * size_t(T_CHANNELS(in_format) + T_EXTRA(in_format));
  const size_t out_px = T_BYTES(out_format) ? size_t(T_BYTES(out_format)) * size_t(T_CHANNELS(out_format) + T_EXTRA(out_format)) : sizeof(float) * size_t(T_CHANNELS(out_format) + T_EXTRA(out_format));
  for (size_t done = 0; done < pixels;) {
    const size_t n = std::min<size_t>(pixels - done, size_t(1) << 20);
    lcms().run(t, static_cast<const uint8_t*>(in) + done * in_px, static_cast<uint8_t*>(out) + done * out_px,
               cmsUInt32Number(n));
    done += n;
  }
}

// Runs `pixels` through a transform from `profile` (of colour space `want`) to sRGB.
std::string convert(const std::vector<uint8_t>& profile, cmsColorSpaceSignature want, cmsUInt32Number in_format,
                    cmsUInt32Number out_format, const void* in, void* out, size_t pixels) {
  std::string why;
  cmsHTRANSFORM t = make_transform(profile, want, in_format, out_format, &why);
  if (!t) return why;
  run_transform(t, in_format, out_format, in, out, pixels);
  lcms().del(t);
  return "";
}

}  // namespace

std::string icc_to_srgb(const std::vector<uint8_t>& profile, ImageRGBA8& image) {
  return convert(profile, cmsSigRgbData, TYPE_RGBA_8, TYPE_RGBA_8, image.data.data(), image.data.data(),
                 image.pixels());
}

SrgbConverter::SrgbConverter(const std::vector<uint8_t>& profile) {
  transform_ = make_transform(profile, cmsSigRgbData, TYPE_RGBA_8, TYPE_RGBA_8, &why_);
}

SrgbConverter::~SrgbConverter() {
  if (transform_) lcms().del(static_cast<cmsHTRANSFORM>(transform_));
}

void SrgbConverter::run(uint8_t* rgba8, size_t pixels) const {
  if (transform_) run_transform(static_cast<cmsHTRANSFORM>(transform_), TYPE_RGBA_8, TYPE_RGBA_8, rgba8, rgba8, pixels);
}

std::string icc_to_srgb(const std::vector<uint8_t>& profile, ImageF& rgba01) {
  if (rgba01.channels != 4) return "ICC profile not applied: not a colour image";
  return convert(profile, cmsSigRgbData, TYPE_RGBA_FLT, TYPE_RGBA_FLT, rgba01.data.data(), rgba01.data.data(),
                 rgba01.pixels());
}

std::string icc_cmyk_to_srgb(const std::vector<uint8_t>& profile, const uint8_t* cmyk, bool inverted,
                             ImageRGBA8& out) {
  std::vector<uint8_t> rgb(out.pixels() * 3);
  const std::string why = convert(profile, cmsSigCmykData, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, TYPE_RGB_8,
                                  cmyk, rgb.data(), out.pixels());
  if (!why.empty()) return why;
  for (size_t i = 0; i < out.pixels(); ++i) {
    out.data[i * 4 + 0] = rgb[i * 3 + 0];
    out.data[i * 4 + 1] = rgb[i * 3 + 1];
    out.data[i * 4 + 2] = rgb[i * 3 + 2];
    out.data[i * 4 + 3] = 255;
  }
  return "";
}

std::vector<uint8_t> make_rgb_profile(bool p3) {
  Lcms& l = lcms();
  if (!l.lib.ok()) return {};
  // D65 white; sRGB or Display P3 primaries; the sRGB curve (both spaces use it).
  const cmsCIExyY white = {0.3127, 0.3290, 1.0};
  const cmsCIExyYTRIPLE srgb = {{0.640, 0.330, 1.0}, {0.300, 0.600, 1.0}, {0.150, 0.060, 1.0}};
  const cmsCIExyYTRIPLE dp3 = {{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
  const cmsFloat64Number params[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
  cmsToneCurve* curve = l.parametric(nullptr, 4, params);
  if (!curve) return {};
  cmsToneCurve* curves[3] = {curve, curve, curve};
  cmsHPROFILE p = l.create_rgb(&white, p3 ? &dp3 : &srgb, curves);
  l.free_curve(curve);
  if (!p) return {};
  cmsUInt32Number n = 0;
  std::vector<uint8_t> bytes;
  if (l.save(p, nullptr, &n) && n > 0) {
    bytes.resize(n);
    if (!l.save(p, bytes.data(), &n)) bytes.clear();
  }
  l.close(p);
  return bytes;
}

}  // namespace satlab::io
