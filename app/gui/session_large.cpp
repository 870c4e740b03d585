// Images too large for one texture, or for a whole decode within the memory budget: the header is read
// first (io::open_image_reader), the overview is made in one pass by rows (io::read_reduced: a file pixel
// block per overview pixel, memory bounded), and a view zoomed past the overview's pixels decodes the
// visible region from the file at the display's resolution. TIFF rows are read where they lie; PNG and
// JPEG rows only forward, so each new region of those decodes the rows above it again: slow on a tall
// file, but bounded in memory, and nothing is cached beside the overview and the region shown.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "app/gui/session.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/reduced_read.hpp"
#include "app/io/stream_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/memory_budget.hpp"
#include "core/error.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::gui {
namespace {

// The overview's side at most: what the full pipeline filters a frame of.
constexpr uint32_t kOverviewSide = 2048;

std::string size_text(uint64_t w, uint64_t h) {
  return std::to_string(w) + "x" + std::to_string(h);
}

}  // namespace

bool Session::open_large(AppState& s, const std::string& path) {
  if (io::row_format(path).empty()) return false;  // read whole by its loader
  std::unique_ptr<io::ImageReader> reader;
  try {
    reader = io::open_srgb_reader(path);
  } catch (const Error&) {
    return false;  // the whole-image loader says what is wrong with it (or reads what rows cannot)
  }
  const io::StreamHeader& hd = reader->header();
  io::check_pixel_limit(path, hd.width, hd.height);
  const uint64_t limit = s.max_texture > 0 ? uint64_t(s.max_texture) : uint64_t(1) << 14;
  const bool too_wide = hd.width > limit || hd.height > limit;
  // Half the available memory, as the budget's default before its cap (the cap bounds streamed tiles, which
  // gain little from more; an image that fits opens whole).
  const uint64_t host = io::host_memory_available(), room = host ? host / 2 : uint64_t(1) << 30;
  const bool too_big = uint64_t(hd.width) * hd.height * io::kHostBytesPerPixel > room;
  if (!too_wide && !too_big) return false;
  if (hd.orientation >= 2 && hd.orientation <= 8)
    throw Error(path + ": " + size_text(hd.width, hd.height) +
                " is too large to open whole, and its orientation tag (" + std::to_string(hd.orientation) +
                ") turns the image, which an overview read by rows does not do");
  const uint32_t factor =
      io::reduction_factor(hd.width, hd.height, uint32_t(std::min<uint64_t>(limit, kOverviewSide)));
  ImageRGBA8 overview = io::read_reduced(*reader, {0, 0, int(hd.width), int(hd.height)}, factor);
  ImageF depth = make_synthetic_depth(s.synthetic, overview.width, overview.height);  // empty for mode none
  load(s, std::move(overview), depth);
  large_ = {path, hd.width, hd.height, factor};
  detail_region_ = PixelRect();
  detail_factor_ = 0;
  raw_ = depth;
  raw_confidence_ = ImageF();
  s.image_path = path;
  s.depth_path.clear();
  s.depth_source.clear();
  image_info_ = io::LoadInfo();
  s.load_notes = {path + " is " + size_text(hd.width, hd.height) + ", " +
                  (too_wide ? "more than a texture's " + std::to_string(limit) + " pixels a side"
                            : "more than half the available memory holds decoded") +
                  ": opened as an overview of 1/" + std::to_string(factor) +
                  ", detail decoded from the file as you zoom (synthetic depth only)"};
  reset_edit(s, depth.empty() ? DepthSource::None : DepthSource::Synthetic, to_spec(s.synthetic));
  truth_ = ImageRGBA8();
  s.truth.loaded.clear();
  s.truth.score.clear();
  return true;
}

Params Session::frame_params(const AppState& s) const {
  return large_.factor > 1 ? scale_params(s.params, 1.0 / large_.factor) : s.params;
}

bool Session::update_large(AppState& s) {
  const bool changed = s.params_changed || s.continuous;
  if (changed) s.params_changed = false, ++generation_;
  // Zoomed past the overview's pixels: the region from the file.
  const bool detail = s.display_scale > 1.0 && !s.visible.empty();
  const bool moved = detail != showing_preview_ ||
                     (detail && (s.visible != preview_visible_ || s.display_scale != preview_display_scale_));
  if (changed || moved) {
    if (detail) try {
        run_detail(s);
      } catch (const Error& e) {
        s.error = std::string("the detail of ") + large_.path + " failed: " + e.what();
      }
    else if (run_full(s))
      s.frame_note += " (overview 1/" + std::to_string(large_.factor) + " of " +
                      size_text(large_.width, large_.height) + ")";
  }
  if (!showing_preview_) {
    char note[192];
    std::snprintf(note, sizeof(note), "overview %dx%d: 1/%u of %s", image_.width, image_.height,
                  large_.factor, size_text(large_.width, large_.height).c_str());
    s.resolution_note = note;
  }
  return std::exchange(unseen_, false);
}

