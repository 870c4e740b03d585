// The GL splat of bokeh highlights (app/gui/highlight_splat_gl.hpp, shaders/highlight_splat.*), the
// measured alternative to the CUDA row splat, on a headless EGL context:
//   - drawn from records the CPU reference made (core/highlight_sprite_gl.hpp) into RGBA32F targets, each
//     slice covers exactly the pixels of its sprites' apertures (the coverage channel equals the CPU count,
//     integer for integer) and its colour equals the CPU's exact (double) sum within the float bound
//     m * 2^-23 * S (m sprites on the pixel, S their exact sum: m additions, each rounded by at most one ulp
//     of a partial sum <= S, the records' values themselves exact in float), and the integer splat of the
//     kept path (core/highlights.cpp) within that plus m * 0.5 / kScale + 2^-24 * S (its rounding to fixed
//     point); RGBA16F the same coverage, colours within m (2^-9 S + 2^-23) (half's rounding of each weight
//     and each sum, either rounding mode, and its subnormal spacing);
//   - with a CUDA device: the records the CUDA kernel writes (gpu/filter/highlight_records.cu) equal the CPU
//     reference's bit for bit, and GL draws the same targets from them after either handover (the shared
//     buffer without a map, the registered buffer mapped each frame).
// The first needs only EGL (Mesa's software device in CI); both skip with the reason where it is missing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu/device.hpp"
#include "gpu_skip.hpp"

#ifdef SATLAB_HAVE_INTEROP
#include <glad/gl.h>

#include "app/gui/highlight_splat_gl.hpp"
#include "core/highlight_sprite_gl.hpp"
#include "core/highlights_pixel.hpp"
#include "gpu/interop/highlight_gl_frame.hpp"
#include "tests/cpu/test_util.hpp"
#include "tests/egl_test_context.hpp"

namespace {

using namespace satlab;

struct Case {
  int w, h;
  ApertureShape shape;
  const char* mode;
  float max_radius;
  int cap;
};

const Case kCases[] = {{1, 1, ApertureShape::Disc, "gather_linear", 4.f, 65536},
                       {1, 37, ApertureShape::Polygon, "gather_linear", 6.f, 65536},
                       {29, 1, ApertureShape::Square, "gather_linear", 5.f, 65536},
                       {61, 53, ApertureShape::Disc, "gather_linear", 9.f, 65536},
                       {97, 41, ApertureShape::Polygon, "gather_linear", 12.5f, 40},
                       {67, 71, ApertureShape::Disc, "gather_box", 7.f, 65536}};

// Random colours below the threshold, every 9th pixel a light (a third clipped); a random signed CoC with
// a NaN.
void make_frame(const Case& c, std::mt19937& rng, ImageRGBA8& img, ImageF& coc, Params& p) {
  img = ImageRGBA8(c.w, c.h);
  coc = ImageF(c.w, c.h, 1);
  for (size_t i = 0; i < img.pixels(); ++i) {
    const bool light = rng() % 9 == 0, clip = rng() % 3 == 0;
    for (int ch = 0; ch < 3; ++ch)
      img.data[i * 4 + ch] = uint8_t(light ? clip ? 255 : 200 + rng() % 55 : rng() % 150);
    img.data[i * 4 + 3] = 255;
  }
  std::uniform_real_distribution<float> u(-c.max_radius - 2.f, c.max_radius + 2.f);
  for (float& v : coc.data) v = u(rng);
  if (img.pixels() > 3) coc.data[rng() % img.pixels()] = NAN;
  p = Params{};
  p.filter = FilterKind::Dof;
  p.dof_mode = c.mode;
  p.aperture_shape = c.shape;
  p.blades = 5, p.blade_rotation = 13.f;
  p.max_radius = c.max_radius;
  p.highlights = true;
  p.highlight_gain = 2.f;
  p.highlight_cap = c.cap;
}

void upload(GLuint& buffer, const std::vector<hl::SpriteRecord>& rec) {
  glDeleteBuffers(1, &buffer);
  glCreateBuffers(1, &buffer);
  glNamedBufferStorage(buffer, GLsizeiptr(rec.size() * sizeof(hl::SpriteRecord)), rec.data(), 0);
}

// A frame's clear() and draw(), twice: a clear that left anything behind doubles the second frame.
void splat(gui::GlHighlightSplat& gl, GLuint buffer, int w, int h, bool half) {
  gl.set_target(w, h, half);
  for (int frame = 0; frame < 2; ++frame) {
    gl.clear();
    gl.draw(buffer);
  }
}

// Compares one slice of the GL target with the references; returns the number of bad pixels.
int compare(const std::vector<float>& got, const std::vector<double>& exact,
            const std::vector<uint32_t>& fixed, int slice, size_t n, bool half, const std::string& what) {
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double* e = exact.data() + (size_t(slice) * n + i) * 4;
    const float* g = got.data() + i * 4;
    const double m = e[3];
    bool ok = double(g[3]) == m;  // coverage: exactly the aperture's pixels
    for (int c = 0; c < 3; ++c) {
      const double S = e[c];
      if (half) {  // each weight rounded to half and each addition rounded: 2 m ulps (2^-10) of <= S, and
                   // half's subnormal spacing 2^-24 per operation
        ok = ok && std::fabs(double(g[c]) - S) <= m * (std::ldexp(1.0, -9) * S + std::ldexp(1.0, -23));
        continue;
      }
      const double bound = m * std::ldexp(1.0, -23) * S;
      const double fixed_v = double(fixed[(size_t(slice) * 3 + size_t(c)) * n + i]) / hl::kScale;
      const double fixed_bound = bound + m * 0.5 / hl::kScale + std::ldexp(1.0, -24) * S;
      ok = ok && std::fabs(double(g[c]) - S) <= bound && std::fabs(double(g[c]) - fixed_v) <= fixed_bound;
    }
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << " slice " << slice << " pixel " << i << ": GL (" << g[0] << ", " << g[1]
                    << ", " << g[2] << ", " << g[3] << ") reference (" << e[0] << ", " << e[1] << ", " << e[2]
                    << ", " << e[3] << ")";
  }
  return bad;
}

