// CPU summed-area tables (see reference.hpp), multi-threaded and close to memory bandwidth.
//
// Two passes over horizontal bands, one band per thread:
//   1. every band sums its columns (reads the input once, writes nothing but one row per band);
//   2. a serial prefix over those column sums gives each band the true SAT row just above it, and each
//      band then builds its rows in one sweep: run[x] += row prefix up to x, store run[x].
// The running row stays in L1/L2, so memory sees the minimum plus one extra read of the input:
// 4 + 4 + 16 bytes per RGBA8 pixel. The RGBA8 path stores with non-temporal writes (no read-for-
// ownership of the 16 B/px output, as memcpy does for large copies).
// Unsigned accumulators wrap around, which keeps box sums exact (see reference.hpp).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/parallel.hpp"
#include "core/reference.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace satlab {
namespace {

// Band b covers rows [band[b], band[b+1]).
std::vector<int> make_bands(int height, int threads) {
  const int t = std::max(1, std::min(threads <= 0 ? default_threads() : threads, height));
  std::vector<int> band(size_t(t) + 1);
  for (int i = 0; i <= t; ++i) band[size_t(i)] = int(int64_t(height) * i / t);
  return band;
}

// Generic row kernels, any element type and channel count.
template <typename In, typename Acc>
struct GenericRows {
  static void add_columns(const In* src, Acc* colsum, size_t row) {
    for (size_t i = 0; i < row; ++i) colsum[i] = Acc(colsum[i] + Acc(src[i]));
  }
  static void sat_row(const In* src, Acc* run, Acc* dst, int width, int channels) {
    Acc acc[4] = {0, 0, 0, 0};
    std::vector<Acc> wide;  // more than 4 channels: heap accumulators
    Acc* a = acc;
    if (channels > 4) {
      wide.assign(size_t(channels), Acc(0));
      a = wide.data();
    }
    const size_t row = size_t(width) * size_t(channels);
    for (size_t i = 0; i < row; i += size_t(channels))
      for (int c = 0; c < channels; ++c) {
        a[c] = Acc(a[c] + Acc(src[i + size_t(c)]));
        run[i + size_t(c)] = Acc(run[i + size_t(c)] + a[c]);
        dst[i + size_t(c)] = run[i + size_t(c)];
      }
  }
  static void finish() {}
};

#if defined(__SSE2__)
// RGBA8 -> 4 x uint32: one pixel is one 128-bit lane group, so the whole row scan is vector adds.
struct Rgba8Rows {
  static void add_columns(const uint8_t* src, uint32_t* colsum, size_t row) {
    const __m128i zero = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= row; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      const __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
      const __m128i parts[4] = {_mm_unpacklo_epi16(lo, zero), _mm_unpackhi_epi16(lo, zero),
                                _mm_unpacklo_epi16(hi, zero), _mm_unpackhi_epi16(hi, zero)};
      for (int k = 0; k < 4; ++k) {
        __m128i* p = reinterpret_cast<__m128i*>(colsum + i + 4 * size_t(k));
        _mm_storeu_si128(p, _mm_add_epi32(_mm_loadu_si128(p), parts[k]));
      }
    }
    for (; i < row; ++i) colsum[i] += src[i];
  }
  static void sat_row(const uint8_t* src, uint32_t* run, uint32_t* dst, int width, int) {
    const __m128i zero = _mm_setzero_si128();
    const bool aligned = (reinterpret_cast<uintptr_t>(dst) & 15) == 0;
    __m128i acc = zero;
    for (int x = 0; x < width; ++x) {
      uint32_t px;
      std::memcpy(&px, src + 4 * size_t(x), 4);
      __m128i v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(int(px)), zero), zero);
      acc = _mm_add_epi32(acc, v);
      __m128i* r = reinterpret_cast<__m128i*>(run + 4 * size_t(x));
      const __m128i s = _mm_add_epi32(_mm_loadu_si128(r), acc);
      _mm_storeu_si128(r, s);
      __m128i* d = reinterpret_cast<__m128i*>(dst + 4 * size_t(x));
      if (aligned)
        _mm_stream_si128(d, s);
      else
        _mm_storeu_si128(d, s);
    }
  }
  // Non-temporal stores are weakly ordered: fence before another thread may read the table.
  static void finish() { _mm_sfence(); }
};
#endif

