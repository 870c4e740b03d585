// satlab render: filter images without a window and write the results (app/io/file_formats.hpp: PNG, JPEG,
// WebP or TIFF by --out's extension; PNG in --out-dir). One image (--out FILE) or several, and folders of
// them (--out-dir DIR, names derived from the inputs and the parameters). Each image takes the depth of
// the subject selected at --subject's positions (one image only), else the depth map --depth names (one
// image only), else NAME.depth.png / NAME_depth.png beside it, else the depth embedded in the image
// (GDepth, Dynamic Depth, HEIC: app/io/embedded_depth.hpp), else a synthetic depth map (--synthetic-depth),
// brought to the image's size by a depth refiner (--refine; app/ops/depth_refine.hpp). Parameters come from the defaults, then --preset, then the options given on the
// command line.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/cli/filter_options.hpp"
#include "app/cli/progress.hpp"
#include "app/cli/render_clip.hpp"
#include "app/io/exr.hpp"
#include "app/cli/render_stream.hpp"
#include "app/io/assets.hpp"
#include "app/io/clip.hpp"
#include "app/io/embedded_depth.hpp"
#include "app/io/file_formats.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "app/io/preset.hpp"
#include "app/io/stream_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/depth_refine.hpp"
#include "app/ops/memory_budget.hpp"
#include "app/ops/subject_select.hpp"
#include "core/error.hpp"
#include "core/refine.hpp"
#include "core/synthetic_depth.hpp"
#include "core/temporal.hpp"

