#!/usr/bin/env python3
"""Runs cbench (the command after the output folder) with TIDE_GLOBAL_LB=none and =greedy and
checks from each run's --json that greedy's max rank load (median over the second half of the
iterations) is below 0.8 x none's (none keeps
the initial imbalance, greedy spreads the heavy objects) and that greedy migrated objects.
Usage: lb_lowers_max.py OUTDIR mpiexec -n 4 cbench FILE [options]"""
import json
import os
import subprocess
import sys

out, cmd = sys.argv[1], sys.argv[2:]
res = {}
for lb in ("none", "greedy"):
    path = os.path.join(out, "cbench-lb-%s.json" % lb)
    env = dict(os.environ, TIDE_GLOBAL_LB=lb)
    p = subprocess.run(cmd + ["--json", path], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit code %d\n%s%s" % (lb, p.returncode, p.stdout, p.stderr))
    with open(path) as f:
        res[lb] = json.load(f)
def late_median(xs):
    """Median of the second half of the iterations (after the first rescheduling when lbfreq is
    at most half the run): one iteration disturbed by another job cannot decide the test."""
    late = sorted(xs[len(xs) // 2:])
    return late[len(late) // 2]


none, greedy = late_median(res["none"]["load_max_s"]), late_median(res["greedy"]["load_max_s"])
moved = res["greedy"]["summary"]["moved"]
print("max load (late median): none %.4f s, greedy %.4f s; greedy moved %d objects" % (none, greedy, moved))
if res["none"]["summary"]["moved"] != 0:
    sys.exit("none moved objects")
if not (greedy < 0.8 * none and moved > 0):
    sys.exit("greedy did not lower the max load enough")
