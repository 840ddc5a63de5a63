#!/usr/bin/env bash
# The offline tool replays a run: tide-predict on a run's statistics document (TIDE_STATS) gives
# exactly the predictions (L_pred) the runtime made during that run, with the run's knobs.
# Usage: predict_cli_matches.sh MPIEXEC PROGRAM TIDE_PREDICT WORKDIR
set -euo pipefail
mpiexec=$1 prog=$2 tool=$3 work=$4
mkdir -p "$work"
# The plan gate and the spike filter off: test_proact checks the plans too (tests/CMakeLists.txt,
# proact_plan_rr).
TIDE_STATS="$work/run.json" TIDE_LB=proact TIDE_PRED_MODEL=rank TIDE_PRED_TRAIN=10 TIDE_PRED_WINDOW=2 \
    TIDE_PRED_SPIKE=0 TIDE_PLAN_GATE=off $mpiexec --oversubscribe -n 3 "$prog" 24 6
# The statistics document as it is: tide-predict reads its loads and the run's TIDE_PRED_*
# settings (none given here).
env -u TIDE_PRED_MODEL -u TIDE_PRED_TRAIN -u TIDE_PRED_WINDOW -u TIDE_PRED_SPIKE "$tool" --json "$work/run.json" > "$work/offline.json"
python3 - "$work/run.json" "$work/offline.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
off = json.load(open(sys.argv[2]))
offline = {(p["phase"], p["rank"]): p["pred"] for p in off["predictions"]}
checked = 0
for ph in run["phases"]:
    for r, lp in enumerate(ph["L_pred"] or [None] * len(ph["L"])):
        o = offline[(ph["phase"], r)]
        if lp is None or lp < 0:
            assert o is None, "phase %d rank %d: offline predicts %r, the run had none" % (ph["phase"], r, o)
        else:
            assert o is not None and o == lp, "phase %d rank %d: run %r, offline %r" % (ph["phase"], r, lp, o)
            checked += 1
assert checked > 0, "no prediction compared"
print("tide-predict reproduced %d in-run predictions exactly" % checked)
PY