namespace satlab::cli {
namespace {

struct RenderOptions {
  std::vector<std::string> inputs;
  std::string depth, out, out_dir, backend = "auto", preset, synthetic = "gradient";
  std::string refine = "auto";  // the depth refiner: auto | none | NAME (app/ops/depth_refine.hpp)
  FilterOptions filter;         // the filter parameter flags as parsed
  ParamOverlay overlay;         // the parameter options named on the command line (they beat --preset)
  Params params;                // the parameters used: the defaults or --preset, under `overlay`
  std::set<std::string> given;  // --synthetic-depth, --refine, --layout when named (they beat --preset)
  Algorithms algorithms;        // SAT builder and reduction by name; empty: the backend's defaults
  std::string memory_budget;    // --memory-budget as given ("": the default)
  size_t budget = 0;            // its bytes (0: default_memory_budget)
  uint32_t tile = 0;            // --tile: stream in tiles of at most this side, whatever the size
  bool whole = false;           // --whole: filter whole what fits the budget (else it may stream)
  std::string compression = "deflate";  // TIFF output
  std::string subject, background;      // --subject / --background positions ("" none)
  std::string layout = "open";          // --layout of the selection's depth
  std::vector<SelectClick> clicks;      // the selection: --subject's and --background's, or the preset's
  // Clips (a video or a sequence pattern in and out: render_clip.hpp).
  std::string keys, frames, codec, temporal = "auto", right, stereo, z_channel;
  bool skip_bad_frames = false;
  std::string decoder = "auto";
  double fps = 24.0;
  int quality = 18;
  std::vector<ParamKey> preset_keys;
};

struct Job {
  std::string input, output, error;  // error: refused before rendering
};

void note(const std::string& what) {
  std::fprintf(stderr, "satlab: note: %s\n", what.c_str());
}

// One backend for all images of a run (device buffers and, on the GPU, the context are set up once); a
// fresh one for an image without depth, since a backend cannot forget the depth map it was given.
struct Backend {
  std::unique_ptr<Pipeline> pipe;
  bool has_depth = false;
  bool noted = false;  // its note (why the CPU was chosen) printed once
  bool noted_refine = false;  // the same for the depth refiner
};

// The whole-image path's result: TIFF through the row writer that streaming uses (one file layout
// whichever path ran: RGB where the input, a TIFF, PNG or JPEG, has no alpha, io::result_channels;
// uncompressed where asked), other formats through save_image.
void save_result(const std::string& path, const std::string& input, const ImageRGBA8& result, bool compress) {
  if (!io::is_tiff_path(path)) return io::save_image(path, result);
  io::StreamSpec spec;
  spec.width = uint32_t(result.width), spec.height = uint32_t(result.height);
  spec.channels = io::row_format(input).empty() ? 4 : io::result_channels(io::open_image_reader(input)->header());
  spec.compress = compress;
  std::unique_ptr<io::ImageWriter> w = io::open_image_writer(path, spec);
  const size_t row = size_t(result.width) * 4;
  if (spec.channels == 4) {
    w->write_rows(spec.height, result.data.data(), row);
  } else {
    std::vector<uint8_t> rgb(size_t(result.width) * 3);
    for (int y = 0; y < result.height; ++y) {
      io::rgba_to_rgb(result.data.data() + size_t(y) * row, size_t(result.width), rgb.data());
      w->write_rows(1, rgb.data(), rgb.size());
    }
  }
  w->finish();
}

// Renders one image into job.output; throws satlab::Error (inputs are read before the backend is used, so
// a bad file gives exactly one line). Returns the summary of what was done.
std::string render_one(const RenderOptions& o, Params p, const SyntheticDepth& synthetic,
                       const std::string& depth_option, const Job& job, Backend& backend) {
  const bool subject = !o.clicks.empty() && p.filter == FilterKind::Dof;
  std::string depth_path = subject                 ? ""
                           : !depth_option.empty() ? depth_option
                                                   : io::depth_beside(job.input);
  if (!subject && depth_path.empty() && io::exr_has_depth(job.input)) depth_path = job.input;  // its Z pass
  const bool streams = !subject && !io::row_format(job.input).empty();  // a selection needs the whole image
  if (streams) {  // too large to filter whole (or --tile): by rows and tiles (render_stream.hpp)
    StreamRequest r;
    r.input = job.input, r.output = job.output, r.depth = depth_path, r.synthetic = synthetic;
    r.refine = o.refine, r.backend = o.backend, r.algorithms = o.algorithms;
    r.budget = o.budget, r.max_tile = o.tile, r.compress = o.compression != "none", r.whole = o.whole;
    const std::string done = render_streamed(r, p, o.tile != 0);
    if (!done.empty()) return done;
  }
  io::LoadInfo info;
  ImageRGBA8 img = io::load_image(job.input, &info);
  for (const auto& n : info.notes) note(job.input + ": " + n);
  if (!streams) {  // read whole: it must fit whole
    const bool gpu = choose_backend(o.backend).gpu;
    const std::string why = whole_image_refusal(uint64_t(img.width), uint64_t(img.height), gpu,
                                                o.budget ? o.budget : default_memory_budget(gpu));
    if (!why.empty())
      throw Error(job.input + ": image is " + std::to_string(img.width) + "x" + std::to_string(img.height) + ": " +
                  why + "; " + info.format + " files are read whole (TIFF, PNG and JPEG stream in tiles)");
  }
  ImageF depth;
  std::string depth_from = "no depth";
  if (p.filter == FilterKind::Dof) {
    DepthOrigin origin = DepthOrigin::File;
    if (subject) {  // the depth of a selection: full size, its edges from the matte (nothing to refine)
      SubjectDepth sd = subject_depth(img, o.clicks, parse_subject_layout(o.layout), o.backend);
      if (!sd.selection.note.empty()) note(job.input + ": " + sd.selection.note);
      if (!o.overlay.has("--focus")) p.focus = sd.focus;
      depth = std::move(sd.depth);
      origin = DepthOrigin::Synthetic;
      char f[48];
      std::snprintf(f, sizeof(f), ", focus %.3g", double(p.focus));
      depth_from = sd.summary() + f;
    } else if (!depth_path.empty()) {
      io::LoadInfo dinfo;
      depth = io::load_depth(depth_path, info, &dinfo);
      for (const auto& n : dinfo.notes) note(depth_path + ": " + n);
      depth_from = "depth " + io::file_stem(depth_path);
    } else if (io::DepthForImage e = io::embedded_depth_for(job.input, p); e.used) {
      depth = std::move(e.depth);
      origin = DepthOrigin::Embedded;
      depth_from = "depth: " + e.summary;
      if (o.overlay.has("--near") || o.overlay.has("--far") || o.overlay.has("--disparity")) {
        note("--near/--far/--disparity given: the embedded depth's own range is not applied");
      } else {
        p.near_depth = e.params.near_depth, p.far_depth = e.params.far_depth;
        p.disparity = e.params.disparity;
        depth_from += e.fitted;
      }
    } else {
      if (!e.summary.empty()) note(job.input + ": " + e.summary);
      depth = make_synthetic_depth(synthetic, img.width, img.height);
      origin = DepthOrigin::Synthetic;
      depth_from = "synthetic depth " + to_spec(synthetic);
      if (depth.empty()) note("no depth map for " + job.input + ": the dof filter keeps the image sharp");
    }
    if (!depth.empty()) {  // to the image's size by the refiner chosen (auto: the best one, unless exact)
      const bool resized = depth.width != img.width || depth.height != img.height;
      const std::string size = std::to_string(depth.width) + "x" + std::to_string(depth.height);
      RefinedDepth r = refine_for_image(img, depth, nullptr, o.refine, origin, o.backend);
      if (!r.note.empty() && !backend.noted_refine) note("refine " + r.refiner + " on the CPU: " + r.note);
      backend.noted_refine = backend.noted_refine || !r.note.empty();
      depth_from += ", " + (resized ? size + " " : "") + r.summary();
      depth = std::move(r.depth);
    }
  }
  if (!backend.pipe || (backend.has_depth && depth.empty())) {
    std::string backend_note;
    backend.pipe = make_backend(o.backend, &backend_note);
    backend.has_depth = false;
    if (!backend_note.empty() && !backend.noted) note(backend_note);
    backend.noted = true;
  }
  Pipeline* pipe = backend.pipe.get();
  pipe->set_algorithms(o.algorithms);  // an unknown name: one line listing the valid ones
  pipe->set_image(img);
  if (!depth.empty()) pipe->set_depth(depth), backend.has_depth = true;
  pipe->set_params(p);
  pipe->run();
  save_result(job.output, job.input, pipe->result(), o.compression != "none");
  double total = 0;
  std::string stages;
  for (const auto& t : pipe->timings()) {
    if (t.parent.empty()) total += t.ms;  // a phase's time is part of its stage's
    char buf[96];
    std::snprintf(buf, sizeof(buf), t.parent.empty() ? "  %s %.2f ms" : " [%s %.3f]", t.name.c_str(), t.ms);
    stages += buf;
    if (t.cold && t.parent.empty()) stages += " cold";  // a first run: allocations, first launches
  }
 if (p.filter == FilterKind::Dof && p.highlights) {
    const HighlightStats h = pipe->highlight_stats();
    if (h.valid) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), "; highlights %u splatted (%u behind focus)%s", h.kept, h.far,
                    h.cap_hit() ? (", cap hit: " + std::to_string(h.found) + " found, cap " + std::to_string(h.cap)).c_str()
                                : "");
      stages += buf;
    }
  }
  const Algorithms used = pipe->algorithms();
  stages = " SAT " + used.sat_builder + ", reduction " + used.reduction + ":" + stages;
  char head[160];
  std::snprintf(head, sizeof(head), "(%dx%d, %s filter, ", img.width, img.height, to_string(p.filter));
  char tail[64];
  std::snprintf(tail, sizeof(tail), ", %.2f ms,", total);
  return head + (p.filter == FilterKind::Dof ? depth_from + ", " : "") + pipe->backend_name() + tail +
         stages + ")";
}

