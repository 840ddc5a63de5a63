#!/bin/sh
# Rescheduling time of the objects layer vs ranks (docs/archive/objects-performance.md).
# Usage: runtime/bench/bench_objects.sh BUILD_DIR [N [REPS]]   (ranks 1 2 4 8, oversubscribed)
set -eu
build=${1:?usage: bench_objects.sh BUILD_DIR [N [REPS]]}
n=${2:-4096}
reps=${3:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export TIDE_QUIET=1 TIDE_THREADS=1
for np in 1 2 4 8; do
  mpiexec --oversubscribe -n "$np" "$build/runtime/bench/bench_objects" "$n" "$reps" | \
    if [ "$np" = 1 ]; then cat; else tail -n +2; fi
done
