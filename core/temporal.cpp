#include "core/temporal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace satlab {

void TemporalFilter::apply(ImageF& depth, const ImageRGBA8& image, int threads) {
  if (depth.empty() || depth.channels != 1) throw Error("temporal filter: need a 1-channel depth map");
  if (image.width != depth.width || image.height != depth.height)
    throw Error("temporal filter: the depth and the frame differ in size");
  const size_t n = depth.pixels();
  if (running_.width != depth.width || running_.height != depth.height) {  // the first frame
    running_ = depth;
    prev_.resize(n * 3);
    span_ = depth_span(depth);
  } else {
    const float depth_s2 = temporal_depth_s2(p_, span_), colour_s2 = temporal_colour_s2(p_);
    const float h = p_.history;
    parallel_for(0, long(n), [&](long b, long e) {
      for (long j = b; j < e; ++j) {
        const size_t i = size_t(j);
        running_.data[i] = temporal::step(running_.data[i], depth.data[i], image.data.data() + i * 4, prev_.data() + i * 3,
                                          depth_s2, colour_s2, h);
      }
    }, threads);
    depth.data = running_.data;
  }
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) prev_[i * 3 + size_t(k)] = image.data[i * 4 + size_t(k)];
}

bool parse_temporal(const std::string& spec, TemporalParams* p) {
  *p = TemporalParams{};
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  if (name == "off" && colon == std::string::npos) return false;
  if (name != "gated") throw Error("unknown temporal filter '" + spec + "' (off, gated[:history=H,depth=S,colour=C])");
  if (colon == std::string::npos) return true;
  size_t at = colon + 1;
  while (at <= spec.size()) {
    const size_t comma = std::min(spec.find(',', at), spec.size());
    const std::string kv = spec.substr(at, comma - at);
    const size_t eq = kv.find('=');
    char* end = nullptr;
    const float v = eq == std::string::npos ? 0.f : std::strtof(kv.c_str() + eq + 1, &end);
    if (eq == std::string::npos || !end || *end || !std::isfinite(v))
      throw Error("temporal filter: '" + kv + "' is not KEY=NUMBER (history, depth, colour)");
    const std::string k = kv.substr(0, eq);
    if (k == "history" && v >= 0.f && v < 1.f) p->history = v;
    else if (k == "depth" && v > 0.f) p->depth_sigma = v;
    else if (k == "colour" && v > 0.f) p->colour_sigma = v;
    else throw Error("temporal filter: '" + kv + "' (history in [0,1), depth > 0, colour > 0)");
    at = comma + 1;
  }
  return true;
}

float depth_span(const ImageF& depth) {
  float lo = INFINITY, hi = -INFINITY;
  for (float v : depth.data)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  return hi > lo ? hi - lo : 1.f;
}

const std::vector<TemporalRow>& temporal_rows() {
  static const std::vector<TemporalRow> rows = {
      {"gated", "gated running depth",
       "a recursive filter gated by colour and depth change (after Lang et al., SIGGRAPH 2012)"}};
  return rows;
}

const std::vector<std::string>& temporal_filter_names() {
  static const std::vector<std::string> names = {"off", "gated"};
  return names;
}

}  // namespace satlab
