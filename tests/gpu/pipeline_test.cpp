// The GPU Pipeline backend against the CPU backend: normalised depth, CoC and the blurred result are
// bit-identical (dof and box filters, depth and disparity lenses, odd sizes, several frames), with every
// selectable SAT builder and reduction; the SAT builders' phases are timed inside the sat stage.
// SATLAB_TEST_MAX_N limits the image sizes (the sanitizer runs use a small one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "gpu/device.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"
#include "tests/cpu/test_util.hpp"

namespace {

using namespace satlab;

struct Scene {
  ImageRGBA8 image;
  ImageF depth;
};

Scene random_scene(int w, int h, std::mt19937& rng) {
  Scene s{ImageRGBA8(w, h), ImageF(w, h, 1)};
  for (auto& b : s.image.data) b = uint8_t(rng());
  std::uniform_real_distribution<float> u(-3.f, 70.f);
  for (auto& d : s.depth.data) d = u(rng);
  return s;
}

size_t count_diff(const std::vector<float>& a, const std::vector<float>& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], 4) != 0;
  return n;
}

TEST(GpuPipeline, DofFrameIsBitIdenticalToTheCpuBackend) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  struct Case {
    int w, h;
    bool disparity;
    float focus, aperture, max_radius;
  };
  for (const Case c : {Case{1, 1, false, 0.2f, 40.f, 24.f}, Case{333, 1, true, 0.7f, 300.f, 60.f},
                       Case{641, 479, false, 0.1f, 90.f, 33.5f}, Case{1920, 1080, true, 0.5f, 25.f, 12.f},
                       Case{257, 1031, false, 0.9f, 4000.f, 2047.f}}) {
    if (size_t(c.w) * size_t(c.h) > test::test_max_n()) continue;
    const Scene s = random_scene(c.w, c.h, rng);
    Params p;
    p.disparity = c.disparity, p.focus = c.focus, p.aperture = c.aperture, p.max_radius = c.max_radius;
    p.dof_mode = "gather_box";  // the box gather up to radius 2047 (the shaped modes: dof_modes_test.cpp)
    p.near_depth = 0.5f, p.far_depth = 40.f;
    for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
      pipe->set_image(s.image);
      pipe->set_depth(s.depth);
      pipe->set_params(p);
      pipe->run();
      pipe->run();  // a second frame reuses the SAT and depth
    }
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h);
    EXPECT_EQ(count_diff(gpu_pipe->depth_normalised().data, cpu_pipe->depth_normalised().data), 0u) << what;
    EXPECT_EQ(count_diff(gpu_pipe->coc().data, cpu_pipe->coc().data), 0u) << what;
    EXPECT_TRUE(gpu_pipe->result().data == cpu_pipe->result().data) << what;
    EXPECT_FALSE(gpu_pipe->timings().empty());
  }
}

TEST(GpuPipeline, BoxBlurIsBitIdenticalToTheCpuBackendAtEveryRadius) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  const Scene s = random_scene(513, 301, rng);
  for (int r : {0, 1, 2, 7, 150, 600, 2047}) {
    Params p;
    p.filter = FilterKind::Box, p.box_radius = r;
    for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
      pipe->set_image(s.image);
      pipe->set_params(p);
      pipe->run();
    }
    EXPECT_TRUE(gpu_pipe->result().data == cpu_pipe->result().data) << "radius " << r;
  }
}

// gather_box builds the image's SAT in the box filter's table (one table a frame): frames that switch
// between the box filter, gather_box and gather_box with highlights (whose SAT is of the masked image) on
// one image each still equal the CPU backend's.
TEST(GpuPipeline, BoxFilterAndGatherBoxShareTheSatTableWithoutStaleFrames) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  const Scene s = random_scene(389, 211, rng);
  Params box;
  box.filter = FilterKind::Box, box.box_radius = 9;
  Params dof;
  dof.dof_mode = "gather_box", dof.focus = 0.3f, dof.aperture = 60.f, dof.max_radius = 20.f;
  dof.near_depth = 0.5f, dof.far_depth = 40.f;
  Params lights = dof;
  lights.highlights = true, lights.highlight_threshold = 0.5f;
  const Params* order[] = {&dof, &box, &dof, &lights, &box, &lights, &dof, &dof, &box, &box};
  for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) pipe->set_image(s.image), pipe->set_depth(s.depth);
  int frame = 0;
  for (const Params* p : order) {
    for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) pipe->set_params(*p), pipe->run();
    EXPECT_TRUE(gpu_pipe->result().data == cpu_pipe->result().data) << "frame " << frame;
    ++frame;
  }
}

