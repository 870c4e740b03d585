// SAT builders (inclusive summed-area tables on the GPU). Plain C++ face: each builder enqueues on
// args.stream and throws satlab::Error on a CUDA error. Integer SATs (U8 with 1 channel, RGBA8 with 4)
// are uint32 with wrap-around, bit-identical to core's sat_u8 / sat_rgba8; F32 builders write float.
#pragma once
#include <string>
#include <vector>

#include "core/variant.hpp"

namespace satlab::gpu {

void sat_tiled(const SatArgs& args);  // tiled 2D (tile sums -> carries -> rebuild), 8-bit input

// Registry entries (gpu/registry.cpp lists them).
Variant sat_tiled_variant();
// Rows | transpose | rows | transpose back, the row passes built from a gpu/scan block scan; the
// shuffle and cub ones also take F32 (float block sums, float64 carries).
Variant sat_rows_transpose_shuffle_variant();
Variant sat_rows_transpose_blelloch_variant();
Variant sat_rows_transpose_hillis_steele_variant();
Variant sat_rows_transpose_cub_variant();
// Row pass | column pass with coalesced column strips (three-phase down the columns); 8-bit and float.
Variant sat_rows_columns_variant();
// One pass: bands walked left to right, the sums above each band from a column look-back; 8-bit and float.
Variant sat_single_pass_variant();
void sat_single_pass(const SatArgs& args);
// One pass over sat_tiled's tiles: look-backs up and left for what lies above and left of each tile;
// 8-bit (1 or 4 channels) and float.
Variant sat_lookback_2d_variant();
void sat_lookback_2d(const SatArgs& args);
// Its float tiles take a load policy (gpu/sat/sat_lookback_2d_f32.cuh) for users that form the input as
// the tiles load.

// Each builder's tuning policies other than its default, as bench rows (sat_host.hpp, sat_policy_variants).
std::vector<Variant> sat_tiled_policy_variants();
std::vector<Variant> sat_rows_columns_policy_variants();
std::vector<Variant> sat_single_pass_policy_variants();
std::vector<Variant> sat_lookback_2d_policy_variants();

// Minimum bytes of a SAT over n pixels: each input element read once, each output element written once.
double sat_min_bytes(size_t n, DType t);
// A builder's registry entry: family Sat, sat_min_bytes, and refuses() for any type not in `dtypes`.
Variant sat_builder_variant(std::string name, std::string label, std::string source, std::vector<DType> dtypes,
                            void (*build)(const SatArgs&));

}  // namespace satlab::gpu
