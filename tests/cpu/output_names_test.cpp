#include "app/io/output_names.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace {

// A fresh folder under /tmp, removed with its files at the end of the test.
struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/satlab_names_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    for (const auto& f : files) std::remove((path + "/" + f).c_str());
    rmdir(path.c_str());
  }
  void touch(const std::string& name) {
    std::ofstream(path + "/" + name) << "x";
    files.push_back(name);
  }
  std::string path;
  std::vector<std::string> files;
};

}  // namespace

TEST(OutputNames, StemAndFolder) {
  EXPECT_EQ(satlab::io::file_stem("/a/b/coffee.png"), "coffee");
  EXPECT_EQ(satlab::io::file_stem("coffee.depth.png"), "coffee.depth");
  EXPECT_EQ(satlab::io::file_stem("noext"), "noext");
  EXPECT_EQ(satlab::io::file_stem(".hidden"), ".hidden");
  EXPECT_EQ(satlab::io::folder_of("/a/b/coffee.png"), "/a/b");
  EXPECT_EQ(satlab::io::folder_of("coffee.png"), ".");
  EXPECT_EQ(satlab::io::folder_of("/coffee.png"), "/");
}

TEST(OutputNames, TagNamesTheFilterAndItsParameters) {
  satlab::Params p;
  p.focus = 0.2f;
  p.aperture = 40.f;
  p.max_radius = 24.f;
  EXPECT_EQ(satlab::io::params_tag(p), "dof_f0.20_a40_r24");
  p.aperture = 12.5f;
  EXPECT_EQ(satlab::io::params_tag(p), "dof_f0.20_a12.5_r24");
  p.filter = satlab::FilterKind::Box;
  p.box_radius = 7;
  EXPECT_EQ(satlab::io::params_tag(p), "box_r7");
}

TEST(OutputNames, NextFreeBaseSkipsANameWhereAnySuffixIsTaken) {
  TempDir d;
  const std::vector<std::string> sfx = {".png", "_depth.png"};
  EXPECT_EQ(satlab::io::next_free_base(d.path, "x", sfx), d.path + "/x");
  d.touch("x_depth.png");  // one file of the set is enough to move on: exports stay together
  EXPECT_EQ(satlab::io::next_free_base(d.path, "x", sfx), d.path + "/x-2");
  d.touch("x-2.png");
  EXPECT_EQ(satlab::io::next_free_base(d.path, "x", sfx), d.path + "/x-3");
}

TEST(OutputNames, FolderListingHasImagesSortedWithoutDepthMaps) {
  TempDir d;
  for (const char* f : {"b.png", "a.JPG", "a.depth.png", "b_depth.png", "notes.txt", ".hidden.png", "c.hdr"})
    d.touch(f);
  const std::vector<std::string> want = {d.path + "/a.JPG", d.path + "/b.png", d.path + "/c.hdr"};
  EXPECT_EQ(satlab::io::images_in_dir(d.path), want);
  EXPECT_EQ(satlab::io::depth_beside(d.path + "/a.JPG"), d.path + "/a.depth.png");
  EXPECT_EQ(satlab::io::depth_beside(d.path + "/b.png"), d.path + "/b_depth.png");
  EXPECT_EQ(satlab::io::depth_beside(d.path + "/c.hdr"), "");
  EXPECT_THROW(satlab::io::images_in_dir(d.path + "/missing"), satlab::Error);
}

// The export never overwrites without asking: by default it writes nothing while any file of the set is
// taken and names those files (the GUI's "Overwrite?" popup lists them); the two answers then give the
// same base (overwrite) or the next free one.
TEST(OutputNames, ExportTargetAsksBeforeOverwritingAndFollowsTheAnswer) {
  using satlab::io::WhenTaken;
  TempDir d;
  const std::vector<std::string> sfx = {".png", "_depth.png", "_coc.png"};
  auto t = satlab::io::export_target(d.path, "x", sfx, WhenTaken::Ask);
  EXPECT_EQ(t.base, d.path + "/x");  // nothing taken: no question
  EXPECT_TRUE(t.existing.empty());
  d.touch("x_depth.png");
  d.touch("x_coc.png");
  t = satlab::io::export_target(d.path, "x", sfx, WhenTaken::Ask);
  EXPECT_EQ(t.base, "");
  EXPECT_EQ(t.existing, (std::vector<std::string>{d.path + "/x_depth.png", d.path + "/x_coc.png"}));
  t = satlab::io::export_target(d.path, "x", sfx, WhenTaken::Overwrite);
  EXPECT_EQ(t.base, d.path + "/x");
  EXPECT_TRUE(t.existing.empty());
  t = satlab::io::export_target(d.path, "x", sfx, WhenTaken::NextFree);
  EXPECT_EQ(t.base, d.path + "/x-2");
  EXPECT_TRUE(t.existing.empty());
}
