# scripts/reproduce.d/lib.sh - shared by the reproduction scripts (docs/reproduction.md).
# A script sources it and calls `repro_init "$@"` first; then it has
#   REPRO_NAME   its own name (the file name)        REPRO_TINY   1 with --tiny, else 0
#   REPRO_OUT    the output folder (--out, default reproduce-out/, created)
#   REPRO_CSV    $REPRO_OUT/$REPRO_NAME.csv          REPRO_PNG    $REPRO_OUT/$REPRO_NAME.png
#   REPRO_WORK   $REPRO_OUT/$REPRO_NAME.d, emptied: per-run logs and statistics
#   REPRO_BUILD  the build folder (REPRO_BUILD_DIR, default <repo>/build)
# and the helpers below. Every failure prints one line naming what failed and exits non-zero.

REPRO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

repro_die() {
    echo "$REPRO_NAME: $*" >&2
    exit 1
}

# repro_init "$@": parses --tiny and --out DIR, prepares the output folder, exports what MPI
# needs to run as root and oversubscribed.
repro_init() {
    REPRO_NAME=$(basename "$0")
    REPRO_TINY=0
    REPRO_OUT=reproduce-out
    while [ $# -gt 0 ]; do
        case $1 in
        --tiny) REPRO_TINY=1 ;;
        --out)
            [ $# -ge 2 ] || { echo "$REPRO_NAME: --out needs a folder" >&2; exit 2; }
            REPRO_OUT=$2
            shift
            ;;
        --out=*) REPRO_OUT=${1#--out=} ;;
        -h | --help)
            echo "usage: scripts/reproduce $REPRO_NAME [--tiny] [--out DIR]"
            sed -n 's/^# describe: /  /p' "$0"
            exit 0
            ;;
        *)
            echo "$REPRO_NAME: unknown option '$1' (expected --tiny, --out DIR)" >&2
            exit 2
            ;;
        esac
        shift
    done
    mkdir -p "$REPRO_OUT" || repro_die "cannot create the output folder '$REPRO_OUT'"
    REPRO_OUT=$(cd "$REPRO_OUT" && pwd)
    REPRO_CSV=$REPRO_OUT/$REPRO_NAME.csv
    REPRO_PNG=$REPRO_OUT/$REPRO_NAME.png
    REPRO_WORK=$REPRO_OUT/$REPRO_NAME.d
    rm -rf "$REPRO_WORK" "$REPRO_CSV" "$REPRO_PNG"
    mkdir -p "$REPRO_WORK"
    REPRO_BUILD=${REPRO_BUILD_DIR:-$REPRO_ROOT/build}
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1 TIDE_QUIET=1
}

# repro_need PATH...: paths relative to the build folder that must exist; builds the tree when
# one is missing (scripts/setup.sh's tide_build for a fresh folder, else an incremental build).
repro_need() {
    local p missing=0
    for p in "$@"; do [ -e "$REPRO_BUILD/$p" ] || missing=1; done
    [ $missing -eq 0 ] && return 0
    echo "$REPRO_NAME: building $REPRO_BUILD (missing: $*)" >&2
    if [ -f "$REPRO_BUILD/CMakeCache.txt" ]; then
        cmake --build "$REPRO_BUILD" -j"$(nproc)" >"$REPRO_WORK/build.log" 2>&1 ||
            repro_die "build failed (log: $REPRO_WORK/build.log)"
    else
        (source "$REPRO_ROOT/scripts/setup.sh" && tide_setup && tide_build "$REPRO_BUILD") ||
            repro_die "build failed (see $REPRO_BUILD/tide-build.log)"
    fi
    for p in "$@"; do
        [ -e "$REPRO_BUILD/$p" ] || repro_die "$REPRO_BUILD/$p is missing after the build"
    done
}

# repro_mpirun NP LOG cmd...: one MPI run, its output in LOG; a failure ends the script with
# the command and the log's last lines.
repro_mpirun() {
    local np=$1 log=$2
    shift 2
    echo "# mpiexec --oversubscribe -n $np $*" >"$log"
    if ! mpiexec --oversubscribe -n "$np" "$@" >>"$log" 2>&1; then
        tail -n 5 "$log" >&2
        repro_die "run failed: mpiexec -n $np $* (log: $log)"
    fi
}

