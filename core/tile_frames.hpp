// The geometry the tiled executor (core/tiled.cpp) and its planner (core/tile_plan.cpp) share: how an axis
// of the image is cut into tiles and their frames.
#pragma once
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/dof_spread_pixel.hpp"
#include "core/error.hpp"

namespace satlab::tiling {

// Tile origins lie on multiples of this in the image: the spread's fill tables group pixels in blocks of
// kFillBlock from the frame's origin (dof_spread_halo). Other modes do not care.
constexpr uint32_t kAlign = uint32_t(dof::kFillBlock);

inline uint32_t align_down(uint32_t v) {
  return v / kAlign * kAlign;
}

struct Span {
  uint32_t lo, hi;
};

// One axis of n pixels cut into tiles of `tile`, each read with its frame: the tile's interior [a, b) and
// the halo on both sides, clamped to the axis, starting on a multiple of kAlign. Every frame spans the same
// `extent` (where the halo is clamped at an end, the frame takes the rest from the other side: more context
// changes no pixel), so a pipeline keeps its buffers from tile to tile (the GPU's reallocates at every new
// size, the CPU's would fragment the heap).
struct Axis {
  uint32_t n, tile, halo, extent;
  Axis(uint32_t n_, uint32_t tile_, uint32_t halo_) : n(n_), tile(tile_), halo(halo_) {
    // Interior, two halos and the alignment's kAlign - 1, and the parity that puts the last frame on the
    // grid too.
    uint64_t e = uint64_t(tile) + 2 * uint64_t(halo) + kAlign;
    if (e < n) e += (n - e) % kAlign;
    extent = uint32_t(std::min<uint64_t>(e, n));
  }
  Span frame(uint32_t a) const {
    if (extent == n) return {0, n};
    const uint32_t lo = align_down(a > halo ? a - halo : 0);
    return uint64_t(lo) + extent <= n ? Span{lo, lo + extent} : Span{n - extent, n};
  }
  uint64_t tiles() const { return (uint64_t(n) + tile - 1) / tile; }
  double work() const { return double(tiles()) * double(extent); }  // the pixels the frames span, summed
};

// The rows the executor's rings hold for an axis of rows: a band's frame and the next band's rows (the
// alignment may start a frame kAlign - 1 rows lower), so that the next band is read while this one is
// filtered; at most the image's.
inline uint32_t ring_rows(const Axis& rows) {
  return uint32_t(std::min<uint64_t>(uint64_t(rows.extent) + rows.tile + kAlign, rows.n));
}

// Throws satlab::Error unless w x h is a size the executor takes (no empty side, none over 2^31 - 1).
inline void check_size(uint32_t w, uint32_t h, const char* what) {
  if (w == 0 || h == 0)
    throw Error(std::string(what) + " of " + std::to_string(w) + "x" + std::to_string(h) +
                " pixels is empty");
  if (w > uint32_t(INT_MAX) || h > uint32_t(INT_MAX))
    throw Error(std::string(what) + " of " + std::to_string(w) + "x" + std::to_string(h) +
                " pixels: a side over 2^31 - 1 pixels is not supported");
}

}  // namespace satlab::tiling
