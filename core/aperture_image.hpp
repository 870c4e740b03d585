// Aperture images (Params::aperture_image): a greyscale picture as the lens's aperture (a star, a heart,
// a ring, a scan of a lens's bokeh), drawn by spread and the bokeh highlights as the rectangles of rows
// that SAT corners carry.
//
// Geometry. The picture's square is the aperture's: its half-side is the CoC, so a disc inscribed in
// it draws the same bokeh as the built-in disc. It shows upright in the bokeh of a point behind the focus
// plane (CoC < 0) and turned by 180 degrees in front of it, as a card cut into a shape and held in front
// of a lens does (the thin lens: a point's bokeh is the aperture scaled by its signed CoC,
// tools/scene/render.hpp). Params::anamorphic and blade_rotation squeeze and turn it as any aperture.
//
// Rectangles. Aperture r is the picture's cells at radius R (each the mean of its samples, in when at
// least 1/2), as row bands: rows with the same spans merged, then the pair of adjacent bands whose merge
// (each span the median of its rows' ends, rows with more spans filled across their narrowest gaps)
// loses the fewest pixels merged, until at most dof::kMaxRects rectangles are left (one of them the
// centre pixel where the picture leaves it out: a pixel's own splat must cover it). R is the radius whose
// rectangles' second moment is nearest the picture's, k (r^2 - 1/6) (core/dof.cpp's rule for the
// built-in shapes), searched up to radius kImageMomentSearch; beyond it R = r.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/dof_pixel.hpp"
#include "core/image.hpp"

namespace satlab {

struct Params;

struct ApertureImage {
  int size = 0;          // size x size
  std::vector<float> v;  // weights in [0, 1], row-major, y down; the largest is 1
  std::string digest;    // what the rectangles depend on (a hash of v), for the tables' keys
  // Grey levels (a scan's bright rim, a soft edge): at least kGreyShare of the pixels that let light
  // through (above 1/20) lie between 0.2 and 0.8. Spread then draws the picture in kGreyLevels levels
  // (image_grey_levels); a picture of one level is drawn flat, its cells in when at least half covered.
  bool grey = false;
  float at(double ax, double ay) const;  // the weight at (ax, ay) in [-1, 1]^2 (nearest texel; 0 outside)
};

constexpr int kMaxApertureImageSide = 4096;
constexpr double kGreyShare = 0.1;
// The levels of a grey picture: a cell's weight (the mean of its samples) is drawn by the highest of the
// thresholds kGreyThreshold it reaches, at the mean weight of the cells of that level (image_grey_levels).
constexpr int kGreyLevels = 3;
constexpr float kGreyThreshold[kGreyLevels] = {1.f / 6.f, 0.5f, 5.f / 6.f};
constexpr int kImageMomentSearch = 32;

// A picture as an aperture: greyscale (R = G = B within 2 levels, alpha multiplying), at most
// kMaxApertureImageSide on a side, not all black. Cropped to the square about the bounding box of its
// pixels above 1/20 of the brightest, normalised to a largest weight of 1. Throws satlab::Error naming
// `what` and what is wrong.
ApertureImage aperture_image_from_pixels(const ImageRGBA8& img, const std::string& what);

// The built-in pictures: star (five points, one up), heart, ring (a mirror lens: hole 0.5), blades5 ..
// blades8 (rounded iris blades), bubble (grey levels: a disc at 0.45 with a bright rim from 0.8 of the
// radius, as a scan of a soap-bubble lens's bokeh). nullptr for another name.
std::shared_ptr<const ApertureImage> builtin_aperture_image(const std::string& name);
std::string builtin_aperture_list();  // "star, heart, ..."
std::vector<std::string> builtin_aperture_names();
bool is_builtin_aperture(const std::string& name);

// The pictures by key (Params::aperture_image): the built-ins by name, files once registered (the I/O
// layer loads them: app/io/aperture_files.hpp). nullptr: unknown.
void register_aperture_image(const std::string& key, const ApertureImage& image);
std::shared_ptr<const ApertureImage> find_aperture_image(const std::string& key);

// The picture's second moment over its weight (the mean of x^2 + y^2, the square's half-side 1), each
// axis scaled by the squeeze as Params::anamorphic says.
double aperture_image_moment(const ApertureImage& im, double squeeze);

// Aperture r of the picture under p's squeeze and rotation: n <= most disjoint rectangles within
// the square of radius r, the centre pixel among them, upright (as behind the focus plane).
int image_aperture(const ApertureImage& im, const Params& p, int r, dof::Rect* out, int most = dof::kMaxRects);
// The rectangles a picture's cells at radius R give (the band merging above), at most `most`.
int image_rects_at(const ApertureImage& im, const Params& p, int r, double R, int most, dof::Rect* out);
// A grey picture's aperture r under p's squeeze and rotation (the cells at radius r, no moment search: the
// square's half-side is the CoC): level l's rectangles, the cells of weight at least kGreyThreshold[l], at
// most `most` of them, into out + l * most, their count in counts[l], and mults[l], the step in 32nds from
// the mean weight of the cells whose highest level is l - 1 to that of those whose is l (0: none; a level
// with no cells of its own takes none). Level 0 holds the centre pixel (a pixel's own splat covers it);
// each level's cells lie within the level's below.
void image_grey_levels(const ApertureImage& im, const Params& p, int r, int most, dof::Rect* out, int* counts,
                       int* mults);

}  // namespace satlab
