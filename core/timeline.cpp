#include "core/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/error.hpp"

namespace satlab {

const char* to_string(Ease e) {
  switch (e) {
    case Ease::Smooth: return "smooth";
    case Ease::Linear: return "linear";
    case Ease::Hold: return "hold";
  }
  return "smooth";
}

Ease parse_ease(const std::string& name) {
  if (name == "smooth") return Ease::Smooth;
  if (name == "linear") return Ease::Linear;
  if (name == "hold") return Ease::Hold;
  throw Error("unknown easing '" + name + "' (smooth, linear, hold)");
}

float& synthetic_field(SyntheticDepth& d, int i) {
  switch (i) {
    case 0: return d.angle;
    case 1: return d.position;
    case 2: return d.width;
    case 3: return d.centre_x;
    case 4: return d.centre_y;
    default: return d.radius;
  }
}

Timeline::Timeline(std::vector<ParamKey> keys) : keys_(std::move(keys)) {
  std::stable_sort(keys_.begin(), keys_.end(), [](const ParamKey& a, const ParamKey& b) { return a.time < b.time; });
  check();
}

void Timeline::check() const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    const ParamKey& k = keys_[i];
    const std::string where = "key at " + std::to_string(k.time) + " s";
    if (!std::isfinite(k.time) || k.time < 0) throw Error("a key's time must be a finite number of seconds >= 0");
    if (i > 0 && keys_[i - 1].time == k.time) throw Error("two keys at " + std::to_string(k.time) + " s");
    if (k.point_x >= 0.f && !(k.point_x <= 1.f && k.point_y >= 0.f && k.point_y <= 1.f))
      throw Error(where + ": a focus point is in [0,1] x [0,1] (a fraction of the frame)");
    if (k.point_x >= 0.f && k.focus == k.focus) throw Error(where + ": a focus and a focus point both");
    Params p;  // each value checked as the filter checks it
    if (k.focus == k.focus) p.focus = k.focus;
    if (k.aperture == k.aperture) p.aperture = k.aperture;
    if (k.focus_range == k.focus_range) p.focus_range = k.focus_range;
    if (k.max_radius == k.max_radius) p.max_radius = k.max_radius;
    SyntheticDepth d;  // the synthetic fields as parse_synthetic_depth checks them
    for (int f = 0; f < ParamKey::kSyntheticFields; ++f)
      if (k.synthetic[f] == k.synthetic[f]) synthetic_field(d, f) = k.synthetic[f];
    try {
      validate(p);
      validate(d);
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
  }
}

void Timeline::set(const ParamKey& key) {
  std::vector<ParamKey> keys = keys_;
  auto same = std::find_if(keys.begin(), keys.end(), [&](const ParamKey& k) { return k.time == key.time; });
  if (same == keys.end()) {
    keys.push_back(key);
  } else {  // the new key's fields over the old one's
    ParamKey k = *same;
    k.ease = key.ease;
    if (key.focus == key.focus) k.focus = key.focus, k.point_x = k.point_y = -1.f;
    if (key.point_x >= 0.f) k.point_x = key.point_x, k.point_y = key.point_y, k.focus = __builtin_nanf("");
    if (key.aperture == key.aperture) k.aperture = key.aperture;
    if (key.focus_range == key.focus_range) k.focus_range = key.focus_range;
    if (key.max_radius == key.max_radius) k.max_radius = key.max_radius;
    for (int f = 0; f < ParamKey::kSyntheticFields; ++f)
      if (key.synthetic[f] == key.synthetic[f]) k.synthetic[f] = key.synthetic[f];
    *same = k;
  }
  *this = Timeline(std::move(keys));  // checked before it replaces anything
}

bool Timeline::remove_near(double time, double within) {
  auto best = keys_.end();
  for (auto it = keys_.begin(); it != keys_.end(); ++it)
    if (std::abs(it->time - time) <= within && (best == keys_.end() || std::abs(it->time - time) < std::abs(best->time - time)))
      best = it;
  if (best == keys_.end()) return false;
  keys_.erase(best);
  return true;
}