// The files to render: folders expand to their images; several inputs or a folder need --out-dir.
std::vector<Job> plan(const RenderOptions& o, bool* batch) {
  std::vector<std::string> files;
  *batch = o.inputs.size() > 1;
  for (const auto& in : o.inputs) {
    if (io::is_dir(in)) {
      std::vector<std::string> found = io::images_in_dir(in);
      if (found.empty()) throw Error(in + ": no image files in this folder (" + io::image_formats_text() + ")");
      files.insert(files.end(), found.begin(), found.end());
      *batch = true;
    } else {
      files.push_back(in);
    }
  }
  if (*batch && !o.out.empty())
    throw Error("--out names one output file: use --out-dir DIR for several images");
  if (!o.out.empty() && !io::can_save(o.out))
    throw Error(o.out + ": cannot write this format: the extension must be one of " + io::saveable_extensions());
  if (*batch && !o.depth.empty())
    throw Error("--depth is for one image: put NAME.depth.png beside each image instead");
  if (*batch && !o.clicks.empty()) throw Error("--subject positions (or a preset's selection) are for one image");
  if (!o.out_dir.empty() && !io::is_dir(o.out_dir))
    throw Error(o.out_dir + ": --out-dir is not an existing folder");
  std::vector<Job> jobs;
  std::set<std::string> taken;
  std::set<std::string> inputs;
  for (const auto& f : files) {
    char* real = realpath(f.c_str(), nullptr);
    inputs.insert(real ? real : f);
    std::free(real);
  }
  for (const auto& f : files) {
    Job job{f, o.out, ""};
    if (job.output.empty()) {
      // Two inputs with one stem (a.png, a.jpg) get a.., a..-2: neither overwrites the other's result.
      const std::string base = o.out_dir + "/" + io::file_stem(f) + "_" + io::params_tag(o.params);
      job.output = base + ".png";
      for (int n = 2; taken.count(job.output); ++n) job.output = base + "-" + std::to_string(n) + ".png";
    }
    taken.insert(job.output);
    char* real = realpath(job.output.c_str(), nullptr);
    if (real && inputs.count(real))
      job.error = "refusing to overwrite an input with the result (" + job.output + ")";
    std::free(real);
    jobs.push_back(job);
  }
  return jobs;
}

