// Depth tracks inside a video (app/io/depth_track.hpp: Android's MP4-AT): files written by write_mp4at from
// two MP4s FFmpeg wrote (a colour clip, a lossless grey depth clip), standalone and interleaved. The colour
// clip reads as its primary track, the depth clip as its auxiliary one, frame for frame; a damaged axte box
// or a map with no depth track is one line; an ordinary MP4 has none; `render` takes the track as the depth
// where no other is named.
#include "app/io/depth_track.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "app/cli/render_clip.hpp"
#include "app/io/clip.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path p = fs::temp_directory_path() / ("satlab_mp4at_" + std::to_string(getpid()));
  Dir() { fs::create_directories(p); }
  ~Dir() { fs::remove_all(p); }
  std::string operator/(const std::string& n) const { return (p / n).string(); }
};

// A colour clip (a moving gradient) and its depth clip (a grey ramp that moves the other way) at half size.
void make_pair(const Dir& d, int frames) {
  ClipSpec c;
  c.width = 64, c.height = 48, c.fps = 24, c.codec = "h264";
  ClipSpec z = c;
  z.width = 32, z.height = 24, z.quality = 0;  // x264 at CRF 0: lossless
  auto cw = open_clip_writer(d / "colour.mp4", c), zw = open_clip_writer(d / "depth.mp4", z);
  for (int k = 0; k < frames; ++k) {
    ImageRGBA8 a(64, 48), b(32, 24);
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x) {
        uint8_t* p = a.px(x, y);
        p[0] = uint8_t(4 * x + k), p[1] = uint8_t(5 * y), p[2] = 90, p[3] = 255;
      }
    for (int y = 0; y < 24; ++y)
      for (int x = 0; x < 32; ++x) {
        uint8_t* p = b.px(x, y);
        p[0] = p[1] = p[2] = uint8_t((8 * x + 3 * y + 5 * k) % 256), p[3] = 255;
      }
    cw->write(a, k / 24.0, k), zw->write(b, k / 24.0, k);
  }
  cw->finish(), zw->finish();
}

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

#define NEED_VIDEO()                                                 \
  do {                                                               \
    std::string why;                                                 \
    if (!video_available(&why)) GTEST_SKIP() << "no video: " << why; \
  } while (0)

TEST(DepthTrack, ReadsTheAuxiliaryDepthTrackStandaloneAndInterleaved) {
  NEED_VIDEO();
  Dir d;
  make_pair(d, 6);
  for (bool interleaved : {false, true}) {
    const std::string at = d / (interleaved ? "inter.mp4" : "alone.mp4");
    write_mp4at(d / "colour.mp4", d / "depth.mp4", {uint8_t(interleaved ? 2 : 1)}, interleaved, at);
    const Mp4AtInfo info = find_mp4at(at);
    ASSERT_TRUE(info.found);
    EXPECT_EQ(info.interleaved, interleaved);
    EXPECT_EQ(info.depth_track, 0);
    EXPECT_EQ(info.inverse, interleaved);
    // Colour: the primary track, as the plain colour file reads.
    auto c = open_clip(at), c0 = open_clip(d / "colour.mp4");
    EXPECT_EQ(c->info().width, 64);
    EXPECT_NE(c->info().depth_track.find("MP4-AT depth track 0"), std::string::npos) << c->info().depth_track;
    EXPECT_EQ(c->info().inverse_depth, interleaved);
    int n = 0;
    for (ClipFrame a, b; c->next(a); ++n) {
      ASSERT_TRUE(c0->next(b));
      EXPECT_EQ(a.image.data, b.image.data) << n;
    }
    EXPECT_EQ(n, 6);
    // Depth: the auxiliary track, as the plain depth file reads.
    auto z = open_clip(at, true), z0 = open_clip(d / "depth.mp4", true);
    EXPECT_EQ(z->info().width, 32);
    n = 0;
    for (ClipFrame a, b; z->next(a); ++n) {
      ASSERT_TRUE(z0->next(b));
      EXPECT_EQ(a.depth.data, b.depth.data) << n;
      EXPECT_DOUBLE_EQ(a.time, b.time);
    }
    EXPECT_EQ(n, 6);
  }
  // An ordinary MP4 has none, from a file or from memory.
  EXPECT_FALSE(find_mp4at(d / "colour.mp4").found);
  const std::vector<uint8_t> plain = bytes_of(d / "colour.mp4");
  EXPECT_FALSE(parse_mp4at(MemorySource(plain.data(), plain.size())).found);
  EXPECT_TRUE(open_clip(d / "colour.mp4")->info().depth_track.empty());
}

