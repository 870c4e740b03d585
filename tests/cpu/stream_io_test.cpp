// Row and tile reading (app/io/stream_io.hpp): the rows equal the whole-image loaders' pixels bit for bit
// on awkward sizes, in any banding; writers leave nothing behind unless they finish.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "app/io/icc.hpp"
#include "app/io/image_io.hpp"
#include "app/io/jpeg.hpp"
#include "app/io/stream_io.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

std::string tmp_dir() {
  static const std::string d = [] {
    std::string t = ::testing::TempDir() + "satlab_stream_" + std::to_string(::getpid());
    ::mkdir(t.c_str(), 0700);
    return t + "/";
  }();
  return d;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

// Random samples of `channels` at `bits` (uint16 native-endian for 16).
std::vector<uint8_t> random_samples(uint32_t w, uint32_t h, int channels, int bits, std::mt19937& rng) {
  std::vector<uint8_t> s(size_t(w) * h * size_t(channels) * size_t(bits / 8));
  for (auto& v : s) v = uint8_t(rng());
  return s;
}

void write_image(const std::string& path, const io::StreamSpec& spec, const std::vector<uint8_t>& samples,
                 std::mt19937& rng) {
  auto w = io::open_image_writer(path, spec);
  const size_t row = size_t(spec.width) * size_t(spec.channels) * size_t(spec.bits / 8);
  for (uint32_t y = 0; y < spec.height;) {  // rows given in bands of random heights
    const uint32_t n = std::min<uint32_t>(spec.height - y, 1 + rng() % 7);
    w->write_rows(n, samples.data() + y * row, row);
    y += n;
  }
  w->finish();
}

// What every reader must give for stored samples: grey spread, alpha opaque when missing, 16 bits rounded.
void expected_rgba(const std::vector<uint8_t>& samples, size_t pixels, int channels, int bits,
                   std::vector<uint8_t>* rgba8, std::vector<uint16_t>* rgba16) {
  rgba8->assign(pixels * 4, 0);
  rgba16->assign(pixels * 4, 0);
  for (size_t p = 0; p < pixels; ++p)
    for (int c = 0; c < 4; ++c) {
      const int from = channels <= 2 ? (c < 3 ? 0 : 1) : c;
      const bool has = c < 3 || channels == 2 || channels == 4;
      uint32_t v;
      if (!has)
        v = 65535;
      else if (bits == 16) {
        uint16_t q;
        std::memcpy(&q, samples.data() + (p * size_t(channels) + size_t(from)) * 2, 2);
        v = q;
      } else
        v = samples[p * size_t(channels) + size_t(from)] * 257u;
      (*rgba16)[p * 4 + size_t(c)] = uint16_t(v);
      (*rgba8)[p * 4 + size_t(c)] = uint8_t((v * 255u + 32767u) / 65535u);
    }
}

// Reads all rows in bands of random heights, and for TIFF once more backwards.
void read_banded(io::ImageReader& r, std::mt19937& rng, std::vector<uint8_t>* rgba8, std::vector<uint16_t>* rgba16) {
  const uint32_t w = r.header().width, h = r.header().height;
  rgba8->assign(size_t(w) * h * 4, 0);
  rgba16->assign(size_t(w) * h * 4, 0);
  std::vector<std::pair<uint32_t, uint32_t>> bands;
  for (uint32_t y = 0; y < h;) {
    const uint32_t n = std::min<uint32_t>(h - y, 1 + rng() % 9);
    bands.push_back({y, y + n});
    y += n;
  }
  if (r.header().format == "TIFF") std::reverse(bands.begin(), bands.end());  // any order
  for (auto [y0, y1] : bands)
    r.read_rows(y0, y1, rgba8->data() + size_t(y0) * w * 4, size_t(w) * 4, rgba16->data() + size_t(y0) * w * 4,
                size_t(w) * 4);
}

std::vector<uint16_t> high_as_16(const ImageF& high) {
  std::vector<uint16_t> q(high.data.size());
  for (size_t i = 0; i < q.size(); ++i) q[i] = uint16_t(std::lround(high.data[i] * 65535.f));
  return q;
}

struct Size {
  uint32_t w, h;
};
// 1x1, 1xN, Nx1, primes, and (for tiles of 16) a tile and one pixel either side.
const Size kSizes[] = {{1, 1}, {1, 29}, {31, 1}, {97, 61}, {15, 17}, {16, 16}, {17, 15}, {33, 47}};

}  // namespace

