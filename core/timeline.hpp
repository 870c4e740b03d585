// Parameters over time (issue 45, focus over time): keys at times in seconds, each setting some of the
// focus, aperture, focus range and blur limit, or a focus point whose depth is re-read every frame. Between
// two keys that set a field it moves by the later key's easing (a rack focus); before the first key and
// after the last it holds. Keys may also move the synthetic depth's fields (a tilt-shift band that
// travels, a radial focus that follows a subject). `satlab render --keys K.json` and presets ("keys") carry them.
#pragma once
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/params.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab {

enum class Ease { Smooth, Linear, Hold };  // smoothstep, straight, a step at the later key
const char* to_string(Ease e);
Ease parse_ease(const std::string& name);  // throws satlab::Error naming the choices

struct ParamKey {
  double time = 0;  // seconds
  Ease ease = Ease::Smooth;  // how the fields reach this key from the key before
  // The fields this key sets (NaN: not set).
  float focus = __builtin_nanf(""), aperture = __builtin_nanf(""), focus_range = __builtin_nanf(""),
        max_radius = __builtin_nanf("");
  // Focus on the depth at this point (normalised image coordinates in [0,1]); x < 0: none. Sets the focus.
  float point_x = -1.f, point_y = -1.f;
  // Fields of the synthetic depth (SyntheticDepth's, by the same names; NaN: not set): where a clip's depth
  // is synthetic, it is made again at every frame from them.
  static constexpr int kSyntheticFields = 6;
  static constexpr const char* kSyntheticNames[kSyntheticFields] = {"angle", "position", "width", "x", "y", "radius"};
  float synthetic[kSyntheticFields] = {__builtin_nanf(""), __builtin_nanf(""), __builtin_nanf(""),
                                       __builtin_nanf(""), __builtin_nanf(""), __builtin_nanf("")};
  bool sets_focus() const { return focus == focus || point_x >= 0.f; }
  bool sets_synthetic() const {
    for (float v : synthetic)
      if (v == v) return true;
    return false;
  }
};

// SyntheticDepth's field i in ParamKey::kSyntheticNames order (angle, position, width, centre x, centre y,
// radius).
float& synthetic_field(SyntheticDepth& d, int i);

class Timeline {
 public:
  Timeline() = default;
  // Sorted by time; throws satlab::Error for two keys at one time, a negative or non-finite time, a value
  // out of its range (as validate(Params) checks), or a point outside [0,1]^2.
  explicit Timeline(std::vector<ParamKey> keys);
  bool empty() const { return keys_.empty(); }
  const std::vector<ParamKey>& keys() const { return keys_; }
  // `base` with every keyed field at time t. depth: the frame's depth (normalised), for focus points; a
  // point's focus is the median depth of the 5 x 5 pixels around it.
  Params at(const Params& base, double t, const ImageF* depth = nullptr) const;
  // `base` with every keyed synthetic-depth field at time t; moves_synthetic(): a key sets one.
  SyntheticDepth synthetic_at(const SyntheticDepth& base, double t) const;
  bool moves_synthetic() const;
  // The keys with one set or replaced at `key.time` (its fields over the key there), or the key nearest
  // `time` within `within` seconds removed (false: none there). For the app's timeline.
  void set(const ParamKey& key);
  bool remove_near(double time, double within);

 private:
  std::vector<ParamKey> keys_;
  void check() const;  // throws satlab::Error as the constructor says
};

// The focus a point gives on a depth map: the median of the 5 x 5 pixels around (x, y) in [0,1]^2.
float focus_at_point(const ImageF& depth, float x, float y);

}  // namespace satlab
