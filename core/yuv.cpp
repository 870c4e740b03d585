#include "core/yuv.hpp"

#include "core/parallel.hpp"

namespace satlab {

void rgba_to_yuv420(const ImageRGBA8& rgba, Yuv420& out, int threads) {
  const int w = rgba.width, h = rgba.height;
  if (out.width != w || out.height != h) out = Yuv420(w, h);
  const int cw = out.chroma_width();
  parallel_for(
      0, out.chroma_height(),
      [&](long c0, long c1) {
        for (int cy = int(c0); cy < int(c1); ++cy)
          for (int cx = 0; cx < cw; ++cx) {
            int r = 0, g = 0, b = 0, n = 0;
            for (int y = 2 * cy; y < 2 * cy + 2 && y < h; ++y)
              for (int x = 2 * cx; x < 2 * cx + 2 && x < w; ++x) {
                const uint8_t* p = rgba.px(x, y);
                out.y[size_t(y) * size_t(w) + size_t(x)] = yuv::luma(p[0], p[1], p[2]);
                r += p[0], g += p[1], b += p[2], ++n;
              }
            out.u[size_t(cy) * size_t(cw) + size_t(cx)] = yuv::chroma_b(r, g, b, n);
            out.v[size_t(cy) * size_t(cw) + size_t(cx)] = yuv::chroma_r(r, g, b, n);
          }
      },
      threads);
}

}  // namespace satlab
