#include "app/gui/bench_highlights_gl.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>

#include "core/error.hpp"
#include "core/highlight_sprite_gl.hpp"
#include "core/reference.hpp"
#include "gpu/device.hpp"

#ifdef SATLAB_HAVE_INTEROP
#include "app/gui/highlight_splat_gl.hpp"
#include "app/gui/surface.hpp"
#include "gpu/interop/highlight_gl_frame.hpp"
#endif

namespace satlab::gui {

#ifdef SATLAB_HAVE_INTEROP
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The pipeline bench's image (app/cli/cmd_bench_sat.cpp, bench_pipeline, same seed): colours below the
// highlight threshold, `lights` random lights, a third of them clipped.
ImageRGBA8 bench_image(int w, int h, int lights) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(7);
  for (auto& b : img.data) b = uint8_t(rng());
  for (size_t i = 0; i < img.pixels(); ++i)
    for (int c = 0; c < 3; ++c) img.data[i * 4 + c] = uint8_t(img.data[i * 4 + c] % 200);
  for (int k = 0; k < lights; ++k) {
    uint8_t* px = img.data.data() + size_t(rng() % uint32_t(img.pixels())) * 4;
    for (int c = 0; c < 3; ++c) px[c] = k % 3 == 0 ? 255 : uint8_t(235 + rng() % 20);
  }
  return img;
}

struct Case {
  std::string name;
  int lights;
  int radius;  // 0: the pipeline bench's tilted-plane CoC
};

}  // namespace