# repro_png TITLE < gnuplot commands: draws $REPRO_PNG (png terminal; the script's own plot
# commands on stdin, data files named by the caller; a multiplot puts the gnuplot variable
# plot_title over all panels); keeps the .gp beside the runs.
repro_png() {
    local gp=$REPRO_WORK/$REPRO_NAME.gp
    command -v gnuplot >/dev/null || repro_die "gnuplot is missing (apt-get install gnuplot-nox)"
    {
        echo "set terminal png size 1200,640 noenhanced"
        echo "set output '$REPRO_PNG'"
        echo "plot_title = '$1'"
        echo "set title plot_title"
        echo "set datafile separator ','"
        echo "set grid"
        cat
    } >"$gp"
    gnuplot "$gp" >"$REPRO_WORK/gnuplot.log" 2>&1 ||
        repro_die "gnuplot failed on $gp: $(head -n 3 "$REPRO_WORK/gnuplot.log")"
    [ -s "$REPRO_PNG" ] || repro_die "gnuplot wrote no $REPRO_PNG"
}

# repro_table < TSV: the paper's figures next to ours, one row per line "what<TAB>paper<TAB>ours"
# (more columns are kept), printed as an aligned table with a header.
repro_table() {
    python3 -c '
import sys
rows = [["what", "paper", "ours"]] + [l.rstrip("\n").split("\t") for l in sys.stdin if l.strip()]
n = max(len(r) for r in rows)
rows = [r + [""] * (n - len(r)) for r in rows]
w = [max(len(r[i]) for r in rows) for i in range(n)]
line = lambda r: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |"
print(line(rows[0]))
print("|" + "|".join("-" * (x + 2) for x in w) + "|")
for r in rows[1:]:
    print(line(r))
'
}

# repro_finish VERDICT: checks the CSV and the PNG exist and prints the last line every script
# ends with: `verdict: same`, `verdict: same shape` or `verdict: different: <why>` (the rule:
# verdict.py beside this file, and the top of docs/reproduction.md).
repro_finish() {
    [ -s "$REPRO_CSV" ] || repro_die "no CSV written ($REPRO_CSV)"
    [ -s "$REPRO_PNG" ] || repro_die "no PNG written ($REPRO_PNG)"
    case $1 in
    "same" | "same shape" | "different: "?*) ;;
    *) repro_die "bad verdict '$1' (expected 'same', 'same shape' or 'different: <why>')" ;;
    esac
    echo "csv: $REPRO_CSV"
    echo "png: $REPRO_PNG"
    repro_load
    echo "verdict: $1"
}

# repro_samoa NP TAG [samoa_proxy options...]: one oscillating-lake run (sleep kernel, one worker
# per rank, results verified) with the TIDE_* variables of the caller's environment; its
# statistics in $REPRO_WORK/TAG.json, its output in TAG.log.
repro_samoa() {
    local np=$1 tag=$2
    shift 2
    TIDE_THREADS=${TIDE_THREADS:-1} TIDE_STATS=$REPRO_WORK/$tag.json \
        repro_mpirun "$np" "$REPRO_WORK/$tag.log" "$REPRO_BUILD/samoa_proxy/samoa_proxy" \
        --kernel sleep --verify "$@"
}

# repro_bars TITLE N: $REPRO_PNG as two panels of clustered bars with error bars, R_imb and
# speedup, from $REPRO_WORK/R_imb.dat and speedup.dat (CSV: a label column, then N pairs of
# value and error columns with a header row naming them).
repro_bars() {
    repro_png "$1" <<EOF2
set multiplot layout 1,2 title plot_title
unset title
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set yrange [0:*]
set key outside bottom center horizontal
set ylabel 'R_imb = W_max / W_avg - 1'
plot for [i=0:$(($2 - 1))] '$REPRO_WORK/R_imb.dat' using 2+2*i:3+2*i:xtic(1) title columnhead(2+2*i)
set ylabel 'speedup over none'
plot for [i=0:$(($2 - 1))] '$REPRO_WORK/speedup.dat' using 2+2*i:3+2*i:xtic(1) title columnhead(2+2*i)
unset multiplot
EOF2
}

# The machine's load while a script ran (its timings are only as good as that).
repro_load() {
    awk '{ print "load average (1, 5, 15 min): " $1 ", " $2 ", " $3 }' /proc/loadavg
}
