// Axial (longitudinal) chromatic aberration (Params::chromatic, issue 46): a lens brings red and blue to
// focus at another depth than green, so out-of-focus edges get coloured fringes whose order flips across
// the focal plane (purple in front and green behind, for an achromat's secondary spectrum).
//
// The thin lens's CoC is linear in 1/z, c = K (1/z - 1/z_focus): red and blue focused where 1/z is
// (1 - C) / z_focus have c + C K / z_focus at every depth, the same offset everywhere (the ground truth,
// tools/scene/render.hpp, traces those two focus depths). A frame with chromatic aberration is therefore two
// frames of the same mode: green's (the plain one) and red and blue's, whose CoC map is green's plus that
// offset before the clamp (Params::coc_offset), its layers, highlights and tables its own. Both backends run
// the second pass after the first and take red and blue from it (merge_red_blue); grain follows, on green's
// CoC. Every mode carries it, since each pass is a plain frame; it costs a second pass.
#pragma once
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

// The offset of red and blue's CoC over green's, in pixels: chromatic K / z_focus (K = Params::aperture;
// z_focus the depth of Params::focus), in float as both backends take it.
float chromatic_offset(const Params& p);
// Red and blue's pass: p with chromatic 0 and coc_offset chromatic_offset(p).
Params chromatic_pass(const Params& p);
// Whether a frame of p runs the second pass: the dof filter with chromatic != 0.
bool uses_chromatic(const Params& p);
// out's red and blue channels replaced by rb's (the same size); green and alpha kept.
void merge_red_blue(ImageRGBA8& out, const ImageRGBA8& rb, int threads = 0);

}  // namespace satlab
