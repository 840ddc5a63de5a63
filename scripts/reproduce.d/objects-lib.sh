# objects-lib.sh - helpers of the objects-layer reproductions (cbench-table5-*, smartlb,
# packdrop-*): option parsing, the build, one measured run, and the summary (CSV with mean and
# 95% CI per configuration, a gnuplot bar chart). Sourced, not run; self-contained on purpose
# (it does not need scripts/reproduce.d/lib.sh).
#
# A script calls obj_init "$@", then obj_run once per run (each appends one row to $RAW), then
# obj_summarize, then obj_report with the paper's claim and its own verdict rule.

OBJ_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# obj_init NAME "$@": --out DIR (default reproduce-out/), --tiny, --report-only (no runs: the
# CSV, figure and verdict again from DIR/NAME.raw.csv of an earlier run). Sets OUT, TINY, RAW,
# BUILD.
obj_init() {
    NAME=$1
    shift
    OUT=reproduce-out
    TINY=0
    REPORT_ONLY=0
    while [ $# -gt 0 ]; do
        case $1 in
        --out) [ $# -ge 2 ] || { echo "$NAME: --out needs a folder" >&2; exit 2; }; OUT=$2; shift 2 ;;
        --out=*) OUT=${1#--out=}; shift ;;
        --tiny) TINY=1; shift ;;
        --report-only) REPORT_ONLY=1; shift ;;
        *) echo "$NAME: unknown option '$1' (known: --out DIR, --tiny, --report-only)" >&2; exit 2 ;;
        esac
    done
    RAW=$OUT/$NAME.raw.csv
    BUILD=${REPRO_BUILD_DIR:-$OBJ_REPO/build} # scripts/reproduce and ctest set it
    if [ "$REPORT_ONLY" = 1 ]; then
        [ -s "$RAW" ] || { echo "$NAME: --report-only needs $RAW from an earlier run" >&2; exit 2; }
        return 0
    fi
    mkdir -p "$OUT" || exit 2
    OUT=$(cd "$OUT" && pwd)
    RAW=$OUT/$NAME.raw.csv
    # shellcheck source=../setup.sh
    source "$OBJ_REPO/scripts/setup.sh"
    if [ ! -x "$BUILD/apps/cbench/cbench" ] || [ ! -x "$BUILD/apps/leanmd/leanmd" ]; then
        echo "$NAME: building Tide into $BUILD ..."
        tide_setup
        tide_build "$BUILD"
    fi
    export TIDE_QUIET=1 TIDE_THREADS=${TIDE_THREADS:-1}
    echo "config,strategy,rep,total_s,late_iter_s,decision_ms,gather_ms,migrate_ms,resched_ms,moved,ratio_before,ratio_after,ratio_last,reschedules" >"$RAW"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$NAME.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
}

# obj_run CONFIG STRATEGY REP RANKS PROGRAM [ARGS...]: runs PROGRAM (cbench or leanmd, which
# write cbench-1 JSON with --json) under TIDE_GLOBAL_LB=STRATEGY and appends its row to $RAW:
# total time, the mean iteration time after the first rescheduling point in iterations that ran
# no rescheduling (the balanced steady state; NaN when there is none), summed
# decision/gather/migration time and their sum per rescheduling, objects moved, max/avg before
# and after the first rescheduling (the mapping's max on the measured loads) and in the last
# iteration.
obj_run() {
    [ "$REPORT_ONLY" = 1 ] && return 0
    local config=$1 lb=$2 rep=$3 ranks=$4
    shift 4
    local js=$WORK/$config-$lb-$rep.json log=$WORK/$config-$lb-$rep.log
    if ! TIDE_GLOBAL_LB=$lb mpiexec --oversubscribe -n "$ranks" "$@" --json "$js" >"$log" 2>&1; then
        echo "$NAME: FAILED: TIDE_GLOBAL_LB=$lb mpiexec -n $ranks $*" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
    obj_row "$js" "$config" "$lb" "$rep"
}

# obj_sim CONFIG STRATEGY RANKS FILE [NAME=VALUE ...]: the same scenario in tide-sim
# (docs/sim.md, "cbench's objects") on RANKS simulated ranks of one worker each, the cbench
# parameter overrides NAME=VALUE; appends its row to $RAW like obj_run (rep 1: a simulation is
# deterministic in its mapping; only its measured decision times vary).
obj_sim() {
    [ "$REPORT_ONLY" = 1 ] && return 0
    local config=$1 lb=$2 ranks=$3 file=$4
    shift 4
    local js=$WORK/sim-$config-$lb.json log=$WORK/sim-$config-$lb.log sets=() s
    for s in "$@"; do sets+=(--cbench-set "$s"); done
    if ! TIDE_GLOBAL_LB=$lb "$BUILD/sim/tide-sim" --ranks "$ranks" --threads 1 --cbench "$file" \
        "${sets[@]}" --stats "$js" --quiet >"$log" 2>&1; then
        echo "$NAME: FAILED: TIDE_GLOBAL_LB=$lb tide-sim --ranks $ranks --cbench $file $*" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
    obj_row "$js" "$config" "$lb" 1
}

