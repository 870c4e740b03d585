// The camera response (Params::response_shoulder, core/dof.hpp): its transfer tables against an independent
// double-precision computation, today's tables at s = 0, a blurred two-level edge under s = 0.4 in the
// linear-light modes, range checks, and the ground-truth manifest's field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "app/io/ground_truth.hpp"
#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "core/highlights_pixel.hpp"
#include "core/params.hpp"
#include "tools/scene/scene.hpp"

using namespace satlab;

namespace {

double srgb_decode(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double srgb_encode(double l) {
  return l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
}
// The camera's encoding of radiance v, as a real 8-bit level (not rounded).
double camera_level(double v, double s) {
  return 255 * srgb_encode(std::min(std::max(v / (1 + s * v), 0.0), 1.0));
}
double radiance_of(int x, double s) {
  const double d = srgb_decode(x / 255.0);
  return d / (1 - s * d);
}

const float kShoulders[] = {0.f, 0.1f, 0.2f, 0.3f, 0.4f, 0.6f, 0.9f};

}  // namespace

TEST(Response, ZeroShoulderGivesThePlainSrgbTablesExactly) {
  const uint16_t* lin = srgb_to_linear12(0.f);
  const uint8_t* enc = linear12_to_srgb(0.f);
  EXPECT_EQ(lin, srgb_to_linear12());  // the default is s = 0, one cached table
  for (int s = 0; s < 256; ++s)
    EXPECT_EQ(lin[s], uint16_t(std::lround(srgb_decode(s / 255.0) * dof::kLinearOne))) << s;
  for (int i = 0; i <= dof::kLinearOne; ++i) {
    const double c = srgb_encode(double(i) / dof::kLinearOne);
    EXPECT_EQ(enc[i], uint8_t(std::lround(std::min(std::max(c, 0.0), 1.0) * 255))) << i;
  }
  EXPECT_EQ(srgb_to_linear12(-0.f), lin);
}

// Decode: round((1 - s) 4095 v), v the radiance; encode: the nearest 8-bit level of the camera's encoding
// of the code's radiance. Every value with a code of its own round-trips; values share codes only in the
// deep shadows, where an sRGB step is finer than a code (none at s <= 0.2, the counts in core/dof.hpp).
TEST(Response, TablesRoundTripEveryValueWithItsOwnCode) {
  for (const float s : kShoulders) {
    SCOPED_TRACE("shoulder " + std::to_string(s));
    const uint16_t* lin = srgb_to_linear12(s);
    const uint8_t* enc = linear12_to_srgb(s);
    EXPECT_EQ(lin, srgb_to_linear12(s));  // cached
    EXPECT_EQ(response_tables(s).shoulder, std::round(double(s) * 1000) / 1000);
    const double sd = response_tables(s).shoulder;  // the step the tables are built for
    EXPECT_EQ(lin[0], 0);
    EXPECT_EQ(lin[255], dof::kLinearOne);  // the largest decodable radiance 1 / (1 - s)
    const double scale = (1 - sd) * dof::kLinearOne;
    int shared = 0, below = 0;
    for (int x = 0; x < 256; ++x) {
      EXPECT_EQ(lin[x], uint16_t(std::lround(radiance_of(x, sd) * scale))) << x;
      if (x > 0) {
        EXPECT_GE(lin[x], lin[x - 1]) << x;
      }
      const bool own = (x == 0 || lin[x - 1] != lin[x]) && (x == 255 || lin[x + 1] != lin[x]);
      if (own) {
        EXPECT_EQ(enc[lin[x]], x) << x;
      } else {
        ++shared, below = x + 1;
        EXPECT_EQ(lin[enc[lin[x]]], lin[x]) << x << ": encodes outside the values sharing its code";
      }
    }
    for (int i = 0; i <= dof::kLinearOne; ++i)
      EXPECT_LE(std::abs(double(enc[i]) - camera_level(i / scale, sd)), 0.5 + 1e-9) << i;
    if (s <= 0.2f) {
      EXPECT_EQ(shared, 0);
    } else if (s == 0.4f) {
      EXPECT_EQ(shared, 6);
      EXPECT_EQ(below, 11);
    } else if (s == 0.9f) {
      EXPECT_EQ(shared, 67);
      EXPECT_EQ(below, 79);
    }
  }
}

// One table per 1/1000 of s: values within a step share it, the next step has its own.
TEST(Response, TablesAreCachedPerThousandth) {
  EXPECT_EQ(&response_tables(0.4f), &response_tables(0.40004f));
  EXPECT_NE(&response_tables(0.4f), &response_tables(0.401f));
  EXPECT_EQ(response_key(0.4f), 400u);
  EXPECT_EQ(response_key(-0.f), 0u);
  EXPECT_NE(std::memcmp(response_tables(0.4f).to_linear, response_tables(0.401f).to_linear, 512), 0);
}

TEST(Response, OutOfRangeShoulderIsRefusedByName) {
  for (const float s : {-0.01f, 0.91f, 5.f, std::nanf("")}) {
    Params p;
    p.response_shoulder = s;
    try {
      validate(p);
      ADD_FAILURE() << "shoulder " << s << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--response-shoulder"), std::string::npos) << e.what();
    }
    EXPECT_THROW(response_tables(s), Error);
  }
  Params p;
  p.response_shoulder = 0.9f;
  EXPECT_NO_THROW(validate(p));
}

// A vertical edge between two levels, a flat CoC (square aperture of radius r, away from the image's
// sides): every output pixel is the camera's encoding of the mean radiance of a (2r+1)-wide box, k of its
// columns bright. The pipeline rounds each radiance to a code (error <= 1/2 code = 1/2 / ((1 - s) 4095) of
// radiance), the spread mode rounds its splats' weights and colours (relatively < 1e-4 here), and the
// encode rounds the mean to a code, then to a level: at most 1 level from the double-precision value's
// nearest level, which is what the test allows. The shoulder matters: at s = 0 the mid-edge level is far
// from the one a 0.4 camera gives.
TEST(Response, BlurredEdgeMatchesTheDoublePrecisionCameraModel) {
  const int w = 64, h = 9, edge = 32, r = 5;
  for (const int bright : {255, 230}) {
    const int dark = 40;
    ImageRGBA8 img(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        uint8_t* px = img.px(x, y);
        px[0] = px[1] = px[2] = uint8_t(x < edge ? dark : bright);
        px[3] = 255;
      }
    ImageF coc(w, h, 1);
    for (auto& c : coc.data) c = -(float(r) + 0.25f);  // behind the focus plane, radius r
    for (const char* mode : {"gather_linear", "layered", "spread"})
      for (const float s : {0.4f, 0.f}) {
        SCOPED_TRACE(std::string(mode) + " shoulder " + std::to_string(s) + " bright " +
                     std::to_string(bright));
        Params p;
        p.dof_mode = mode;
        p.aperture_shape = ApertureShape::Square;
        p.max_radius = float(r);
        p.response_shoulder = s;
        ImageRGBA8 out;
        if (find_dof_mode(mode)->spread)
          dof_spread_blur(img, coc, p, out, 1);
        else
          dof_shaped_blur(img, coc, p, out, 1);
        for (int x = edge - r - 2; x <= edge + r + 2; ++x) {
          const int k = std::min(std::max(x + r + 1 - edge, 0), 2 * r + 1);  // bright columns in the box
          const double f = double(k) / (2 * r + 1);
          const double v = (1 - f) * radiance_of(dark, s) + f * radiance_of(bright, s);
          const double want = camera_level(v, s);
          for (int y = 0; y < h; ++y)
            for (int c = 0; c < 3; ++c)
              EXPECT_LE(std::abs(double(out.px(x, y)[c]) - std::round(want)), 1.0)
                  << "at " << x << "," << y << ": want " << want;
        }
        if (s == 0.4f) {  // the model discriminates: the plain sRGB blur is far from the 0.4 camera's
          const double v = 0.5 * radiance_of(dark, 0.0) + 0.5 * radiance_of(bright, 0.0);
          EXPECT_GT(
              std::abs(camera_level(v, 0.0) -
                       camera_level(0.5 * radiance_of(dark, 0.4) + 0.5 * radiance_of(bright, 0.4), 0.4)),
              8.0);
        }
      }
  }
}

// The highlight threshold is an sRGB-decoded luminance taken through the response's inverse: a grey pixel
// becomes a sprite at the same 8-bit value whatever the shoulder (but where rounding to codes decides).
TEST(Response, HighlightThresholdPicksTheSameGreysWhateverTheShoulder) {
  const uint16_t* lin0 = srgb_to_linear12(0.f);
  for (const float s : {0.2f, 0.4f, 0.9f}) {
    const uint16_t* lin = srgb_to_linear12(s);
    for (const float t : {0.1f, 0.3f, 0.5f, 0.7f, 0.9f, 1.f}) {
      const uint32_t min0 = hl::luminance_min(t, 0.f), min_s = hl::luminance_min(t, s);
      int passing = 0;
      for (int x = 0; x < 256; ++x) {
        const bool plain = hl::luminance(lin0[x], lin0[x], lin0[x]) >= min0;
        passing += plain;
        // A grey within half a code of the threshold (before the code's rounding) may fall either side.
        const auto near = [&](double sh) {
          sh = std::round(sh * 1000) / 1000;
          const double scale = (1 - sh) * dof::kLinearOne;
          return std::abs(radiance_of(x, sh) - double(t) / (1 - sh * double(t))) * scale <= 0.5;
        };
        if (near(0.0) || near(s)) continue;
        EXPECT_EQ(hl::luminance(lin[x], lin[x], lin[x]) >= min_s, plain)
            << "grey " << x << " threshold " << t << " shoulder " << s;
      }
      EXPECT_GT(passing, 0);
      EXPECT_LT(passing, t < 1.f ? 256 : 2);
    }
  }
}

namespace {

std::string write_manifest(const std::string& extra) {
  char dir[] = "/tmp/satlab_response_XXXXXX";
  if (!mkdtemp(dir)) return "";
  const std::string path = std::string(dir) + "/cases.json";
  std::ofstream(path) << "{\"cases\": [{\"name\": \"a\", \"image\": \"a.png\", \"depth\": \"d.png\", "
                         "\"reference\": \"r.png\", \"focus\": 0.5, \"aperture\": 10, \"max_radius\": 4, "
                         "\"near_depth\": 1, \"far_depth\": 10"
                      << extra << "}]}";
  return path;
}

}  // namespace

TEST(Response, ManifestFieldIsReadWithPlainSrgbWhenAbsent) {
  const std::string with = write_manifest(", \"response_shoulder\": 0.4"), without = write_manifest(""),
                    bad = write_manifest(", \"response_shoulder\": 1.5"),
                    wrong = write_manifest(", \"response_shoulder\": \"0.4\"");
  EXPECT_EQ(io::load_truth_cases(with).at(0).params.response_shoulder, 0.4f);
  EXPECT_EQ(io::load_truth_cases(without).at(0).params.response_shoulder, 0.f);
  for (const std::string& m : {bad, wrong}) {
    try {
      io::load_truth_cases(m);
      ADD_FAILURE() << m << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("response_shoulder"), std::string::npos) << e.what();
    }
  }
  for (const std::string& m : {with, without, bad, wrong}) {
    std::remove(m.c_str());
    rmdir(m.substr(0, m.rfind('/')).c_str());
  }
  // The bundled ground truth records its generator's camera.
  for (const io::TruthCase& c : io::load_truth_cases(io::default_truth_cases()))
    EXPECT_EQ(c.params.response_shoulder, float(scene::kToneShoulder)) << c.name;
}
