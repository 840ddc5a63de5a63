#!/bin/sh
# tide-predict finds a row's rank in constant time: 200,000 ranks x 2 phases finish within the
# test's timeout (ctest TIMEOUT 60 s; about 2 s here, where a linear rank list took minutes).
# --model rank keeps the memory at the rank model's (~7 KB per rank).
# usage: cli_scale.sh PATH/tide-predict
exe=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ranks=200000
awk -v n=$ranks 'BEGIN { print "phase,rank,load"
    for (p = 0; p < 2; p++) for (r = 0; r < n; r++) printf "%d,%d,%d\n", p, (r * 7919) % n, 1 + r % 7 }' \
    >"$dir/many.csv"
if ! "$exe" --model rank "$dir/many.csv" >"$dir/out" 2>"$dir/err"; then
    echo "FAIL: exit $?: $(cat "$dir/err")"
    exit 1
fi
got=$(grep -c '^rank [0-9]*: 2 phases' "$dir/out")
if [ "$got" -ne $ranks ]; then
    echo "FAIL: $got of $ranks ranks reported with 2 phases"
    exit 1
fi
echo "ok: $ranks ranks x 2 phases"