# obj_row JSON CONFIG STRATEGY REP: one row of $RAW from a cbench-1 (or tide-sim-cbench/1) report.
obj_row() {
    python3 - "$1" "$2" "$3" "$4" >>"$RAW" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s, rs = d["summary"], d["reschedules"]
first = rs[0] if rs else None
before = first["max_before"] / first["avg"] if first and first["avg"] > 0 else float("nan")
after = first["max_after"] / first["avg"] if first and first["avg"] > 0 else float("nan")
last = d["load_max_s"][-1] / d["load_avg_s"][-1] if d["load_avg_s"][-1] > 0 else float("nan")
# Iterations after the first rescheduling point that ran no rescheduling (the same window for
# none): cbench reschedules at multiples of lbfreq, leanmd at first_lb + multiples of lbfreq.
cfg, its = d["config"], d["iteration_s"]
first = cfg.get("first_lb", cfg["lbfreq"])
period = max(1, cfg["lbfreq"])
late = [its[i - 1] for i in range(1, len(its) + 1)
        if i > first and (i - first) % period != 0] or [float("nan")]
resched = (s["decision_s"] + s["gather_s"] + s["migrate_s"]) * 1e3 / max(1, s["reschedules"])
print("%s,%s,%s,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f,%d,%.4f,%.4f,%.4f,%d" % (
    sys.argv[2], sys.argv[3], sys.argv[4], d["total_s"], sum(late) / len(late),
    s["decision_s"] * 1e3, s["gather_s"] * 1e3, s["migrate_s"] * 1e3, resched, s["moved"], before,
    after, last, s["reschedules"]))
EOF
}

# obj_sweep FILE OPTION "LABEL|VALUE"...: ComprehensiveBench's Table 5 sweeps. For each
# repetition (outermost: a load drift hits every strategy alike), each LABEL=VALUE and each of
# $strategies: cbench FILE --kernel sleep --OPTION VALUE "${extra[@]}" on $ranks ranks (config
# LABEL); then the same in tide-sim at $sim_ranks ranks with the file's own n (config
# pSIM_RANKS:LABEL), the paper's scale, plus "${sim_extra[@]}" (NAME=VALUE overrides).
obj_sweep() {
    local file=$1 option=$2 rep kv lb
    shift 2
    for rep in $(seq "$reps"); do
        for kv in "$@"; do
            for lb in $strategies; do
                obj_run "${kv%%|*}" "$lb" "$rep" "$ranks" "$BUILD/apps/cbench/cbench" "$file" \
                    --kernel sleep --"$option" "${kv#*|}" "${extra[@]}"
            done
        done
    done
    for kv in "$@"; do
        for lb in $strategies; do
            obj_sim "p$sim_ranks:${kv%%|*}" "$lb" "$sim_ranks" "$file" "$option=${kv#*|}" \
                "${sim_extra[@]}"
        done
    done
}

# obj_summarize TITLE YLABEL [METRIC]: $RAW -> $OUT/$NAME.csv (per config and strategy, for
# every column: the median, min, max, mean and 95% CI half-width of the runs) and
# $OUT/$NAME.png (METRIC, default total_s: median per config, one bar per strategy, min..max as
# error bars). Medians decide the verdicts: on a shared machine one stalled run must not.
obj_summarize() {
    python3 - "$RAW" "$OUT/$NAME.csv" "$OUT/$NAME.png" "$1" "$2" "${3:-total_s}" <<'EOF'
import csv, math, shutil, statistics, subprocess, sys, tempfile
raw, out, png, title, ylabel, metric = sys.argv[1:]
T95 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
rows = list(csv.DictReader(open(raw)))
cols = [c for c in rows[0] if c not in ("config", "strategy", "rep")]
groups = {}
for r in rows:
    groups.setdefault((r["config"], r["strategy"]), []).append(r)
def stats(xs):
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return [float("nan")] * 5
    m = statistics.fmean(xs)
    ci = 0.0
    if len(xs) > 1:
        t = T95[len(xs) - 1] if len(xs) - 1 < len(T95) else 1.96
        ci = t * statistics.stdev(xs) / math.sqrt(len(xs))
    return [statistics.median(xs), min(xs), max(xs), m, ci]
with open(out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["config", "strategy", "runs"] +
               [c + sfx for c in cols for sfx in ("", "_min", "_max", "_mean", "_ci")])
    for k, g in groups.items():
        vals = [v for c in cols for v in stats([float(r[c]) for r in g])]
        w.writerow([k[0], k[1], len(g)] + ["%.6g" % v for v in vals])
if not shutil.which("gnuplot"):
    sys.exit("no gnuplot: install gnuplot-nox (scripts/setup.sh lists it)")
configs = list(dict.fromkeys(k[0] for k in groups))
strategies = list(dict.fromkeys(k[1] for k in groups))
dat = tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False)
for c in configs:
    line = ['"%s"' % c]
    for s in strategies:
        med, lo, hi = stats([float(r[metric]) for r in groups.get((c, s), [])])[:3]
        line += ["%g" % (0 if math.isnan(v) else v) for v in (med, lo, hi)]
    dat.write(" ".join(line) + "\n")
