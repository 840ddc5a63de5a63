#!/bin/sh
# tide-predict rejects bad input with exit code 2 and the offending line number.
# usage: cli_errors.sh PATH/tide-predict
exe=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

# expect NAME EXPECTED-SUBSTRING [OPTIONS...]: runs on $dir/NAME.csv
expect() {
    name=$1 want=$2
    shift 2
    "$exe" "$@" "$dir/$name.csv" >"$dir/out" 2>"$dir/err"
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" "$dir/err"; then
        echo "FAIL $name: exit $rc, stderr: $(cat "$dir/err") (wanted exit 2 and '$want')"
        fails=$((fails + 1))
    else
        echo "ok $name: $(cat "$dir/err")"
    fi
}

printf 'phase,rank,time\n0,0,1.0\n' >"$dir/missing.csv"
expect missing "missing.csv:1: missing column 'load'"

printf 'phase,rank,load\n0,0,1.0\n1,0,abc\n' >"$dir/nonnumber.csv"
expect nonnumber "nonnumber.csv:3: column 'load': 'abc' is not a finite number"

printf 'phase,rank,load,size\n0,0,1.0,3\n1,0,2.0,x\n' >"$dir/feature.csv"
expect feature "feature.csv:3: column 'size': 'x' is not a finite number"

printf 'phase,rank,load\n0,0,1.0\n1,0,nan\n' >"$dir/nan.csv"
expect nan "nan.csv:3: column 'load'"

printf 'phase,rank,load\n0,0,1\n0,1,1\n2,0,1\n1,0,1\n' >"$dir/unsorted.csv"
expect unsorted "unsorted.csv:5: phase 1 of rank 0 comes after phase 2"

printf 'phase,rank,load\n0,0,1\n1,0,1\n1,1,1\n1,0,2\n' >"$dir/duplicate.csv"
expect duplicate "duplicate.csv:5: duplicate phase 1 for rank 0"

printf 'phase,rank,load\n0,0,1\n1,0\n' >"$dir/short.csv"
expect short "short.csv:3: expected 3 fields"

printf 'phase,rank,load\n0.5,0,1\n' >"$dir/fraction.csv"
expect fraction "fraction.csv:2: column 'phase'"

# A NUL byte ends C strings: it must not silently cut a row short.
printf 'phase,rank,load\n0,0,1\n1,0,2\0003\n' >"$dir/nul.csv"
expect nul "nul.csv:3: a NUL byte at column 6"

# A directory is not an empty file.
mkdir "$dir/folder.csv"
expect folder "folder.csv: is a directory"

printf 'phase,rank,load\n0,0,1\n' >"$dir/ok.csv"
# An option's error names the option; a variable's, the variable.
expect ok "tide-predict: --window '0' is invalid: expected an integer in [1, 64]" --window 0
expect ok "tide-predict: --train '5' is invalid: expected an integer in [10, 1000000] (the auto model needs more samples than coefficients with --window 4)" --train 5
TIDE_PRED_WINDOW=0 expect ok "tide-predict: TIDE_PRED_WINDOW='0' is invalid"
expect ok "tide-predict: unknown option --bogus (tide-predict --help lists them)" --bogus
expect absent "absent.csv: No such file"

# A TIDE_STATS document (detected by its opening brace) and what is wrong with a broken one.
stats='{"schema": "tide-stats/2", "config": {"ranks": 2, "pred_window": 2, "pred_train": 6},
 "phases": [{"phase": 0, "L": [1, 2]}, {"phase": 1, "L": [1.5, 2.5]}]}'
printf '%s\n' "$stats" >"$dir/stats.json"
if ! "$exe" "$dir/stats.json" >"$dir/out" 2>"$dir/err" ||
    ! grep -q '^rank 1: 2 phases' "$dir/out" || ! grep -q 'window 2, train 6,' "$dir/out"; then
    echo "FAIL stats: $(cat "$dir/out" "$dir/err") (wanted 2 ranks of 2 phases, the run's window 2 and train 6)"
    fails=$((fails + 1))
else
    echo "ok stats: two ranks of two phases with the run's knobs"
