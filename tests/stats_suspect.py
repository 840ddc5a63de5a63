#!/usr/bin/env python3
"""TIDE_STATS says which last loads the spike filter held suspect, and how far (docs/stats.md).

Runs mxm on 4 ranks under TIDE_LB=none with --disturb 0.15:4 (in a phase, each rank with
probability 0.15 has all its tasks take 4 times longer: one-phase spikes of a whole rank's
load) and checks the document: L_suspect is printed per rank wherever L_pred is (null
together), at least one rank-phase is suspect, and each suspect one's distance is its last
load's distance from the prediction, |L[p-1][i] - L_pred[p][i]|.
Usage: stats_suspect.py OUTDIR MPIEXEC... -- MXM"""
import json
import os
import subprocess
import sys


def main():
    outdir, rest = sys.argv[1], sys.argv[2:]
    cut = rest.index("--")
    mpiexec, mxm = rest[:cut], rest[cut + 1]
    path = os.path.join(outdir, "stats_suspect.json")
    env = dict(os.environ, TIDE_LB="none", TIDE_THREADS="1", TIDE_PRED_TRAIN="6",
               TIDE_PRED_WINDOW="2", TIDE_STATS=path)
    cmd = mpiexec + ["-n", "4", mxm, "--kernel", "sleep", "--task-ms", "2", "--tasks", "4,4,4,4",
                     "--iters", "20", "--disturb", "0.15:4"]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stdout))
    with open(path) as f:
        phases = json.load(f)["phases"]
    suspect = 0
    for k, ph in enumerate(phases):
        s = ph["L_suspect"]
        if (s is None) != (ph["L_pred"] is None):
            sys.exit("phase %d: L_suspect and L_pred not null together" % k)
        if s is None:
            continue
        if len(s) != 4 or min(s) < 0:
            sys.exit("phase %d: L_suspect %s" % (k, s))
        for i, d in enumerate(s):
            if d == 0:
                continue
            suspect += 1
            want = abs(phases[k - 1]["L"][i] - ph["L_pred"][i])
            if abs(d - want) > 1e-9 * max(1.0, want):
                sys.exit("phase %d rank %d: L_suspect %r, |L[p-1] - L_pred| = %r" % (k, i, d, want))
    print("%d suspect rank-phases, each |L[p-1] - L_pred|" % suspect)
    if suspect == 0:
        sys.exit("no rank-phase was suspect: the disturbed loads did not reach TIDE_STATS")


main()