TEST(StreamIo, TiffStripsAndTilesGiveTheStoredPixelsAndEqualTheWholeImageLoader) {
  test::SeededRng rng;
  for (const Size s : kSizes)
    for (int channels = 1; channels <= 4; ++channels)
      for (int bits : {8, 16})
        for (uint32_t tile : {0u, 16u}) {
          SCOPED_TRACE(std::to_string(s.w) + "x" + std::to_string(s.h) + " channels " + std::to_string(channels) +
                       " bits " + std::to_string(bits) + " tile " + std::to_string(tile));
          const std::string path = tmp_dir() + "t.tif";
          io::StreamSpec spec;
          spec.width = s.w, spec.height = s.h, spec.channels = channels, spec.bits = bits, spec.tile = tile;
          const std::vector<uint8_t> samples = random_samples(s.w, s.h, channels, bits, rng);
          write_image(path, spec, samples, rng);
          std::vector<uint8_t> want8, got8;
          std::vector<uint16_t> want16, got16;
          expected_rgba(samples, size_t(s.w) * s.h, channels, bits, &want8, &want16);
          auto r = io::open_image_reader(path);
          EXPECT_EQ(r->header().format, "TIFF");
          EXPECT_EQ(r->header().channels, channels);
          EXPECT_EQ(r->header().bits, bits);
          EXPECT_EQ(r->header().tile_width, tile);
          read_banded(*r, rng, &got8, &got16);
          ASSERT_EQ(got8, want8);
          ASSERT_EQ(got16, want16);
          io::LoadInfo info;
          info.want_high = true;
          const ImageRGBA8 whole = io::load_image(path, &info);
          ASSERT_EQ(whole.data, want8);
          if (bits == 16) {
            ASSERT_EQ(high_as_16(info.high), want16);
          }
          std::remove(path.c_str());
        }
}

TEST(StreamIo, PngRowsEqualStbWholeImageLoaderAt8And16Bits) {
  test::SeededRng rng;
  for (const Size s : kSizes)
    for (int channels = 1; channels <= 4; ++channels)
      for (int bits : {8, 16}) {
        SCOPED_TRACE(std::to_string(s.w) + "x" + std::to_string(s.h) + " channels " + std::to_string(channels) +
                     " bits " + std::to_string(bits));
        const std::string path = tmp_dir() + "p.png";
        io::StreamSpec spec;
        spec.width = s.w, spec.height = s.h, spec.channels = channels, spec.bits = bits;
        const std::vector<uint8_t> samples = random_samples(s.w, s.h, channels, bits, rng);
        write_image(path, spec, samples, rng);
        std::vector<uint8_t> want8, got8;
        std::vector<uint16_t> want16, got16;
        expected_rgba(samples, size_t(s.w) * s.h, channels, bits, &want8, &want16);
        auto r = io::open_image_reader(path);
        EXPECT_EQ(r->header().format, "PNG");
        read_banded(*r, rng, &got8, &got16);
        ASSERT_EQ(got8, want8);
        ASSERT_EQ(got16, want16);
        const ImageRGBA8 whole = io::load_image(path);  // stb_image
        ASSERT_EQ(whole.data, got8);
        std::remove(path.c_str());
      }
}

TEST(StreamIo, JpegScanlinesInBandsEqualTheWholeImageLoader) {
  test::SeededRng rng;
  for (const Size s : kSizes)
    for (io::JpegKind kind : {io::JpegKind::Rgb, io::JpegKind::Ycck}) {
      SCOPED_TRACE(std::to_string(s.w) + "x" + std::to_string(s.h));
      const std::string path = tmp_dir() + "j.jpg";
      const ImageRGBA8 img = test::random_image(int(s.w), int(s.h), rng());
      ASSERT_TRUE(io::write_jpeg(path, img.data.data(), img.width, img.height, kind, 90));
      auto r = io::open_image_reader(path);
      EXPECT_EQ(r->header().format, "JPEG");
      std::vector<uint8_t> got8;
      std::vector<uint16_t> got16;
      read_banded(*r, rng, &got8, &got16);
      EXPECT_EQ(r->notes().empty(), kind == io::JpegKind::Rgb);  // how CMYK was converted
      ASSERT_EQ(io::load_image(path).data, got8);
      for (size_t i = 0; i < got8.size(); ++i) ASSERT_EQ(got16[i], got8[i] * 257);
      std::remove(path.c_str());
    }
}

