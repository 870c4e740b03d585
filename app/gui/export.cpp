#include "app/gui/export.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "app/gui/app_state.hpp"
#include "app/gui/export_stream.hpp"
#include "app/gui/session.hpp"
#include "app/gui/timing_table.hpp"
#include "app/io/assets.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "app/io/preset.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

// The suffixes an export writes, in the order of FilesState's switches.
std::vector<std::string> suffixes(const FilesState& f) {
  std::vector<std::string> out;
  if (f.result) out.push_back(".png");
  if (f.depth) out.push_back("_depth.png");
  if (f.coc) out.push_back("_coc.png");
  if (f.timings) out.insert(out.end(), {"_timings.csv", "_timings.json"});
  return out;
}

std::string export_base(const AppState& s) {
  return io::file_stem(s.image_path) + "_" + io::params_tag(s.params);
}

// The CoC view's colour map (shaders/view.frag): grey in focus, towards orange in front, blue behind.
ImageRGBA8 coc_colour_map(const ImageF& coc, float max_radius) {
  ImageRGBA8 out(coc.width, coc.height);
  const float scale = max_radius > 0 ? 1.f / max_radius : 1.f;
  const float focus = 0.08f, near_col[3] = {1.f, 0.45f, 0.1f}, far_col[3] = {0.15f, 0.45f, 1.f};
  for (int y = 0; y < coc.height; ++y)
    for (int x = 0; x < coc.width; ++x) {
      const float c = std::min(std::max(coc.at(x, y) * scale, -1.f), 1.f), t = std::sqrt(std::fabs(c));
      const float* col = c > 0 ? near_col : far_col;
      uint8_t* px = out.px(x, y);
      for (int k = 0; k < 3; ++k) px[k] = uint8_t(std::lround(255.f * (focus + (col[k] - focus) * t)));
      px[3] = 255;
    }
  return out;
}

io::Preset preset_of(const AppState& s) {
  std::string compare = to_string(s.compare);
  if (s.compare == Compare::Split) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "split:%.3g", double(s.split));
    compare = buf;
  }
  io::Preset p{s.params, s.synthetic, to_string(s.view), compare, to_string(s.compare_view), s.depth_edit.refine,
               {}, {}, {}};
  if (s.depth_edit.source == DepthSource::Selection)
    p.clicks = s.depth_edit.clicks, p.layout = to_string(s.depth_edit.layout);
  p.keys = s.clip.keys.keys();  // a clip's keys (playback.hpp)
  return p;
}

// warm: ema_ms is of warm runs and the last frame ran it; cold: its last run was a first run after a
// change (cold_ms); not run: the last frame skipped it (ema_ms of its earlier warm runs, if any).
const char* state_name(const StageStats& st) {
  switch (st.state()) {
    case StageStats::State::Warm: return "warm";
    case StageStats::State::Cold: return "cold";
    case StageStats::State::NotRun: return "not run";
  }
  return "";
}

std::string timings_csv(const AppState& s) {
  std::string out = "stage,ema_ms,last_ms,bytes,gb_per_s,state,cold_ms\n";
  for (const auto& name : s.stage_order) {
    const StageStats& st = s.stages.at(name);
    char line[256];
    std::snprintf(line, sizeof(line), "%s,%.6f,%.6f,%.0f,%.3f,%s,%.6f\n", name.c_str(), st.ema_ms, st.last_ms,
                  st.bytes, st.bytes > 0 && st.ema_ms > 0 ? st.bytes / (st.ema_ms * 1e6) : 0.0, state_name(st),
                  st.cold_ms);
    out += line;
  }
  return out;
}