void Session::run_detail(AppState& s) {
  const uint32_t f = large_.factor;
  const int fw = int(large_.width), fh = int(large_.height);
  // File pixels per display pixel, and the decoded resolution: the coarsest power-of-2 fraction of the
  // file's that is at least as fine as the display's.
  const double per_display = double(f) / s.display_scale;
  uint32_t rf = 1;
  while (rf * 2 <= per_display) rf *= 2;
  // The visible file pixels, a halo of the filter's reach around them, on the grid of rf x rf blocks.
  const int halo = int(std::ceil(filter_reach(s.params))) + int(rf);
  auto down = [&](double v) { return std::max(0, int(std::floor(v)) / int(rf) * int(rf)); };
  PixelRect region{down(s.visible.x0 * double(f) - halo), down(s.visible.y0 * double(f) - halo),
                   std::min(fw, int(std::ceil(s.visible.x1 * double(f))) + halo),
                   std::min(fh, int(std::ceil(s.visible.y1 * double(f))) + halo)};
  if (region.empty()) return;
  // A pan stays within what was read: the region is read with a margin of a quarter of its size on each
  // side, so that a drag re-reads the file (every row above the region, for PNG and JPEG) only once it
  // leaves it, at the price of filtering up to 2.25x the pixels.
  const auto within = [](const PixelRect& in, const PixelRect& out) {
    return in.x0 >= out.x0 && in.y0 >= out.y0 && in.x1 <= out.x1 && in.y1 <= out.y1;
  };
  if (rf == detail_factor_ && within(region, detail_region_)) {
    region = detail_region_;
  } else {
    const int mx = region.width() / 4, my = region.height() / 4;
    region = {down(region.x0 - mx), down(region.y0 - my), std::min(fw, region.x1 + mx), std::min(fh, region.y1 + my)};
  }
  if (!preview_) {
    preview_ = pipeline_->backend_name().rfind("cpu", 0) == 0 ? make_cpu_pipeline() : make_backend(backend_);
    preview_->set_algorithms(s.algorithms);
    preview_stats_ = ~0u;
  }
  const auto t0 = std::chrono::steady_clock::now();
  double inputs_ms = -1;
  if (region != detail_region_ || rf != detail_factor_) {
    detail_region_ = PixelRect(), detail_factor_ = 0;                             // until made
    std::unique_ptr<io::ImageReader> reader = io::open_srgb_reader(large_.path);  // PNG, JPEG: forward only
    ImageRGBA8 img = io::read_reduced(*reader, region, rf);
    // The synthetic depth of the file's pixel at each block's centre (one file row a block row).
    ImageF depth;
    if (s.synthetic.mode != SyntheticDepth::Mode::None) {
      depth = ImageF(img.width, img.height);
      std::vector<float> row(static_cast<size_t>(fw));
      for (int y = 0; y < img.height; ++y) {
        const int fy = std::min(fh - 1, region.y0 + y * int(rf) + int(rf) / 2);
        synthetic_depth_rows(s.synthetic, fw, fh, fy, fy + 1, row.data(), row.size());
        for (int x = 0; x < img.width; ++x)
          depth.at(x, y) = row[size_t(std::min(fw - 1, region.x0 + x * int(rf) + int(rf) / 2))];
      }
    }
    if (preview_stats_ != inputs_) {  // the overview's depth stands for the whole file's
      preview_->set_frame_stats(whole_frame_stats(pipeline_depth()));
      preview_stats_ = inputs_;
    }
    preview_->set_image(img);
    if (!depth.empty()) preview_->set_depth(depth);
    preview_plan_.width = img.width, preview_plan_.height = img.height;
    detail_region_ = region, detail_factor_ = rf;
    inputs_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  // In overview pixels, for the tooltips and the CoC view (preview_plan_'s meaning).
  preview_plan_.source = {region.x0 / int(f), region.y0 / int(f), (region.x1 + int(f) - 1) / int(f),
                          (region.y1 + int(f) - 1) / int(f)};
  preview_plan_.scale = double(f) / rf;
  const auto t1 = std::chrono::steady_clock::now();
  preview_->set_params(rf > 1 ? scale_params(s.params, 1.0 / rf) : s.params);
  preview_->set_every_stage(false);
  preview_->run();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  ++s.preview_runs;
  s.show_timings_of(true);
  s.record(preview_->timings());
  if (inputs_ms >= 0)
    s.record_stage({"preview inputs", inputs_ms, 0, ""}, "host clock", "read from the file");
  s.highlights = preview_->highlight_stats();
  s.last_run = RunInfo{true,
                       preview_plan_.width,
                       preview_plan_.height,
                       image_.width,
                       image_.height,
                       preview_plan_.source,
                       preview_plan_.scale,
                       0,
                       ms,
                       false};
  showing_preview_ = s.showing_preview = unseen_ = true;
  preview_visible_ = s.visible;
  preview_display_scale_ = s.display_scale;
  char note[256];
  std::snprintf(note, sizeof(note), "detail %dx%d at 1/%u of %s (file pixels %d,%d-%d,%d)",
                preview_plan_.width, preview_plan_.height, rf, size_text(large_.width, large_.height).c_str(),
                region.x0, region.y0, region.x1, region.y1);
  s.resolution_note = note;
  std::snprintf(note, sizeof(note), "detail %dx%d at 1/%u of %s, %.1f ms%s", preview_plan_.width,
                preview_plan_.height, rf, size_text(large_.width, large_.height).c_str(), ms,
                inputs_ms >= 0 ? " (read from the file)" : "");
  s.frame_note = note;
}

}  // namespace satlab::gui