float focus_at_point(const ImageF& depth, float x, float y) {
  if (depth.empty()) return __builtin_nanf("");
  const int cx = std::clamp(int(x * float(depth.width)), 0, depth.width - 1);
  const int cy = std::clamp(int(y * float(depth.height)), 0, depth.height - 1);
  std::vector<float> v;
  for (int yy = std::max(0, cy - 2); yy <= std::min(depth.height - 1, cy + 2); ++yy)
    for (int xx = std::max(0, cx - 2); xx <= std::min(depth.width - 1, cx + 2); ++xx)
      if (std::isfinite(depth.at(xx, yy))) v.push_back(depth.at(xx, yy));
  if (v.empty()) return __builtin_nanf("");
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return std::clamp(v[v.size() / 2], 0.f, 1.f);
}

namespace {

// One field at time t: the keys that set it around t, eased by the later one.
void keyed_field(const std::vector<ParamKey>& keys_, double t, const std::function<bool(const ParamKey&)>& sets,
                 const std::function<float(const ParamKey&)>& value, float& out) {
    const ParamKey* before = nullptr;
    const ParamKey* after = nullptr;
    for (const ParamKey& k : keys_) {
      if (!sets(k)) continue;
      if (k.time <= t) before = &k;
      if (k.time > t && !after) after = &k;
    }
    if (!before && !after) return;
    if (!before || !after) {
      const float v = value(before ? *before : *after);
      if (v == v) out = v;
      return;
    }
    const float a = value(*before), b = value(*after);
    if (!(a == a) || !(b == b)) {  // a point off the depth: the other key's value
      if (a == a) out = a;
      else if (b == b) out = b;
      return;
    }
    double s = (t - before->time) / (after->time - before->time);
    if (after->ease == Ease::Hold) s = 0;
    if (after->ease == Ease::Smooth) s = s * s * (3 - 2 * s);
    out = float(double(a) + (double(b) - double(a)) * s);
}

}  // namespace

bool Timeline::moves_synthetic() const {
  return std::any_of(keys_.begin(), keys_.end(), [](const ParamKey& k) { return k.sets_synthetic(); });
}

SyntheticDepth Timeline::synthetic_at(const SyntheticDepth& base, double t) const {
  SyntheticDepth d = base;
  for (int f = 0; f < ParamKey::kSyntheticFields; ++f)
    keyed_field(keys_, t, [f](const ParamKey& k) { return k.synthetic[f] == k.synthetic[f]; },
                [f](const ParamKey& k) { return k.synthetic[f]; }, synthetic_field(d, f));
  return d;
}

Params Timeline::at(const Params& base, double t, const ImageF* depth) const {
  Params p = base;
  auto field = [&](const std::function<bool(const ParamKey&)>& sets, const std::function<float(const ParamKey&)>& value,
                   float& out) { keyed_field(keys_, t, sets, value, out); };
  field([](const ParamKey& k) { return k.sets_focus(); },
        [&](const ParamKey& k) {
          return k.point_x >= 0.f ? (depth ? focus_at_point(*depth, k.point_x, k.point_y) : __builtin_nanf("")) : k.focus;
        },
        p.focus);
  field([](const ParamKey& k) { return k.aperture == k.aperture; }, [](const ParamKey& k) { return k.aperture; },
        p.aperture);
  // A key's focus range is the symmetric +-t: both inner widths (the ramps stay the base's).
  const auto sets_range = [](const ParamKey& k) { return k.focus_range == k.focus_range; };
  field(sets_range, [](const ParamKey& k) { return k.focus_range; }, p.focus_range);
  if (std::any_of(keys_.begin(), keys_.end(), sets_range)) p.focus_range_far = p.focus_range;
  field([](const ParamKey& k) { return k.max_radius == k.max_radius; }, [](const ParamKey& k) { return k.max_radius; },
        p.max_radius);
  return p;
}

}  // namespace satlab
