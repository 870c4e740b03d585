// The depth-of-field modes as registry variants (family dof): gather_box is the SAT of the image and the
// box blur; spread is dof_spread; the others are dof_shaped. Bytes: the minimum traffic of a frame at 4 B/px
// of image, CoC and result, plus each mode's tables written and read once (20 + 16 B/px per RGBA8 table; the
// layered mode's tables cover each layer's bounding box, and linear light takes one RGBA16 table per layer
// with sat_tiled, 48 B/px instead of two RGBA8 ones' 72, so this counts them at most).
#include <cuda_runtime.h>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {

std::vector<Variant> dof_variants() {
  std::vector<Variant> r;
  for (const DofMode& m : dof_modes()) {
    Variant v;
    v.name = m.name;
    v.family = Family::Dof;
    v.label = m.label;
    v.source = m.spread      ? "rectangle spreading per depth layer (Kosloff, Tao and Barsky 2009), exact SATs"
               : m.occlusion ? "layered SAT composite (satlab), normalised convolution (Knutsson and Westin 1993)"
               : m.shaped    ? "rectangles of an aperture from SAT taps (Crow 1984)"
                             : "box blur through a SAT (Crow 1984)";
    v.dtypes = {DType::RGBA8};
    const bool box = !m.shaped;
    const int images = (m.linear_light ? 2 : 1) * (m.occlusion ? Params{}.dof_layers : 1);
    v.bytes = [images, box](size_t n, DType) { return double(n) * (12.0 + (box ? 1 : images) * 36.0); };
    if (m.spread) {
      // Per layer (at most: over the tiles it covers): its spread image cleared (16 B), the windows' SATs
      // added (16 + 16, more for their overlap), the composite's read (16); per fill table: slices (8),
      // 2 SATs (20 each).
      const int layers = Params{}.dof_layers;
      v.bytes = [layers](size_t n, DType) { return double(n) * (12.0 + layers * 64.0 + (layers - 1) * 48.0); };
    }
    v.refuses = [](size_t, DType t) -> std::string { return t == DType::RGBA8 ? "" : "RGBA8 input only"; };
    if (box) {
      v.dof = [](const DofArgs& a) {
        auto& ws = *static_cast<DofWorkspace*>(a.workspace);
        const size_t n = size_t(a.width) * size_t(a.height);
        if (ws.tables.bytes < n * 16) {
          ws.tables.release();
          if (cudaMalloc(&ws.tables.p, n * 16) != cudaSuccess)
            throw Error("allocation of the DoF table for " + std::to_string(a.width) + "x" + std::to_string(a.height));
          ws.tables.bytes = n * 16;
        }
        if (a.stage) a.stage("sat");
        SatArgs s;
        s.in = a.image, s.out = ws.tables.p, s.width = a.width, s.height = a.height, s.channels = 4;
        s.dtype = DType::RGBA8, s.stream = a.stream;
        a.sat->sat(s);
        if (a.stage) a.stage("blur");
        blur_rgba8(static_cast<const uint32_t*>(ws.tables.p), static_cast<const float*>(a.coc), 0, a.width,
                   a.height, static_cast<uint8_t*>(a.out), a.stream, a.params->fractional_radius);
      };
    } else {
      v.dof = m.spread ? dof_spread : dof_shaped;
    }
    r.push_back(std::move(v));
  }
  return r;
}

}  // namespace satlab::gpu