template <typename In, typename Acc, typename Rows>
void sat_bands(const In* in, Acc* out, int width, int height, int channels, int threads) {
  const size_t row = size_t(width) * size_t(channels);
  const std::vector<int> band = make_bands(height, threads);
  const int t = int(band.size()) - 1;

  // Pass 1: column sums of every band but the last (nothing lies below it).
  std::vector<Acc> colsum(size_t(t) * row, Acc(0));
  if (t > 1)
    parallel_for(
        0, t - 1,
        [&](long b, long e) {
          for (long bi = b; bi < e; ++bi)
            for (int y = band[size_t(bi)]; y < band[size_t(bi) + 1]; ++y)
              Rows::add_columns(in + size_t(y) * row, colsum.data() + size_t(bi) * row, row);
        },
        t - 1);

  // carry[b] = true SAT row above band b = prefix over x of the column sums of bands 0..b-1.
  // Reuses colsum's storage: band b's slot becomes its carry row.
  {
    std::vector<Acc> cum(row, Acc(0)), prev(row, Acc(0));
    for (int bi = 0; bi < t; ++bi) {
      Acc* slot = colsum.data() + size_t(bi) * row;
      std::copy(slot, slot + row, prev.begin());  // this band's column sums, before overwriting
      std::vector<Acc> acc(size_t(channels), Acc(0));
      for (size_t i = 0; i < row; i += size_t(channels))
        for (int c = 0; c < channels; ++c) {
          acc[size_t(c)] = Acc(acc[size_t(c)] + cum[i + size_t(c)]);
          slot[i + size_t(c)] = acc[size_t(c)];
        }
      for (size_t i = 0; i < row; ++i) cum[i] = Acc(cum[i] + prev[i]);
    }
  }

  // Pass 2: each band sweeps its rows with the running row starting at its carry.
  parallel_for(
      0, t,
      [&](long b, long e) {
        for (long bi = b; bi < e; ++bi) {
          Acc* run = colsum.data() + size_t(bi) * row;
          for (int y = band[size_t(bi)]; y < band[size_t(bi) + 1]; ++y)
            Rows::sat_row(in + size_t(y) * row, run, out + size_t(y) * row, width, channels);
        }
        Rows::finish();
      },
      t);
}

}  // namespace

void sat_rgba8(const ImageRGBA8& image, std::vector<uint32_t>& sat, int threads) {
  sat.resize(image.pixels() * 4);
  if (image.empty()) return;
#if defined(__SSE2__)
  sat_bands<uint8_t, uint32_t, Rgba8Rows>(image.data.data(), sat.data(), image.width, image.height, 4,
                                          threads);
#else
  sat_bands<uint8_t, uint32_t, GenericRows<uint8_t, uint32_t>>(image.data.data(), sat.data(), image.width,
                                                               image.height, 4, threads);
#endif
}

void sat_u8(const uint8_t* data, int width, int height, std::vector<uint32_t>& sat, int threads) {
  sat.resize(size_t(std::max(width, 0)) * size_t(std::max(height, 0)));
  if (width <= 0 || height <= 0) return;
  sat_bands<uint8_t, uint32_t, GenericRows<uint8_t, uint32_t>>(data, sat.data(), width, height, 1, threads);
}

void sat_u16(const uint16_t* data, int width, int height, int channels, std::vector<uint32_t>& sat,
             int threads) {
  sat.resize(size_t(std::max(width, 0)) * size_t(std::max(height, 0)) * size_t(std::max(channels, 0)));
  if (width <= 0 || height <= 0 || channels <= 0) return;
  sat_bands<uint16_t, uint32_t, GenericRows<uint16_t, uint32_t>>(data, sat.data(), width, height, channels,
                                                                 threads);
}

void sat_float(const ImageF& image, std::vector<double>& sat, int threads) {
  sat.resize(image.pixels() * size_t(image.channels));
  if (image.empty()) return;
  sat_bands<float, double, GenericRows<float, double>>(image.data.data(), sat.data(), image.width,
                                                       image.height, image.channels, threads);
}

uint32_t box_sum(const uint32_t* sat, int width, int channels, int c, int x0, int y0, int x1, int y1) {
  auto S = [&](int x, int y) -> uint32_t {
    if (x < 0 || y < 0) return 0;
    return sat[(size_t(y) * size_t(width) + size_t(x)) * size_t(channels) + size_t(c)];
  };
  return S(x1, y1) - S(x0 - 1, y1) - S(x1, y0 - 1) + S(x0 - 1, y0 - 1);
}

}  // namespace satlab