dat.close()
plots = ", ".join('"%s" using %d:%d:%d:xtic(1) title "%s"' % (dat.name, 2 + 3 * i, 3 + 3 * i,
                  4 + 3 * i, s) for i, s in enumerate(strategies))
script = ('set terminal png size 1000,560 noenhanced; set output "%s"; set title "%s";'
          'set ylabel "%s";'
          'set style data histogram; set style histogram errorbars gap 1 lw 1;'
          'set style fill solid 0.6 border -1; set yrange [0:*]; set key outside right;'
          'set xtics font ",9"; plot %s' % (png, title, ylabel + " (median, min..max)", plots))
subprocess.run(["gnuplot", "-e", script], check=True)
EOF
}

# obj_report PAPER_TEXT VERDICT_PY: prints $OUT/$NAME.csv as a table, the paper's claim
# (PAPER_TEXT, one or more lines) and the verdict line. VERDICT_PY is Python that reads
# m[(config, strategy)][column] (floats; columns of $NAME.csv: a metric's plain name is its
# median), the lists configs and strategies and beats(config, a, b, margin=0), and sets either `same` (bool) and `why` (str):
# what in the measured data decided it, or `verdict` (the word of verdict.py's judge) and `why`.
obj_report() {
    python3 - "$OUT/$NAME.csv" "$1" "$2" "$OBJ_REPO/scripts/reproduce.d" <<'EOF'
import csv, math, sys
path, paper, code = sys.argv[1:4]
m, configs, strategies = {}, [], []
for r in csv.DictReader(open(path)):
    k = (r["config"], r["strategy"])
    m[k] = {c: float(v) for c, v in r.items() if c not in ("config", "strategy")}
    configs += [r["config"]] if r["config"] not in configs else []
    strategies += [r["strategy"]] if r["strategy"] not in strategies else []
print("%-16s %-12s %4s %8s %19s %9s %11s %8s %9s %9s %9s" % (
    "config", "strategy", "runs", "total s", "mean (95% CI)", "late ms", "decision ms", "moved",
    "max/avg0", "max/avg1", "max/avg_end"))
for k, v in m.items():
    print("%-16s %-12s %4d %8.3f %9.3f +- %-7.3f %9.2f %11.3f %8.1f %9.3f %9.3f %9.3f" % (
        k[0], k[1], v["runs"], v["total_s"], v["total_s_mean"], v["total_s_ci"],
        v["late_iter_s"] * 1e3, v["decision_ms"], v["moved"], v["ratio_before"],
        v["ratio_after"], v["ratio_last"]))
print("(medians of the runs, except the mean with its 95% CI; late: mean iteration time after the "
      "first rescheduling point, rescheduling iterations left out; decision: summed over a run; max/avg0: measured before "
      "the first rescheduling; max/avg1: the new mapping on the same loads; max/avg_end: "
      "measured in the last iteration)")
print("paper: " + paper.replace("\n", "\n       "))
sys.path.insert(0, sys.argv[4])  # verdict.py: judge(claims, numbers) gives the rule's word
def beats(c, a, b, margin=0.0):
    """The rule's "a beats b" in config c: every run of a faster than every run of b, and (with
    margin, e.g. a paper's stated relative error) a's median faster by more than that fraction."""
    return (m[(c, a)]["total_s_max"] < m[(c, b)]["total_s_min"] and
            m[(c, a)]["total_s"] < (1 - margin) * m[(c, b)]["total_s"])
g = {"m": m, "configs": configs, "strategies": strategies, "math": math, "beats": beats}
exec(code, g)
print("measured: " + g["why"])
word = g.get("verdict") or ("same shape" if g["same"] else "different")
print("verdict: " + (word if word != "different" else "different: " + g["why"]))
EOF
}
