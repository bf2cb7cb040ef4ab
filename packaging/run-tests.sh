#!/usr/bin/env bash
# Runs the test suite of a build directory (default: build) headless, two tests at a time.
set -euo pipefail

build_dir=${1:-build}
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

exec ctest --test-dir "$build_dir" --output-on-failure -j2