TEST(GpuPipeline, WithoutDepthTheDofFilterKeepsTheImageSharp) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto pipe = gpu::make_pipeline();
  const Scene s = random_scene(97, 55, rng);
  pipe->set_image(s.image);
  pipe->run();
  EXPECT_TRUE(pipe->result().data == s.image.data);
}

TEST(GpuPipeline, RejectsADepthMapOfTheWrongSizeAndRunWithoutImage) {
  SKIP_WITHOUT_GPU();
  auto pipe = gpu::make_pipeline();
  EXPECT_THROW(pipe->run(), Error);
  pipe->set_image(ImageRGBA8(10, 10));
  EXPECT_THROW(pipe->set_depth(ImageF(9, 10, 1)), Error);
}

// The largest image side the environment allows (SATLAB_TEST_MAX_N pixels), at most `side`.
int capped(int side) {
  if (const char* e = std::getenv("SATLAB_TEST_MAX_N")) {
    const long max = std::strtol(e, nullptr, 10);
    while (side > 8 && long(side) * side > max) side /= 2;
  }
  return side;
}

void expect_same_frame(Pipeline& gpu_pipe, Pipeline& cpu_pipe, const std::string& what) {
  EXPECT_EQ(count_diff(gpu_pipe.depth_normalised().data, cpu_pipe.depth_normalised().data), 0u) << what;
  EXPECT_EQ(count_diff(gpu_pipe.coc().data, cpu_pipe.coc().data), 0u) << what;
  EXPECT_TRUE(gpu_pipe.result().data == cpu_pipe.result().data) << what;
}

TEST(GpuPipeline, EverySelectableSatBuilderAndReductionGivesTheCpuBackendsFrame) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  ASSERT_FALSE(gpu_pipe->sat_builders().empty());
  ASSERT_FALSE(gpu_pipe->reductions().empty());
  const int w = capped(333), h = capped(257);
  const Scene s = random_scene(w, h, rng);
  Scene white = random_scene(capped(1031), capped(517), rng);  // all 255: the wrap-around case
  std::fill(white.image.data.begin(), white.image.data.end(), uint8_t(255));
  Params dof;
  dof.dof_mode =
      "gather_box";  // the mode whose SAT is kept between frames (the others build theirs each frame)
  dof.focus = 0.3f, dof.aperture = 120.f, dof.max_radius = 40.f, dof.near_depth = 0.5f, dof.far_depth = 40.f;
  Params box;
  box.filter = FilterKind::Box, box.box_radius = 600;
  auto frame = [&](Pipeline& p, const Scene& sc, const Params& params) {
    p.set_image(sc.image);
    p.set_depth(sc.depth);
    p.set_params(params);
    p.run();
  };
  frame(*cpu_pipe, s, dof);
  int switches = 0;
  for (const std::string& name : gpu_pipe->sat_builders()) {
    // The image stays; only the builder changes: the next run must rebuild the SAT with it.
    frame(*gpu_pipe, s, dof);
    const bool switched = gpu_pipe->algorithms().sat_builder != name;
    gpu_pipe->set_algorithms({name, ""});
    EXPECT_EQ(gpu_pipe->algorithms().sat_builder, name);
    gpu_pipe->run();
    expect_same_frame(*gpu_pipe, *cpu_pipe, "SAT builder " + name);
    // Every builder's table is the same, so the frame alone would not show a stale SAT: the run after the
    // switch must have built it (a cold "sat" stage), unless the builder did not change.
    if (!switched) continue;
    ++switches;
    const auto& t = gpu_pipe->timings();
    const auto sat = std::find_if(t.begin(), t.end(), [](const StageTiming& s) { return s.name == "sat"; });
    ASSERT_NE(sat, t.end()) << "SAT builder " << name << ": the SAT was not rebuilt after the switch";
    EXPECT_TRUE(sat->cold) << name;
  }
  EXPECT_EQ(switches, int(gpu_pipe->sat_builders().size()) - 1);  // every builder but the one in use first
  for (const std::string& name : gpu_pipe->reductions()) {
    gpu_pipe->set_algorithms({"", name});
    EXPECT_EQ(gpu_pipe->algorithms().reduction, name);
    gpu_pipe->run();  // the depth map stays; the normalisation is redone with this reduction
    expect_same_frame(*gpu_pipe, *cpu_pipe, "reduction " + name);
  }
  frame(*cpu_pipe, white, box);
  for (const std::string& name : gpu_pipe->sat_builders()) {
    gpu_pipe->set_algorithms({name, ""});
    frame(*gpu_pipe, white, box);
    EXPECT_TRUE(gpu_pipe->result().data == cpu_pipe->result().data) << "all-255 image, SAT builder " << name;
  }
}

