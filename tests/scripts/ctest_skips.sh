#!/usr/bin/env bash
# A CPU test that skips is reported as skipped by CTest, never as passed: the EGL viewer test, run with no
# EGL vendor library to be found, shows as "Skipped" in CTest's summary (tests/CMakeLists.txt gives the CPU
# tests the GPU tests' SKIP_REGULAR_EXPRESSION).
# Usage: ctest_skips.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
build=$(cd "$(dirname "$bin")/.." && pwd)
command -v ctest >/dev/null || skip "no ctest"
[ -f "$build/CTestTestfile.cmake" ] || skip "no CTest tree at $build"
ctest --test-dir "$build" -N -R '^ViewerPass\.' | grep -q "Total Tests: [1-9]" || skip "no ViewerPass test in this build"
__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent EGL_PLATFORM=surfaceless ctest --test-dir "$build" -R '^ViewerPass\.' \
  >"$tmp/out" 2>&1
grep -q "(Skipped)" "$tmp/out" || { cat "$tmp/out"; fail "a skipping CPU test was not reported as skipped"; }
grep -q "0 tests failed" "$tmp/out" || { cat "$tmp/out"; fail "the skipping test failed"; }
echo "ctest_skips: a skipping CPU test shows as skipped"