std::string timings_json(const AppState& s) {
  nlohmann::json stages = nlohmann::json::array();
  double total = 0;
  const TimingTable table = timing_table(s);  // the panel's rows: what adds up, which fraction of C
  for (const TimingRow& row : table.rows) {
    const std::string& name = row.key;
    const StageStats& st = s.stages.at(name);
    if (st.of_pipeline && st.parent.empty() && st.state() == StageStats::State::Warm) total += st.ema_ms;
    stages.push_back({{"stage", name},
                      {"state", state_name(st)},
                      {"ema_ms", st.ema_ms},
                      {"last_ms", st.last_ms},
                      {"cold_ms", st.cold_ms},
                      {"warm_runs", st.warm_runs},
                      {"bytes", st.bytes},
                      {"gb_per_s", st.bytes > 0 && st.ema_ms > 0 ? st.bytes / (st.ema_ms * 1e6) : 0.0},
                      {"parent", st.parent},          // "" for a stage, else the stage this is a phase of
                      {"concurrent", st.concurrent},  // a phase beside its siblings, on a side stream
                      {"in_total", row.in_total},     // one of the rows frame_total_ema_ms adds
                      {"apart", st.apart},            // why it is in no total ("": it may be)
                      {"of_c", row.of_c > 0 ? nlohmann::json(row.of_c) : nlohmann::json(nullptr)},
                      {"bytes_over_c", row.bytes_over_c}});  // its bytes model claims more than C
  }
  const io::Preset preset = preset_of(s);
  const nlohmann::json j = {{"image", s.image_path},
                            {"depth", s.depth_path},
                            {"width", s.image_width},
                            {"height", s.image_height},
                            {"backend", s.backend_name},
                            {"pipeline_runs", s.pipeline_runs},
                            {"total_ema_ms", total},  // the pipeline stages the last frame ran warm
                            {"frame_total_ema_ms", table.total_ms},  // the panel's total: every in_total row
                            {"frame_period_ms", s.frame_period_ms},
                            {"frame_period_settled", table.period_settled},
                            {"stages", stages},
                            {"preset", nlohmann::json::parse(io::preset_to_json(preset))}};
  return j.dump(2) + "\n";
}

// Writes every chosen file under `base` (a path without suffix) but the result, and starts the result's
// streamed export (s.files.job); returns what was written. The depth and CoC are the full frame's.
std::vector<std::string> write_export(AppState& s, Session& session, const std::string& base) {
  FilesState& f = s.files;
  if (f.job) throw Error("an export is running: wait for it or cancel it");
  if (session.input().empty()) throw Error("nothing to export: no image");
  // The depth and CoC are the full frame's: of an overview, not the file's resolution, so not exported.
  const bool large = !session.large_path().empty();
  const bool of_frame =
      !large && ((f.depth && !session.edit_depth().empty()) || (f.coc && s.params.filter == FilterKind::Dof));
  if (of_frame) session.finish(s);  // the full frame of what is shown, not a preview of it
  if (of_frame && s.pipeline_runs == 0) throw Error("nothing to export yet: the pipeline has not run");
  std::vector<std::string> written;
  const ImageF& depth = session.depth_normalised();
  if (f.depth && !depth.empty() && !large) {
    io::save_png16(base + "_depth.png", depth);
    written.push_back(base + "_depth.png");
  }
  const ImageF& coc = session.coc();
  if (f.coc && !coc.empty() && s.params.filter == FilterKind::Dof && !large) {
    io::save_png(base + "_coc.png", coc_colour_map(coc, s.params.max_radius));
    written.push_back(base + "_coc.png");
  }
  if (f.timings) {
    io::save_text(base + "_timings.csv", timings_csv(s));
    io::save_text(base + "_timings.json", timings_json(s));
    written.insert(written.end(), {base + "_timings.csv", base + "_timings.json"});
  }
  if (f.result) {
    StreamExport::Request r;
    r.path = base + ".png";
    if (!session.large_path().empty()) {  // an overview on screen: the file's own pixels
      r.file = session.large_path();
      r.synthetic = s.synthetic;
    } else {
      r.image = std::make_shared<const ImageRGBA8>(session.input());
      if (!session.pipeline_depth().empty()) r.depth = std::make_shared<const ImageF>(session.pipeline_depth());
    }
    r.params = s.params;
    r.algorithms = s.algorithms;
    r.backend = s.backend;
    if (f.max_tile) r.max_tile = f.max_tile, r.stream = true;
    r.band_delay_ms = f.band_delay_ms;
    f.job = std::make_shared<StreamExport>(std::move(r));
    f.others = written;
  }
  return written;
}

void report(AppState& s, const std::vector<std::string>& written) {
  s.files.message = "wrote " + std::to_string(written.size()) + " file" + (written.size() == 1 ? "" : "s");
  if (!written.empty()) s.files.message += ": " + io::file_stem(written.front()) + "...";
}

void run_export(AppState& s, Session& session) {
  FilesState& f = s.files;
  const std::string folder = f.folder[0] ? f.folder : ".";
  if (!io::is_dir(folder)) throw Error(folder + ": the export folder does not exist");
  const std::vector<std::string> sfx = suffixes(f);
  if (sfx.empty()) throw Error("nothing chosen to export");
  io::ExportTarget target = io::export_target(folder, export_base(s), sfx, f.taken);
  f.existing = std::move(target.existing);
  if (target.base.empty()) return;  // the panel asks; its answer comes back as another request
  const std::vector<std::string> written = write_export(s, session, target.base);
  if (!f.job) report(s, written);
}

}  // namespace

