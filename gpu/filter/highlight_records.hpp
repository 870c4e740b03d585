// The GL splat's sprite records (core/highlight_sprite.hpp) from the CUDA highlight pass: after
// highlights_prepare, one thread per cap slot writes the header (two indirect draw commands, far and near)
// and a record per kept sprite. CPU reference: highlight_records (core/highlight_sprite_gl.hpp).
#pragma once
#include <cstddef>

#include "gpu/filter/highlights_gpu.hpp"

namespace satlab::gpu {

// Bytes of the records buffer for a cap: the header slot and `cap` records.
size_t highlight_records_bytes(int cap);
// Writes into `out` (device, highlight_records_bytes(cap)) on a.stream; reads what the last
// highlights_prepare of a.ws left (it must have run on the same arguments).
void highlight_records(const HighlightArgs& a, void* out);

}  // namespace satlab::gpu
