#!/usr/bin/env python3
"""Measured Task Packing benchmark: freed CPUs vs the imbalance metric for synthetic imbalance
patterns on this machine, and the slowdown of the packed runs.

  run_bench.py BUILD_DIR [--reps 3] [--iters 60] [--unit-ms 20]

BUILD_DIR holds libtaskpack.so and tests/taskpack_imbalanced. Every scenario runs --reps times
with the library preloaded (report in JSON) and --reps times without; the table shows medians:
  I          imbalance metric of the node (paper's eq. 5) from the report
  cpus       CPUs the node holds, freed / predicted from the report
  slowdown   report's period after packing / period before (same run)
  run_ratio  program elapsed time with the library / without (whole run, packing included)
  packed     runs (of --reps) whose times became stable within TASKPACK_TOL=0.1, so that
             packing ran; I and slowdown are medians over those runs only
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

SCENARIOS = [
    # name, ranks, weights, sleeps (ms), slack
    ("balanced", 2, "1", "0", 0.0),
    ("2:1", 2, "1,0.5", "0", 0.0),
    ("2:1 slack0.6", 2, "1,0.5", "0", 0.6),
    ("one_idle", 2, "1,0.03", "0", 0.1),
    ("one_sleeper", 2, "1,0.03", "0,15", 0.1),
    ("4 balanced", 4, "1", "0", 0.0),
    ("4 one_heavy", 4, "1,0.03,0.03,0.03", "0", 0.15),
    ("4 one_heavy s0", 4, "1,0.3,0.3,0.3", "0", 0.0),
    ("4 one_heavy s1", 4, "1,0.3,0.3,0.3", "0", 1.0),
]


def run(build, ranks, weights, sleeps, iters, unit_ms, env):
    cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks)]
    for k in sorted(env):
        cmd += ["-x", "%s=%s" % (k, env[k])]
    cmd += [os.path.join(build, "tests", "taskpack_imbalanced"), "--weights", weights,
            "--sleep-ms", sleeps, "--iters", str(iters), "--unit-ms", str(unit_ms)]
    base = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_mpi_yield_when_idle="1")
    p = subprocess.run(cmd, env=base, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit("run failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return float([l.split()[1] for l in p.stdout.splitlines() if l.startswith("elapsed")][0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=60)
    ap.add_argument("--unit-ms", type=float, default=20)
    a = ap.parse_args()
    lib = os.path.abspath(os.path.join(a.build, "libtaskpack.so"))
    print("%-16s %5s %6s %5s %6s %6s %9s %9s %7s" % ("scenario", "ranks", "I", "cpus", "freed",
                                                     "pred", "slowdown", "run_ratio", "packed"))
    for name, ranks, weights, sleeps, slack in SCENARIOS:
        imb, freed, pred, slow, ratio, cpus = [], [], [], [], [], 0
        for _ in range(a.reps):
            fd, path = tempfile.mkstemp(suffix=".json")
            os.close(fd)
            env = {"LD_PRELOAD": lib, "TASKPACK_REPORT": path, "TASKPACK_SLACK": str(slack),
                   "TASKPACK_TOL": "0.1"}
            packed = run(a.build, ranks, weights, sleeps, a.iters, a.unit_ms, env)
            plain = run(a.build, ranks, weights, sleeps, a.iters, a.unit_ms, {})
            with open(path) as f:
                rep = json.load(f)
            os.unlink(path)
            node = rep["per_node"][0]
            cpus = node["cpus"]
            if node["imbalance"] is not None:
                imb.append(node["imbalance"])
            if rep["slowdown"] is not None:
                slow.append(rep["slowdown"])
            freed.append(rep["cpus_freed"])
            pred.append(rep["predicted_freed"])
            ratio.append(packed / plain)

        def med(xs):
            return statistics.median(xs) if xs else float("nan")

        print("%-16s %5d %6.3f %5d %6g %6g %9.3f %9.3f %4d/%d" % (
            name, ranks, med(imb), cpus, med(freed), med(pred), med(slow), med(ratio), len(imb),
            a.reps))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
