// How fast any RGBA8 SAT builder could be: kernels that move its minimum bytes (read 4 B a pixel, write
// 16: each 8-bit channel widened to uint32) without scanning, against the copy bandwidth C measured in the
// same run (docs/streaming.md, "SAT builders RGBA8 >= 0.8 C"). A standalone probe, not part of the build:
//   nvcc -O3 -std=c++17 -arch=sm_90 tools/probes/sat_ceiling.cu -o sat_ceiling && ./sat_ceiling
// Rows: a thread per pixel (each store instruction 512 contiguous bytes a warp), the same with grid-stride
// loops, a thread per 4 pixels storing its own 64 bytes, that staged through shared memory, and write-only
// and read-only kernels; medians of 21 runs after 3, 8192x8192.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e=(x); if(e!=cudaSuccess){printf("ERR %s %s\n",#x,cudaGetErrorString(e)); exit(1);}}while(0)
__device__ __forceinline__ uint4 widen(uint32_t p){return make_uint4(p&255,(p>>8)&255,(p>>16)&255,p>>24);}
// thread per px, grid covers all
template<bool CS> __global__ void exp_px(const uint32_t* __restrict__ in, uint4* __restrict__ out, size_t n){
  size_t i = size_t(blockIdx.x)*blockDim.x+threadIdx.x; if(i>=n) return;
  uint4 v = widen(__ldcs(in+i)); if(CS) __stcs(out+i,v); else out[i]=v; }
// grid-stride, thread per px, unrolled 4
template<bool CS> __global__ void exp_px_gs(const uint32_t* __restrict__ in, uint4* __restrict__ out, size_t n){
  size_t stride = size_t(gridDim.x)*blockDim.x*4;
  for(size_t b = size_t(blockIdx.x)*blockDim.x*4+threadIdx.x; b<n; b+=stride){
    uint32_t p[4];
#pragma unroll
    for(int k=0;k<4;++k){size_t i=b+k*blockDim.x; p[k]= i<n? __ldcs(in+i):0;}
#pragma unroll
    for(int k=0;k<4;++k){size_t i=b+k*blockDim.x; if(i<n){ if(CS) __stcs(out+i,widen(p[k])); else out[i]=widen(p[k]);}}
  }}
// thread per 4 px: one uint4 load, 4 uint4 stores (64 B per thread)
__global__ void exp_4px(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n4){
  size_t i = size_t(blockIdx.x)*blockDim.x+threadIdx.x; if(i>=n4) return;
  uint4 q=__ldcs(in+i); uint4* o=out+4*i;
  __stcs(o,widen(q.x)); __stcs(o+1,widen(q.y)); __stcs(o+2,widen(q.z)); __stcs(o+3,widen(q.w)); }
// thread per 4 px, stores transposed so each instruction is warp-contiguous (px i*... ) : thread t of warp stores px (w*128 + k*32 + t)
__global__ void exp_4px_co(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n4){
  __shared__ uint32_t s[256*4+64];
  size_t i = size_t(blockIdx.x)*blockDim.x+threadIdx.x;
  uint4 q = i<n4? __ldcs(in+i) : make_uint4(0,0,0,0);
  int t=threadIdx.x; s[t*4+0 + (t*4)/32]=q.x; // padded
  s[t*4+1+(t*4+1)/32]=q.y; s[t*4+2+(t*4+2)/32]=q.z; s[t*4+3+(t*4+3)/32]=q.w;
  __syncthreads();
  size_t base = size_t(blockIdx.x)*blockDim.x*4;
  for(int k=0;k<4;++k){ int e=k*256+t; size_t px=base+e; if(px<n4*4) __stcs(out+px, widen(s[e+e/32])); }
}
__global__ void wr_only(uint4* __restrict__ out, size_t n){
  size_t i = size_t(blockIdx.x)*blockDim.x+threadIdx.x; if(i<n) __stcs(out+i, make_uint4(i,1,2,3)); }
__global__ void rd_only(const uint4* __restrict__ in, size_t n, int* sink){
  size_t i = size_t(blockIdx.x)*blockDim.x+threadIdx.x; uint4 q = i<n? __ldcs(in+i):make_uint4(0,0,0,0);
  if((q.x^q.y^q.z^q.w)==0x12345678) sink[0]=1; }
template<class F> float med(F f, int runs=21){
  cudaEvent_t a,b; cudaEventCreate(&a); cudaEventCreate(&b);
  for(int i=0;i<3;++i) f();
  std::vector<float> t;
  for(int i=0;i<runs;++i){cudaEventRecord(a); f(); cudaEventRecord(b); CK(cudaEventSynchronize(b)); float ms; cudaEventElapsedTime(&ms,a,b); t.push_back(ms);}
  std::sort(t.begin(),t.end()); return t[t.size()/2]; }
int main(){
  const size_t W=8192,H=8192,n=W*H; uint32_t* in; uint4* out; uint4* cpy; int* sink;
  CK(cudaMalloc(&in,n*4)); CK(cudaMalloc(&out,n*16)); CK(cudaMalloc(&cpy,n*16)); CK(cudaMalloc(&sink,64));
  CK(cudaMemset(in,7,n*4)); CK(cudaMemset(out,0,n*16));
  cudaDeviceProp p; cudaGetDeviceProperties(&p,0); printf("%s SMs %d L2 %d MB\n",p.name,p.multiProcessorCount,p.l2CacheSize>>20);
  float c = med([&]{cudaMemcpyAsync(cpy,out,n*16,cudaMemcpyDeviceToDevice);});
  double C = 2.0*n*16/(c*1e6); printf("memcpy 1 GiB: %.3f ms C = %.0f GB/s\n",c,C);
  float c2 = med([&]{cudaMemcpyAsync(cpy,in,n*4,cudaMemcpyDeviceToDevice);});
  printf("memcpy 256 MiB: %.3f ms = %.0f GB/s\n",c2,2.0*n*4/(c2*1e6));
  double bytes=20.0*n;
  auto rep=[&](const char* nm,float ms,double b){printf("%-24s %.3f ms %.0f GB/s = %.3f C\n",nm,ms,b/(ms*1e6),b/(ms*1e6)/C);};
  rep("exp_px plain", med([&]{exp_px<false><<<(n+255)/256,256>>>(in,out,n);}), bytes);
  rep("exp_px cs", med([&]{exp_px<true><<<(n+255)/256,256>>>(in,out,n);}), bytes);
  for(int g: {132*4,132*8,132*16}) { char nm[64]; snprintf(nm,64,"exp_px_gs cs g%d",g);
    rep(nm, med([&]{exp_px_gs<true><<<g,256>>>(in,out,n);}), bytes);}
  rep("exp_px_gs plain g1056", med([&]{exp_px_gs<false><<<1056,256>>>(in,out,n);}), bytes);
  rep("exp_4px", med([&]{exp_4px<<<(n/4+255)/256,256>>>((const uint4*)in,out,n/4);}), bytes);
  rep("exp_4px_co", med([&]{exp_4px_co<<<(n/4+255)/256,256>>>((const uint4*)in,out,n/4);}), bytes);
  rep("write only 1 GiB", med([&]{wr_only<<<(n+255)/256,256>>>(out,n);}), 16.0*n);
  rep("read only 1 GiB", med([&]{rd_only<<<(n+255)/256,256>>>(out,n,sink);}), 16.0*n);
  CK(cudaDeviceSynchronize());
}
