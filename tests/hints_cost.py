#!/usr/bin/env python3
"""Cost hints change the proactive plan from the first phase (tide.h, tide_task_set_cost).

Runs `test_hints cost 1` (every task has a cost) and `test_hints cost 0` (none) under
TIDE_LB=proact with the default training length (no model for 20 phases), each writing a
TIDE_STATS document, and checks phase 0 of each:
  - with hints: every rank's pred_source is "hint", a plan was made (plan_limit not null), rank 0
    (12 tasks of 8 ms against 2 and 2) offloaded 6 to 8 tasks, and the plan left rank 0 less
    than one task above the mean;
  - without hints: no prediction and no plan (L_pred and plan_limit null).
Usage: hints_cost.py OUTDIR MPIEXEC... -- PROGRAM"""
import json
import os
import shlex
import subprocess
import sys


def run(outdir, mpiexec, program, hints):
    path = os.path.join(outdir, "hints_cost_%d.json" % hints)
    env = dict(os.environ, TIDE_LB="proact", TIDE_STATS=path, TIDE_THREADS="2")
    cmd = mpiexec + ["-n", "3", program, "cost", str(hints)]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stdout))
    with open(path) as f:
        return json.load(f)["phases"][0]


def main():
    outdir, rest = sys.argv[1], sys.argv[2:]
    split = rest.index("--")
    mpiexec, program = [w for a in rest[:split] for w in shlex.split(a)], rest[split + 1]
    p = run(outdir, mpiexec, program, 1)
    errors = []
    if p["pred_source"] != ["hint"] * 3:
        errors.append("with hints: pred_source %s" % p["pred_source"])
    if p["plan_limit"] is None:
        errors.append("with hints: no plan in the first phase")
    if not 6 <= p["offloaded"][0] <= 8:
        errors.append("with hints: rank 0 offloaded %d tasks, expected 6 to 8" % p["offloaded"][0])
    if p["plan_residual"] is not None and p["plan_residual"][0] >= 0.008:
        errors.append("with hints: the plan left rank 0 %.4f s above the mean" %
                      p["plan_residual"][0])
    print("with hints, phase 0: pred_source %s, offloaded %s, plan_residual %s" %
          (p["pred_source"], p["offloaded"], p["plan_residual"]))
    q = run(outdir, mpiexec, program, 0)
    if q["L_pred"] is not None or q["plan_limit"] is not None:
        errors.append("without hints: phase 0 had a prediction or a plan")
    print("without hints, phase 0: L_pred %s, plan_limit %s" % (q["L_pred"], q["plan_limit"]))
    if errors:
        sys.exit("\n".join(errors))


main()
