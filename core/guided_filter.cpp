// CPU guided filter (see guided_filter.hpp): the reference of gpu/depth/guided_filter.cu.
//
// Stage 1 stacks the centred values (float, the GPU forms them with the same rounded operations):
//   colour: I0 I1 I2 p | I0p I1p I2p | I00 I01 I02 I11 I12 I22    gray: I p Ip II
// and builds one float64 SAT of the stack. Per pixel the window means give Sigma and cov; a solves
// (Sigma + eps U) a = cov in float64, b = mean(p) - a . mean(I). Stage 2 builds the SAT of a and b (stored
// as float, as the GPU stores them) and q = mean(a) . I + mean(b) + offset(p).
//
// Error bound of a float-SAT version (guided_filter_bound): the GPU's stacks equal these bit for bit; its
// float SAT of values x has |S_gpu - S| <= rel * S_abs at every element (S_abs: the SAT of |x|; the
// builders' relative bound, whose derivation only uses partial sums no larger than the sum of |x|). Then
// per pixel, with n the clipped count:
//   window mean error    d_j = rel * (S_abs at the 4 corners) / n                         (per channel j)
//   Sigma_ij error       e_S <= d_IIij + |mI_i| d_Ij + |mI_j| d_Ii + d_Ii d_Ij
//   cov_i error          e_c <= d_Ipi + |mI_i| d_p + |mp| d_Ii + d_Ii d_p
//   (M + E)(a + da) = c + dc with M = Sigma + eps U, Sigma PSD so |M^-1|_2 <= 1/eps, |E|_2 <= |E|_F:
//   |da|_2 <= (|dc|_2 + |E|_F |a|_2) / (eps - |E|_F)      (infinite when |E|_F >= eps)
//   |db| <= d_p + sum_i (|da_i| (|mI_i| + d_Ii) + |a_i| d_Ii)
// plus float storage of a and b (u |a_i|, u |b|, u = 2^-24) and a float64 slack. Stage 2's means add the
// window mean of those per-pixel errors (exact, from a SAT of them) and rel * (S_abs of |a| + da at the
// corners) / n. Finally |dq| <= sum_i |I'_i| d(mean a_i) + d(mean b) + u |q| (the float output).
#include "core/guided_filter.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

constexpr double kUnit = 5.9604644775390625e-8;  // 2^-24

void check_inputs(const ImageF& guide, const ImageF& p, int radius, float eps) {
  if (guide.empty() || p.empty()) throw Error("guided filter: empty image");
  if (guide.width != p.width || guide.height != p.height)
    throw Error("guided filter: guide is " + std::to_string(guide.width) + "x" +
                std::to_string(guide.height) + " but p is " + std::to_string(p.width) + "x" +
                std::to_string(p.height));
  if (p.channels != 1) throw Error("guided filter: p must have 1 channel, not " + std::to_string(p.channels));
  if (guide.channels != 1 && guide.channels < 3)
    throw Error("guided filter: guide must have 1 or 3+ channels, not " + std::to_string(guide.channels));
  GuidedParams g;
  g.radius = radius;
  g.eps = eps;
  validate(g);
}

// Window of pixel (x, y): the box clipped to the image, and its count.
struct Box {
  int x0, y0, x1, y1;
  double n;
};
inline Box window(int x, int y, int r, int w, int h) {
  Box b;
  b.x0 = std::max(x - r, 0);
  b.y0 = std::max(y - r, 0);
  b.x1 = int(std::min<long>(long(x) + r, w - 1));
  b.y1 = int(std::min<long>(long(y) + r, h - 1));
  b.n = double(b.x1 - b.x0 + 1) * double(b.y1 - b.y0 + 1);
  return b;
}
// Box sum of channel c of an interleaved SAT (float64), 4 taps.
inline double box(const std::vector<double>& s, int w, int ch, int c, const Box& b) {
  auto S = [&](int x, int y) -> double {
    if (x < 0 || y < 0) return 0.0;
    return s[(size_t(y) * size_t(w) + size_t(x)) * size_t(ch) + size_t(c)];
  };
  return S(b.x1, b.y1) - S(b.x0 - 1, b.y1) - S(b.x1, b.y0 - 1) + S(b.x0 - 1, b.y0 - 1);
}
// Sum of channel c at the 4 corners (the error scale of a float SAT's box difference).
inline double corners(const std::vector<double>& s, int w, int ch, int c, const Box& b) {
  auto S = [&](int x, int y) -> double {
    if (x < 0 || y < 0) return 0.0;
    return s[(size_t(y) * size_t(w) + size_t(x)) * size_t(ch) + size_t(c)];
  };
  return S(b.x1, b.y1) + S(b.x0 - 1, b.y1) + S(b.x1, b.y0 - 1) + S(b.x0 - 1, b.y0 - 1);
}

