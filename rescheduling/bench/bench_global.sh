#!/bin/sh
# Builds the global strategy benchmark (Release) in its own build dir and prints the decision
# time of every strategy at 8 .. 4096 ranks, then the growth of each time from 512 to 4096 ranks
# (8x ranks, 8x objects) and the ratio of each to greedy at 4096 ranks.
# Usage: rescheduling/bench/bench_global.sh [build-dir] [reps] [objects-per-rank ...]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-/tmp/build-global-bench}
reps=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target global_bench -j2 >/dev/null
out=$("$build/global_bench" "$reps" "$@")
echo "$out"
echo "$out" | awk '
  NR == 1 { for (i = 4; i <= NF; i++) if ($i ~ /^[a-z_]+$/) name[i] = $i; next }
  $2 != "max/avg" && $1 ~ /^[0-9]+$/ {
    key = $2; if ($1 == 512) for (i = 4; i <= NF; i++) t512[key, i] = $i;
    if ($1 == 4096) { printf("objects/rank %s, 512 -> 4096 ranks:", key);
      for (i = 4; i <= NF; i++) printf(" %s x%.1f", name[i], $i / t512[key, i]); printf("\n");
      printf("objects/rank %s, time / greedy at 4096 ranks:", key);
      for (i = 4; i <= NF; i++) printf(" %s %.2f", name[i], $i / $4); printf("\n") } }'
