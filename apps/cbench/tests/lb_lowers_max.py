#!/usr/bin/env python3
"""Runs cbench (the command after the output folder) with TIDE_GLOBAL_LB=none and =greedy and
checks that none migrated nothing and greedy migrated objects (from each run's --json), and that
greedy's first rescheduling gave the loads it measured a max rank load below 0.8 x theirs (from
TIDE_OBJECTS_STATS: reschedules[0].max_after against max_before; none keeps the initial
imbalance, greedy spreads the heavy objects). The decision is judged, not the later iterations'
measured max loads: another job on the machine stretched those 3x in one loaded run (issue 27).
Usage: lb_lowers_max.py OUTDIR mpiexec -n 4 cbench FILE [options]"""
import json
import os
import subprocess
import sys

out, cmd = sys.argv[1], sys.argv[2:]
res, objects = {}, {}
for lb in ("none", "greedy"):
    path = os.path.join(out, "cbench-lb-%s.json" % lb)
    objpath = os.path.join(out, "cbench-lb-%s-objects.json" % lb)
    env = dict(os.environ, TIDE_GLOBAL_LB=lb, TIDE_OBJECTS_STATS=objpath)
    p = subprocess.run(cmd + ["--json", path], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit code %d\n%s%s" % (lb, p.returncode, p.stdout, p.stderr))
    with open(path) as f:
        res[lb] = json.load(f)
    with open(objpath) as f:
        objects[lb] = json.load(f)

moved = res["greedy"]["summary"]["moved"]
if res["none"]["summary"]["moved"] != 0:
    sys.exit("none moved objects")
if not objects["greedy"]["reschedules"]:
    sys.exit("greedy made no rescheduling")
first = objects["greedy"]["reschedules"][0]
print("greedy's first rescheduling (iteration %d): max load %.4f s -> %.4f s (mean %.4f s); "
      "greedy moved %d objects" % (first["iteration"], first["max_before"], first["max_after"],
                                   first["avg"], moved))
if not (first["max_after"] < 0.8 * first["max_before"] and moved > 0):
    sys.exit("greedy did not lower the max load enough")
