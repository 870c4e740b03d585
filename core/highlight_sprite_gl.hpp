// CPU reference of the GL splat of bokeh highlights (core/highlight_sprite.hpp): the records a frame's
// sorted sprites give, and their splat in float, the GL path's additive blending in the same order.
#pragma once
#include <vector>

#include "core/dof.hpp"
#include "core/highlight_sprite.hpp"
#include "core/highlights.hpp"

namespace satlab {

// The aperture the highlights are splatted with: Params::dof_mode's (DofMode::aperture).
ApertureTable highlight_aperture(const Params& p);

// The header (two draw commands) and one record per kept sprite, in sorted order: 1 + kept records.
std::vector<hl::SpriteRecord> highlight_records(const ImageRGBA8& image, const ImageF& coc,
                                                const HighlightSprites& s, const Params& p);

// The records' splat as GL draws it: each sprite adds its energy (r, g, b) and 1 (coverage) to every
// pixel of its aperture's rectangles clipped to the image, in record order, into its slice's plane.
// out[(slice * n + i) * 4 + c], float sums (what an RGBA32F target blends) when `as_float`, else exact
// double sums.
void highlight_splat_records(const std::vector<hl::SpriteRecord>& records, const ApertureTable& ap, int w,
                             int h, bool as_float, std::vector<double>& out);

}  // namespace satlab
