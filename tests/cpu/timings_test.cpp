// The timings the app shows are warm measurements of what ran: the CPU backend labels a stage's first run
// at an image size cold, and the app's bookkeeping (AppState::record) keeps cold runs out of the EMA, the
// history and the frame times, shows a stage the last run skipped as not run, and counts a run read twice
// once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/pipeline.hpp"

namespace {

using namespace satlab;

ImageRGBA8 grey(int w, int h) {
  ImageRGBA8 img(w, h);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t(i * 37);
  return img;
}

TEST(CpuPipelineTimings, FirstRunAtASizeIsColdLaterRunsWarmEveryStageEveryRun) {
  auto pipe = make_cpu_pipeline(1);
  pipe->set_image(grey(37, 11));
  ImageF depth(37, 11, 1);
  for (size_t i = 0; i < depth.data.size(); ++i) depth.data[i] = float(i % 7);
  pipe->set_depth(depth);
  Params p;
  p.dof_mode = "gather_box";  // the box gather's stages and phases: reduce, coc, dof (sat, blur)
  pipe->set_params(p);
  pipe->set_every_stage(false);  // the CPU backend keeps nothing: every stage runs anyway
  for (unsigned long run = 1; run <= 3; ++run) {
    pipe->run();
    std::vector<std::string> names;
    for (const auto& t : pipe->timings()) {
      names.push_back(t.name);
      EXPECT_EQ(t.cold, run == 1) << t.name << " in run " << run;
      EXPECT_EQ(t.run, run) << t.name;
    }
    EXPECT_EQ(names, (std::vector<std::string>{"reduce", "coc", "dof", "sat", "blur"})) << "run " << run;
  }
  pipe->set_image(grey(37, 11));  // another image of the same size: the buffers stay, the runs stay warm
  pipe->run();
  for (const auto& t : pipe->timings()) EXPECT_FALSE(t.cold) << t.name;
  pipe->set_image(grey(5, 3));  // a new size: cold again
  pipe->run();
  for (const auto& t : pipe->timings()) EXPECT_TRUE(t.cold) << t.name << " after a new size";
  Params box;
  box.filter = FilterKind::Box;  // its own stages, sat and blur: cold in their first run at this size
  pipe->set_params(box);
  pipe->run();
  for (const auto& t : pipe->timings()) EXPECT_TRUE(t.cold) << t.name << " in the box filter's first run";
  pipe->run();
  for (const auto& t : pipe->timings()) EXPECT_FALSE(t.cold) << t.name;
}

}  // namespace

#if __has_include(<glad/egl.h>)  // built with the front end
#include "app/gui/app_state.hpp"

