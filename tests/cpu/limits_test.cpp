// Limits before allocation and writers that never overwrite an input (docs/reliability.md).
// An image over the pixel limit, or needing more host memory than is available, is refused from its
// header: the process's peak RSS (VmHWM, reset through /proc/self/clear_refs) must not grow by the
// decoded size, while the same file under a higher limit does grow it (so the measurement can fail).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "app/io/format_guard.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

std::string tmp_path(const std::string& name) {
  return ::testing::TempDir() + "satlab_limits_" + std::to_string(::getpid()) + "_" + name;
}

using satlab::test::peak_rss_mb;
using satlab::test::reset_peak_rss;

// The pixel limit and the memory override are process-wide: every test puts them back.
struct LimitsTest : ::testing::Test {
  void TearDown() override {
    io::clear_max_megapixels();
    io::testing::set_host_memory_available(0);
  }
};

// A 2048x2048 PNG of zeros: 20 KB on disk, 16 MiB decoded (32 MiB with the decoder's buffer).
std::string big_png() {
  const std::string p = tmp_path("2048.png");
  io::save_png(p, ImageRGBA8(2048, 2048));
  return p;
}

std::string refusal(const std::string& path) {
  try {
    io::load_image(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(LimitsTest, AnImageOverThePixelLimitIsRefusedFromItsHeaderWithoutAllocating) {
  const std::string png = big_png();
  if (!reset_peak_rss() || peak_rss_mb() < 0) GTEST_SKIP() << "/proc/self/clear_refs or VmHWM not available";
  io::set_max_megapixels(1.0);
  const double before = peak_rss_mb();
  const std::string msg = refusal(png);
  const double grew = peak_rss_mb() - before;
  EXPECT_NE(msg.find(png), std::string::npos) << msg;
  EXPECT_NE(msg.find("2048x2048 (4.2 Mpx)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("limit of 1.0 Mpx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--max-megapixels"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_LT(grew, 4.0) << "peak RSS grew by " << grew << " MiB while refusing";

  // The same file under a higher limit is decoded, and the peak shows it.
  io::set_max_megapixels(5.0);
  ASSERT_TRUE(reset_peak_rss());
  const double before_load = peak_rss_mb();
  const ImageRGBA8 img = io::load_image(png);
  EXPECT_EQ(img.width, 2048);
  EXPECT_GE(peak_rss_mb() - before_load, 16.0) << "the measurement would not see a decode";
  std::remove(png.c_str());
}

TEST_F(LimitsTest, AnImageNeedingMoreHostMemoryThanAvailableIsRefused) {
  const std::string png = big_png();
  // 4.2 Mpx at 48 bytes a pixel is 192 MiB; pretend 100 MiB are available.
  io::testing::set_host_memory_available(uint64_t(100) << 20);
  const std::string msg = refusal(png);
  EXPECT_NE(msg.find(png), std::string::npos) << msg;
  EXPECT_NE(msg.find("192 MiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("only 100 MiB available"), std::string::npos) << msg;
  io::testing::set_host_memory_available(uint64_t(300) << 20);
  EXPECT_EQ(io::load_image(png).height, 2048);
  std::remove(png.c_str());
}

TEST_F(LimitsTest, EveryLoaderChecksTheLimitFromTheHeader) {
  io::set_max_megapixels(0.001);  // 1000 pixels
  const std::string pfm = tmp_path("big.pfm"), small = tmp_path("small.png");
  std::ofstream(pfm, std::ios::binary) << "Pf\n40 30\n-1\n" << std::string(40 * 30 * 4, '\0');
  io::save_png(small, ImageRGBA8(31, 32));  // 992 pixels: under the limit
  for (const std::string& p : {pfm}) {
    try {
      io::load_depth(p);
      ADD_FAILURE() << "no error for " << p;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("40x30 (0.0 Mpx), more than the limit"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(io::load_image(small).width, 31);
  EXPECT_EQ(io::load_depth(small).width, 31);
  io::set_max_megapixels(0.0009);
  EXPECT_NE(refusal(small).find("31x32"), std::string::npos);
  EXPECT_THROW(io::set_max_megapixels(0), Error);
  EXPECT_THROW(io::set_max_megapixels(-1), Error);
  EXPECT_THROW(io::set_max_megapixels(std::numeric_limits<double>::infinity()), Error);
  // No fixed ceiling: a limit of 5 Gpx is a user's choice like any other.
  io::set_max_megapixels(5000);
  EXPECT_EQ(io::max_pixels(), size_t(5000) * 1000 * 1000);
  std::remove(pfm.c_str());
  std::remove(small.c_str());
}

TEST(Files, AWriterNeverOverwritesAnInputEvenThroughALink) {
  namespace fs = std::filesystem;
  const std::string in = tmp_path("input.png"), depth = tmp_path("depth.png"), link = tmp_path("link.png"),
                    hard = tmp_path("hard.png"), out = tmp_path("out.png");
  const ImageRGBA8 img = test::random_image(5, 3, test::fresh_seed());
  io::save_png(in, img);
  io::save_png(depth, img);
  fs::remove(link);
  fs::remove(hard);
  fs::create_symlink(in, link);
  fs::create_hard_link(depth, hard);
  io::save_png(in, img);  // not loaded yet: not an input
  io::load_image(in);
  io::load_depth(depth);
  const auto bytes = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string original = bytes(in);
  const ImageRGBA8 other = test::random_image(5, 3, 7);
  const std::string dotted = (fs::path(in).parent_path() / "." / fs::path(in).filename()).string();
  for (const std::string& p : {in, link, depth, hard, dotted}) {
    try {
      io::save_png(p, other);
      ADD_FAILURE() << "overwrote the input through " << p;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("refusing to overwrite"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(bytes(in), original);
  EXPECT_TRUE(io::load_image(in).data == img.data);
  io::save_png(out, other);  // anything else is written
  EXPECT_TRUE(io::load_image(out).data == other.data);
  for (const auto& p : {in, depth, link, hard, out}) fs::remove(p);
}

}  // namespace