// Solves (S + eps U) a = c for symmetric 3x3 S (s00 s01 s02 s11 s12 s22) by its adjugate.
inline void solve3(const double s[6], double eps, const double c[3], double a[3]) {
  const double m00 = s[0] + eps, m01 = s[1], m02 = s[2], m11 = s[3] + eps, m12 = s[4], m22 = s[5] + eps;
  const double i00 = m11 * m22 - m12 * m12, i01 = m02 * m12 - m01 * m22, i02 = m01 * m12 - m02 * m11;
  const double i11 = m00 * m22 - m02 * m02, i12 = m01 * m02 - m00 * m12, i22 = m00 * m11 - m01 * m01;
  const double det = m00 * i00 + m01 * i01 + m02 * i02;
  a[0] = (i00 * c[0] + i01 * c[1] + i02 * c[2]) / det;
  a[1] = (i01 * c[0] + i11 * c[1] + i12 * c[2]) / det;
  a[2] = (i02 * c[0] + i12 * c[1] + i22 * c[2]) / det;
}

// Everything both the filter and its bound need.
struct Run {
  int w = 0, h = 0, nc = 0;  // nc: guide channels used (1 or 3)
  ImageF guide;              // the used guide (nc channels), uncentred
  GuidedOffsets off;
  ImageF stack;              // stage-1 values, centred, float
  std::vector<double> sat1;  // its SAT
  ImageF ab;                 // stage-1 result: a (nc) then b, float
  std::vector<double> sat2;
};

int stack_channels(int nc) {
  return nc == 1 ? 4 : 13;
}

Run stage1(const ImageF& guide_in, const ImageF& p, int r, float eps, bool gray, int threads,
           const GuidedOffsets* offsets) {
  Run R;
  R.w = p.width;
  R.h = p.height;
  if (gray || guide_in.channels == 1) {
    R.guide = guide_luma(guide_in, threads);
    R.nc = 1;
  } else if (guide_in.channels == 3) {
    R.guide = guide_in;
    R.nc = 3;
  } else {
    R.guide = ImageF(R.w, R.h, 3);
    for (size_t i = 0; i < R.guide.pixels(); ++i)
      for (int c = 0; c < 3; ++c)
        R.guide.data[i * 3 + size_t(c)] = guide_in.data[i * size_t(guide_in.channels) + size_t(c)];
    R.nc = 3;
  }
  R.off = offsets ? *offsets : guided_offsets(R.guide, p, threads);
  const int nc = R.nc, sc = stack_channels(nc);
  R.stack = ImageF(R.w, R.h, sc);
  parallel_for(
      0, long(R.guide.pixels()),
      [&](long b, long e) {
        for (long i = b; i < e; ++i) {
          const float* g = &R.guide.data[size_t(i) * size_t(nc)];
          float* o = &R.stack.data[size_t(i) * size_t(sc)];
          const float pc = p.data[size_t(i)] - R.off.p;
          float I[3];
          for (int c = 0; c < nc; ++c) I[c] = g[c] - R.off.guide[size_t(c)];
          if (nc == 1) {
            o[0] = I[0], o[1] = pc, o[2] = I[0] * pc, o[3] = I[0] * I[0];
          } else {
            o[0] = I[0], o[1] = I[1], o[2] = I[2], o[3] = pc;
            o[4] = I[0] * pc, o[5] = I[1] * pc, o[6] = I[2] * pc;
            o[7] = I[0] * I[0], o[8] = I[0] * I[1], o[9] = I[0] * I[2];
            o[10] = I[1] * I[1], o[11] = I[1] * I[2], o[12] = I[2] * I[2];
          }
        }
      },
      threads);
  sat_float(R.stack, R.sat1, threads);
  R.ab = ImageF(R.w, R.h, nc + 1);
  parallel_for(
      0, R.h,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < R.w; ++x) {
            const Box bx = window(x, y, r, R.w, R.h);
            auto m = [&](int c) { return box(R.sat1, R.w, sc, c, bx) / bx.n; };
            float* o = &R.ab.data[(size_t(y) * size_t(R.w) + size_t(x)) * size_t(nc + 1)];
            if (nc == 1) {
              const double mi = m(0), mp = m(1);
              const double a = (m(2) - mi * mp) / ((m(3) - mi * mi) + double(eps));
              o[0] = float(a);
              o[1] = float(mp - a * mi);
            } else {
              const double mi[3] = {m(0), m(1), m(2)}, mp = m(3);
              const double c[3] = {m(4) - mi[0] * mp, m(5) - mi[1] * mp, m(6) - mi[2] * mp};
              const double s[6] = {m(7) - mi[0] * mi[0],  m(8) - mi[0] * mi[1],  m(9) - mi[0] * mi[2],
                                   m(10) - mi[1] * mi[1], m(11) - mi[1] * mi[2], m(12) - mi[2] * mi[2]};
              double a[3];
              solve3(s, double(eps), c, a);
              for (int k = 0; k < 3; ++k) o[k] = float(a[k]);
              o[3] = float(mp - (a[0] * mi[0] + a[1] * mi[1] + a[2] * mi[2]));
            }
          }
      },
      threads);
  sat_float(R.ab, R.sat2, threads);
  return R;
}

