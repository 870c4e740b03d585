// Writes the seed corpora of the per-format fuzz targets (tests/fuzz/corpus/{exif,jpeg,webp,tiff,heif,stream})
// with the project's own writers (jpeg.cpp, webp.cpp, tiff.cpp) and libheif's encoder: tiny images with
// EXIF orientation, ICC profiles, CMYK/YCCK, 8 and 16 bits, and truncated copies. Run from the repo root:
//   build/ci/tools/make_format_seeds tests/fuzz/corpus
// (also a PNG with eXIf and iCCP into corpus/image, for fuzz_image_loader). The ICC profile lcms2 writes
// carries its creation time, so a re-run changes the seeds that hold one.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include <zlib.h>

#include "app/io/exif.hpp"
#include "app/io/image_io.hpp"
#include "app/io/heif.hpp"
#include "app/io/icc.hpp"
#include "app/io/jpeg.hpp"
#include "app/io/stream_io.hpp"
#include "app/io/tiff.hpp"
#include "app/io/webp.hpp"

using namespace satlab;

namespace {

std::vector<uint8_t> read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
void write_file(const std::string& p, const std::vector<uint8_t>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}
// A truncated copy beside each seed: the decoders' end-of-data paths from the start.
void add_truncated(const std::string& p) {
  const std::vector<uint8_t> b = read_file(p);
  if (b.size() > 16) write_file(p + ".cut", std::vector<uint8_t>(b.begin(), b.begin() + long(b.size() * 2 / 3)));
}

ImageRGBA8 pattern(int w, int h, bool alpha) {
  ImageRGBA8 img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = img.px(x, y);
      p[0] = uint8_t(x * 40), p[1] = uint8_t(y * 50), p[2] = uint8_t((x + y) * 20), p[3] = alpha ? uint8_t(x * 60) : 255;
    }
  return img;
}

