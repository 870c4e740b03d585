// A pinhole camera and a thin-lens camera over the same image plane. Image points are in pixels,
// (0, 0) the top-left corner of the image, (W, H) the bottom-right one; fov is vertical.
#pragma once
#include "tools/scene/scene.hpp"

namespace satlab::scene {

struct Ray {
  V o, d;  // d unit length
};

struct Camera {
  V eye, forward, right, up;  // forward, right, up: orthonormal
  double fov_deg = 60.0;
  int width = 0, height = 0;

  // The scene's camera at W x H, its eye moved by eye_offset along `right` (a rectified stereo pair is
  // two cameras differing only in eye_offset).
  static Camera of(const Scene& s, int width, int height, double eye_offset = 0.0) {
    Camera c;
    c.forward = norm(s.forward);
    c.right = norm(cross(V{0, 1, 0}, c.forward));
    c.up = cross(c.forward, c.right);
    c.eye = s.eye + c.right * eye_offset;
    c.fov_deg = s.fov_deg;
    c.width = width;
    c.height = height;
    return c;
  }
  double tan_half_fov() const { return std::tan(0.5 * fov_deg * M_PI / 180.0); }
  // Focal length in pixels: H / (2 tan(fov / 2)).
  double focal_px() const { return height / (2.0 * tan_half_fov()); }
  // Camera-space depth of a point (distance along forward).
  double depth(V p) const { return dot(p - eye, forward); }

  Ray pinhole(double px, double py) const {
    const double t = tan_half_fov();
    const double u = (2 * px / width - 1) * t * width / height, v = (1 - 2 * py / height) * t;
    return {eye, norm(forward + right * u + up * v)};
  }
  // Thin lens of radius `radius` (scene units) focused at camera-space depth focus_z: the ray from the
  // lens point eye + radius * (lu right + lv up), (lu, lv) in the unit disc, through the point where
  // the pinhole ray of (px, py) meets the focal plane. A point at depth z then spreads over a disc of
  // radius focal_px() * radius * |1/z - 1/focus_z| pixels.
  Ray thin_lens(double px, double py, double lu, double lv, double radius, double focus_z) const {
    const Ray c = pinhole(px, py);
    const V focal = eye + c.d * (focus_z / dot(c.d, forward));
    const V o = eye + right * (radius * lu) + up * (radius * lv);
    return {o, norm(focal - o)};
  }
};

}  // namespace satlab::scene
