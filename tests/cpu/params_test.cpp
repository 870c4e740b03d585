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
