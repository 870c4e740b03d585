// RGBA8 (full-range sRGB, alpha ignored) to 8-bit Y'CbCr 4:2:0 with BT.709's matrix in limited range, what
// satlab's clip writer hands H.264 and HEVC encoders (and states in the stream: BT.709, limited). Integer
// arithmetic in 16-bit fixed point, one source for the CPU reference and the GPU kernel (gpu/convert), so
// the two agree bit for bit. Chroma: the 2 x 2 block's mean RGB (the pixels that exist at an odd edge),
// converted once. Planes: Y width x height; Cb and Cr ceil(width/2) x ceil(height/2), rows packed.
#pragma once
#include <cstdint>
#include <vector>

#include "core/hd.hpp"
#include "core/image.hpp"

namespace satlab {

namespace yuv {

// Y' = 16 + 219/255 (0.2126 R + 0.7152 G + 0.0722 B), rounded; the weights' sum is 219/255 * 65536.
SATLAB_HD uint8_t luma(int r, int g, int b) { return uint8_t(16 + ((11966 * r + 40254 * g + 4064 * b + 32768) >> 16)); }
// Cb, Cr = 128 + 224/255 (B - Y) / 1.8556, (R - Y) / 1.5748 of the block's RGB sums over n pixels (1..4):
// the weights sum to 0, so the mean is the sum over n in the same fixed point.
SATLAB_HD uint8_t chroma_b(int r, int g, int b, int n) {
  const int v = -6596 * r - 22189 * g + 28785 * b;
  return uint8_t(128 + (v + 32768 * n) / (65536 * n) - ((v + 32768 * n) % (65536 * n) < 0 ? 1 : 0));
}
SATLAB_HD uint8_t chroma_r(int r, int g, int b, int n) {
  const int v = 28784 * r - 26145 * g - 2639 * b;
  return uint8_t(128 + (v + 32768 * n) / (65536 * n) - ((v + 32768 * n) % (65536 * n) < 0 ? 1 : 0));
}

}  // namespace yuv

struct Yuv420 {
  int width = 0, height = 0;
  std::vector<uint8_t> y, u, v;
  Yuv420() = default;
  Yuv420(int w, int h)
      : width(w), height(h), y(size_t(w) * size_t(h)), u(size_t((w + 1) / 2) * size_t((h + 1) / 2)), v(u.size()) {}
  int chroma_width() const { return (width + 1) / 2; }
  int chroma_height() const { return (height + 1) / 2; }
};

// `rgba` into `out` (made its size where it is not); rows split over `threads` (<= 0: all).
void rgba_to_yuv420(const ImageRGBA8& rgba, Yuv420& out, int threads = 0);

// The other way, for frames decoded on the GPU (NVDEC): semi-planar Y'CbCr 4:2:0 as the decoder leaves it
// (a Y plane, then one plane of interleaved Cb Cr pairs at half the size; 1 byte a sample (NV12) or 2 with
// the value in the high bits (P010, P016)) to full-range RGBA8 (alpha 255), turned as a display matrix
// asks. Integer arithmetic in one source for the CPU reference and the GPU kernel (gpu/convert), which
// agree bit for bit; FFmpeg's swscale (the CPU decoder's conversion) differs from it by its own rounding.
// Chroma is sited as the stream says (Yuv420SP's h_cosited, v_cosited; H.264's and HEVC's default, MPEG-2's:
// on the even columns, between the rows); each pixel's Cb and Cr are bilinear in it (weights in 1/16, edges
// clamped).
namespace yuv {

enum class Matrix { Bt601, Bt709, Bt2020 };

// The fixed-point conversion of one matrix, range and bit depth (made on the host, used as is on both sides).
struct InCoeffs {
  int bits = 8;         // bits a sample holds
  int y_off = 16;       // black's Y'
  int c_off = 128;      // the chroma zero
  int cy = 0;           // 2^16 * 255 / Y' range
  int crv = 0, cgu = 0, cgv = 0, cbu = 0;  // 2^16 * 255 * the matrix's chroma weights / chroma range
};
InCoeffs in_coeffs(Matrix m, bool full_range, int bits);

// One channel from Y' and a chroma term (16 x the interpolated chroma's weighted sum, offset removed).
SATLAB_HD uint8_t to_channel(int y_term, int c_term) {
  const int v = (y_term + c_term + (1 << 19)) >> 20;
  return uint8_t(v < 0 ? 0 : (v > 255 ? 255 : v));
}
// cb16, cr16: the chroma's weighted sums (weights summing to 16).
SATLAB_HD void to_rgb(const InCoeffs& k, int y, int cb16, int cr16, uint8_t* rgb) {
  const int yt = 16 * k.cy * (y - k.y_off), u = cb16 - 16 * k.c_off, v = cr16 - 16 * k.c_off;
  rgb[0] = to_channel(yt, k.crv * v);
  rgb[1] = to_channel(yt, -k.cgu * u - k.cgv * v);
  rgb[2] = to_channel(yt, k.cbu * u);
}

// Source pixel of output pixel (x, y) of a w x h image turned counter-clockwise by deg (0, 90, 180, 270).
SATLAB_HD void turned_source(int deg, int x, int y, int w, int h, int* sx, int* sy) {
  *sx = x, *sy = y;
  if (deg == 90) *sx = w - 1 - y, *sy = x;
  if (deg == 180) *sx = w - 1 - x, *sy = h - 1 - y;
  if (deg == 270) *sx = y, *sy = h - 1 - x;
}

// Along one axis, the two chroma samples (of n) that luma sample x lies between and the first one's weight
// out of 4: sited on the even luma samples (`cosited`: 4 there, 2 and 2 between) or halfway between two (3
// on the nearer, 1 on the other); edges clamped.
struct AxisTaps {
  int a, b, wa;
};
SATLAB_HD AxisTaps axis_taps(int x, int n, bool cosited) {
  AxisTaps t;
  t.a = x >> 1;
  if (cosited) {
    t.b = (x & 1) ? (t.a + 1 < n ? t.a + 1 : n - 1) : t.a;
    t.wa = (x & 1) ? 2 : 4;
  } else {
    const int b = (x & 1) ? t.a + 1 : t.a - 1;
    t.b = b < 0 ? 0 : (b >= n ? n - 1 : b);
    t.wa = 3;
  }
  return t;
}

}  // namespace yuv

// 4:2:0 planes in memory (host for the reference, device for the kernel): semi-planar (Cb Cr pairs in `uv`,
// `v` null: NV12, P010, P016, as NVDEC leaves them) or planar (Cb in `uv`, Cr in `v`: FFmpeg's software
// decoders' yuv420p and yuv420p10le).
struct Yuv420SP {
  const uint8_t* y = nullptr;
  size_t y_pitch = 0;  // bytes
  const uint8_t* uv = nullptr;
  size_t uv_pitch = 0;
  const uint8_t* v = nullptr;  // planar: the Cr plane (v_pitch apart); null: Cr follows each Cb in uv
  size_t v_pitch = 0;
  int width = 0, height = 0;  // luma, as stored (before turning)
  int bytes = 1;              // a sample's bytes: 1, or 2 (little-endian)
  int shift = 0;              // 2-byte samples: the value is the sample >> shift (P010: 6; yuv420p10le: 0)
  bool h_cosited = true;      // chroma on the even columns (else halfway between two)
  bool v_cosited = false;     // chroma on the even rows (else halfway between two)
  SATLAB_HD int chroma_width() const { return (width + 1) / 2; }
  SATLAB_HD int chroma_height() const { return (height + 1) / 2; }
};
namespace yuv {
// Output pixel (ox, oy) of `in` turned by `rotation`: its RGB, the CPU reference's and the kernel's one step.
// `sample(row, i)`: the i-th sample of a plane's row, its value (1 or 2 bytes, shifted).
template <class Sample>
SATLAB_HD void pixel_rgb(const Yuv420SP& in, const InCoeffs& k, int rotation, int ox, int oy, const Sample& sample,
                         uint8_t* rgb) {
  int x = 0, y = 0;
  turned_source(rotation, ox, oy, in.width, in.height, &x, &y);
  const AxisTaps h = axis_taps(x, in.chroma_width(), in.h_cosited), v = axis_taps(y, in.chroma_height(), in.v_cosited);
  int c16[2];
  for (int c = 0; c < 2; ++c) {
    const uint8_t* plane = in.v && c == 1 ? in.v : in.uv;
    const size_t pitch = in.v && c == 1 ? in.v_pitch : in.uv_pitch;
    const int step = in.v ? 1 : 2, off = in.v ? 0 : c;
    const uint8_t* ra = plane + size_t(v.a) * pitch;
    const uint8_t* rb = plane + size_t(v.b) * pitch;
    c16[c] = v.wa * (h.wa * sample(ra, step * h.a + off) + (4 - h.wa) * sample(ra, step * h.b + off)) +
             (4 - v.wa) * (h.wa * sample(rb, step * h.a + off) + (4 - h.wa) * sample(rb, step * h.b + off));
  }
  to_rgb(k, sample(in.y + size_t(y) * in.y_pitch, x), c16[0], c16[1], rgb);
}
}  // namespace yuv

// `in` into `out` (made its size, turned), rows split over `threads` (<= 0: all).
void yuv420sp_to_rgba(const Yuv420SP& in, const yuv::InCoeffs& k, int rotation, ImageRGBA8& out, int threads = 0);

}  // namespace satlab
