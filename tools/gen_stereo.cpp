// Rectified stereo pairs of the bundled scenes with exact disparity, for scoring stereo matchers
// (tools/stereo_bench.py, docs/quality.md). Two pinhole cameras of identical orientation, the right one's
// eye moved by the baseline B along the camera's right axis (tools/scene/camera.hpp): a point at
// camera-space depth z appears d = f_px * B / z pixels further left in the right image. B is chosen so
// that the nearest visible point has --max-disparity. The truth is the left image's disparity at each
// pixel centre where that point is seen by the right camera too (a ray from the right eye reaches it
// unblocked, inside the right image): KITTI's 16-bit encoding (d x 256), 0 where occluded or out of view.
//   gen_stereo OUT_DIR [--scene NAME|all] [--size W H] [--max-disparity D] [--ss N]
// Writes OUT_DIR/NAME_left.png, NAME_right.png, NAME_disp.png and OUT_DIR/pairs.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/stereo.hpp"
#include "tools/scene/render.hpp"

namespace sc = satlab::scene;

int main(int argc, char** argv) try {
  std::string out, which = "all";
  int W = 640, H = 360, ss = 3;
  double max_disp = 48;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--scene" && i + 1 < argc) {
      which = argv[++i];
    } else if (a == "--size" && i + 2 < argc) {
      W = std::atoi(argv[++i]);
      H = std::atoi(argv[++i]);
    } else if (a == "--max-disparity" && i + 1 < argc) {
      max_disp = std::atof(argv[++i]);
    } else if (a == "--ss" && i + 1 < argc) {
      ss = std::atoi(argv[++i]);
    } else if (a.size() > 1 && a[0] == '-') {
      throw satlab::Error("unknown option '" + a + "'");
    } else if (out.empty()) {
      out = a;
    } else {
      throw satlab::Error(
          "usage: gen_stereo OUT_DIR [--scene NAME|all] [--size W H] [--max-disparity D] [--ss N]");
    }
  }
  if (out.empty())
    throw satlab::Error(
        "usage: gen_stereo OUT_DIR [--scene NAME|all] [--size W H] [--max-disparity D] [--ss N]");
  if (W < 16 || H < 16 || W > 8192 || H > 8192) throw satlab::Error("--size: W and H in [16, 8192]");
  if (!(max_disp >= 1 && max_disp <= 250)) throw satlab::Error("--max-disparity: in [1, 250]");
  if (ss < 1 || ss > 8) throw satlab::Error("--ss: in [1, 8]");
  std::vector<const sc::Scene*> list;
  if (which == "all") {
    list = sc::scenes();
  } else if (const sc::Scene* s = sc::find_scene(which)) {
    list = {s};
  } else {
    throw satlab::Error("unknown scene '" + which + "'");
  }
  nlohmann::json manifest = nlohmann::json::array();
  for (const sc::Scene* s : list) {
    const sc::Camera left = sc::Camera::of(*s, W, H);
    const double f = left.focal_px();
    // The nearest point in view fixes the baseline.
    std::vector<double> z(size_t(W) * size_t(H));
    std::vector<sc::V> point(z.size());
    std::vector<char> hit(z.size());
    satlab::parallel_for(0, H, [&](long y0, long y1) {
      for (int y = int(y0); y < int(y1); ++y)
        for (int x = 0; x < W; ++x) {
          const sc::Ray r = left.pinhole(x + 0.5, y + 0.5);
          const sc::Hit h = sc::trace(*s, r.o, r.d);
          const size_t i = size_t(y) * size_t(W) + size_t(x);
          hit[i] = h.kind != sc::Hit::None && h.t < 1e3;
          point[i] = r.o + r.d * h.t;
          z[i] = hit[i] ? left.depth(point[i]) : 1e30;
        }
    });
    const double z_min = *std::min_element(z.begin(), z.end());
    const double baseline = max_disp * z_min / f;
    const sc::Camera right = sc::Camera::of(*s, W, H, baseline);
    const sc::PinholeView lv = sc::render_pinhole(*s, left, ss), rv = sc::render_pinhole(*s, right, ss);
    std::vector<uint16_t> truth(z.size(), 0);
    size_t visible = 0;
    satlab::parallel_for(0, H, [&](long y0, long y1) {
      for (int y = int(y0); y < int(y1); ++y)
        for (int x = 0; x < W; ++x) {
          const size_t i = size_t(y) * size_t(W) + size_t(x);
          if (!hit[i]) continue;
          const double d = f * baseline / z[i];
          if (x + 0.5 - d < 0) continue;  // outside the right image
          const sc::V to = point[i] - right.eye;
          const double dist = std::sqrt(sc::dot(to, to));
          const sc::Hit h = sc::trace(*s, right.eye, to * (1.0 / dist));
          if (h.t < dist * (1 - 1e-6) - 1e-6) continue;  // something nearer blocks the right camera's view
          truth[i] = satlab::kitti_disparity(float(d));
        }
    });
    for (uint16_t t : truth) visible += t != 0;
    const std::string base = out + "/" + s->name;
    satlab::io::save_png(base + "_left.png", lv.image);
    satlab::io::save_png(base + "_right.png", rv.image);
    satlab::io::save_png16_raw(base + "_disp.png", W, H, truth);
    manifest.push_back({{"scene", s->name},
                        {"left", s->name + "_left.png"},
                        {"right", s->name + "_right.png"},
                        {"disparity", s->name + "_disp.png"},
                        {"width", W},
                        {"height", H},
                        {"focal_px", f},
                        {"baseline", baseline},
                        {"max_disparity", max_disp},
                        {"non_occluded", double(visible) / double(truth.size())}});
    std::printf("%s: %dx%d, f %.1f px, baseline %.4f, disparities up to %.1f, %.1f%% with truth\n",
                base.c_str(), W, H, f, baseline, max_disp, 100.0 * double(visible) / double(truth.size()));
  }
  satlab::io::save_text(out + "/pairs.json", manifest.dump(1) + "\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gen_stereo: %s\n", e.what());
  return 1;
}