int run_render(RenderOptions o) {
  // Defaults, then the preset, then what the command line named.
  Params p = o.overlay.over(Params{});
  SyntheticDepth synthetic;
  if (!o.preset.empty()) {
    const io::Preset preset = io::load_preset(o.preset);
    p = o.overlay.over(preset.params);
    synthetic = preset.synthetic;
    if (!preset.refine.empty() && !o.given.count("--refine")) o.refine = preset.refine;
    o.preset_keys = preset.keys;
    if (!preset.clicks.empty() && o.subject.empty()) {  // the preset's selection, unless --subject is given
      o.clicks = preset.clicks;
      if (!o.given.count("--layout")) o.layout = preset.layout;
    }
    try {
      validate(p);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + " (after applying " + o.preset + " and the command line)");
    }
  }
  if (o.given.count("--synthetic-depth") || o.preset.empty()) synthetic = parse_synthetic_depth(o.synthetic);
  o.params = p;  // output names follow the parameters used
  io::set_exr_depth_channel(o.z_channel);

  if (o.inputs.size() == 1 && (io::is_video_path(o.inputs[0]) || io::is_sequence_pattern(o.inputs[0]))) {
    if (o.out.empty() || !(io::is_video_path(o.out) || io::is_sequence_pattern(o.out)))
      throw Error("a clip renders to a video (--out OUT.mp4, .mov, .mkv, .webm) or a sequence (--out out_%04d.png)");
    if (!o.clicks.empty()) throw Error("--subject is for a still image, not a clip");
    ClipRequest r;
    r.input = o.inputs[0], r.output = o.out, r.depth = o.depth, r.synthetic = synthetic, r.refine = o.refine;
    r.backend = o.backend, r.algorithms = o.algorithms, r.fps = o.fps, r.codec = o.codec, r.quality = o.quality;
    r.temporal = o.temporal, r.right = o.right, r.stereo = o.stereo, r.skip_bad_frames = o.skip_bad_frames;
    r.decoder = o.decoder;
    r.keys = o.keys.empty() ? o.preset_keys : io::load_keys(o.keys);
    if (!o.frames.empty()) parse_frame_range(o.frames, &r.first, &r.last);
    std::printf("wrote %s %s\n", o.out.c_str(), render_clip(r, p).c_str());
    return 0;
  }
  if (!o.keys.empty() || !o.frames.empty() || !o.right.empty() || !o.stereo.empty() || o.skip_bad_frames ||
      o.decoder != "auto")
    throw Error("--keys, --frames, --right, --stereo, --skip-bad-frames and --decoder are for clips (a video or a sequence "
                "pattern; a still pair: satlab depth stereo)");
  // No decoder allocates past the budget (a progressive JPEG's coefficients): a file that cannot fit is
  // refused, never decoded into swap.
  io::set_decode_memory_limit(o.budget ? o.budget : default_memory_budget(choose_backend(o.backend).gpu));
  bool batch = false;
  const std::vector<Job> jobs = plan(o, &batch);
  Backend backend;
  if (!batch) {  // one image: its failure is the command's one error line
    if (!jobs[0].error.empty()) throw Error(jobs[0].error);
    const std::string what = render_one(o, p, synthetic, o.depth, jobs[0], backend);
    std::printf("wrote %s %s\n", jobs[0].output.c_str(), what.c_str());
    return 0;
  }
  Progress progress(jobs.size());
  int failed = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    progress.show(i, io::file_stem(job.input));
    std::string line;
    try {
      if (!job.error.empty()) throw Error(job.error);
      line =
          "ok      " + job.input + " -> " + job.output + " " + render_one(o, p, synthetic, "", job, backend);
    } catch (const Error& e) {
      const std::string msg = e.what();
      // Loader errors already start with the path; do not say it twice.
      line = "failed  " + (msg.rfind(job.input, 0) == 0 ? msg : job.input + ": " + msg);
      ++failed;
    }
    progress.clear();
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
  progress.clear();
  std::printf("%zu of %zu images written to %s%s\n", jobs.size() - size_t(failed), jobs.size(),
              o.out_dir.c_str(), failed ? "; see the failed lines above" : "");
  return failed ? 1 : 0;
}

}  // namespace