TEST(GpuPipeline, AnUnknownBuilderOrReductionIsRefusedAndChangesNothing) {
  SKIP_WITHOUT_GPU();
  auto pipe = gpu::make_pipeline();
  const Algorithms before = pipe->algorithms();
  try {
    pipe->set_algorithms({"no_such_builder", ""});
    ADD_FAILURE() << "an unknown SAT builder was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown SAT builder 'no_such_builder' (valid: "), std::string::npos) << m;
    for (const auto& n : pipe->sat_builders()) EXPECT_NE(m.find(n), std::string::npos) << n << " not listed in " << m;
  }
  EXPECT_THROW(pipe->set_algorithms({before.sat_builder, "no_such_reduction"}), Error);
  EXPECT_THROW(pipe->set_algorithms({"harris7", ""}), Error);  // a reduction is no SAT builder
  EXPECT_EQ(pipe->algorithms().sat_builder, before.sat_builder);
  EXPECT_EQ(pipe->algorithms().reduction, before.reduction);
}

// Each builder's phases follow the sat stage, have their own non-negative times, and (being nested in it,
// on one stream) add up to the sat stage's time, less what runs between its begin and the first phase.
TEST(GpuPipeline, SatPhasesAreTimedInsideTheSatStage) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(7);
  auto pipe = gpu::make_pipeline();
  const Scene s = random_scene(capped(1920), capped(1080), rng);
  Params box;
  box.filter = FilterKind::Box;  // the box filter's sat stage (the DoF modes build theirs inside dof)
  pipe->set_params(box);
  for (const std::string& name : pipe->sat_builders()) {
    pipe->set_algorithms({name, ""});
    // A warm frame: the builder's first frame also loads its kernels (lazily, inside the sat stage before
    // its first phase), which once made the stage 2.3 times its phases' sum. The image set again before
    // each, so that each frame builds the SAT.
    for (int run = 0; run < 2; ++run) {
      pipe->set_image(s.image);
      pipe->set_depth(s.depth);
      pipe->run();
      (void)pipe->result();  // waits for the frame, so timings() has this frame's events
    }
    const auto& t = pipe->timings();
    const auto sat = std::find_if(t.begin(), t.end(), [](const StageTiming& x) { return x.name == "sat"; });
    ASSERT_NE(sat, t.end()) << name;
    double sum = 0;
    int phases = 0;
    for (auto it = sat + 1; it != t.end() && it->parent == "sat"; ++it, ++phases) {
      EXPECT_GE(it->ms, 0.0) << name << ": " << it->name;
      sum += it->ms;
    }
    for (const auto& x : t) {
      if (!x.parent.empty()) {
        EXPECT_EQ(x.parent, "sat") << name << ": " << x.name << " is a phase out of place";
      }
    }
    EXPECT_GT(phases, 0) << name << " reports no phases (SatArgs::phase)";
    EXPECT_LE(sum, sat->ms + 0.002 * (phases + 1)) << name;  // event resolution about 0.5 us
    EXPECT_GE(sum, 0.5 * sat->ms) << name;
  }
}

}  // namespace

