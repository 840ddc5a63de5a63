#!/usr/bin/env python3
"""Seeded noise in samoa_proxy's measured loads (sleep kernel, TIDE_STATS phases[].L summed over
steps and ranks): --disturb 1:4 makes every section task sleep 4 times its modelled cost, so the
sum grows about 4x (more than 2.5x is asked, leaving room for the runtime's overhead); --jitter
0.25:5 slows a quarter of the tasks 5x, about 2x in all (more than 1.3x is asked). The sections
sleep about 4 ms each, well above the overhead per task, and the baseline is the lower of two
runs, since a loaded machine only ever inflates a measured load.
Usage: test_noise_loads.py <samoa_proxy binary> <scratch dir> <mpiexec command...>"""
import json
import os
import shutil
import subprocess
import sys

proxy, scratch, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3:]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
ARGS = ["--depth", "8", "--uniform", "--sections-per-rank", "4", "--steps", "10", "--kernel", "sleep",
        "--cost-us", "20,100,400", "--verify"]


def total_load(name, extra):
    stats = os.path.join(scratch, name + ".json")
    env = dict(os.environ, TIDE_LB="none", TIDE_THREADS="1", TIDE_STATS=stats)
    cmd = mpiexec + ["-n", "2", proxy] + ARGS + extra
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    if res.returncode != 0 or "verified" not in res.stdout:
        sys.exit("FAIL: %s exited %d\n$ %s\n%s%s" % (name, res.returncode, " ".join(cmd),
                                                     res.stdout, res.stderr))
    with open(stats) as f:
        return sum(sum(ph["L"]) for ph in json.load(f)["phases"])


# A preempted phase only inflates a measured load, so the baseline is the lower of two runs.
plain = min(total_load("plain", []), total_load("plain2", []))
disturbed = total_load("disturb", ["--disturb", "1:4"])
jittered = total_load("jitter", ["--jitter", "0.25:5", "--noise-seed", "3"])
print("loads: plain %.4f s, --disturb 1:4 %.4f s, --jitter 0.25:5 %.4f s"
      % (plain, disturbed, jittered))
if not disturbed > 2.5 * plain:
    sys.exit("FAIL: --disturb 1:4 raised the load only %.2fx" % (disturbed / plain))
if not jittered > 1.3 * plain:
    sys.exit("FAIL: --jitter 0.25:5 raised the load only %.2fx" % (jittered / plain))
print("samoa noise loads ok")
