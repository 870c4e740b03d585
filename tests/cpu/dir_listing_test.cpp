// The file browser's listing logic and its recent-files list, on a scratch folder tree.
#include "app/io/dir_listing.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace satlab::io;
namespace fs = std::filesystem;

namespace {

class DirListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::path(::testing::TempDir()) / ("satlab_dirlist_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "b_folder");
    fs::create_directories(root / "A_folder");
    fs::create_directories(root / ".hidden_folder");
    for (const char* f : {"zeta.PNG", "alpha.jpg", "Beta.jpeg", "c.bmp", "d.tga", "e.hdr", "depth.pfm",
                          "notes.txt", ".hidden.png", "noext"})
      std::ofstream(root / f) << "x";
    fs::create_symlink(root / "missing_target.png", root / "dangling.png");
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(root / "locked", fs::perms::owner_all, ec);
    fs::remove_all(root, ec);
  }
  static std::vector<std::string> names(const DirListing& l) {
    std::vector<std::string> out;
    for (const auto& e : l.entries) out.push_back(e.name + (e.is_dir ? "/" : ""));
    return out;
  }
  fs::path root;
};

}  // namespace

TEST_F(DirListingTest, FoldersComeFirstThenFilesByNameIgnoringCase) {
  const DirListing l = list_directory(root.string(), FileFilter::Images, false);
  EXPECT_TRUE(l.error.empty()) << l.error;
  EXPECT_EQ(names(l), (std::vector<std::string>{"A_folder/", "b_folder/", "alpha.jpg", "Beta.jpeg", "c.bmp",
                                                "d.tga", "e.hdr", "zeta.PNG"}));
}

TEST_F(DirListingTest, DepthFilterTakesPngTiffWebpHdrPfmAndAllTakesEverythingButDanglingLinks) {
  EXPECT_EQ(names(list_directory(root.string(), FileFilter::Depth, false)),
            (std::vector<std::string>{"A_folder/", "b_folder/", "depth.pfm", "e.hdr", "zeta.PNG"}));
  EXPECT_EQ(names(list_directory(root.string(), FileFilter::All, false)),
            (std::vector<std::string>{"A_folder/", "b_folder/", "alpha.jpg", "Beta.jpeg", "c.bmp", "d.tga",
                                      "depth.pfm", "e.hdr", "noext", "notes.txt", "zeta.PNG"}));
}

TEST_F(DirListingTest, HiddenEntriesOnlyOnRequest) {
  const auto shown = names(list_directory(root.string(), FileFilter::Images, true));
  EXPECT_EQ(shown.front(), ".hidden_folder/");
  EXPECT_NE(std::find(shown.begin(), shown.end(), ".hidden.png"), shown.end());
  const auto hidden = names(list_directory(root.string(), FileFilter::Images, false));
  EXPECT_EQ(std::find(hidden.begin(), hidden.end(), ".hidden.png"), hidden.end());
}

TEST_F(DirListingTest, FileSizesAreReported) {
  std::ofstream(root / "big.png") << std::string(1234, 'x');
  int found = 0;
  for (const auto& e : list_directory(root.string(), FileFilter::Images, false).entries) {
    if (e.name != "big.png") continue;
    EXPECT_EQ(e.size, 1234u);
    ++found;
  }
  EXPECT_EQ(found, 1);
}

TEST_F(DirListingTest, MissingFolderOrAFileGiveAMessageAndNoEntries) {
  const DirListing missing = list_directory((root / "nope").string(), FileFilter::All, false);
  EXPECT_TRUE(missing.entries.empty());
  EXPECT_NE(missing.error.find("does not exist"), std::string::npos) << missing.error;
  const DirListing file = list_directory((root / "alpha.jpg").string(), FileFilter::All, false);
  EXPECT_NE(file.error.find("not a folder"), std::string::npos) << file.error;
}

