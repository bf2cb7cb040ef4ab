#!/usr/bin/env bash
# Opens a sample in the shardx desktop app (the README's main command). Without a display it says
# how to run the app headless and explains a value with shardx-cli instead.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
sample=${1:-samples/attention.mlir}
gui="$build_dir/app/gui/shardx"
cli="$build_dir/app/cli/shardx-cli"

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || [ "${QT_QPA_PLATFORM:-}" = "offscreen" ]; then
    exec "$gui" "$sample" "${@:2}"
fi

cat <<MSG
shardx: no display here (neither DISPLAY nor WAYLAND_DISPLAY is set), so the window cannot open.
  To render the window headless into a PNG:
    QT_QPA_PLATFORM=offscreen $gui $sample --select %5 --screenshot shardx.png
  Or, with Xvfb:  xvfb-run -a -s "-screen 0 1600x1000x24" $gui $sample
Meanwhile, the same answer headless: why %5 of $sample is sharded as it is.

MSG
exec "$cli" explain "$sample" %5
