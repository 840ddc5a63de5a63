#!/bin/sh
# Builds the predictor (Release) in its own folder and prints training and prediction times.
# usage: predictor/bench/run.sh [BUILD_DIR]   (default /tmp/build-predictor-bench)
set -e
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-/tmp/build-predictor-bench}
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTIDE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target tide_predictor_bench -j2 >/dev/null
echo "# $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
"$build/tide_predictor_bench"
