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
  float at(double ax, double ay) const;  // the weight at (ax, ay) in [-1, 1]^2 (nearest texel; 0 outside)
};

constexpr int kMaxApertureImageSide = 4096;
constexpr int kImageMomentSearch = 32;

// A picture as an aperture: greyscale (R = G = B within 2 levels, alpha multiplying), at most
// kMaxApertureImageSide on a side, not all black. Cropped to the square about the bounding box of its
// pixels above 1/20 of the brightest, normalised to a largest weight of 1. Throws satlab::Error naming
// `what` and what is wrong.
ApertureImage aperture_image_from_pixels(const ImageRGBA8& img, const std::string& what);

// The built-in pictures: star (five points, one up), heart, ring (a mirror lens: hole 0.5), blades5 ..
// blades8 (rounded iris blades). nullptr for another name.
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

}  // namespace satlab