ImageF filter(const ImageF& guide, const ImageF& p, const GuidedParams& g, const GuidedOffsets* offsets,
              int threads);

}  // namespace

void validate(const GuidedParams& g) {
  if (g.radius < 0 || g.radius > kMaxGuidedRadius)
    throw Error("guided filter: radius " + std::to_string(g.radius) + " outside [0, " +
                std::to_string(kMaxGuidedRadius) + "]");
  if (!(g.eps > 0.f) || !std::isfinite(g.eps))
    throw Error("guided filter: eps must be a finite number > 0, not " + std::to_string(g.eps));
}

ImageF guide_luma(const ImageF& guide, int threads) {
  if (guide.channels == 1) return guide;
  if (guide.channels < 3) throw Error("guided filter: guide must have 1 or 3+ channels");
  ImageF out(guide.width, guide.height, 1);
  const size_t ch = size_t(guide.channels);
  parallel_for(
      0, long(out.pixels()),
      [&](long b, long e) {
        for (long i = b; i < e; ++i) {
          const float* g = &guide.data[size_t(i) * ch];
          out.data[size_t(i)] = 0.2126f * g[0] + 0.7152f * g[1] + 0.0722f * g[2];
        }
      },
      threads);
  return out;
}

GuidedOffsets guided_offsets(const ImageF& guide_used, const ImageF& p, int threads) {
  GuidedOffsets o;
  const double n = double(p.pixels());
  o.p = float(sum_reduce(p.data.data(), p.pixels(), threads) / n);
  const int nc = std::min(guide_used.channels, 3);
  std::vector<float> plane(guide_used.pixels());
  for (int c = 0; c < nc; ++c) {
    for (size_t i = 0; i < plane.size(); ++i)
      plane[i] = guide_used.data[i * size_t(guide_used.channels) + size_t(c)];
    o.guide[size_t(c)] = float(sum_reduce(plane.data(), plane.size(), threads) / n);
  }
  return o;
}

ImageF guided_filter(const ImageF& guide, const ImageF& p, int radius, float eps, bool gray, int threads) {
  GuidedParams g;
  g.radius = radius, g.eps = eps, g.gray = gray;
  return filter(guide, p, g, nullptr, threads);
}

ImageF guided_filter(const ImageF& guide, const ImageF& p, const GuidedParams& g,
                     const GuidedOffsets& offsets, int threads) {
  return filter(guide, p, g, &offsets, threads);
}

namespace {
ImageF filter(const ImageF& guide, const ImageF& p, const GuidedParams& g, const GuidedOffsets* offsets,
              int threads) {
  const int radius = g.radius;
  check_inputs(guide, p, radius, g.eps);
  const Run R = stage1(guide, p, radius, g.eps, g.gray, threads, offsets);
  const int nc = R.nc;
  ImageF q(R.w, R.h, 1);
  parallel_for(
      0, R.h,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < R.w; ++x) {
            const Box bx = window(x, y, radius, R.w, R.h);
            const size_t i = size_t(y) * size_t(R.w) + size_t(x);
            double v = box(R.sat2, R.w, nc + 1, nc, bx) / bx.n + double(R.off.p);
            for (int c = 0; c < nc; ++c) {
              const double Ic = double(R.guide.data[i * size_t(nc) + size_t(c)] - R.off.guide[size_t(c)]);
              v += box(R.sat2, R.w, nc + 1, c, bx) / bx.n * Ic;
            }
            q.data[i] = float(v);
          }
      },
      threads);
  return q;
}
}  // namespace