std::vector<std::string> export_next_free(AppState& s, Session& session, const std::string& folder) {
  if (!io::is_dir(folder)) throw Error(folder + ": the export folder does not exist");
  std::vector<std::string> written = write_export(s, session, io::next_free_base(folder, export_base(s), suffixes(s.files)));
  if (!s.files.job) return written;
  const std::string error = s.error;
  s.error.clear();
  written = collect_export(s, true);
  s.files.ended = false;  // the caller reports what it returns
  s.files.ended_files.clear();
  if (!s.error.empty()) throw Error(std::exchange(s.error, error));
  s.error = error;
  return written;
}

std::vector<std::string> collect_export(AppState& s, bool wait) {
  FilesState& f = s.files;
  if (!f.job) return {};
  if (f.cancel_requested) f.job->cancel();
  f.cancel_requested = false;
  if (wait) f.job->wait();
  if (!f.job->done()) return {};
  f.job->wait();  // the thread has ended
  std::vector<std::string> written;
  if (f.job->written()) {
    written.push_back(f.job->path());
    written.insert(written.end(), f.others.begin(), f.others.end());
    report(s, written);
    f.message += " (result " + f.job->summary() + ")";
  } else if (f.job->cancelled()) {
    f.message = "export cancelled: no result written" +
                (f.others.empty() ? std::string() : " (" + std::to_string(f.others.size()) + " other files were)");
  } else {
    s.error = "export of " + f.job->path() + " failed: " + f.job->error();
  }
  f.ended = f.job->written() || f.job->cancelled();  // a failure is reported as s.error
  f.job.reset();
  f.others.clear();
  f.ended_files = written;
  return written;
}

void apply_preset_file(AppState& s, const std::string& path) {
  const io::Preset p = io::load_preset(path);
  View view = s.view, compare_view = s.compare_view;
  Compare compare = s.compare;
  float split = s.split;
  auto check = [&](const char* field, auto parse) {
    try {
      parse();
    } catch (const Error& e) {
      throw Error(path + ": preset field '" + field + "': " + e.what());
    }
  };
  if (!p.view.empty()) check("view", [&] { view = view_from_string(p.view); });
  if (!p.compare_view.empty())
    check("compare_view", [&] { compare_view = view_from_string(p.compare_view); });
  if (!p.compare.empty()) check("compare", [&] { compare = compare_from_string(p.compare, &split); });
  Timeline keys;  // a clip's keys (playback.hpp)
  check("keys", [&] { keys = Timeline(p.keys); });
  // Everything checked: now apply.
  s.params = p.params;
  s.view = view;
  s.compare_view = compare_view;
  s.compare = compare;
  s.split = split;
  if (to_spec(p.synthetic) != to_spec(s.synthetic)) s.synthetic_changed = true;
  s.synthetic = p.synthetic;
  if (!p.refine.empty() && p.refine != s.depth_edit.refine)
    s.depth_edit.refine = p.refine, s.depth_edit.changed = true;
  if (!p.clicks.empty()) {  // the selection's clicks, on the image now open
    s.depth_edit.clicks = p.clicks;
    s.depth_edit.layout = parse_subject_layout(p.layout);
    s.depth_edit.subject_changed = true;
  }
  if (!p.keys.empty()) s.clip.keys = keys;
  s.params_changed = true;
}

void save_preset_file(const AppState& s, const std::string& path) {
  io::save_preset(path, preset_of(s));
}

void handle_file_requests(AppState& s, Session& session) {
  FilesState& f = s.files;
  if (!f.scenes_listed) {  // the bundled scenes: every image in the assets folder
    f.scenes_listed = true;
    try {
      f.scenes = io::images_in_dir(io::assets_dir());
    } catch (const Error&) {  // none found: the panel shows no scene buttons
    }
  }
  collect_export(s, false);
  try {
    if (f.export_requested) run_export(s, session);
    if (f.save_preset) {
      save_preset_file(s, f.preset_path);
      f.message = std::string("saved preset ") + f.preset_path;
    }
    if (f.load_preset) {
      apply_preset_file(s, f.preset_path);
      f.message = std::string("loaded preset ") + f.preset_path;
    }
  } catch (const Error& e) {
    s.error = e.what();
    f.existing.clear();
  }
  f.export_requested = f.save_preset = f.load_preset = false;
  f.taken = io::WhenTaken::Ask;
}

