#!/usr/bin/env bash
# Runs one libFuzzer harness at the lowest priority with this project's limits, and appends its CPU time and
# execs to BUILD/fuzz-log.tsv. Usage (from the repository root):
#   tests/fuzz/run-fuzzer.sh HARNESS SECONDS [BUILD_DIR] [libFuzzer flags...]
# HARNESS is mlir, json, trace, rules or propagation. Seeds come from BUILD_DIR/fuzz-corpus/HARNESS
# (make-corpus.py), new inputs go to BUILD_DIR/fuzz-work/HARNESS, crashes to BUILD_DIR/fuzz-artifacts/HARNESS.
set -euo pipefail
harness=${1:?harness: mlir, json, trace, rules or propagation}
seconds=${2:?seconds}
build=${3:-build-fuzz}
shift $(($# < 3 ? $# : 3))
dict_dir=$(cd "$(dirname "$0")" && pwd)
flags=()
case $harness in
mlir | propagation) flags+=(-max_len=16384 "-dict=$dict_dir/mlir.dict") ;;
json) flags+=(-max_len=65536) ;;
trace) flags+=(-max_len=131072) ;;
rules) flags+=(-max_len=4096) ;;
*) echo "run-fuzzer.sh: unknown harness '$harness'" >&2; exit 2 ;;
esac
mkdir -p "$build/fuzz-work/$harness" "$build/fuzz-artifacts/$harness" "$build/fuzz-corpus/$harness"
log=$build/fuzz-logs/$harness-$(date +%Y%m%d-%H%M%S).log
mkdir -p "$build/fuzz-logs"
status=0
/usr/bin/time -f "%U %S" -o "$log.time" nice -n 19 "$build/tests/fuzz/fuzz_$harness" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$harness/" "${flags[@]}" "$@" \
    "$build/fuzz-work/$harness" "$build/fuzz-corpus/$harness" >"$log" 2>&1 || status=$?
read -r user sys < <(tail -n 1 "$log.time")
execs=$( (grep -h '^stat::number_of_executed_units' "$log" || true) | awk '{s += $2} END {print s + 0}')
if [ "$execs" = 0 ]; then # -fork=N prints no final stats: take the last `#EXECS:` status line
    execs=$( (grep -ohE '^#[0-9]+' "$log" || true) | tail -n 1 | tr -d '#')
fi
crashes=$(ls "$build/fuzz-artifacts/$harness" | wc -l)
printf '%s\t%s\t%.1f\t%s\t%s\t%s\t%s\n' "$(date -Iseconds)" "$harness" "$(echo "($user + $sys) / 60" | bc -l)" \
    "$execs" "$status" "$crashes" "$(git -C "$dict_dir" rev-parse --short HEAD)" >>"$build/fuzz-log.tsv"
echo "fuzz_$harness: exit $status, $(echo "($user + $sys) / 60" | bc -l | cut -c1-5) CPU minutes, $execs execs," \
    "$crashes files in $build/fuzz-artifacts/$harness; log $log"
exit "$status"
