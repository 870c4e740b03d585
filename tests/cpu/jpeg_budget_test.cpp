// A progressive JPEG keeps every coefficient until its last scan: its reader says what that costs from the
// header (before decompression starts, which decodes every scan), and libjpeg may allocate no more than the
// decode memory limit (render's memory budget), so a file that cannot fit is refused with one line while
// the process's peak RSS stays under the limit; under a larger limit the same file decodes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <jpeglib.h>

#include "app/io/format_guard.hpp"
#include "app/io/stream_io.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

using satlab::test::peak_rss_mb;
using satlab::test::reset_peak_rss;

// A w x h progressive RGB JPEG (4:4:4) of a gentle gradient: a few hundred KB on disk, w h 6 bytes of
// coefficients.
std::string progressive_jpeg(int w, int h) {
  const std::string path = ::testing::TempDir() + "satlab_progressive_" + std::to_string(::getpid()) + ".jpg";
  FILE* f = std::fopen(path.c_str(), "wb");
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = JDIMENSION(w), c.image_height = JDIMENSION(h), c.input_components = 3, c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 50, TRUE);
  for (int i = 0; i < 3; ++i) c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
  jpeg_simple_progression(&c);
  jpeg_start_compress(&c, TRUE);
  std::vector<JSAMPLE> row(size_t(w) * 3);
  while (c.next_scanline < c.image_height) {
    for (int x = 0; x < w; ++x)
      row[size_t(x) * 3] = JSAMPLE(x * 255 / w), row[size_t(x) * 3 + 1] = JSAMPLE(c.next_scanline * 255 / c.image_height),
                      row[size_t(x) * 3 + 2] = 128;
    JSAMPROW r = row.data();
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::fclose(f);
  return path;
}

TEST(JpegBudget, AProgressiveJpegOverTheLimitIsRefusedBeforeItsCoefficientsAreAllocated) {
  const int w = 4000, h = 3000;  // 72 MB of coefficients
  const std::string path = progressive_jpeg(w, h);
  if (!reset_peak_rss() || peak_rss_mb() < 0) GTEST_SKIP() << "/proc/self/clear_refs or VmHWM not available";
  io::set_decode_memory_limit(size_t(24) << 20);
  const double before = peak_rss_mb();
  std::string msg;
  {
    std::unique_ptr<io::ImageReader> r = io::open_image_reader(path);
    EXPECT_GE(r->header().buffer_bytes, size_t(w) * h * 6) << "the header's coefficient bytes";
    std::vector<uint8_t> rows(size_t(w) * 4 * 8);
    try {
      r->read_rows(0, 8, rows.data(), size_t(w) * 4);
    } catch (const Error& e) {
      msg = e.what();
    }
  }
  const double grew = peak_rss_mb() - before;
  io::set_decode_memory_limit(0);
  EXPECT_NE(msg.find("exceed the memory limit of 24 MiB"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_LT(grew, 24.0 + 8.0) << "peak RSS grew by " << grew << " MiB while refusing";
  // Under a limit it fits, the same file decodes (so the refusal above was the limit's).
  io::set_decode_memory_limit(size_t(256) << 20);
  std::unique_ptr<io::ImageReader> r = io::open_image_reader(path);
  std::vector<uint8_t> rows(size_t(w) * 4 * 8);
  EXPECT_NO_THROW(r->read_rows(0, 8, rows.data(), size_t(w) * 4));
  io::set_decode_memory_limit(0);
  std::remove(path.c_str());
}

}  // namespace
