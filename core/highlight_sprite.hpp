// The bokeh highlights' sprites as a rasteriser reads them (the GL instanced-quads splat, the alternative to
// the CUDA row splat of core/highlights.hpp, measured against it in docs/performance.md, "Bokeh highlights"):
// one record per sorted sprite, its position, radius, slice and its linear energy per covered pixel in float,
// after a header of two indirect draw commands (far, near). Shared by the CPU reference
// (core/highlight_sprite_gl.cpp) and the CUDA kernel that fills the GL buffer
// (gpu/filter/highlight_records.cu), both without FMA contraction, so the two agree bit for bit.
#pragma once
#include <cstdint>

#include "core/dof_pixel.hpp"

namespace satlab::hl {

// 32 bytes: read by GL as two instanced vertex attributes (ivec4 at 0, vec4 at 16).
struct SpriteRecord {
  int32_t x, y, r, slice;  // slice 0: behind the focus plane (far), 1: near
  float e[4];              // linear energy per covered pixel (r, g, b), e[3] = 0
};
static_assert(sizeof(SpriteRecord) == 32, "one record is 32 bytes");

// glDrawArraysIndirect's command; the buffer starts with two (far, near), one record slot in all.
struct DrawCommand {
  uint32_t count, instances, first, base_instance;
};
static_assert(2 * sizeof(DrawCommand) == sizeof(SpriteRecord), "the header fills one record slot");

// The far and near draws of `kept` sorted sprites of which the first `far` lie behind the focus plane:
// triangle strips of 4 vertices, instanced from the records after the header.
SATLAB_HD void draw_commands(uint32_t kept, uint32_t far, DrawCommand* out) {
  out[0] = DrawCommand{4u, far, 0u, 0u};
  out[1] = DrawCommand{4u, kept - far, 0u, far};
}

// One channel's energy per pixel of a sprite's clipped shape: the value hl::weight rounds to fixed point
// (linear 12-bit value times boost over the area), here in float (rounded once from double).
SATLAB_HD float energy(uint32_t lin12, double boost, uint32_t area) {
  const double e = double(lin12) * boost;
  return float(e / (double(dof::kLinearOne) * double(area)));
}

}  // namespace satlab::hl
