#!/usr/bin/env python3
"""sim_stats_suspect: TIDE_STATS says which last loads the spike filter held suspect, and how far.

usage: suspect.py TIDE-SIM OUT.json

The moving lake (64 ranks on 1 GbE, the default load model) makes some ranks' loads jump. The
document must print L_suspect per rank wherever L_pred is printed (null together), at least one
rank-phase must be suspect, and each suspect one's distance must be its last load's distance
from the prediction, |L[p-1][i] - L_pred[p][i]| (docs/stats.md).
"""
import json
import os
import subprocess
import sys


def main():
    sim, out = sys.argv[1], sys.argv[2]
    env = dict(os.environ, TIDE_LB="proact", TIDE_PRED_TRAIN="6", TIDE_PRED_WINDOW="2")
    subprocess.run([sim, "--platform", "ethernet", "--ranks", "64", "--threads", "14",
                    "--tasks-per-rank", "32", "--samoa", "14", "--samoa-steps", "100",
                    "--samoa-cost", "4,50,200", "--iters", "15", "--stats", out, "--quiet"],
                   env=env, check=True)
    phases = json.load(open(out))["phases"]
    suspect = 0
    for p, ph in enumerate(phases):
        s = ph["L_suspect"]
        if (s is None) != (ph["L_pred"] is None):
            sys.exit(f"phase {p}: L_suspect {'null' if s is None else 'printed'} but L_pred not")
        if s is None:
            continue
        if len(s) != 64 or min(s) < 0:
            sys.exit(f"phase {p}: L_suspect {s}")
        for i, d in enumerate(s):
            if d == 0:
                continue
            suspect += 1
            want = abs(phases[p - 1]["L"][i] - ph["L_pred"][i])
            if abs(d - want) > 1e-9 * max(1.0, want):
                sys.exit(f"phase {p} rank {i}: L_suspect {d}, |L[p-1] - L_pred| = {want}")
    print(f"{suspect} suspect rank-phases, each |L[p-1] - L_pred|")
    if suspect == 0:
        sys.exit("no rank-phase was suspect: the lake's jumps did not reach TIDE_STATS")


main()
