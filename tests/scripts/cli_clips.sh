#!/usr/bin/env bash
# satlab render on clips (app/cli/render_clip.hpp): a sequence rendered frame by frame equals each frame
# rendered as a still, with the parameters the keys give at its time (keys that move the synthetic depth
# too); stereo frames (side by side, top and bottom, or a right clip) agree; --skip-bad-frames repeats the
# frame before a damaged one and counts it; an OpenEXR sequence's Z pass is its depth; a lossless video (FFV1) carries the
# frames exactly; a gap in the numbering, a cut video, bad keys and a still output are one line, exit 1,
# nothing written; a depth video packed into its colour video (MP4-AT) renders as with --depth. The video checks skip (and say so) where FFmpeg's libraries are not installed.
# Usage: cli_clips.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
bundled_scene
need_python3 "to compare the frames"
cd "$tmp" || fail "no tmp"
refuse() {  # refuse WHAT-IT-SAYS COMMAND...
  local want=$1
  shift
  "$@" >r.out 2>r.err && fail "accepted: $*"
  [ "$(grep -c . r.err)" -le 2 ] || { cat r.err; fail "more than one line: $*"; }
  grep -q -- "$want" r.err || { cat r.err; fail "'$want' not said: $*"; }
}
# Five frames: the scene shifted right by k pixels (so frames differ), numbered from 7.
for k in 0 1 2 3 4; do
  "$bin" render "$scene" --filter box --radius "$k" --out "in_$((k + 7)).png" >/dev/null 2>&1 || fail "cannot make frame $k"
done
# Keys: focus 0.1 held until 0.1 s, then 0.8 (a step), aperture 30 then 60 at 0.15 s (hold).
cat >keys.json <<'J'
{"keys": [{"time": 0, "focus": 0.1, "aperture": 30},
          {"time": 0.1, "focus": 0.8, "ease": "hold"},
          {"time": 0.15, "aperture": 60, "ease": "hold"}]}
J
"$bin" render 'in_%d.png' --depth "$scene_depth" --keys keys.json --fps 20 --backend cpu --out 'out_%03d.png' \
  >log 2>&1 || { cat log; fail "the sequence render failed"; }
grep -q "^wrote out_%03d.png (5 frames 384x216 at 20 fps" log || { cat log; fail "no summary line"; }
for n in 7 8 9 10 11; do [ -f "out_$(printf %03d $n).png" ] || fail "frame $n not written by its number"; done
# Frame times 0, 0.05, 0.10, 0.15, 0.20 s: focus 0.1, 0.1, 0.8, 0.8, 0.8; aperture 30, 30, 30, 60, 60.
still() {  # still N FOCUS APERTURE
  "$bin" render "in_$1.png" --depth "$scene_depth" --focus "$2" --aperture "$3" --backend cpu --out "still_$1.png" \
    >/dev/null 2>&1 || fail "still $1 failed"
}
still 7 0.1 30; still 8 0.1 30; still 9 0.8 30; still 10 0.8 60; still 11 0.8 60
python3 - "$src" <<'PY' || fail "the sequence differs from the stills"
import sys
sys.path.insert(0, sys.argv[1] + "/tests/scripts")
import png_util
for n in range(7, 12):
    a = png_util.read(f"out_{n:03d}.png")
    b = png_util.read(f"still_{n}.png")
    w, h = a[0], a[1]
    assert (w, h) == (b[0], b[1]), n
    diff = sum(1 for y in range(h) for x in range(w) if a[2](x, y) != b[2](x, y))
    assert diff == 0, f"frame {n}: {diff} pixels differ from the still"
PY
# The keys changed the picture: frames 8 and 9 (focus 0.1 -> 0.8) are not the same render.
cmp -s still_8.png still_9.png && fail "the keys made no difference"
# A depth clip: exact and full size, so auto runs no temporal filter; gated is asked for by name.
for n in 7 8 9 10 11; do cp "$scene_depth" "d_$n.png"; done
"$bin" render 'in_%d.png' --depth 'd_%d.png' --backend cpu --out 'dc_%d.png' >log 2>&1 || { cat log; fail "depth clip"; }
grep -q "depth clip d_%d.*no temporal filter" log || { cat log; fail "auto filtered exact depth"; }
"$bin" render 'in_%d.png' --depth 'd_%d.png' --temporal gated --backend cpu --out 'dg_%d.png' >log 2>&1 ||
  { cat log; fail "gated"; }