TEST(HighlightSplatGl, CoversTheAperturesAndMatchesTheCpuSplat) {
  SKIP_WITHOUT_EGL();
  test::SeededRng rng;
  gui::GlHighlightSplat gl;
  GLuint buffer = 0;
  size_t sprites = 0;
  for (const Case& c : kCases) {
    ImageRGBA8 img;
    ImageF coc;
    Params p;
    make_frame(c, rng, img, coc, p);
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + c.mode + " " +
                             to_string(c.shape) + " cap " + std::to_string(c.cap);
    const HighlightSprites s = highlight_sprites(img, coc, p);
    const std::vector<hl::SpriteRecord> rec = highlight_records(img, coc, s, p);
    const ApertureTable ap = highlight_aperture(p);
    std::vector<double> exact;
    highlight_splat_records(rec, ap, c.w, c.h, false, exact);
    std::vector<uint32_t> planes, fixed;
    highlight_splat(img, coc, s, p, planes);
    highlight_integrate(planes, c.w, c.h, fixed);
    sprites += s.index.size();
    gl.set_aperture(ap);
    upload(buffer, rec);
    for (const bool half : {false, true}) {
      splat(gl, buffer, c.w, c.h, half);
      for (int slice = 0; slice < 2; ++slice)
        EXPECT_EQ(compare(gl.read(slice), exact, fixed, slice, img.pixels(), half,
                          what + (half ? " RGBA16F" : " RGBA32F")),
                  0);
    }
  }
  EXPECT_GT(sprites, 100u);  // the cases do splat
  glDeleteBuffers(1, &buffer);
}

TEST(HighlightSplatGl, CudaRecordsEqualTheCpuReferenceThroughBothHandovers) {
  SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_EGL();
  test::SeededRng rng;
  gui::GlHighlightSplat gl;
  GLuint buffer = 0;
  std::string shared_unavailable;
  for (const Case& c : kCases) {
    ImageRGBA8 img;
    ImageF coc;
    Params p;
    make_frame(c, rng, img, coc, p);
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + c.mode;
    const HighlightSprites s = highlight_sprites(img, coc, p);
    const std::vector<hl::SpriteRecord> want = highlight_records(img, coc, s, p);
    gl.set_aperture(highlight_aperture(p));
    upload(buffer, want);
    splat(gl, buffer, c.w, c.h, false);
    const std::vector<float> ref[2] = {gl.read(0), gl.read(1)};
    gpu::HighlightGlFrame frame(img, coc);
    // Without the shared handover, run() takes the mapped one: that is not a test of the shared path.
    if (!frame.shared_unavailable().empty()) shared_unavailable = frame.shared_unavailable();
    for (const bool mapped : {false, true})
      for (int run = 0; run < 2 && (mapped || frame.shared_unavailable().empty()); ++run) {  // twice: reused
        frame.run(p, mapped);
        const HighlightStats st = frame.stats();
        EXPECT_EQ(st.found, s.stats.found) << what;
        EXPECT_EQ(st.kept, s.stats.kept) << what;
        EXPECT_EQ(st.far, s.stats.far) << what;
        const std::vector<hl::SpriteRecord> got = frame.records();
        ASSERT_EQ(got.size(), want.size()) << what;
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(hl::SpriteRecord)), 0)
            << what << ": CUDA records differ from the CPU reference";
        splat(gl, frame.gl_buffer(), c.w, c.h, false);
        for (int slice = 0; slice < 2; ++slice)
          EXPECT_TRUE(gl.read(slice) == ref[slice])
              << what << (mapped ? " mapped" : " shared") << " slice " << slice;
      }
  }
  glDeleteBuffers(1, &buffer);
  if (!shared_unavailable.empty())
    GTEST_SKIP() << "only the mapped handover was tested; the shared one is unavailable: "
                 << shared_unavailable;
}

}  // namespace

#else
TEST(HighlightSplatGl, NeedsInterop) {
  GTEST_SKIP() << "built without CUDA-GL interop (no CUDA toolkit or no GUI)";
}
#endif
