// SATLAB_HD: a function of the per-pixel code shared by the CPU references and the GPU kernels (one source
// compiled for both; the .cu files that include it build without FMA contraction, core/ with
// -ffp-contract=off, so the two agree bit for bit).
#pragma once

#if defined(__CUDACC__)
#define SATLAB_HD __host__ __device__ __forceinline__
#else
#define SATLAB_HD inline
#endif
