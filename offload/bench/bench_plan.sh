#!/bin/sh
# Builds the offload planner benchmark in its own build dir (Release) and prints planner times
# at 64, 256, 1024 and 4096 ranks, the growth ratio per 4x ranks, and the 1 ms target at 1024.
# Usage: offload/bench/bench_plan.sh [build-dir] [reps]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-/tmp/build-offload-bench}
reps=${2:-201}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target task_bench_plan -j2 >/dev/null
out=$("$build/task_bench_plan" "$reps")
echo "$out"
echo "$out" | awk 'NR > 1 {
    if (prev != "") printf("np %5d -> %5d: proact time x%.1f\n", pnp, $1, $2 / prev);
    prev = $2; pnp = $1;
    if ($1 == 1024) t1024 = $2 }
  END { printf("proact at 1024 ranks: %.1f us, target <= 1000 us: %s\n", t1024,
               t1024 <= 1000 ? "met" : "MISSED") }'