double guided_filter_bound(const ImageF& guide, const ImageF& p, int radius, float eps, bool gray, double rel,
                           int threads, const GuidedOffsets* offsets) {
  check_inputs(guide, p, radius, eps);
  const Run R = stage1(guide, p, radius, eps, gray, threads, offsets);
  const int nc = R.nc, sc = stack_channels(nc), w = R.w, h = R.h;
  // SAT of |stack|.
  ImageF abs1 = R.stack;
  for (float& v : abs1.data) v = std::fabs(v);
  std::vector<double> sabs1;
  sat_float(abs1, sabs1, threads);
  // Per pixel: stage-1 error of a (l2 norm, per component bound) and b, into an image with |a_i| + da and
  // |b| + db (for stage 2's SAT scale) and da, db (for the mean of the errors).
  ImageF err(w, h, 2 * (nc + 1));
  const double epsd = double(eps);
  parallel_for(
      0, h,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < w; ++x) {
            const Box bx = window(x, y, radius, w, h);
            auto m = [&](int c) { return box(R.sat1, w, sc, c, bx) / bx.n; };
            auto d = [&](int c) { return rel * corners(sabs1, w, sc, c, bx) / bx.n; };
            const size_t i = size_t(y) * size_t(w) + size_t(x);
            const float* ab = &R.ab.data[i * size_t(nc + 1)];
            float* o = &err.data[i * size_t(2 * (nc + 1))];
            double mi[3], di[3];
            const int pc = nc == 1 ? 1 : 3;  // channel of p in the stack
            for (int c = 0; c < nc; ++c) mi[c] = std::fabs(m(c)), di[c] = d(c);
            const double mp = std::fabs(m(pc)), dp = d(pc);
            double ec2 = 0, eS = 0, anorm = 0;
            for (int c = 0; c < nc; ++c) {
              const double e = d(pc + 1 + c) + mi[c] * dp + mp * di[c] + di[c] * dp;
              ec2 += e * e;
              anorm += double(ab[c]) * double(ab[c]);
            }
            anorm = std::sqrt(anorm);
            int k = pc + 1 + nc;  // first II channel
            double eS2 = 0;
            for (int a = 0; a < nc; ++a)
              for (int b = a; b < nc; ++b, ++k) {
                const double e = d(k) + mi[a] * di[b] + mi[b] * di[a] + di[a] * di[b];
                eS2 += (a == b ? 1.0 : 2.0) * e * e;
              }
            eS = std::sqrt(eS2);
            double da = eS >= epsd ? INFINITY : (std::sqrt(ec2) + eS * anorm) / (epsd - eS);
            da += 1e-12 * (1.0 + anorm);  // float64 arithmetic of the two versions
            double db = dp + 1e-12 * (1.0 + anorm);
            for (int c = 0; c < nc; ++c) db += da * (mi[c] + di[c]) + std::fabs(double(ab[c])) * di[c];
            for (int c = 0; c < nc; ++c) {
              const double dac =
                  da + 2 * kUnit * std::fabs(double(ab[c]));  // float storage of a (both sides)
              o[c] = float(std::fabs(double(ab[c])) + dac);
              o[nc + 1 + c] = float(dac);
            }
            const double dbs = db + 2 * kUnit * std::fabs(double(ab[nc]));
            o[nc] = float(std::fabs(double(ab[nc])) + dbs);
            o[2 * nc + 1] = float(dbs);
          }
      },
      threads);
  std::vector<double> serr;
  sat_float(err, serr, threads);
  const int ec = 2 * (nc + 1);
  double worst = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Box bx = window(x, y, radius, w, h);
      const size_t i = size_t(y) * size_t(w) + size_t(x);
      double v = 0, q = std::fabs(double(R.off.p));
      for (int c = 0; c <= nc; ++c) {
        const double dm = box(serr, w, ec, nc + 1 + c, bx) / bx.n + rel * corners(serr, w, ec, c, bx) / bx.n;
        const double mean = std::fabs(box(R.sat2, w, nc + 1, c, bx) / bx.n);
        if (c < nc) {
          const double Ic =
              std::fabs(double(R.guide.data[i * size_t(nc) + size_t(c)] - R.off.guide[size_t(c)]));
          v += dm * Ic;
          q += mean * Ic;
        } else {
          v += dm;
          q += mean;
        }
      }
      v += 2 * kUnit * q;  // the output's rounding to float (either side)
      worst = std::max(worst, v);
    }
  return worst * (1 + 1e-6);
}

}  // namespace satlab