void draw_export_progress(AppState& s, float x, float bottom, float width) {
  FilesState& f = s.files;
  if (!f.job) return;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float h = ImGui::GetFrameHeight() + 2 * st.WindowPadding.y;
  ImGui::SetNextWindowPos(ImVec2(x, bottom - h));
  ImGui::SetNextWindowSize(ImVec2(width, h));
  ImGui::SetNextWindowBgAlpha(0.85f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
  if (ImGui::Begin("##export progress", nullptr, flags)) {
    const uint64_t done = f.job->rows_done(), total = f.job->rows_total();
    char text[160];
    std::snprintf(text, sizeof(text), "exporting %s: %llu of %llu rows", io::file_stem(f.job->path()).c_str(),
                  static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    const float cancel_w = ImGui::CalcTextSize("Cancel").x + 2 * st.FramePadding.x;
    ImGui::ProgressBar(total ? float(double(done) / double(total)) : 0.f,
                       ImVec2(-cancel_w - st.ItemSpacing.x, 0), text);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) f.cancel_requested = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("stop the export (Esc): no file is left behind");
  }
  ImGui::End();
}

void draw_files_panel(AppState& s) {
  FilesState& f = s.files;
  // One label column: scene, preset, export to.
  const float label_w = ImGui::CalcTextSize("export to").x + 2 * ImGui::GetStyle().ItemSpacing.x;
  const ImGuiStyle& st = ImGui::GetStyle();
  auto label = [&](const char* text) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(text);
    ImGui::SameLine(label_w);
  };
  if (!f.scenes.empty()) {
    label("scene");
    for (size_t i = 0; i < f.scenes.size(); ++i) {
      if (i) ImGui::SameLine();
      const bool open = f.scenes[i] == s.image_path;
      if (open) ImGui::BeginDisabled();
      if (ImGui::Button(io::file_stem(f.scenes[i]).c_str())) s.open_image = f.scenes[i];
      if (open) ImGui::EndDisabled();
    }
  }

  label("preset");
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("saveload").x - 3 * st.ItemSpacing.x - 4 * st.FramePadding.x);
  ImGui::InputTextWithHint("##preset", "preset.json", f.preset_path, sizeof(f.preset_path));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("preset file: every filter parameter, the synthetic depth and the view settings");
  ImGui::SameLine();
  if (ImGui::Button("save") && f.preset_path[0]) f.save_preset = true;
  ImGui::SameLine();
  if (ImGui::Button("load") && f.preset_path[0]) f.load_preset = true;

  label("export to");
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("export").x - 2 * st.ItemSpacing.x - 2 * st.FramePadding.x);
  ImGui::InputTextWithHint("##folder", "folder", f.folder, sizeof(f.folder));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("folder to export into: %s*.png", export_base(s).c_str());
  ImGui::SameLine();
  if (f.job) ImGui::BeginDisabled();
  if (ImGui::Button("export")) f.export_requested = true;
  if (f.job) ImGui::EndDisabled();
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + label_w);
  ImGui::Checkbox("result", &f.result);
  ImGui::SameLine();
  ImGui::Checkbox("depth", &f.depth);
  ImGui::SameLine();
  ImGui::Checkbox("CoC", &f.coc);
  ImGui::SameLine();
  ImGui::Checkbox("timings", &f.timings);
  if (!f.message.empty()) ImGui::TextDisabled("%s", f.message.c_str());

  if (!f.existing.empty()) ImGui::OpenPopup("Overwrite?");
  if (ImGui::BeginPopupModal("Overwrite?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::TextUnformatted("These files exist already:");
    for (const auto& e : f.existing) ImGui::BulletText("%s", e.c_str());
    auto answer = [&](io::WhenTaken t) {
      f.taken = t;
      f.export_requested = t != io::WhenTaken::Ask;
      f.existing.clear();
      ImGui::CloseCurrentPopup();
    };
    if (ImGui::Button("Overwrite")) answer(io::WhenTaken::Overwrite);
    ImGui::SameLine();
    if (ImGui::Button("Use the next free name")) answer(io::WhenTaken::NextFree);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) answer(io::WhenTaken::Ask);
    ImGui::EndPopup();
  }
}

}  // namespace satlab::gui