TEST(DepthTrack, DamagedOrDepthlessAuxiliaryTracksAreOneLine) {
  NEED_VIDEO();
  Dir d;
  make_pair(d, 3);
  // No depth track in the map: the colour still plays; as a depth clip it is refused.
  write_mp4at(d / "colour.mp4", d / "depth.mp4", {0}, false, d / "none.mp4");
  EXPECT_TRUE(open_clip(d / "none.mp4")->info().depth_track.empty());
  try {
    open_clip(d / "none.mp4", true);
    ADD_FAILURE() << "a map with no depth track was read as depth";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no depth track"), std::string::npos) << e.what();
  }
  // A map naming a track the auxiliary MP4 does not have.
  write_mp4at(d / "colour.mp4", d / "depth.mp4", {0, 1}, false, d / "beyond.mp4");
  EXPECT_THROW(open_clip(d / "beyond.mp4", true), Error);
  // Cut inside the auxiliary MP4: its box overruns the file.
  write_mp4at(d / "colour.mp4", d / "depth.mp4", {1}, false, d / "whole.mp4");
  std::vector<uint8_t> b = bytes_of(d / "whole.mp4");
  const Mp4AtInfo info = parse_mp4at(MemorySource(b.data(), b.size()));
  ASSERT_TRUE(info.found);
  b.resize(size_t(info.axte_start + 40));
  EXPECT_FALSE(parse_mp4at(MemorySource(b.data(), b.size())).found) << "a cut axte box is no MP4-AT at the top level";
  // A damaged map size inside an intact box: one line naming the axte box.
  b = bytes_of(d / "whole.mp4");
  const std::string tag = "keys";  // the auxiliary MP4's keys box: its count made larger than it holds
  const size_t keys = size_t(std::search(b.begin() + long(info.axte_start), b.end(), tag.begin(), tag.end()) - b.begin());
  ASSERT_LT(keys + 12, b.size());
  b[keys + 11] = 9;  // the count's low byte: 9 keys
  std::ofstream(d / "bad.mp4", std::ios::binary).write(reinterpret_cast<const char*>(b.data()), long(b.size()));
  try {
    open_clip(d / "bad.mp4", true);
    ADD_FAILURE() << "a damaged keys box was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
  }
  EXPECT_EQ(open_clip(d / "bad.mp4")->info().width, 64) << "the primary tracks still play";
}

TEST(DepthTrack, RenderTakesTheTrackWhereNoOtherDepthIsNamed) {
  NEED_VIDEO();
  Dir d;
  make_pair(d, 4);
  write_mp4at(d / "colour.mp4", d / "depth.mp4", {1}, false, d / "at.mp4");
  cli::ClipRequest r;
  r.input = d / "at.mp4", r.output = d / "own_%d.png", r.backend = "cpu";
  Params p;
  p.filter = FilterKind::Dof, p.aperture = 8;
  const std::string line = cli::render_clip(r, p);
  EXPECT_NE(line.find("its MP4-AT depth track 0 (linear depth) (32x24)"), std::string::npos) << line;
  r.output = d / "given_%d.png", r.depth = d / "depth.mp4";
  cli::render_clip(r, p);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(bytes_of(d / ("own_" + std::to_string(k) + ".png")), bytes_of(d / ("given_" + std::to_string(k) + ".png"))) << k;
  // The fuzz target's seeds (tests/fuzz/corpus/depth_track), where asked for.
  if (const char* seeds = std::getenv("SATLAB_WRITE_DEPTH_TRACK_SEEDS")) {
    write_mp4at(d / "colour.mp4", d / "depth.mp4", {2}, true, d / "inter.mp4");
    for (const char* n : {"at.mp4", "inter.mp4"}) fs::copy_file(d / n, fs::path(seeds) / (std::string(n) + ".bin"), fs::copy_options::overwrite_existing);
  }
}

}  // namespace
}  // namespace satlab::io
