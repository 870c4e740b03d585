// Bokeh highlights in the DoF filter. Gathering cannot turn a clipped 255 light into a bright disc (clipped
// LDR values carry no energy), so bright pixels are taken out of the gather and splatted as sprites of the
// aperture's shape instead:
//   compact  pixels with linear luminance >= threshold and CoC radius >= kMinRadius, in raster order, at
//            most `cap` of them (the rest stay in the gather); their colour is zeroed in the gather's input,
//            so their energy is not counted twice;
//   sort     the sprites back to front by signed CoC (the radix sort): those behind the focus plane come
//            first, so the far and near slices are two contiguous ranges;
//   splat    each sprite's linear colour, boosted when clipped (any channel 255: inverse tone map at the
//   clip,
//            1 / (1 - 0.4), times the gain), spread evenly over the aperture's rectangles of its radius,
//            clipped to the image: per covered row, +w at the span's start and -w after its end, into
//            fixed-point row-delta planes of its slice (far or near);
//   add      after the gather, each row's deltas are integrated (a row prefix sum) and added to the result
//            in linear light. The far slice is added only where the pixel itself lies behind the focus
//            plane (CoC < 0): an in-focus or nearer surface hides the bokeh of a highlight behind it.
// With gain 1 and no clipped channel, a sprite moves exactly its pixel's linear energy (up to the fixed
// point rounding bound of core/highlights_pixel.hpp) from the gather to the splat.
#pragma once
#include <cstdint>
#include <vector>

#include "core/dof.hpp"
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

// What the last frame's highlight pass found: `found` pixels passed the test, `kept` = min(found, cap) were
// splatted (`far` of them behind the focus plane). cap_hit: found > cap.
struct HighlightStats {
  bool valid = false;  // false: no frame with highlights on has completed yet
  uint32_t found = 0, kept = 0, far = 0, cap = 0;
  bool cap_hit() const { return found > cap; }
};

// The six fixed-point row-delta planes (far r, g, b, near r, g, b), width * height each.
constexpr int kHighlightPlanes = 6;

// The sprites of a frame: pixel indices sorted back to front (stable), their keys, and the stats.
struct HighlightSprites {
  std::vector<uint32_t> index, key;
  HighlightStats stats;
};

// The support of the highlights (core/tiled.hpp): a sprite of radius at most shaped_max_radius reaches a
// pixel from that far, and its weight spreads over its whole aperture clipped to the image, which reaches as
// far again: 2 shaped_max_radius. The sprites' sums are integers (any order); the cap counts the frame's
// sprites in raster order, which a tile cannot know (tiled_support).
int highlight_halo(const Params& p);

// The boost of a clipped highlight (the gain: the response decodes a clip to its largest radiance),
// computed once on the host for both backends.
double highlight_clip_boost(const Params& p);

// Compact + sort (the CPU reference): sprites of the image and its CoC map under p's highlight settings.
HighlightSprites highlight_sprites(const ImageRGBA8& image, const ImageF& coc, const Params& p);
// The two steps apart: the kept sprites in raster order (keys empty), then sorted with their keys and split.
HighlightSprites highlight_compact(const ImageRGBA8& image, const ImageF& coc, const Params& p);
void highlight_sort(const ImageF& coc, HighlightSprites& s);
// The gather's input: the image with the sprites' colour zeroed (alpha kept).
void highlight_mask(const ImageRGBA8& image, const HighlightSprites& s, ImageRGBA8& masked);
// The row-delta planes of the sprites (kHighlightPlanes * w * h values, overwritten), each splatted with
// the aperture of the frame's DoF mode (DofMode::aperture): `mode`, or nullptr: Params::dof_mode's.
// Whether a frame's sprites carry the aperture's profile and hole (Params::bokeh_profile, catadioptric):
// in the modes that carry them (DofMode::profile), drawn with the spread's apertures (their nested
// components), so a soap-bubble lens's highlights get bright rims; elsewhere flat.
bool highlight_profiled(const Params& p, const DofMode& mode);
void highlight_splat(const ImageRGBA8& image, const ImageF& coc, const HighlightSprites& s, const Params& p,
                     std::vector<uint32_t>& planes, const DofMode* mode = nullptr);
// Integrates the planes' rows into per-pixel splat values (kScale units) for slice 0 (far) and 1 (near):
// splat[(slice * 3 + k) * n + i]. For tests and the energy check.
void highlight_integrate(const std::vector<uint32_t>& planes, int w, int h, std::vector<uint32_t>& splat);
// Adds the splat to the gathered result in place (the far slice only where coc < 0), in radiance under the
// camera response `shoulder` (Params::response_shoulder).
void highlight_add(const std::vector<uint32_t>& planes, const ImageF& coc, float shoulder, ImageRGBA8& result,
                   int threads = 0);

}  // namespace satlab