std::vector<HighlightBenchRow> bench_highlights_gl(int w, int h, int warmup, int runs) {
  const std::string prefix = "highlights_gl.";
  if (!gpu::probe().available) return {{prefix + "skipped", "no CUDA device: " + gpu::probe().reason, 0}};
  std::unique_ptr<Surface> surface;
  try {
    surface = open_headless(16, 16);
  } catch (const Error& e) {
    return {{prefix + "skipped", std::string("no headless OpenGL 4.5: ") + e.what(), 0}};
  }
  std::vector<HighlightBenchRow> rows;
  {
    GlHighlightSplat gl32, gl16;
    for (const Case& c : {Case{"64k", 65536, 0}, Case{"16k", 16384, 0}, Case{"64k_r4", 65536, 4},
                          Case{"64k_r16", 65536, 16}, Case{"64k_r64", 65536, 64}}) {
      const ImageRGBA8 img = bench_image(w, h, c.lights);
      Params p;
      p.filter = FilterKind::Dof;
      p.dof_mode = "gather_linear";
      p.highlights = true;
      ImageF coc(w, h, 1);
      if (c.radius == 0) {  // the pipeline's CoC of the tilted plane depth = x + y
        ImageF depth(w, h, 1);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) depth.at(x, y) = float(x + y);
        coc = coc_map(normalise_depth(depth), p);
      } else {
        p.max_radius = float(c.radius);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) coc.at(x, y) = x < w / 2 ? -float(c.radius) : float(c.radius);
      }
      gpu::HighlightGlFrame frame(img, coc);
      const ApertureTable ap = highlight_aperture(p);
      gl32.set_aperture(ap);
      gl16.set_aperture(ap);
      gl32.set_target(w, h, false);
      gl16.set_target(w, h, true);
      enum {
        kCompact,
        kSort,
        kSplat,
        kAdd,
        kRecords,
        kShared,
        kSharedHost,
        kMapped,
        kMappedHost,
        kClear32,
        kDraw32,
        kClear16,
        kDraw16,
        kSquare32,
        kPhases
      };
      std::vector<std::vector<double>> t(kPhases);
      // The radius-64 GL draws take most of a second on a GPU with few graphics units: fewer runs there.
      const int n_warm = c.radius == 64 ? 1 : warmup, n_runs = c.radius == 64 ? 5 : runs;
      for (int i = 0; i < n_warm + n_runs; ++i) {
        const gpu::HighlightGlFrame::Times m = frame.run(p, true);
        const gpu::HighlightGlFrame::Times s = frame.run(p, false);
        gl32.clear();
        gl32.draw(frame.gl_buffer());
        const double c32 = gl32.clear_ms(), d32 = gl32.draw_ms();
        gl16.clear();
        gl16.draw(frame.gl_buffer());
        const double c16 = gl16.clear_ms(), d16 = gl16.draw_ms();
        gl32.set_aperture_test(false);
        gl32.clear();
        gl32.draw(frame.gl_buffer());
        gl32.set_aperture_test(true);
        const double b32 = gl32.draw_ms();
        if (i < n_warm) continue;
        const double v[kPhases] = {
            s.compact,  s.sort,          s.splat, s.add, s.records, s.handover, s.handover_host,
            m.handover, m.handover_host, c32,     d32,   c16,       d16,        b32};
        for (int k = 0; k < kPhases; ++k) t[size_t(k)].push_back(v[k]);
      }
      const HighlightStats st = frame.stats();
      const std::string sprites =
          std::to_string(st.kept) + " sprites (" + std::to_string(st.far) + " far), " +
          (c.radius ? "radius " + std::to_string(c.radius) : "the pipeline bench's radii") + ", median of " +
          std::to_string(n_runs);
      const std::string shared =
          frame.shared_unavailable().empty()
              ? ""
              : " (shared unavailable, mapped instead: " + frame.shared_unavailable() + ")";
      auto row = [&](const std::string& name, int k, const std::string& note) {
        rows.push_back({prefix + c.name + "." + name, note, median(t[size_t(k)])});
      };
      row("cuda.compact", kCompact, "both paths; " + sprites);
      row("cuda.sort", kSort, "both paths");
      row("cuda.splat", kSplat, "CUDA path: row spans, integer atomics into the planes");
      row("cuda.add", kAdd, "CUDA path: planes integrated and added (and cleared)");
      row("gl.records", kRecords, "GL path: CUDA kernel writing the sprite records");
      row("gl.handover_shared", kShared, "GL path: copy into GL-imported CUDA memory (no map)" + shared);
      row("gl.handover_shared_host", kSharedHost, "host wall time of it: it waits for all of the run's queued CUDA work (a 0.3 ms hold included)");
      row("gl.handover_mapped", kMapped, "GL path: cudaGraphicsMapResources + copy + unmap, every frame");
      row("gl.handover_mapped_host", kMappedHost, "host wall time of it");
      row("gl.clear_rgba32f", kClear32, "GL path: both RGBA32F targets cleared (GL_TIME_ELAPSED)");
      row("gl.draw_rgba32f", kDraw32, "GL path: instanced quads, additive blend (GL_TIME_ELAPSED)");
      row("gl.draw_rgba32f_square", kSquare32,
          "GL path, bench only: the same quads with no aperture test (every pixel of the bounding square)");
      row("gl.clear_rgba16f", kClear16, "GL path: both RGBA16F targets cleared");
      row("gl.draw_rgba16f", kDraw16, "GL path: the same draw into RGBA16F");
      const double cuda = median(t[kSplat]);
      const double gl = median(t[kRecords]) + median(t[kShared]) + median(t[kClear32]) + median(t[kDraw32]);
      rows.push_back(
          {prefix + c.name + ".cuda_splat", "the CUDA path's splat (planes cleared by its add)", cuda});
      rows.push_back({prefix + c.name + ".gl_splat_rgba32f",
                      "the GL path's splat: records + shared handover + clear + draw, RGBA32F", gl});
    }
  }
  return rows;
}

#else
std::vector<HighlightBenchRow> bench_highlights_gl(int, int, int, int) {
  return {{"highlights_gl.skipped", "built without CUDA-GL interop (no CUDA toolkit or no GUI)", 0}};
}
#endif

}  // namespace satlab::gui
