// SAT builders (inclusive summed-area tables on the GPU). Plain C++ face: each builder enqueues on
// args.stream and throws satlab::Error on a CUDA error. Integer SATs (U8 with 1 channel, RGBA8 with 4)
// are uint32 with wrap-around, bit-identical to core's sat_u8 / sat_rgba8; F32 builders write float.
#pragma once
#include "core/variant.hpp"

namespace satlab::gpu {

void sat_tiled(const SatArgs& args);        // tiled 2D (tile sums -> carries -> rebuild)
void sat_cub_rows_columns(const SatArgs& args);  // cub::BlockScan rows, then columns
void sat_rows_transpose(const SatArgs& args);    // rows, tiled transpose, rows, transpose back
void sat_tiled_float(const SatArgs& args);  // F32: float tiles, float64 carries

// Registry entries (gpu/registry.cpp lists them).
Variant sat_tiled_variant();
Variant sat_cub_variant();
Variant sat_transpose_variant();
Variant sat_float_variant();

// Minimum bytes of a SAT over n pixels: each input element read once, each output element written once.
double sat_min_bytes(size_t n, DType t);

}  // namespace satlab::gpu
