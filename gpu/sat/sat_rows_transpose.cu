// SAT as rows, tiled transpose, rows, transpose back; each row pass is the three-phase scheme of
// gpu/scan (per-block scan | scan of block sums | add), its block scan any gpu/scan/block_scan.cuh
// algorithm (template parameter), and
// its "add" phase fused into the following shared-memory transpose (32x32 tiles, padded against bank
// conflicts; Ruetsch & Micikevicius, "Optimizing Matrix Transpose in CUDA", 2009).
// Integer input gives uint32 with wrap-around. Float input keeps block-local sums in float and the
// carries between blocks in float64, each output rounded once from float64 (the precision strategy).
// Bytes: 1+4 (row scan) + 4+4 (transpose) + 4+4 + 4+4 = 29 B per u8 element (minimum 5).
#include "gpu/scan/block_scan.cuh"

#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_common.cuh"

namespace satlab::gpu {
namespace {

using namespace sat_detail;

constexpr int kBlock = 256, kItems = 8, kChunk = kBlock * kItems;  // pixels per block along a row
constexpr int kTile = 32, kTileRows = 8;                            // transpose tile, threads per column

template <typename Acc>
struct CarryOf {
  using type = Acc;
};
template <>
struct CarryOf<float> {
  using type = double;
};

// Phase 1: each block scans kChunk pixels of one row (CH interleaved channels): thread-serial over its
// kItems pixels, then the block algorithm over thread totals. Writes local prefixes and block totals.
template <template <typename, int, int> class BlockScan, typename In, typename Acc, int CH>
__global__ void __launch_bounds__(kBlock) row_block_scan(const In* __restrict__ in, Acc* __restrict__ out, int w,
                                                         typename CarryOf<Acc>::type* __restrict__ sums, int chunks) {
  using Scan = BlockScan<Acc, kBlock, kItems>;
  __shared__ typename Scan::TempStorage tmp;
  const int row = blockIdx.y, chunk = blockIdx.x;
  const int p0 = chunk * kChunk + threadIdx.x * kItems;
  const size_t base = size_t(row) * size_t(w) * CH;
  Acc v[kItems][CH];
#pragma unroll
  for (int k = 0; k < kItems; ++k)
#pragma unroll
    for (int c = 0; c < CH; ++c) v[k][c] = p0 + k < w ? Acc(in[base + size_t(p0 + k) * CH + c]) : Acc(0);
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    Acc items[kItems], total;
#pragma unroll
    for (int k = 0; k < kItems; ++k) items[k] = v[k][c];
    Scan(tmp).InclusiveSum(items, total);
    __syncthreads();  // TempStorage is reused by the next channel
#pragma unroll
    for (int k = 0; k < kItems; ++k) v[k][c] = items[k];
    if (threadIdx.x == 0) sums[(size_t(row) * chunks + chunk) * CH + c] = total;
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (p0 + k < w)
#pragma unroll
      for (int c = 0; c < CH; ++c) out[base + size_t(p0 + k) * CH + c] = v[k][c];
}

// Phase 2: exclusive scan of the block totals of each row (a handful per row), in place.
template <typename Carry, int CH>
__global__ void row_sums_scan(Carry* __restrict__ sums, int rows, int chunks) {
  const int rc = blockIdx.x * blockDim.x + threadIdx.x;
  if (rc >= rows * CH) return;
  Carry* s = sums + size_t(rc / CH) * chunks * CH + rc % CH;
  Carry run = Carry(0);
  for (int k = 0; k < chunks; ++k) {
    const Carry x = s[size_t(k) * CH];
    s[size_t(k) * CH] = run;
    run = run + x;
  }
}

// Phase 3 fused with the transpose: out (h x w pixels) = transpose of in (w x h) plus each element's
// row carry.
template <typename Acc, typename Carry, int CH>
__global__ void add_transpose(const Acc* __restrict__ in, const Carry* __restrict__ sums, int w, int h, int chunks,
                              Acc* __restrict__ out) {
  __shared__ Acc tile[CH][kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;
  for (int dy = threadIdx.y; dy < kTile; dy += kTileRows) {
    const int y = blockIdx.y * kTile + dy;
    if (x < w && y < h)
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        const Carry carry = sums[(size_t(y) * chunks + x / kChunk) * CH + c];
        tile[c][dy][threadIdx.x] = Acc(Carry(in[(size_t(y) * w + x) * CH + c]) + carry);
      }
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;  // column in out = row in in
  for (int dy = threadIdx.y; dy < kTile; dy += kTileRows) {
    const int oy = blockIdx.x * kTile + dy;
    if (ox < h && oy < w)
#pragma unroll
      for (int c = 0; c < CH; ++c) out[(size_t(oy) * h + ox) * CH + c] = tile[c][threadIdx.x][dy];
  }
}

template <template <typename, int, int> class Algo, typename In, typename Acc, int CH>
void rows_then_transpose(const In* in, Acc* scan_out, Acc* out, int w, int h, const SatArgs& a, bool columns) {
  using Carry = typename CarryOf<Acc>::type;
  const int chunks = int(ceil_div(size_t(w), kChunk));
  Scratch s(size_t(h) * chunks * CH * sizeof(Carry), a);
  const cudaStream_t st = cudaStream_t(a.stream);
  phase(a, columns ? "sat columns: block scan" : "sat rows: block scan");
  row_block_scan<Algo, In, Acc, CH><<<dim3(unsigned(chunks), unsigned(h)), kBlock, 0, st>>>(in, scan_out, w,
                                                                                          s.as<Carry>(), chunks);
  launch_check("row_block_scan", a);
  phase(a, columns ? "sat columns: block-sum scan" : "sat rows: block-sum scan");
  row_sums_scan<Carry, CH><<<ceil_div(size_t(h) * CH, 256), 256, 0, st>>>(s.as<Carry>(), h, chunks);
  launch_check("row_sums_scan", a);
  phase(a, columns ? "sat columns: add + transpose back" : "sat rows: add + transpose");
  add_transpose<Acc, Carry, CH><<<dim3(ceil_div(size_t(w), kTile), ceil_div(size_t(h), kTile)), dim3(kTile, kTileRows),
                                  0, st>>>(scan_out, s.as<Carry>(), w, h, chunks, out);
  launch_check("add_transpose", a);
}

template <template <typename, int, int> class Algo, typename In, typename Acc, int CH>
void sat_rows_transpose_typed(const SatArgs& a) {
  if (a.height > 65535) throw Error("rows+transpose SAT: more than 65535 rows");
  if (a.width > 65535) throw Error("rows+transpose SAT: more than 65535 columns");
  Scratch tmp(size_t(a.width) * a.height * CH * sizeof(Acc), a);
  Acc* out = static_cast<Acc*>(a.out);
  rows_then_transpose<Algo, In, Acc, CH>(static_cast<const In*>(a.in), out, tmp.as<Acc>(), a.width, a.height, a,
                                          false);
  rows_then_transpose<Algo, Acc, Acc, CH>(tmp.as<Acc>(), tmp.as<Acc>(), out, a.height, a.width, a, true);
}

template <template <typename, int, int> class Algo>
void sat_rows_transpose(const SatArgs& a) {
  if (a.dtype == DType::F32) {
    check_args(a, false);
    switch (a.channels) {
      case 1: return sat_rows_transpose_typed<Algo, float, float, 1>(a);
      case 2: return sat_rows_transpose_typed<Algo, float, float, 2>(a);
      case 3: return sat_rows_transpose_typed<Algo, float, float, 3>(a);
      default: return sat_rows_transpose_typed<Algo, float, float, 4>(a);
    }
  }
  check_args(a, true);
  if (a.channels == 1)
    sat_rows_transpose_typed<Algo, uint8_t, uint32_t, 1>(a);
  else
    sat_rows_transpose_typed<Algo, uint8_t, uint32_t, 4>(a);
}

template <template <typename, int, int> class Algo>
Variant make(const std::string& scan_name, const std::string& scan_label, bool with_float) {
  std::vector<DType> types = {DType::U8, DType::RGBA8};
  if (with_float) types.push_back(DType::F32);
  return sat_builder_variant("sat_rows_transpose_" + scan_name,
                             "rows | transpose | rows | transpose back (" + scan_label + ")",
                             "three-phase row scans of gpu/scan; Ruetsch & Micikevicius 2009 transpose", types,
                             sat_rows_transpose<Algo>);
}

}  // namespace

Variant sat_rows_transpose_shuffle_variant() {
  return make<scan::ShuffleBlockScan>("shuffle", "warp-shuffle block scan", true);
}
Variant sat_rows_transpose_blelloch_variant() {
  return make<scan::BlellochPaddedBlockScan>("blelloch", "Blelloch block scan, padded", false);
}
Variant sat_rows_transpose_hillis_steele_variant() {
  return make<scan::HillisSteeleBlockScan>("hillis_steele", "Hillis-Steele block scan", false);
}
Variant sat_rows_transpose_cub_variant() {
  return make<scan::CubWarpScansBlockScan>("cub", "cub::BlockScan WARP_SCANS", true);
}

}  // namespace satlab::gpu
