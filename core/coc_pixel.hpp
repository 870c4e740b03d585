// The thin-lens circle of confusion of one pixel, shared by the CPU reference (core/reference.cpp,
// coc_from_depth) and the GPU kernel (gpu/filter/depth.cu): one source compiled for both without FMA
// contraction (-ffp-contract=off, nvcc -fmad=false; division and the rest IEEE round-to-nearest on both),
// so the two agree bit for bit.
//
// Focus range (Params::focus_range and the three fields after it): four normalised depths, near outer NO <=
// near inner NI <= far inner FI <= far outer FO. Every depth in [NI, FI] is sharp; outside, the CoC grows
// from the nearer inner edge, c = K (1/z - 1/z_edge) (continuous at the edges), scaled by a ramp that rises
// linearly from 0 at the inner edge to 1 at the outer one (none where the outer edge equals the inner:
// NO = NI). NI = FI = focus is the plain thin lens, c = K (1/z - 1/z_focus); the symmetric +-t band is NI =
// NO = focus - t, FI = FO = focus + t.
#pragma once
#include <cmath>

#include "core/dof_pixel.hpp"  // SATLAB_HD

namespace satlab::dof {

struct Lens {
  float aperture, max_radius, near_depth, far_depth;
  bool disparity;
  float offset;  // added to every CoC before the clamp (Params::coc_offset: chromatic aberration's red and blue)
};

// 1/z of normalised depth d (Params: z = near + d (far - near), or disparity 1/z = 1/far + d (1/near -
// 1/far)).
SATLAB_HD float inverse_depth(float d, const Lens& p) {
  if (p.disparity) {
    const float a = 1.0f / p.far_depth, b = 1.0f / p.near_depth;
    const float span = b - a;
    const float t = d * span;
    return a + t;
  }
  const float span = p.far_depth - p.near_depth;
  const float t = d * span;
  const float z = p.near_depth + t;
  return 1.0f / z;
}

// The sharp band's edges and their inverse depths, once per frame.
struct FocusBand {
  float lo, hi;          // NI, FI (normalised depth)
  float inv_lo, inv_hi;  // inverse_depth of each
  float ramp_lo, ramp_hi;  // NI - NO, FO - FI (0: no ramp)
};
// The band around `focus`: NI = focus - near, FI = focus + far, the ramps beyond them.
SATLAB_HD FocusBand focus_band(float focus, float near, float far, float ramp_near, float ramp_far,
                               const Lens& p) {
  const float lo = focus - near, hi = focus + far;
  return FocusBand{lo, hi, inverse_depth(lo, p), inverse_depth(hi, p), ramp_near, ramp_far};
}

// Signed CoC in pixels (> 0 in front of the band), plus the lens's offset, clamped to +-max_radius; 0 inside the band. fmaxf/fminf
// semantics: a NaN depth gives the bound -max_radius, never a NaN radius.
SATLAB_HD float coc_of(float d, const Lens& p, const FocusBand& band) {
  const float inv = inverse_depth(d, p);
  // Inside the band (and for NaN) the edge is d itself: inv - inv is 0 (NaN stays NaN).
  const float edge = d < band.lo ? band.inv_lo : (d > band.hi ? band.inv_hi : inv);
  float c = p.aperture * (inv - edge);
  // Between an inner and its outer edge, the ramp's fraction of the way out (< 1: c unchanged beyond).
  const float out = d < band.lo ? band.lo - d : d > band.hi ? d - band.hi : 0.f;
  const float ramp = d < band.lo ? band.ramp_lo : band.ramp_hi;
  if (out < ramp) c = c * (out / ramp);
  c = c + p.offset;
  return fminf(fmaxf(c, -p.max_radius), p.max_radius);
}

}  // namespace satlab::dof