TEST(StreamIo, RowsSkippedForwardAndTiffRowsInAnyOrder) {
  test::SeededRng rng;
  const ImageRGBA8 img = test::random_image(23, 41, rng());
  for (const char* ext : {"png", "tif", "jpg"}) {
    SCOPED_TRACE(ext);
    const std::string path = tmp_dir() + "skip." + ext;
    io::save_image(path, img);
    const ImageRGBA8 whole = io::load_image(path);
    auto r = io::open_image_reader(path);
    std::vector<uint8_t> rows(23 * 4 * 5);
    r->read_rows(30, 35, rows.data(), 23 * 4);  // rows 0-29 decoded and dropped
    EXPECT_TRUE(std::equal(rows.begin(), rows.end(), whole.data.begin() + 30 * 23 * 4));
    if (std::string(ext) == "tif") {
      r->read_rows(2, 7, rows.data(), 23 * 4);
      EXPECT_TRUE(std::equal(rows.begin(), rows.end(), whole.data.begin() + 2 * 23 * 4));
    } else {
      test::expect_one_line_error([&](const std::string&) { r->read_rows(2, 7, rows.data(), 23 * 4); }, path,
                                  "forward only");
    }
    std::remove(path.c_str());
  }
}

TEST(StreamIo, BigTiffRoundTripsTiledAndStriped) {
  test::SeededRng rng;
  for (uint32_t tile : {0u, 32u}) {
    const std::string path = tmp_dir() + "big.tif";
    io::StreamSpec spec;
    spec.width = 67, spec.height = 45, spec.channels = 3, spec.bits = 16, spec.tile = tile, spec.bigtiff = true;
    const std::vector<uint8_t> samples = random_samples(spec.width, spec.height, 3, 16, rng);
    write_image(path, spec, samples, rng);
    std::ifstream f(path, std::ios::binary);
    char magic[4] = {};
    f.read(magic, 4);
    EXPECT_EQ(magic[2], 43) << "not BigTIFF";  // "II" 43 0
    auto r = io::open_image_reader(path);
    EXPECT_TRUE(r->header().bigtiff);
    std::vector<uint8_t> want8, got8;
    std::vector<uint16_t> want16, got16;
    expected_rgba(samples, size_t(spec.width) * spec.height, 3, 16, &want8, &want16);
    read_banded(*r, rng, &got8, &got16);
    EXPECT_EQ(got16, want16);
    EXPECT_EQ(io::load_image(path).data, want8);
    std::remove(path.c_str());
  }
}

TEST(StreamIo, TruncatedFilesGiveOneLineFromReaderAndLoader) {
  test::SeededRng rng;
  const ImageRGBA8 img = test::random_image(64, 48, rng());
  for (const char* ext : {"png", "tif", "jpg"}) {
    SCOPED_TRACE(ext);
    const std::string path = tmp_dir() + "full." + ext, cut = tmp_dir() + "cut." + ext;
    io::save_image(path, img);
    std::ifstream f(path, std::ios::binary);
    std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary).write(b.data(), std::streamsize(b.size() * 2 / 3));
    test::expect_one_line_error([](const std::string& p) { io::load_image(p); }, cut);
    test::expect_one_line_error(
        [](const std::string& p) {
          auto r = io::open_image_reader(p);
          std::vector<uint8_t> rows(size_t(r->header().width) * r->header().height * 4);
          r->read_rows(0, r->header().height, rows.data(), size_t(r->header().width) * 4);
        },
        cut);
    std::remove(path.c_str());
    std::remove(cut.c_str());
  }
}