namespace {

// The stage names of one run's timings, and whether every one of them (phases included) was cold.
std::vector<std::string> stage_names(const std::vector<StageTiming>& t, bool* any_cold, unsigned long* run) {
  std::vector<std::string> names;
  *any_cold = false;
  for (const auto& x : t) {
    if (x.parent.empty()) names.push_back(x.name);
    *any_cold = *any_cold || x.cold;
    EXPECT_EQ(x.run, t.front().run) << x.name << ": stages of two runs in one list";
  }
  *run = t.empty() ? 0 : t.front().run;
  return names;
}

// The names of `parent`'s phases in one run's timings.
std::vector<std::string> phase_names(const std::vector<StageTiming>& t, const char* parent) {
  std::vector<std::string> names;
  for (const auto& x : t)
    if (x.parent == parent) names.push_back(x.name);
  return names;
}

bool has(const std::vector<std::string>& v, const char* name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

}  // namespace

// "Run every frame": with set_every_stage(true) every run reports reduce, normalise and gather_box's sat
// phase (what the backend otherwise keeps), each run after the first warm; without it the next run skips
// them. The first run after a new size, and a stage's first run after a variant switch, are labelled cold.
TEST(GpuPipeline, EveryStageRunsReduceAndSatInEveryFrameWarmAfterTheFirst) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(11);
  auto pipe = gpu::make_pipeline();
  const Scene s = random_scene(capped(1283), capped(719), rng);
  pipe->set_image(s.image);
  pipe->set_depth(s.depth);
  Params p;
  p.dof_mode = "gather_box";  // its reduce stage and sat phase are the ones cached between frames
  pipe->set_params(p);
  pipe->set_every_stage(true);
  bool cold = false;
  unsigned long run = 0;
  for (unsigned long i = 1; i <= 6; ++i) {
    pipe->run();
    (void)pipe->result();  // waits for the frame, so timings() has this run's events
    const auto names = stage_names(pipe->timings(), &cold, &run);
    EXPECT_EQ(run, i);
    for (const char* stage : {"reduce", "normalise", "coc", "dof"})
      EXPECT_TRUE(has(names, stage)) << "run " << i << " lacks " << stage;
    for (const char* phase : {"sat", "blur"})
      EXPECT_TRUE(has(phase_names(pipe->timings(), "dof"), phase)) << "run " << i << " lacks " << phase;
    EXPECT_EQ(cold, i == 1) << "run " << i;
    if (i == 1) {
      for (const auto& t : pipe->timings()) EXPECT_TRUE(t.cold) << t.name << " of the first run is not cold";
    }
  }
  pipe->set_every_stage(false);  // the default: the normalised depth and the SAT are kept
  pipe->run();
  (void)pipe->result();
  auto names = stage_names(pipe->timings(), &cold, &run);
  EXPECT_FALSE(has(names, "reduce"));
  EXPECT_TRUE(has(names, "dof"));
  EXPECT_FALSE(has(phase_names(pipe->timings(), "dof"), "sat"));
  EXPECT_TRUE(has(phase_names(pipe->timings(), "dof"), "blur"));
  EXPECT_FALSE(cold);
  // Another SAT builder: the first dof stage that builds with it is cold (with its phases), the other
  // stages stay warm.
  const auto builders = pipe->sat_builders();
  const auto other = std::find_if(builders.begin(), builders.end(),
                                  [&](const std::string& b) { return b != pipe->algorithms().sat_builder; });
  if (other != builders.end()) {
    pipe->set_algorithms({*other, ""});
    pipe->set_every_stage(true);
    pipe->run();
    (void)pipe->result();
    for (const auto& t : pipe->timings())
      EXPECT_EQ(t.cold, t.name == "dof" || t.parent == "dof") << *other << ": " << t.name;
  }
  // A new size: every stage cold again.
  const Scene small = random_scene(capped(301), capped(97), rng);
  pipe->set_image(small.image);
  pipe->set_depth(small.depth);
  pipe->run();
  (void)pipe->result();
  for (const auto& t : pipe->timings()) EXPECT_TRUE(t.cold) << t.name << " after a new size";
}
