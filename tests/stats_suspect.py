#!/usr/bin/env python3
"""TIDE_STATS says which last loads the spike filter held suspect, and how far (docs/stats.md).

Usage:
  stats_suspect.py OUT.json mpi MPIEXEC... -- MXM   libtide: mxm on 4 ranks under TIDE_LB=none
      with --disturb 0.15:4 (in a phase, each rank with probability 0.15 has all its tasks take
      4 times longer: one-phase spikes of a whole rank's load)
  stats_suspect.py OUT.json sim TIDE-SIM            tide-sim: the moving lake on 64 ranks on
      1 GbE under proact (the default load model), whose loads jump where the coast arrives

Either run's document must print L_suspect per rank wherever it prints L_pred (null together),
at least one rank-phase must be suspect, and each suspect one's distance must be its last
load's distance from the prediction, |L[p-1][i] - L_pred[p][i]|."""
import json
import os
import subprocess
import sys


def run(out, how, rest):
    env = dict(os.environ, TIDE_PRED_TRAIN="6", TIDE_PRED_WINDOW="2")
    if how == "mpi":
        cut = rest.index("--")
        env.update(TIDE_LB="none", TIDE_THREADS="1", TIDE_STATS=out)
        cmd = rest[:cut] + ["-n", "4", rest[cut + 1], "--kernel", "sleep", "--task-ms", "2",
                            "--tasks", "4,4,4,4", "--iters", "20", "--disturb", "0.15:4"]
    else:
        env.update(TIDE_LB="proact")
        cmd = [rest[0], "--platform", "ethernet", "--ranks", "64", "--threads", "14",
               "--tasks-per-rank", "32", "--samoa", "14", "--samoa-steps", "100",
               "--samoa-cost", "4,50,200", "--iters", "15", "--stats", out, "--quiet"]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stdout))
    with open(out) as f:
        return json.load(f)["phases"]


def main():
    phases = run(sys.argv[1], sys.argv[2], sys.argv[3:])
    suspect = 0
    for k, ph in enumerate(phases):
        s = ph["L_suspect"]
        if (s is None) != (ph["L_pred"] is None):
            sys.exit("phase %d: L_suspect and L_pred not null together" % k)
        if s is None:
            continue
        if len(s) != len(ph["L"]) or min(s) < 0:
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
        sys.exit("no rank-phase was suspect: the load jumps did not reach TIDE_STATS")


main()