TEST(StreamIo, UnfinishedOrFailedWritesLeaveNothing) {
  const std::string dir = tmp_dir() + "w/";
  ::mkdir(dir.c_str(), 0700);
  const std::vector<uint8_t> row(10 * 4, 7);
  for (const char* ext : {"png", "tif", "jpg"}) {
    SCOPED_TRACE(ext);
    io::StreamSpec spec;
    spec.width = 10, spec.height = 5;
    {
      auto w = io::open_image_writer(dir + "a." + ext, spec);
      w->write_rows(2, row.data(), 0);
      EXPECT_EQ(files_in(dir).size(), 1u);  // the temporary file, under another name
    }
    EXPECT_TRUE(files_in(dir).empty());
    auto w = io::open_image_writer(dir + "b." + ext, spec);
    w->write_rows(4, row.data(), 0);
    EXPECT_THROW(w->finish(), Error);  // a row short
    EXPECT_THROW(w->write_rows(2, row.data(), 0), Error);  // past the end
    w.reset();
    EXPECT_TRUE(files_in(dir).empty());
    w = io::open_image_writer(dir + "c." + ext, spec);
    w->write_rows(5, row.data(), 0);
    w->finish();
    EXPECT_EQ(files_in(dir), std::vector<std::string>{std::string("c.") + ext});
    std::remove((dir + "c." + ext).c_str());
  }
}

TEST(StreamIo, WriteEndedBySigtermLeavesNothing) {
  const std::string dir = tmp_dir() + "sig/";
  ::mkdir(dir.c_str(), 0700);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    io::StreamSpec spec;
    spec.width = 8, spec.height = 8;
    auto w = io::open_image_writer(dir + "x.tif", spec);
    const std::vector<uint8_t> row(8 * 4, 1);
    w->write_rows(3, row.data(), 0);
    ::raise(SIGTERM);
    ::_exit(0);  // not reached
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_TRUE(files_in(dir).empty()) << files_in(dir).front();
}

TEST(StreamIo, PalettedInterlacedAndLowBitPngsEqualStb) {
  // Hand-made seeds of tests/fuzz/corpus/stream: 4-bit palette with tRNS, Adam7 palette, RGB and 16-bit
  // grey, 1-bit grey, 2-bit grey with tRNS.
  const std::string dir = std::string(SATLAB_SOURCE_DIR) + "/tests/fuzz/corpus/stream/";
  for (const char* name : {"palette4_trns.png", "adam7_palette4.png", "adam7_rgb8.png", "adam7_grey16.png",
                           "grey1.png", "grey2_trns.png"}) {
    SCOPED_TRACE(name);
    const ImageRGBA8 whole = io::load_image(dir + name);
    auto r = io::open_image_reader(dir + name);
    std::vector<uint8_t> rows(whole.data.size());
    for (uint32_t y = 0; y < r->header().height; y += 2)
      r->read_rows(y, std::min(y + 2, r->header().height), rows.data() + size_t(y) * whole.width * 4,
                   size_t(whole.width) * 4);
    EXPECT_EQ(rows, whole.data);
  }
}

// What a streaming caller needs beside the rows: the format from the first bytes, the reader's buffer for
// its memory budget (a TIFF strip, the whole of an interlaced PNG), uncompressed TIFF, and every opened
// file counted as an input no writer may replace.
TEST(StreamIo, FormatBufferBytesUncompressedTiffAndInputsForStreaming) {
  test::SeededRng rng;
  const std::string tif = tmp_dir() + "plain.tif", deflated = tmp_dir() + "deflated.tif";
  io::StreamSpec spec;
  spec.width = 97, spec.height = 61, spec.channels = 3;
  const std::vector<uint8_t> samples = random_samples(97, 61, 3, 8, rng);
  spec.compress = false;
  write_image(tif, spec, samples, rng);
  spec.compress = true;
  write_image(deflated, spec, samples, rng);
  EXPECT_EQ(io::row_format(tif), "TIFF");
  EXPECT_EQ(io::row_format(tmp_dir() + "missing.png"), "");
  struct stat st {};
  ASSERT_EQ(::stat(tif.c_str(), &st), 0);
  EXPECT_GE(size_t(st.st_size), samples.size());  // random bytes stored as they are
  auto plain = io::open_image_reader(tif), packed = io::open_image_reader(deflated);
  std::vector<uint8_t> a, b;
  std::vector<uint16_t> a16, b16;
  read_banded(*plain, rng, &a, &a16);
  read_banded(*packed, rng, &b, &b16);
  EXPECT_EQ(a, b);
  const io::StreamHeader& hd = plain->header();
  EXPECT_GE(hd.buffer_bytes, size_t(hd.width) * hd.rows_per_strip * 3);
  EXPECT_LT(hd.buffer_bytes, samples.size());  // a strip, not the image
  // The reader opened it: writing over it is refused, and the file stays.
  EXPECT_THROW(io::open_image_writer(tif, spec), Error);
  EXPECT_EQ(io::open_image_reader(tif)->header().width, 97u);
  std::remove(tif.c_str());
  std::remove(deflated.c_str());
}