namespace {

using satlab::gui::AppState;
using satlab::gui::StageStats;

StageTiming timing(const char* name, double ms, unsigned long run, bool cold = false, const char* parent = "") {
  StageTiming t;
  t.name = name, t.ms = ms, t.run = run, t.cold = cold, t.parent = parent;
  return t;
}

TEST(TimingBookkeeping, ColdRunsAreLabelledAndKeptOutOfAveragesHistoryAndFrameTimes) {
  AppState s;
  s.backend_name = "gpu (test)";
  s.record({timing("upload", 9.0, 1, true), timing("reduce", 12.0, 1, true), timing("sat", 3.0, 1, true),
            timing("sat tiles", 2.0, 1, true, "sat"), timing("blur", 0.5, 1, true)});
  EXPECT_EQ(s.stages["reduce"].state(), StageStats::State::Cold);
  EXPECT_EQ(s.stages["reduce"].cold_ms, 12.0);
  EXPECT_EQ(s.stages["reduce"].warm_runs, 0);
  EXPECT_TRUE(s.stages["reduce"].history.empty());
  EXPECT_EQ(s.stages["sat tiles"].state(), StageStats::State::Cold);
  EXPECT_TRUE(s.frame_ms_history.empty()) << "a cold frame's time went into the frame history";

  s.record({timing("reduce", 0.1, 2), timing("sat", 0.03, 2), timing("sat tiles", 0.02, 2, false, "sat"),
            timing("blur", 0.2, 2)});
  const StageStats& reduce = s.stages["reduce"];
  EXPECT_EQ(reduce.state(), StageStats::State::Warm);
  EXPECT_DOUBLE_EQ(reduce.ema_ms, 0.1) << "the EMA starts at the first warm run, not the cold one";
  EXPECT_EQ(reduce.warm_runs, 1);
  ASSERT_EQ(reduce.history.size(), 1u);
  EXPECT_FLOAT_EQ(reduce.history.front(), 0.1f);
  EXPECT_EQ(reduce.cold_ms, 12.0);  // kept apart, for the tooltip
  EXPECT_EQ(s.stages["upload"].state(), StageStats::State::NotRun) << "the upload did not run in run 2";
  ASSERT_EQ(s.frame_ms_history.size(), 1u);
  EXPECT_NEAR(s.frame_ms_history.back(), 0.33f, 1e-6);

  s.record({timing("reduce", 0.2, 3), timing("sat", 0.03, 3), timing("blur", 0.2, 3)});
  EXPECT_DOUBLE_EQ(s.stages["reduce"].ema_ms, 0.8 * 0.1 + 0.2 * 0.2);
  EXPECT_EQ(s.stages["reduce"].warm_runs, 2);
}

// A phase named like a stage (the spread's "sat" phase of "dof", gather_box's "sat" stage) has a row of its
// own, "dof sat", so neither's history or average takes the other's times; a phase beside its siblings
// keeps that mark.
TEST(TimingBookkeeping, APhaseNamedLikeAStageKeepsItsOwnRow) {
  AppState s;
  StageTiming fill = timing("fill", 0.2, 2, false, "dof");
  fill.concurrent = true;
  s.record({timing("dof", 5.0, 1, true), timing("sat", 1.0, 1, true, "dof")});
  s.record({timing("dof", 0.9, 2), timing("sat", 0.3, 2, false, "dof"), fill});
  s.record({timing("sat", 2.0, 3, true), timing("blur", 0.5, 3, true)});  // gather_box now
  s.record({timing("sat", 0.05, 4), timing("blur", 0.1, 4)});
  EXPECT_DOUBLE_EQ(s.stages["dof sat"].ema_ms, 0.3);
  EXPECT_EQ(s.stages["dof sat"].parent, "dof");
  EXPECT_DOUBLE_EQ(s.stages["sat"].ema_ms, 0.05);
  EXPECT_TRUE(s.stages["sat"].parent.empty());
  EXPECT_EQ(s.stages["sat"].warm_runs, 1);
  EXPECT_TRUE(s.stages["dof fill"].concurrent);
  EXPECT_FALSE(s.stages["dof sat"].concurrent);
  // Another mode's phases, one of them shared ("sat"), take this frame's order.
  s.record({timing("dof", 1.0, 5, true), timing("layers", 0.1, 5, true, "dof"),
            timing("sat", 0.2, 5, true, "dof"), timing("composite", 0.3, 5, true, "dof")});
  std::vector<std::string> phases;
  for (const auto& name : s.stage_order)
    if (s.stages[name].parent == "dof") phases.push_back(name);
  EXPECT_EQ(phases, (std::vector<std::string>{"dof layers", "dof sat", "dof composite"}));
  // Another stage's phases, new in this frame, stay behind theirs: each stage's phases are ordered among
  // their own rows only.
  s.record({timing("highlights", 0.5, 6), timing("highlights compact", 0.1, 6, false, "highlights"),
            timing("dof", 1.0, 6), timing("layers", 0.1, 6, false, "dof"),
            timing("sat", 0.2, 6, false, "dof"), timing("composite", 0.3, 6, false, "dof")});
  const auto at = [&](const std::string& name) {
    return std::find(s.stage_order.begin(), s.stage_order.end(), name) - s.stage_order.begin();
  };
  EXPECT_LT(at("dof layers"), at("dof sat"));
  EXPECT_LT(at("dof sat"), at("dof composite"));
  EXPECT_LT(at("dof composite"), at("highlights compact"));
  // The frame's time adds only stages: 0.9 for run 2, not its phases.
  ASSERT_GE(s.frame_ms_history.size(), 1u);
  EXPECT_NEAR(s.frame_ms_history.front(), 0.9f, 1e-6);
}

TEST(TimingBookkeeping, SkippedStagesShowAsNotRunAndKeepTheirWarmValue) {
  AppState s;
  s.record({timing("reduce", 5.0, 1, true), timing("sat", 2.0, 1, true), timing("blur", 1.0, 1, true)});
  s.record({timing("reduce", 0.1, 2), timing("sat", 0.05, 2), timing("blur", 0.3, 2)});
  s.record({timing("blur", 0.3, 3)});  // a frame that kept the depth and the SAT
  EXPECT_EQ(s.stages["reduce"].state(), StageStats::State::NotRun);
  EXPECT_EQ(s.stages["sat"].state(), StageStats::State::NotRun);
  EXPECT_EQ(s.stages["blur"].state(), StageStats::State::Warm);
  EXPECT_DOUBLE_EQ(s.stages["sat"].ema_ms, 0.05) << "the last warm value, never the cold run";
  // A stage that only ever ran cold has no warm value to show.
  s.record({timing("reduce", 4.0, 4, true), timing("blur", 0.3, 4)});
  s.record({timing("blur", 0.3, 5)});
  EXPECT_EQ(s.stages["reduce"].state(), StageStats::State::NotRun);
  EXPECT_EQ(s.stages["reduce"].warm_runs, 0);
  EXPECT_EQ(s.stages["reduce"].ema_ms, 0.0);
  EXPECT_EQ(s.stages["reduce"].cold_ms, 4.0);
}

// A phase its stage skipped this frame (gather_box's kept SAT: "dof" reports only "blur") keeps its row and
// shows "not run"; a stage that reports a phase never seen (another builder or mode) drops its old phases.
TEST(TimingBookkeeping, ASkippedPhaseShowsAsNotRunAndANewPhaseSetDropsTheOld) {
  AppState s;
  s.record({timing("dof", 9.0, 1, true), timing("sat", 8.0, 1, true, "dof"), timing("blur", 1.0, 1, true, "dof")});
  s.record({timing("dof", 0.2, 2), timing("sat", 0.1, 2, false, "dof"), timing("blur", 0.1, 2, false, "dof")});
  s.record({timing("dof", 0.1, 3), timing("blur", 0.1, 3, false, "dof")});  // the SAT kept
  ASSERT_EQ(s.stages.count("dof sat"), 1u);
  EXPECT_EQ(s.stages["dof sat"].state(), StageStats::State::NotRun);
  EXPECT_DOUBLE_EQ(s.stages["dof sat"].ema_ms, 0.1);
  EXPECT_EQ(s.stages["dof blur"].state(), StageStats::State::Warm);
  s.record({timing("dof", 0.5, 4, true), timing("spread", 0.4, 4, true, "dof")});  // another mode
  EXPECT_EQ(s.stages.count("dof sat"), 0u);
  EXPECT_EQ(s.stages.count("dof blur"), 0u);
  EXPECT_EQ(s.stages.count("dof spread"), 1u);
}

TEST(TimingBookkeeping, ARunReadTwiceCountsOnceAndANewBackendCountsAfresh) {
  AppState s;
  s.record({timing("sat", 1.0, 1, true)});
  s.record({timing("sat", 0.5, 2)});
  s.record({timing("sat", 0.5, 2)});  // the same run again (timings read a frame late)
  EXPECT_EQ(s.stages["sat"].warm_runs, 1);
  EXPECT_EQ(s.stages["sat"].history.size(), 1u);
  EXPECT_EQ(s.frame_ms_history.size(), 1u);
  s.clear_timings();              // a new backend: its runs count from 1 again
  s.record({timing("sat", 2.0, 1, true)});
  s.record({timing("sat", 0.4, 2)});
  EXPECT_EQ(s.stages["sat"].warm_runs, 1);
  EXPECT_DOUBLE_EQ(s.stages["sat"].ema_ms, 0.4);
}

TEST(TimingBookkeeping, AColdRunAfterWarmOnesStartsTheAveragesAfresh) {
  AppState s;
  s.record({timing("sat", 1.0, 1, true)});
  for (unsigned long r = 2; r < 6; ++r) s.record({timing("sat", 0.5, r)});
  s.record({timing("sat", 3.0, 6, true)});  // another SAT builder: a new configuration
  EXPECT_EQ(s.stages["sat"].state(), StageStats::State::Cold);
  EXPECT_TRUE(s.stages["sat"].history.empty());
  s.record({timing("sat", 0.2, 7)});
  EXPECT_DOUBLE_EQ(s.stages["sat"].ema_ms, 0.2) << "the old builder's runs are not averaged with the new one's";
  EXPECT_EQ(s.stages["sat"].history.size(), 1u);
}

// A preview (a second pipeline on the visible region, core/preview.hpp) and the full frame each keep their
// own rows, averages, history and run count: a preview never averages with the full frame, the rows shown
// are those of the last kind shown, and the display's rows (draw, ui) go with them.
TEST(TimingBookkeeping, PreviewAndFullFrameTimingsStayApartAndTheDisplaysRowsFollowTheShownKind) {
  AppState s;
  s.record({timing("reduce", 40.0, 1, true), timing("dof", 900.0, 1, true)});
  s.record({timing("reduce", 30.0, 2), timing("dof", 800.0, 2)});
  s.record_stage(timing("draw", 2.0, 0), "GL timer query");
  s.show_timings_of(true);  // a preview: its pipeline's runs count from 1
  EXPECT_TRUE(s.timings_of_preview);
  EXPECT_EQ(s.stage_order, (std::vector<std::string>{"draw"})) << "the full frame's pipeline rows are parked";
  s.record({timing("reduce", 1.0, 1, true), timing("dof", 20.0, 1, true)});
  s.record({timing("reduce", 0.5, 2), timing("dof", 10.0, 2)});
  EXPECT_EQ(s.stage_order, (std::vector<std::string>{"reduce", "dof", "draw"}));
  EXPECT_DOUBLE_EQ(s.stages["dof"].ema_ms, 10.0) << "the preview's warm run alone";
  EXPECT_EQ(s.stages["dof"].warm_runs, 1);
  ASSERT_EQ(s.frame_ms_history.size(), 1u);
  EXPECT_FLOAT_EQ(s.frame_ms_history.back(), 10.5f);
  EXPECT_EQ(s.stages["draw"].warm_runs, 0) << "draw's first run was cold";
  // A full run finished while the preview is shown (its parameters are stale): recorded, not shown.
  s.record_apart(false, {timing("reduce", 35.0, 3), timing("dof", 700.0, 3)});
  EXPECT_TRUE(s.timings_of_preview);
  EXPECT_DOUBLE_EQ(s.stages["dof"].ema_ms, 10.0);
  s.show_timings_of(false);
  EXPECT_EQ(s.stage_order, (std::vector<std::string>{"reduce", "dof", "draw"}));
  EXPECT_DOUBLE_EQ(s.stages["dof"].ema_ms, 0.8 * 800.0 + 0.2 * 700.0) << "the full frame's runs 2 and 3";
  EXPECT_EQ(s.stages["dof"].warm_runs, 2);
  EXPECT_EQ(s.frame_ms_history.size(), 2u);
  s.record({timing("reduce", 35.0, 3), timing("dof", 700.0, 3)});  // run 3 again: counted once
  EXPECT_EQ(s.stages["dof"].warm_runs, 2);
  // Back to the preview: its run 2 read again counts once, its averages are where they were.
  s.show_timings_of(true);
  s.record({timing("reduce", 0.5, 2), timing("dof", 10.0, 2)});
  EXPECT_EQ(s.stages["dof"].warm_runs, 1);
  EXPECT_EQ(s.stages["draw"].cold_ms, 2.0) << "the display's rows moved with the shown kind";
  s.clear_timings();
  EXPECT_FALSE(s.timings_of_preview);
  EXPECT_TRUE(s.parked.stages.empty());
}

}  // namespace
#endif