// `png` with a chunk inserted right after IHDR (`early`, where iCCP belongs) or before IEND.
std::vector<uint8_t> with_png_chunk(std::vector<uint8_t> png, const char* type, const std::vector<uint8_t>& data,
                                    bool early = false) {
  std::vector<uint8_t> chunk;
  for (int s = 24; s >= 0; s -= 8) chunk.push_back(uint8_t(data.size() >> s));
  chunk.insert(chunk.end(), type, type + 4);
  chunk.insert(chunk.end(), data.begin(), data.end());
  const uint32_t crc = uint32_t(crc32(0, chunk.data() + 4, uInt(chunk.size() - 4)));
  for (int s = 24; s >= 0; s -= 8) chunk.push_back(uint8_t(crc >> s));
  png.insert(early ? png.begin() + 33 : png.end() - 12, chunk.begin(), chunk.end());
  return png;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_format_seeds CORPUS_DIR (e.g. tests/fuzz/corpus)\n");
    return 2;
  }
  const std::string root = argv[1];
  int n = 0;
  const ImageRGBA8 img = pattern(5, 3, false), rgba = pattern(4, 4, true);
  const std::vector<uint8_t> p3 = io::make_rgb_profile(true);
  for (int o : {1, 3, 6, 8}) write_file(root + "/exif/o" + std::to_string(o), io::make_exif_orientation(o, o & 1)), ++n;

  // JPEG: RGB with EXIF and ICC, CMYK, YCCK.
  const std::string jd = root + "/jpeg/";
  io::write_jpeg(jd + "exif6_icc.jpg", img.data.data(), 5, 3, io::JpegKind::Rgb, 80, io::make_exif_orientation(6, true), p3);
  std::vector<uint8_t> cmyk(5 * 3 * 4);
  for (size_t i = 0; i < cmyk.size(); ++i) cmyk[i] = uint8_t(i * 17);
  io::write_jpeg(jd + "cmyk.jpg", cmyk.data(), 5, 3, io::JpegKind::Cmyk, 80);
  io::write_jpeg(jd + "ycck.jpg", cmyk.data(), 5, 3, io::JpegKind::Ycck, 80);
  for (const char* f : {"exif6_icc.jpg", "cmyk.jpg", "ycck.jpg"}) add_truncated(jd + f), n += 2;

  // WebP: lossless, lossy with alpha, extended with EXIF and ICC.
  const std::string wd = root + "/webp/";
  io::write_webp(wd + "lossless.webp", rgba, 101);
  io::write_webp(wd + "lossy_alpha.webp", rgba, 50);
  io::write_webp(wd + "exif_icc.webp", img, 101, io::make_exif_orientation(5, false), p3);
  for (const char* f : {"lossless.webp", "lossy_alpha.webp", "exif_icc.webp"}) add_truncated(wd + f), n += 2;

  // TIFF: 8-bit RGBA with an orientation, 16-bit RGB and grey.
  const std::string td = root + "/tiff/";
  io::write_tiff(td + "rgba8_o7.tif", 4, 4, 4, 8, rgba.data.data(), 7);
  std::vector<uint16_t> deep(5 * 3 * 3);
  for (size_t i = 0; i < deep.size(); ++i) deep[i] = uint16_t(i * 4099);
  io::write_tiff(td + "rgb16.tif", 5, 3, 3, 16, deep.data());
  io::write_tiff(td + "grey16.tif", 5, 3, 1, 16, deep.data());
  for (const char* f : {"rgba8_o7.tif", "rgb16.tif", "grey16.tif"}) add_truncated(td + f), n += 2;

  // HEIF: HEIC and AVIF from libheif's encoders, one turned.
  const std::string hd = root + "/heif/";
  const ImageRGBA8 h = pattern(8, 8, false);
  for (auto [name, avif, o] : {std::tuple{"plain.heic", false, 1}, std::tuple{"o6.heic", false, 6}, std::tuple{"plain.avif", true, 1}}) {
    const std::string why = io::write_heif(hd + name, h, avif, o);
    if (!why.empty()) {
      std::fprintf(stderr, "%s not written: %s\n", name, why.c_str());
      continue;
    }
    add_truncated(hd + name), n += 2;
  }
  // PNG with eXIf and iCCP (name, NUL, method 0, the deflated profile), for fuzz_exif's chunk walker and
  // the image loader.
  for (const char* dir : {"/exif/", "/image/"}) {
    const std::string pp = root + dir + "exif_iccp.png";
    io::save_png(pp, img);
    std::vector<uint8_t> iccp = {'P', '3', 0, 0};
    uLongf zn = compressBound(uLong(p3.size()));
    std::vector<uint8_t> z(zn);
    if (compress2(z.data(), &zn, p3.data(), uLong(p3.size()), 9) == Z_OK) iccp.insert(iccp.end(), z.begin(), z.begin() + long(zn));
    write_file(pp, with_png_chunk(with_png_chunk(read_file(pp), "iCCP", iccp, true), "eXIf", io::make_exif_orientation(6, false)));
    ++n;
  }
  // The row reader (fuzz_stream_reader): striped, tiled (a tile and one pixel over) and BigTIFF TIFF, PNG of
  // 1-4 channels at 8 and 16 bits, grey and RGB JPEG; the JPEG and PNG seeds above serve it too.
  const std::string sd = root + "/stream/";
  std::vector<uint8_t> samples(17 * 9 * 4 * 2);
  for (size_t i = 0; i < samples.size(); ++i) samples[i] = uint8_t(i * 29 + i / 7);
  struct Seed {
    const char* name;
    int channels, bits;
    uint32_t tile;
    bool bigtiff;
  };
  for (const Seed& e : {Seed{"strips_rgba8.tif", 4, 8, 0, false}, Seed{"tiles_rgb8.tif", 3, 8, 16, false},
                        Seed{"tiles_grey16.tif", 1, 16, 16, false}, Seed{"big_ga16.tif", 2, 16, 0, true},
                        Seed{"big_tiles_rgba8.tif", 4, 8, 16, true}, Seed{"grey8.png", 1, 8, 0, false},
                        Seed{"ga16.png", 2, 16, 0, false}, Seed{"rgb16.png", 3, 16, 0, false},
                        Seed{"rgba8.png", 4, 8, 0, false}, Seed{"grey.jpg", 1, 8, 0, false},
                        Seed{"rgb.jpg", 3, 8, 0, false}}) {
    io::StreamSpec spec;
    spec.width = 17, spec.height = 9;
    spec.channels = e.channels, spec.bits = e.bits, spec.tile = e.tile, spec.bigtiff = e.bigtiff;
    auto w = io::open_image_writer(sd + e.name, spec);
    w->write_rows(spec.height, samples.data(), size_t(spec.width) * size_t(e.channels) * size_t(e.bits / 8));
    w->finish();
    add_truncated(sd + e.name), n += 2;
  }
  std::printf("wrote %d seeds under %s\n", n, root.c_str());
  return 0;
}
