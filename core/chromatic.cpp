#include "core/chromatic.hpp"

#include "core/coc_pixel.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {

float chromatic_offset(const Params& p) {
  return p.chromatic * p.aperture * dof::inverse_depth(p.focus, lens_of(p));
}

Params chromatic_pass(const Params& p) {
  Params q = p;
  q.coc_offset = chromatic_offset(p);
  q.chromatic = 0.f;
  return q;
}

bool uses_chromatic(const Params& p) {
  return p.filter == FilterKind::Dof && p.chromatic != 0.f;
}

void merge_red_blue(ImageRGBA8& out, const ImageRGBA8& rb, int threads) {
  if (out.width != rb.width || out.height != rb.height) throw Error("merge_red_blue: sizes differ");
  parallel_for(
      0, long(out.pixels()),
      [&](long b, long e) {
        for (long i = b; i < e; ++i) {
          out.data[size_t(i) * 4] = rb.data[size_t(i) * 4];
          out.data[size_t(i) * 4 + 2] = rb.data[size_t(i) * 4 + 2];
        }
      },
      threads);
}

}  // namespace satlab