void add_render_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RenderOptions>();
  CLI::App* sub = app.add_subcommand(
      "render", "Filter images headless and write the results (" + io::written_formats_text() + "; --out-dir: PNG)");
  sub->option_defaults()->always_capture_default();  // --help shows every default
  sub->add_option("--image,image", o->inputs,
                  "Input images or folders of them (repeat --image, or list them); none: the bundled scene. "
                  "Read: " + io::image_formats_text() +
                      ". Or one clip: a video (.mp4 .mov .mkv .webm .avi) or a sequence pattern (shot_%04d.png)");
  sub->add_option("--depth", o->depth,
                  "Depth map for a single image (any size: refined to the image's): " + io::depth_formats_text() +
                      "; for a clip, a depth clip (video or pattern, matched by time) or one map for every frame");
  sub->add_option(
         "--refine", o->refine,
         "Depth refiner: auto (" + std::string(kDefaultRefiner) +
             " wherever the depth is not exact: smaller than the image, embedded; none for a full-size "
             "file or synthetic depth), none (bilinear), or one of " +
             refiner_list())
      ->check(refine_choice());
  sub->add_option("--out,-o", o->out,
                  "Output image for a single image, its format from the extension: " + io::written_formats_text() +
                      " (written through a temporary file and rename); for a clip, a video or a pattern out_%04d.png");
  sub->add_option(
      "--out-dir", o->out_dir,
      "Folder for the results of several images: NAME_<filter and parameters>.png (never an input)");
  sub->add_option("--preset", o->preset,
                  "Parameters from a preset JSON file; options given here override it");
  sub->add_option("--synthetic-depth", o->synthetic,
                  "Depth for images without a depth map: none | gradient[:angle=DEG,pos=P,width=W] | "
                  "radial[:x=X,y=Y,radius=R]")
      ->check(synthetic_depth_spec());
  CLI::Option* subject = sub->add_option(
      "--subject", o->subject,
      "Select the subject at these image positions (X,Y[;X,Y...]) and take its depth: the subjects at depth 0, "
      "the rest at 1 (--layout), focus on the subject unless --focus is given; instead of any depth map");
  sub->add_option("--background", o->background, "With --subject: positions on what is not the subject (X,Y[;X,Y...])")
      ->needs(subject);
  sub->add_option("--layout", o->layout,
                  "With --subject: open (the rest at 1), wall (the rest at 0.5), floor (a ground plane from the "
                  "bottom row to the top of the highest subject, each subject at its base's depth)")
      ->check(CLI::IsMember({"open", "wall", "floor"}))
      ->needs(subject);
  add_filter_options(*sub, o->filter);
  sub->add_option("--backend", o->backend, "Pipeline backend")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->add_option("--sat-builder", o->algorithms.sat_builder,
                  "SAT builder by registry name (see `satlab variants`; the CPU backend has one: cpu)");
  sub->add_option("--reduce", o->algorithms.reduction,
                  "Min/max reduction of the depth normalisation by registry name (the CPU backend: cpu)");
  sub->add_option("--memory-budget", o->memory_budget,
                  "Host (and GPU) memory an image may take, e.g. 512M, 4G (default: half the available memory, "
                  "at most 3 GiB; on the GPU at most 3/4 of its free memory). A TIFF, PNG or JPEG larger than the "
                  "whole-image path takes within it is streamed in tiles that fit (so is a smaller one with a TIFF "
                  "result wherever that is the same file and, on the CPU, the halos add little work); a budget "
                  "too small for one tile is refused")
      ->check(CLI::Validator([](std::string& v) { return memory_size_error(v); }, "SIZE"));
  CLI::Option* tile = sub->add_option("--tile", o->tile,
                  "Stream in tiles of at most this side whatever the image's size (TIFF, PNG and JPEG input; "
                  "TIFF, PNG or JPEG output): for tests and measurements")
      ->check(CLI::Range(64, 1 << 20));
  sub->add_flag("--whole", o->whole,
                "Filter an image whole where it fits the memory budget (by default it streams wherever the "
                "result is the same file): for tests and measurements")
      ->excludes(tile);
  sub->add_option("--keys", o->keys,
                  "Clips: parameters over time from a JSON file {\"keys\": [{\"time\": S, \"focus\": F | \"focus_point\": "
                  "[X, Y], \"aperture\": A, \"focus_range\": T, \"max_radius\": R, \"synthetic\": {\"position\": P, ...}, "
                  "\"ease\": smooth|linear|hold}]}");
  sub->add_option("--frames", o->frames, "Clips: only frames A:B (0-based, B exclusive; either may be empty)");
  sub->add_option("--fps", o->fps, "Clips: an image sequence's frame rate")->check(CLI::Range(0.001, 1000.0));
  sub->add_option("--codec", o->codec,
                  "Clips: the output video's encoder: libx264 (.mp4/.mov/.mkv default), hevc (libx265), libvpx-vp9 "
                  "(.webm default), ffv1 (lossless, .mkv), mpeg4, h264_nvenc or hevc_nvenc (NVIDIA's, where the driver has it)");
  sub->add_option("--temporal", o->temporal,
                  "Clips: the temporal depth filter: auto (gated for a depth clip that is refined: noisy or lower "
                  "resolution; off for exact full-size depth), off, gated[:history=H,depth=S,colour=C]")
      ->check(CLI::Validator(
          [](std::string& v) {
            TemporalParams tp;
            try {
              if (v != "auto") parse_temporal(v, &tp);
            } catch (const Error& e) {
              return std::string(e.what());
            }
            return std::string();
          },
          "auto|off|gated[:history=H,depth=S,colour=C]"));
  sub->add_option("--crf", o->quality, "Clips: the encoder's constant-rate factor (lower: better, larger)")
      ->check(CLI::Range(0, 63));
  sub->add_option("--right", o->right, "Clips: the right views (a clip of as many frames): depth from stereo per frame");
  sub->add_option("--stereo", o->stereo,
                  "Clips: each frame holds both views, left first: sbs (side by side) or tb (top and bottom); the "
                  "left view is rendered with depth from stereo")
      ->check(CLI::IsMember({"sbs", "tb"}));
  sub->add_option("--z-channel", o->z_channel,
                  "OpenEXR: the channel depth is read from (default: Z, else depth); an EXR with one gives its own depth");
  sub->add_flag("--skip-bad-frames", o->skip_bad_frames,
                "Clips: a frame that does not decode repeats the last good one (the summary says how many)");
  sub->add_option("--decoder", o->decoder,
                  "Clips: the video decoder: auto (NVDEC into the GPU pipeline's memory where the frames need not "
                  "come to the host), cpu, nvdec")
      ->check(CLI::IsMember({"auto", "cpu", "nvdec"}));
  sub->add_option("--compression", o->compression, "TIFF output: deflate, or none (faster to write and read)")
      ->check(CLI::IsMember({"deflate", "none"}));
  sub->callback([o, sub, &action] {
    // Inconsistent parameters (--far <= --near, ...) and bad specs are usage errors (exit 2), found
    // before any I/O; with --preset the merged parameters are checked when the preset has been read.
    if (o->out.empty() && o->out_dir.empty()) throw CLI::ValidationError("give --out FILE, or --out-dir DIR");
    if (!o->out.empty() && !o->out_dir.empty())
      throw CLI::ValidationError("give --out or --out-dir, not both");
    if (!o->subject.empty() && !o->depth.empty()) throw CLI::ValidationError("give --depth or --subject, not both");
    try {  // parsed once, here: a malformed position is a usage error
      if (!o->subject.empty()) o->clicks = parse_clicks(o->subject, false);
      if (!o->background.empty()) {
        const std::vector<SelectClick> bg = parse_clicks(o->background, true);
        o->clicks.insert(o->clicks.end(), bg.begin(), bg.end());
      }
    } catch (const Error& e) {
      throw CLI::ValidationError(std::string("--subject/--background: ") + e.what());
    }
    o->overlay = filter_overlay(*sub, o->filter);
    if (!o->memory_budget.empty()) o->budget = parse_memory_size(o->memory_budget);
    if (sub->get_option("--synthetic-depth")->count()) o->given.insert("--synthetic-depth");
    if (sub->get_option("--refine")->count()) o->given.insert("--refine");
    if (sub->get_option("--layout")->count()) o->given.insert("--layout");
    try {
      if (o->preset.empty()) validate(o->overlay.over(Params{}));
    } catch (const Error& e) {
      throw CLI::ValidationError(e.what());
    }
    action = [o] {
      if (o->inputs.empty()) o->inputs = {io::default_scene_image()};  // its depth map lies beside it
      return run_render(*o);
    };
  });
}

}  // namespace satlab::cli
