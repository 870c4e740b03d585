#include "core/params.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

TEST(Params, DefaultsAreValid) {
  EXPECT_NO_THROW(satlab::validate(satlab::Params{}));
}

TEST(Params, OutOfRangeFieldIsNamed) {
  satlab::Params p;
  p.far_depth = p.near_depth;
  try {
    satlab::validate(p);
    FAIL() << "far_depth == near_depth accepted";
  } catch (const satlab::Error& e) {
    EXPECT_NE(std::string(e.what()).find("far_depth"), std::string::npos) << e.what();
  }
}

TEST(Params, FilterNamesRoundTrip) {
  EXPECT_EQ(satlab::filter_from_string("box"), satlab::FilterKind::Box);
  EXPECT_EQ(satlab::filter_from_string("dof"), satlab::FilterKind::Dof);
  EXPECT_THROW(satlab::filter_from_string("gauss"), satlab::Error);
}

// The aperture profile and hole (Params::bokeh_profile, catadioptric) are carried by the modes with
// DofMode::profile: the others refuse them naming those that can; their ranges are checked; every lens
// preset is valid in spread, and those without them in every shaped mode.
TEST(Params, ProfileNeedsAModeThatCarriesIt) {
  satlab::Params p;
  p.filter = satlab::FilterKind::Dof;
  p.bokeh_profile = 1.f;
  EXPECT_NO_THROW(satlab::validate(p));  // spread, the default
  for (const char* mode : {"gather_box", "gather_shape", "gather_linear", "layered"})
    for (const auto& [profile, hole] : {std::pair{1.f, 0.f}, std::pair{0.f, 0.45f}}) {
      satlab::Params q = p;
      q.dof_mode = mode, q.bokeh_profile = profile, q.catadioptric = hole;
      try {
        satlab::validate(q);
        FAIL() << mode << " accepted a profile " << profile << " hole " << hole;
      } catch (const satlab::Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(profile != 0.f ? "--bokeh-profile" : "--catadioptric"), std::string::npos) << m;
        EXPECT_NE(m.find("(spread)"), std::string::npos) << m;
        EXPECT_NE(m.find(mode), std::string::npos) << m;
      }
      q.filter = satlab::FilterKind::Box;  // the box filter has no aperture: nothing to refuse
      EXPECT_NO_THROW(satlab::validate(q)) << mode;
    }
  for (const auto& [profile, hole] : {std::pair{1.01f, 0.f}, std::pair{-1.01f, 0.f}, std::pair{0.f, 0.81f},
                                      std::pair{0.f, -0.01f}}) {
    satlab::Params q = p;
    q.bokeh_profile = profile, q.catadioptric = hole;
    EXPECT_THROW(satlab::validate(q), satlab::Error) << profile << " " << hole;
  }
  for (const satlab::LensPreset& l : satlab::lens_presets()) {
    satlab::Params q = p;
    q.bokeh_profile = 0.f;
    l.apply(q);
    EXPECT_NO_THROW(satlab::validate(q)) << l.name;
    q.dof_mode = "gather_shape";
    if (l.profile == 0.f && l.catadioptric == 0.f && !*l.image && l.cat_eye == 0.f)
      EXPECT_NO_THROW(satlab::validate(q)) << l.name;
    else
      EXPECT_THROW(satlab::validate(q), satlab::Error) << l.name;
  }
}