TEST_F(DirListingTest, UnreadableFolderGivesAMessageAndNoEntries) {
  fs::create_directories(root / "locked");
  std::ofstream(root / "locked" / "secret.png") << "x";
  fs::permissions(root / "locked", fs::perms::none);
  const std::string locked = (root / "locked").string();
  auto unreadable_is_reported = [&] {
    const DirListing l = list_directory(locked, FileFilter::All, false);
    return l.entries.empty() && l.error.find("cannot read") != std::string::npos;
  };
  if (::geteuid() != 0) {
    EXPECT_TRUE(unreadable_is_reported()) << list_directory(locked, FileFilter::All, false).error;
    return;
  }
  // Root reads every folder: list it as the unprivileged user 'nobody' (65534) in a child process.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0) << "fork failed";
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    ::_exit(unreadable_is_reported() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "cannot drop root privileges to test an unreadable folder";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "listing a folder without read permission did not report 'cannot read'";
}

TEST(DirPaths, ParentAndJoinNormalise) {
  EXPECT_EQ(parent_dir("/a/b/c"), "/a/b");
  EXPECT_EQ(parent_dir("/a/b/c/"), "/a/b");
  EXPECT_EQ(parent_dir("/a"), "/");
  EXPECT_EQ(parent_dir("/"), "/");
  EXPECT_EQ(absolute_dir("/a/./b/../c/"), "/a/c");
  EXPECT_EQ(join("/", "x"), "/x");
  EXPECT_EQ(join("/a", "x"), "/a/x");
}

TEST(DirPaths, PassesIsCaseInsensitiveAndNeedsAnExtension) {
  EXPECT_TRUE(passes(FileFilter::Images, "X.JPEG"));
  EXPECT_FALSE(passes(FileFilter::Images, "x.pfm"));
  EXPECT_TRUE(passes(FileFilter::Images, "walk.MP4"));  // videos open as clips
  EXPECT_TRUE(passes(FileFilter::Depth, "x.pfm"));
  EXPECT_FALSE(passes(FileFilter::Depth, "x.jpg"));
  EXPECT_FALSE(passes(FileFilter::Images, "png"));
  EXPECT_FALSE(passes(FileFilter::Images, ".png"));
}

TEST(DirPaths, ConfigDirFollowsXdgThenHome) {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = xdg ? xdg : "";
  ::setenv("XDG_CONFIG_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(config_dir(), "/tmp/xdg/satlab");
  ::unsetenv("XDG_CONFIG_HOME");
  if (const char* home = std::getenv("HOME")) {
    EXPECT_EQ(config_dir(), std::string(home) + "/.config/satlab");
  }
  if (xdg) ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
}

TEST_F(DirListingTest, RecentFilesKeepNewestFirstWithoutDuplicatesAndAtMostTen) {
  RecentFiles r((root / "cfg" / "recent.json").string());
  r.load();
  EXPECT_TRUE(r.entries().empty());
  for (int i = 0; i < 12; ++i) {
    const fs::path f = root / ("img" + std::to_string(i) + ".png");
    std::ofstream(f) << "x";
    r.add(f.string(), false);
  }
  r.add((root / "img5.png").string(), false);  // again: moves to the front
  r.add((root / "img5.png").string(), true);   // as a depth map: a separate entry
  ASSERT_EQ(r.entries().size(), RecentFiles::kMax);
  EXPECT_EQ(r.entries()[0].path, (root / "img5.png").string());
  EXPECT_TRUE(r.entries()[0].depth);
  EXPECT_EQ(r.entries()[1].path, (root / "img5.png").string());
  EXPECT_FALSE(r.entries()[1].depth);
  EXPECT_EQ(r.entries()[2].path, (root / "img11.png").string());
  ASSERT_EQ(r.save(), "");

  fs::remove(root / "img11.png");  // gone since: pruned on load
  RecentFiles again((root / "cfg" / "recent.json").string());
  again.load();
  EXPECT_TRUE(again.load_error().empty()) << again.load_error();
  ASSERT_EQ(again.entries().size(), RecentFiles::kMax - 1);
  EXPECT_TRUE(again.entries()[0].depth);
  EXPECT_EQ(again.entries()[2].path, (root / "img10.png").string());
}

TEST_F(DirListingTest, RecentFilesStoreAbsolutePaths) {
  const fs::path old = fs::current_path();
  fs::current_path(root);
  RecentFiles r((root / "recent.json").string());
  r.add("alpha.jpg", false);
  fs::current_path(old);
  EXPECT_EQ(r.entries()[0].path, (root / "alpha.jpg").string());
}

TEST_F(DirListingTest, CorruptRecentFilesStartEmptyWithAReason) {
  std::ofstream(root / "recent.json") << "{ not json";
  RecentFiles r((root / "recent.json").string());
  r.load();
  EXPECT_TRUE(r.entries().empty());
  EXPECT_NE(r.load_error().find("recent.json"), std::string::npos) << r.load_error();
}

TEST(RecentFilesSave, UnwritableFolderIsReportedNotThrown) {
  RecentFiles r("/proc/satlab_no_such/recent.json");
  r.add("/etc/hostname", false);
  EXPECT_NE(r.save(), "");
}
