#!/usr/bin/env python3
"""mxm's seeded noise, measured: with --jitter 0.05:10 (sleep kernel) every rank's load L in the
stats document is at least its tasks' modelled times with the slowed ones counted 10 times, so it
is larger than without jitter; the same seed slows the same tasks (the --print-noise lines are
equal) also when every task runs on another rank with another thread count, and the factor
travels with the offloaded tasks (the bound holds there too); another seed slows other tasks;
--disturb 1:3 slows every task of every rank 3 times.
Usage: test_noise.py <mxm binary> <scratch dir> <mpiexec command...>"""
import json
import os
import shutil
import subprocess
import sys

mxm, scratch, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3:]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
TASK_MS, TASKS = 2.0, [20, 20]
ARGS = ["--kernel", "sleep", "--task-ms", str(TASK_MS), "--size", "16", "--iters", "3",
        "--tasks", ",".join(map(str, TASKS)), "--verify"]


def fail(msg, out=""):
    sys.exit("FAIL: %s\n%s" % (msg, out))


def run(name, extra, lb="none", threads=2):
    stats = os.path.join(scratch, name + ".json")
    env = dict(os.environ, TIDE_LB=lb, TIDE_RANDOM_FRACTION="1", TIDE_THREADS=str(threads),
               TIDE_STATS=stats)
    cmd = mpiexec + ["-n", str(len(TASKS)), mxm] + ARGS + extra
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    out = "$ %s\n%s%s" % (" ".join(cmd), res.stdout, res.stderr)
    if res.returncode != 0 or "verified" not in res.stdout:
        fail("%s exited %d" % (name, res.returncode), out)
    with open(stats) as f:
        doc = json.load(f)
    noise = [line for line in res.stdout.splitlines() if line.startswith("noise:")]
    return doc, noise, out


def slowed(noise):
    """Per iteration, per rank: how many tasks the noise slowed (from --print-noise)."""
    rows = [line.split()[-1] for line in noise if line.startswith("noise: iteration")]
    return [[int(x) for x in row.split(",")] for row in rows]


def total_load(doc):
    return sum(sum(ph["L"]) for ph in doc["phases"])


def check_bound(doc, counts, factor, name, out):
    """L of every rank and phase >= (tasks + slowed * (factor - 1)) * TASK_MS: a slowed task
    sleeps factor times its modelled time, wherever it runs."""
    t = TASK_MS * 1e-3
    for ph, row in zip(doc["phases"], counts):
        for r, (load, n, s) in enumerate(zip(ph["L"], ph["tasks"], row)):
            bound = (n + s * (factor - 1)) * t
            if load < 0.999 * bound:
                fail("%s: phase %d rank %d: L %.4f s below %.4f s (%d tasks, %d slowed x %g)"
                     % (name, ph["phase"], r, load, bound, n, s, factor), out)


plain, _, _ = run("plain", [])
jit, noise1, out1 = run("jitter-seed1", ["--jitter", "0.05:10", "--print-noise"])
moved, noise1b, out1b = run("jitter-seed1-offloaded", ["--jitter", "0.05:10", "--print-noise"],
                            lb="random", threads=1)
_, noise2, out2 = run("jitter-seed2", ["--jitter", "0.05:10", "--noise-seed", "2", "--print-noise"])
dist, noised, outd = run("disturb-all", ["--disturb", "1:3", "--print-noise"])

counts = slowed(noise1)
if len(counts) != 3 or sum(map(sum, counts)) == 0:
    fail("seed 1 slowed no task, or --print-noise printed no iteration lines", out1)
check_bound(jit, counts, 10, "jitter", out1)
if not total_load(jit) > total_load(plain):
    fail("loads with jitter (%.4f s) not above those without (%.4f s)"
         % (total_load(jit), total_load(plain)), out1)
if noise1b != noise1:
    fail("the same seed slowed other tasks when they were offloaded", out1 + out1b)
if moved["summary"]["tasks_offloaded"] != moved["summary"]["tasks"]:
    fail("TIDE_LB=random with fraction 1 did not offload every task", out1b)
check_bound(moved, counts, 10, "jitter, offloaded", out1b)
if noise2 == noise1:
    fail("seeds 1 and 2 slowed the same tasks", out1 + out2)
if slowed(noised) != [TASKS] * 3:
    fail("--disturb 1:3 did not slow every task", outd)
check_bound(dist, slowed(noised), 3, "disturb", outd)
print("noise ok: %d tasks slowed by seed 1; loads %.3f s plain, %.3f s jitter, %.3f s disturb"
      % (sum(map(sum, counts)), total_load(plain), total_load(jit), total_load(dist)))