grep -q "temporal filter gated" log || { cat log; fail "--temporal gated not said"; }
cmp -s dc_9.png dg_9.png || fail "the same exact depth every frame changed under the temporal filter"
# Stereo: frames holding both views side by side (or top and bottom) render as the left view with depth
# from stereo, the same as a left clip with a right one (--right); small frames, three of them.
python3 - "$src" <<'PY' || fail "cannot make the stereo frames"
import sys
sys.path.insert(0, sys.argv[1] + "/tests/scripts")
import png_util
W, H = 96, 64
for k in range(3):
    def left(x, y):  # a near square (disparity 6) over a far checker (disparity 2), moving right
        if 30 + 2 * k <= x < 60 + 2 * k and 16 <= y < 48:
            return (220, 120 + 3 * ((x * 7 + y * 3) % 11), 40)
        return (30 + 20 * ((x // 4 + y // 4) % 2), 80, 150 + ((x * 5 + y) % 7) * 9)
    def right(x, y):
        sq = 30 + 2 * k <= x + 6 < 60 + 2 * k and 16 <= y < 48
        return left(x + 6, y) if sq else left(x + 2, y) if x + 2 < W else left(W - 1, y)
    png_util.write_rgb(f"L_{k}.png", W, H, left)
    png_util.write_rgb(f"R_{k}.png", W, H, right)
    png_util.write_rgb(f"SBS_{k}.png", 2 * W, H, lambda x, y: left(x, y) if x < W else right(x - W, y))
    png_util.write_rgb(f"TB_{k}.png", W, 2 * H, lambda x, y: left(x, y) if y < H else right(x, y - H))
PY
"$bin" render 'L_%d.png' --right 'R_%d.png' --backend cpu --out 'st_%d.png' >log 2>&1 || { cat log; fail "--right"; }
grep -q "3 frames 96x64.*stereo with R_%d.*temporal filter gated" log || { cat log; fail "--right: not said"; }
"$bin" render 'SBS_%d.png' --stereo sbs --backend cpu --out 'sbs_%d.png' >log 2>&1 || { cat log; fail "--stereo sbs"; }
grep -q "3 frames 96x64.*stereo, views side by side" log || { cat log; fail "--stereo sbs: not said"; }
"$bin" render 'TB_%d.png' --stereo tb --backend cpu --out 'tb_%d.png' >log 2>&1 || { cat log; fail "--stereo tb"; }
for k in 0 1 2; do
  cmp -s "st_$k.png" "sbs_$k.png" || fail "frame $k: side by side differs from --right"
  cmp -s "st_$k.png" "tb_$k.png" || fail "frame $k: top and bottom differs from --right"
done
"$bin" render 'L_%d.png' --right 'R_%d.png' --temporal off --backend cpu --out 'so_%d.png' >/dev/null 2>&1 || fail "--temporal off"
cmp -s so_0.png st_0.png || fail "frame 0 differs with the filter off (it starts from the first frame's depth)"
# Keys that move the synthetic depth: a tilt-shift band that travels; each frame is the still with the
# synthetic depth at that frame's position.
cat >band.json <<'J'
{"keys": [{"time": 0, "synthetic": {"position": 0.2}}, {"time": 0.2, "synthetic": {"position": 0.8}, "ease": "linear"}]}
J
"$bin" render 'in_%d.png' --synthetic-depth gradient:width=0.5 --keys band.json --fps 20 --aperture 40 --backend cpu \
  --out 'band_%d.png' >log 2>&1 || { cat log; fail "moving synthetic depth"; }
grep -q "moved by the keys" log || { cat log; fail "moving synthetic depth not said"; }
"$bin" render in_9.png --synthetic-depth gradient:pos=0.5,width=0.5 --aperture 40 --backend cpu --out band_still.png \
  >/dev/null 2>&1 || fail "still with the band at 0.5"
cmp -s band_9.png band_still.png || fail "frame 9 (t = 0.1 s) is not the still with the band at 0.5"
cmp -s band_7.png band_9.png && fail "the band did not move"
# --skip-bad-frames: a damaged frame repeats the one before and is counted; without it, one line.
mkdir bad && for n in 0 1 2 3; do cp "in_$((n + 7)).png" "bad/f_$n.png"; done
printf '\x89PNG\r\n\x1a\nbroken' >bad/f_2.png
refuse "frame 2 at 0.083 s" "$bin" render 'bad/f_%d.png' --backend cpu --out 'nb_%d.png'
ls nb_* >/dev/null 2>&1 && fail "a refused sequence with a bad frame left frames"
"$bin" render 'bad/f_%d.png' --skip-bad-frames --backend cpu --out 'sk_%d.png' >log 2>&1 || { cat log; fail "--skip-bad-frames"; }
grep -q "4 frames.*1 bad frame(s) replaced" log || { cat log; fail "the replaced frame not counted"; }
cmp -s sk_1.png sk_2.png || fail "the bad frame did not repeat the one before"
[ -f sk_3.png ] || fail "the frame after the bad one is missing"
refuse "are for clips" "$bin" render in_7.png --stereo sbs --out x.png
refuse "name one" "$bin" render 'L_%d.png' --right 'R_%d.png' --depth "$scene_depth" --out 'y_%d.png'
# OpenEXR: a beauty pass with its Z pass per frame (tools/exr_write.py) gives its own depth, exact (no
# temporal filter), and each frame equals the still render of its file; --z-channel names another; an
# OpenEXR sequence is written too.
python3 - "$src" <<'PY' || fail "cannot write the EXR frames"
import sys
sys.path.insert(0, sys.argv[1] + "/tools")
import exr_write
W, H = 48, 32
for k in range(3):
    near = lambda x, y: 12 + k <= x < 30 + k and 8 <= y < 24
    px = [(x, y) for y in range(H) for x in range(W)]
    exr_write.write(f"e_{k}.exr", W, H, {
        "R": [0.8 if near(x, y) else 0.05 * ((x // 4 + y // 4) % 2) for x, y in px],
        "G": [0.3 if near(x, y) else 0.2 for x, y in px],
        "B": [0.1 if near(x, y) else 0.6 * (x / W) for x, y in px],
        "Z": [2.0 if near(x, y) else 9.0 + y / 8 for x, y in px]})
PY
if "$bin" render 'e_%d.exr' --focus 0.1 --aperture 40 --backend cpu --out 'eo_%d.png' >log 2>&1; then
  grep -q "depth clip e_%d (48x32).*no temporal filter" log || { cat log; fail "the EXR's Z was not its depth"; }
  for k in 0 1 2; do
    "$bin" render "e_$k.exr" --focus 0.1 --aperture 40 --backend cpu --out "es_$k.png" >/dev/null 2>&1 || fail "EXR still $k"
    cmp -s "eo_$k.png" "es_$k.png" || fail "EXR frame $k differs from its still"
  done
  refuse "no channel named 'depth' (it has B, G, R, Z)" "$bin" render 'e_%d.exr' --z-channel depth --backend cpu --out 'ez_%d.png'
  # Written as an OpenEXR sequence: each frame reads back as the PNG sequence's pixels (a box r 1 of both
  # gives the same file).
  "$bin" render 'e_%d.exr' --focus 0.1 --aperture 40 --backend cpu --out 'ex_%d.exr' >log 2>&1 || { cat log; fail "EXR out"; }
  grep -q "^wrote ex_%d.exr (3 frames 48x32" log || { cat log; fail "no EXR sequence summary"; }
  for k in 0 1 2; do
    "$bin" render "ex_$k.exr" --filter box --radius 1 --backend cpu --out "bx_$k.png" >/dev/null 2>&1 || fail "EXR frame $k unreadable"
    "$bin" render "eo_$k.png" --filter box --radius 1 --backend cpu --out "bp_$k.png" >/dev/null 2>&1 || fail "PNG frame $k"
    cmp -s "bx_$k.png" "bp_$k.png" || fail "EXR frame $k differs from the PNG sequence's"
  done
else
  grep -q "OpenEXR needs its library" log || { cat log; fail "the EXR sequence failed"; }
  echo "(the OpenEXR checks skipped: $(tail -1 log))"
fi
# Refusals: one line, exit 1, nothing written.
mkdir gap && cp in_7.png gap/g_1.png && cp in_8.png gap/g_2.png && cp in_9.png gap/g_4.png
refuse "gap in the numbering" "$bin" render 'gap/g_%d.png' --out 'gap_%d.png'
ls gap_* >/dev/null 2>&1 && fail "a refused sequence left frames"
refuse "renders to a video" "$bin" render 'in_%d.png' --out still.png
echo '{"keys": [{"time": 0, "focus": 3}]}' >bad.json
refuse "bad.json" "$bin" render 'in_%d.png' --keys bad.json --out 'bad_%d.png'
refuse "are for clips" "$bin" render in_7.png --keys keys.json --out x.png
ls bad_* >/dev/null 2>&1 && fail "bad keys left frames"
# Videos, where FFmpeg's libraries are installed.
if ! "$bin" render 'in_%d.png' --out v.mkv --codec ffv1 --filter box --radius 0 --backend cpu >log 2>&1; then
  grep -q "FFmpeg's libraries" log && { echo "SKIP: $(cat log)"; exit 77; }
  cat log; fail "the lossless video failed"
fi
"$bin" render v.mkv --filter box --radius 0 --backend cpu --out 'back_%d.png' >log 2>&1 || { cat log; fail "reading it back"; }
for n in 0 1 2 3 4; do cmp -s <(python3 -c "
import sys; sys.path.insert(0, '$src/tests/scripts'); import png_util
w, h, f = png_util.read('back_$n.png'); print([f(x, y) for y in range(0, h, 7) for x in range(0, w, 5)])") \
  <(python3 -c "
import sys; sys.path.insert(0, '$src/tests/scripts'); import png_util
w, h, f = png_util.read('in_$((n + 7)).png'); print([f(x, y) for y in range(0, h, 7) for x in range(0, w, 5)])") ||
  fail "frame $n did not survive FFV1"; done
# NVDEC decodes into the GPU pipeline's memory: asked for with the CPU backend, or a still, it is one line.
refuse "backend is the CPU" "$bin" render v.mkv --decoder nvdec --backend cpu --out 'nv_%d.png'
ls nv_* >/dev/null 2>&1 && fail "a refused decoder left frames"
refuse "are for clips" "$bin" render in_7.png --decoder cpu --out x.png
"$bin" render v.mkv --decoder cpu --filter box --radius 0 --backend cpu --out 'dec_%d.png' >log 2>&1 || { cat log; fail "--decoder cpu"; }
cmp -s dec_0.png back_0.png || fail "--decoder cpu differs from the default on the CPU backend"
# A depth video packed into its colour video (MP4-AT): render takes the track as the depth where no other is
# named, as it takes the same depth video given with --depth; a still or another container is one line.
"$bin" render 'in_%d.png' --filter box --radius 0 --backend cpu --out c.mp4 --codec h264 >log 2>&1 || { cat log; fail "colour mp4"; }
for n in 7 8 9 10 11; do cp "$scene_depth" "z_$n.png"; done
"$bin" render 'z_%d.png' --filter box --radius 0 --backend cpu --out z.mp4 --codec h264 --crf 0 >log 2>&1 || { cat log; fail "depth mp4"; }
"$bin" depth pack c.mp4 z.mp4 --out at.mp4 >log 2>&1 || { cat log; fail "depth pack"; }
grep -q "MP4-AT depth track 0 (linear depth)" log || { cat log; fail "depth pack's line"; }
"$bin" render at.mp4 --backend cpu --out 'own_%d.png' >log 2>&1 || { cat log; fail "render of the packed file"; }
grep -q "its MP4-AT depth track 0" log || { cat log; fail "the depth track not taken"; }
"$bin" render c.mp4 --depth z.mp4 --backend cpu --out 'given_%d.png' >/dev/null 2>&1 || fail "render with --depth"
for n in 0 1 2 3 4; do cmp -s "own_$n.png" "given_$n.png" || fail "frame $n: the track's render differs from --depth's"; done
refuse "reads and writes .mp4" "$bin" depth pack c.mp4 in_7.png --out x.mp4
[ -e x.mp4 ] && fail "a refused pack left a file"
head -c 20000 v.mkv >cut.mkv
refuse "cut.mkv" "$bin" render cut.mkv --backend cpu --out 'cut_%d.png'
ls cut_* >/dev/null 2>&1 && fail "a cut video left frames"
echo "cli_clips: all checks passed"
