// Single-pass scan whose look-back runs across thread-block clusters only (sm_90). The kCluster blocks of a
// cluster scan kCluster consecutive tiles; each block hands its tile's total to the cluster's first block
// through distributed shared memory (a store into that block's shared memory), which looks back over the
// clusters before it (gpu/common/lookback.cuh's decoupled look-back, one status word per cluster) and hands
// back the cluster's prefix; every block adds the totals of the tiles before it in the cluster. The chain of
// status words is kCluster times shorter than one word per tile, and a cluster's blocks wait on none.
// Not persistent: one tile a block (kBlock threads x 4 kVec elements, loaded warp-striped in registers, as
// in decoupled_lookback), clusters numbered by an atomic ticket taken by the first block, so that a
// cluster waits only on clusters that started before it. Four cluster barriers a cluster: the ticket
// shared, the totals gathered, the prefix shared, and the first block's shared memory kept until every
// block has read it. Bytes: reads n, writes n (+ 8 bytes of status per cluster). Sources: the CUDA
// programming guide ("Thread Block Clusters", "Distributed Shared Memory"), Merrill & Garland 2016.
#include <cooperative_groups.h>

#include "gpu/common/bulk.cuh"
#include "gpu/common/lookback.cuh"
#include "gpu/common/warp.cuh"
#include "gpu/scan/block_scan.cuh"
#include "gpu/scan/first_poll.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"
#include "gpu/scan/striped_tile.cuh"

namespace satlab::gpu::scan {
namespace {

namespace cg = cooperative_groups;

template <typename T, int kBlock, int kVec, int kCluster>
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(kBlock)
    kernel(const T* __restrict__ in, T* __restrict__ out, size_t n, bool inclusive, bool vec,
           unsigned long long* status, unsigned* ticket, unsigned first_poll_ns) {
#if SATLAB_BULK_SM90
  constexpr int kSize = kBlock * 4 * kVec;
  using Word = gpu::lookback::Word64<T>;
  __shared__ T s_warp[kBlock / 32];
  __shared__ T s_total[kCluster];  // the first block's: every block's tile total
  __shared__ T s_prefix;           // the first block's: the cluster's prefix
  __shared__ unsigned s_ticket;    // the first block's: the cluster's number
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (rank == 0 && threadIdx.x == 0) s_ticket = atomicAdd(ticket, 1u);
  cluster.sync();
  const unsigned c = *cluster.map_shared_rank(&s_ticket, 0);
  const size_t first = (size_t(c) * kCluster + rank) * kSize;
  const int valid = first >= n ? 0 : int(n - first < size_t(kSize) ? n - first : kSize);
  const T* src = in + first;
  using Tl = StripedTile<T, kBlock, kVec>;
  typename Tl::Items x;
  Tl::load(src, valid, vec, x);
  T off[kVec], warp_prefix;
  const T aggregate = Tl::offsets(x, off, warp_prefix, s_warp);
  T* const totals = cluster.map_shared_rank(s_total, 0);
  if (threadIdx.x == 0) totals[rank] = aggregate;
  cluster.sync();
  if (rank == 0 && warp == 0) {
    const T cluster_total = warp::all_reduce(lane < kCluster ? s_total[lane] : T(0));
    const T prefix = gpu::lookback::tile_prefix(status, c, cluster_total, Word{}, first_poll_ns);
    if (lane == 0) s_prefix = prefix;
  }
  cluster.sync();
  T base = *cluster.map_shared_rank(&s_prefix, 0);
  for (unsigned q = 0; q < rank; ++q) base = base + totals[q];
  base = base + warp_prefix;
#pragma unroll
  for (int j = 0; j < kVec; ++j) thread_scan(x[j], base + off[j], inclusive);
  Tl::store(out + first, valid, vec, x);
  cluster.sync();  // the first block's shared memory outlives every read of it
#endif
}

template <int kBlock, int kVec, int kCluster>
struct Impl {
  static constexpr size_t kTile = size_t(kBlock) * 4 * kVec;
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    const size_t clusters = (n + kTile * kCluster - 1) / (kTile * kCluster);
    const std::string ctx = "n=" + std::to_string(n);
    if (clusters * kCluster > 0x7fffffffu) throw Error("cluster look-back scan: " + ctx + " needs too many tiles");
    auto* k = kernel<T, kBlock, kVec, kCluster>;
    const std::string why = bulk::unsupported(k, "lookback_cluster");
    if (!why.empty()) throw Error(why);
    const size_t bytes = clusters * sizeof(unsigned long long) + 16;
    Scratch scratch(bytes, s);
    auto* status = scratch.as<unsigned long long>();
    auto* ticket = reinterpret_cast<unsigned*>(status + clusters);
    SATLAB_CUDA(cudaMemsetAsync(status, 0, bytes, s), ctx);
    const bool vec = (reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 16 == 0;
    const unsigned first_poll = lookback::first_poll_ns(clusters, 1, 0);  // no pause unless forced
    k<<<unsigned(clusters * kCluster), kBlock, 0, s>>>(in, out, n, inclusive, vec, status, ticket, first_poll);
    SATLAB_LAUNCHED("cluster look-back scan", ctx + " clusters=" + std::to_string(clusters));
  }
};

template <int kBlock, int kVec, int kCluster>
Variant cluster_variant(std::string name, std::string label) {
  Variant v = make_scan_variant<Impl<kBlock, kVec, kCluster>>(
      std::move(name), std::move(label),
      "CUDA programming guide (thread block clusters, distributed shared memory), Merrill & Garland 2016");
  bulk::refuse_without_sm90(v, kernel<uint32_t, kBlock, kVec, kCluster>, "lookback_cluster");
  return v;
}

}  // namespace

Variant lookback_cluster8_variant() {
  return cluster_variant<128, 8, 8>("lookback_cluster8",
                                    "single pass, look-back across clusters of 8 blocks, totals exchanged in "
                                    "distributed shared memory (sm_90)");
}

}  // namespace satlab::gpu::scan