// An interlaced PNG is decoded whole at its first row, a plain one a row at a time: buffer_bytes says so.
TEST(StreamIo, InterlacedPngReportsItsWholeImageAsItsBuffer) {
  const std::string dir = std::string(SATLAB_SOURCE_DIR) + "/tests/fuzz/corpus/stream/";
  auto adam7 = io::open_image_reader(dir + "adam7_rgb8.png");
  const io::StreamHeader& a = adam7->header();
  EXPECT_GE(a.buffer_bytes, size_t(a.width) * a.height * 3);
  const std::string plain = tmp_dir() + "plain.png";
  io::save_png(plain, ImageRGBA8(40, 30));
  EXPECT_LE(io::open_image_reader(plain)->header().buffer_bytes, size_t(40) * 4);
  std::remove(plain.c_str());
}

// A streamed image's ICC profile is applied row by row through one SrgbConverter: the rows come out as the
// whole image's icc_to_srgb gives them.
TEST(StreamIo, IccConversionByRowsEqualsTheWholeImages) {
  const std::vector<uint8_t> p3 = io::make_rgb_profile(true);
  if (p3.empty()) GTEST_SKIP() << "lcms2 is not installed";
  const ImageRGBA8 img = test::random_image(97, 61, test::fresh_seed());
  ImageRGBA8 whole = img, rows = img;
  ASSERT_EQ(io::icc_to_srgb(p3, whole), "");
  io::SrgbConverter c(p3);
  ASSERT_EQ(c.why_not(), "");
  for (int y = 0; y < rows.height; ++y) c.run(rows.px(0, y), size_t(rows.width));
  EXPECT_EQ(rows.data, whole.data);
  EXPECT_NE(whole.data, img.data);  // the profile did something
  io::SrgbConverter bad(std::vector<uint8_t>(10, 1));
  EXPECT_NE(bad.why_not(), "");
  ImageRGBA8 same = img;
  bad.run(same.data.data(), same.pixels());
  EXPECT_EQ(same.data, img.data);
}

// Rows read without the 16-bit copy take each 8-bit layout's own loop: the same pixels as with it.
TEST(StreamIo, EightBitRowsWithoutTheSixteenBitCopyGiveTheSamePixels) {
  test::SeededRng rng;
  for (int channels = 1; channels <= 4; ++channels)
    for (const char* ext : {".tif", ".png"}) {
      SCOPED_TRACE(std::to_string(channels) + " channels, " + ext);
      const std::string path = tmp_dir() + "eight" + ext;
      io::StreamSpec spec;
      spec.width = 97, spec.height = 61, spec.channels = channels;
      const std::vector<uint8_t> samples = random_samples(97, 61, channels, 8, rng);
      write_image(path, spec, samples, rng);
      std::vector<uint8_t> want8;
      std::vector<uint16_t> want16;
      expected_rgba(samples, size_t(97) * 61, channels, 8, &want8, &want16);
      auto r = io::open_image_reader(path);
      std::vector<uint8_t> got(want8.size(), 0);
      for (uint32_t y = 0; y < 61; y += 5)
        r->read_rows(y, std::min(y + 5, 61u), got.data() + size_t(y) * 97 * 4, size_t(97) * 4);
      EXPECT_EQ(got, want8);
      std::remove(path.c_str());
    }
}