fi
printf '{"schema": "tide-stats/2", "config":' >"$dir/truncated.csv"
expect truncated "truncated.csv:1:37: the document ends where a value was expected (not a TIDE_STATS document)"
printf '{"schema": "tide-stats/2",\n "x": "a\\qb"}' >"$dir/escape.csv"
expect escape "escape.csv:2:10: an unknown escape in a string"
printf '{"schema": "tide-stats/2"} x' >"$dir/trailing.csv"
expect trailing "trailing.csv:1:28: text after the document's end"
awk 'BEGIN { printf "{\"a\":"; for (i = 0; i < 100; i++) printf "["; print "" }' >"$dir/deep.csv"
expect deep "nested deeper than 64 levels"
printf '{"schema": "other/1", "phases": []}' >"$dir/schema.csv"
expect schema "schema.csv: no \"schema\": \"tide-stats/N\""
printf '{"schema": "tide-stats/2", "config": {"ranks": 2}, "phases": [{"phase": 0, "L": [1]}]}' >"$dir/short_l.csv"
expect short_l "short_l.csv: phases[0]: \"L\" is not an array of config.ranks (2) loads"
printf '{"schema": "tide-stats/2", "config": {"ranks": 1, "pred_model": "mytool"}, "phases": []}' >"$dir/tool.csv"
expect tool "tool.csv: from the run's config: TIDE_PRED_MODEL='mytool' is invalid: expected one of auto, rank, task; override it with --model"
"$exe" --model rank "$dir/tool.csv" >/dev/null 2>"$dir/err" || {
    echo "FAIL tool: --model does not override the run's model: $(cat "$dir/err")"
    fails=$((fails + 1))
}

# Bad input is one line, not the usage.
for args in --bogus "" "--window 0 $dir/ok.csv"; do
    # shellcheck disable=SC2086
    lines=$("$exe" $args 2>&1 >/dev/null | wc -l)
    if [ "$lines" -ne 1 ]; then
        echo "FAIL one line: tide-predict $args wrote $lines lines on stderr"
        fails=$((fails + 1))
    fi
done

# A good file passes.
if ! "$exe" "$dir/ok.csv" >/dev/null; then
    echo "FAIL: a valid file was rejected"
    fails=$((fails + 1))
fi

# A UTF-8 byte order mark before the header (spreadsheet exports) is skipped: the same report.
printf 'phase,rank,load\n0,0,1\n1,0,2\n2,0,2.5\n' >"$dir/plain.csv"
printf '\357\273\277' | cat - "$dir/plain.csv" >"$dir/bom.csv"
"$exe" --json "$dir/plain.csv" >"$dir/plain.out" 2>&1
"$exe" --json "$dir/bom.csv" >"$dir/bom.out" 2>"$dir/err"
rc=$?
if [ "$rc" -ne 0 ] || ! cmp -s "$dir/plain.out" "$dir/bom.out"; then
    echo "FAIL bom: exit $rc, stderr: $(cat "$dir/err"), output differs from the file without it"
    fails=$((fails + 1))
else
    echo "ok bom: same report as without the mark"
fi
# Finite loads near 1e300 overflow the squared error: --json must still be JSON (null, not inf).
awk 'BEGIN { print "phase,rank,load"; for (p = 0; p < 30; p++) printf "%d,0,%s\n", p, (p % 3 ? "1e300" : "1e-300") }' \
    >"$dir/huge.csv"
"$exe" --json --train 10 --window 2 "$dir/huge.csv" >"$dir/huge.out" 2>"$dir/err"
rc=$?
if [ "$rc" -ne 0 ] || grep -q 'inf\|nan' "$dir/huge.out" ||
    ! python3 -c 'import json, sys; json.loads(open(sys.argv[1]).read(), parse_constant=lambda c: 1 / 0)' "$dir/huge.out" 2>/dev/null; then
    echo "FAIL huge: exit $rc, the --json output is not strict JSON: $(head -c 200 "$dir/huge.out")"
    fails=$((fails + 1))
else
    echo "ok huge: --json stays strict JSON when an error overflows"
fi
exit $fails