// Striped TIFF is written a strip of about 256 KiB at a time, raw (deflated on several threads, or as it
// is), from rows given in any banding and stride; read back by one reader or by several at once (each a
// share of the rows of a call), every layout gives the stored samples.
TEST(StreamIo, RawStripsDeflatedOnThreadsAndRowsReadByManyReaders) {
  test::SeededRng rng;
  struct Case {
    uint32_t w, h;
    int channels, bits;
    uint32_t tile;
  };
  // Strips of 10 rows (the last of 7), 1 row (rows over 256 KiB), 170 rows (6 strips, the last of 151);
  // tiles of 32 read by several readers.
  const Case cases[] = {{3000, 157, 4, 16, 0}, {70001, 9, 4, 8, 0}, {513, 1001, 3, 8, 0}, {95, 203, 2, 8, 32}};
  for (const Case& c : cases)
    for (bool compress : {true, false})
      for (int threads : {1, 3}) {
        SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + " channels " + std::to_string(c.channels) +
                     " bits " + std::to_string(c.bits) + " tile " + std::to_string(c.tile) +
                     (compress ? " deflate" : " raw") + " threads " + std::to_string(threads));
        const std::string path = tmp_dir() + "strips.tif";
        io::StreamSpec spec;
        spec.width = c.w, spec.height = c.h, spec.channels = c.channels, spec.bits = c.bits, spec.tile = c.tile;
        spec.compress = compress, spec.threads = threads;
        const std::vector<uint8_t> samples = random_samples(c.w, c.h, c.channels, c.bits, rng);
        const size_t row = size_t(c.w) * size_t(c.channels) * size_t(c.bits / 8);
        {  // bands of 1 to 400 rows, some packed and some with a padded stride
          auto w = io::open_image_writer(path, spec);
          std::vector<uint8_t> padded;
          for (uint32_t y = 0; y < c.h;) {
            const uint32_t n = std::min<uint32_t>(c.h - y, 1 + rng() % 400);
            if (rng() % 2) {
              w->write_rows(n, samples.data() + y * row, row);
            } else {
              const size_t stride = row + 5;
              padded.assign(stride * n, 0xEE);
              for (uint32_t i = 0; i < n; ++i)
                std::memcpy(padded.data() + i * stride, samples.data() + (y + i) * row, row);
              w->write_rows(n, padded.data(), stride);
            }
            y += n;
          }
          w->finish();
        }
        std::vector<uint8_t> want8;
        std::vector<uint16_t> want16;
        expected_rgba(samples, size_t(c.w) * c.h, c.channels, c.bits, &want8, &want16);
        for (int readers : {1, 2, 3, 8}) {
          SCOPED_TRACE("readers " + std::to_string(readers));
          auto r = io::open_image_reader(path, readers);
          if (!c.tile) {
            const uint32_t strip = std::max<uint32_t>(1, std::min<uint32_t>(c.h, uint32_t((256u << 10) / row)));
            EXPECT_EQ(r->header().rows_per_strip, strip);
          }
          std::vector<uint8_t> got8(want8.size(), 0);
          std::vector<uint16_t> got16(want16.size(), 0);
          std::vector<std::pair<uint32_t, uint32_t>> bands;  // random heights, read last to first
          for (uint32_t y = 0; y < c.h;) {
            const uint32_t n = std::min<uint32_t>(c.h - y, 1 + rng() % 300);
            bands.push_back({y, y + n});
            y += n;
          }
          std::reverse(bands.begin(), bands.end());
          for (auto [y0, y1] : bands)
            r->read_rows(y0, y1, got8.data() + size_t(y0) * c.w * 4, size_t(c.w) * 4,
                         got16.data() + size_t(y0) * c.w * 4, size_t(c.w) * 4);
          ASSERT_EQ(got8, want8);
          ASSERT_EQ(got16, want16);
        }
        EXPECT_EQ(io::load_image(path).data, want8);
        std::remove(path.c_str());
      }
}

// A striped TIFF cut short after its readers opened it (libtiff writes the directory last, so a file cut
// before they open it is refused at the header): the readers whose strips are gone fail, and the call gives
// one line naming the file.
TEST(StreamIo, TiffCutShortUnderManyReadersGivesOneLine) {
  test::SeededRng rng;
  const std::string path = tmp_dir() + "cut.tif";
  io::StreamSpec spec;
  spec.width = 700, spec.height = 900, spec.channels = 3, spec.compress = false;
  write_image(path, spec, random_samples(spec.width, spec.height, 3, 8, rng), rng);
  auto r = io::open_image_reader(path, 4);
  ASSERT_EQ(::truncate(path.c_str(), off_t(size_t(700) * 900 * 3 * 2 / 5)), 0);
  std::vector<uint8_t> rows(size_t(700) * 900 * 4);
  test::expect_one_line_error([&](const std::string&) { r->read_rows(0, 900, rows.data(), 700 * 4); }, path,
                              "truncated");
  std::remove(path.c_str());
}
