#!/usr/bin/env python3
"""Checks that a balancing strategy had an effect, not only that the results stayed right.

Runs COMMAND once with KNOB (TIDE_LB or TIDE_GLOBAL_LB) naming the strategy under test, as the
environment gives it, and reads the run's TIDE_STATS document (docs/stats.md) or, for
TIDE_GLOBAL_LB, its TIDE_OBJECTS_STATS document (docs/objects.md). The run must exit 0, and
--expect REGEX must occur in its output (this replaces a PASS_REGULAR_EXPRESSION, which would
make ctest ignore the exit status). The strategy is judged by what it controls, where work runs,
on the loads it saw, and not by wall times, which another job on the machine stretches at
random (issue 27: a refine run's R_imb of wall times 0.598 against a none run's 0.808 failed
0.7 x under load):
  - TIDE_LB: the imbalance of the loads as the strategy assigned them, phases[].L_run (the
    execution times of the tasks each rank ran), against that of the same tasks' times counted
    at their owners, phases[].L (what moving nothing keeps), over the phases from
    --skip-phases on. Both come from the same run and the same measured task times, so the
    machine's noise falls on both; without replication every task runs once, so the two sum to
    the same total (checked).
  - TIDE_GLOBAL_LB: the first rescheduling (the one that meets the imbalanced start; later ones
    see what it made): the max rank load its new mapping gives to the loads it measured
    (reschedules[0].max_after) against the max before (max_before), over their mean (avg).
Then:
  - something moved: summary.tasks_offloaded > 0 (TIDE_LB), summary.moved_total > 0 (objects);
  - the input is imbalanced: R_imb before >= --min-baseline, or it cannot show anything;
  - the imbalance fell: R_imb after <= --max-ratio x R_imb before.
R_imb is summary.R_imb's formula: sum of the maxima / sum of the means - 1.

Usage: lb_effect.py --out DIR --knob TIDE_LB|TIDE_GLOBAL_LB [--skip-phases K] [--max-ratio F]
                    [--min-baseline R] [--expect REGEX] -- COMMAND [ARGS...]
(--skip-phases K, TIDE_LB only: from phase K on, default 1, so that a strategy is judged where
it acts, e.g. proact once its load model is trained.)
TIDE_LB runs with TIDE_PLAN_GATE=off unless the environment sets it: the strategy's decisions
are judged, not whether the plan gate, on measured times, let it run.
Exit 0 when every check holds, 1 otherwise (with the reason on stderr)."""
import argparse
import json
import os
import re
import subprocess
import sys


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="folder for the run's JSON documents")
    p.add_argument("--knob", required=True, choices=("TIDE_LB", "TIDE_GLOBAL_LB"))
    p.add_argument("--skip-phases", type=int, default=1, help="TIDE_LB only: judge phases K..")
    p.add_argument("--max-ratio", type=float, default=0.7)
    p.add_argument("--min-baseline", type=float, default=0.2)
    p.add_argument("--expect", help="a regular expression the run must print")
    p.add_argument("command", nargs="+")
    return p.parse_args()


def run(args, strategy):
    """Runs the command; returns (output, TIDE_STATS document, TIDE_OBJECTS_STATS or None)."""
    stats = os.path.join(args.out, "strategy.json")
    objects = os.path.join(args.out, "strategy-objects.json")
    for path in (stats, objects):
        if os.path.exists(path):
            os.remove(path)
    env = dict(os.environ, TIDE_STATS=stats, TIDE_OBJECTS_STATS=objects)
    # The strategy's decisions are judged, so it runs in every phase: whether the plan gate lets
    # it run rests on measured times (a slow first phase on a loaded machine can hold it idle),
    # and the gate has tests of its own. An environment that names TIDE_PLAN_GATE keeps it.
    if args.knob == "TIDE_LB":
        env.setdefault("TIDE_PLAN_GATE", "off")
    p = subprocess.run(args.command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        sys.exit("lb_effect: the run (%s=%s) exited with %d" % (args.knob, strategy,
                                                              p.returncode))
    with open(stats) as f:
        doc = json.load(f)
    obj = None
    if args.knob == "TIDE_GLOBAL_LB":
        with open(objects) as f:
            obj = json.load(f)
    return p.stdout, doc, obj


def r_imb(rows):
    """sum of max / sum of mean - 1 over rows of per-rank loads (summary.R_imb's formula)."""
    w_par = sum(max(r) for r in rows)
    w_avg = sum(sum(r) / len(r) for r in rows)
    return w_par / w_avg - 1 if w_avg > 0 else 0.0


def task_loads(args, doc):
    """TIDE_LB: (R_imb of L, R_imb of L_run, phases judged, failures)."""
    phases = doc["phases"][args.skip_phases:]
    if not phases:
        sys.exit("lb_effect: the run has %d phases, none after --skip-phases %d"
                 % (len(doc["phases"]), args.skip_phases))
    failures = []
    for p in phases:
        own, ran = sum(p["L"]), sum(p["L_run"])
        replicas = sum(p["received"]) > sum(p["offloaded"])
        if ran < own * (1 - 1e-9) or (not replicas and abs(ran - own) > 1e-9 * own):
            failures.append("phase %d: the tasks run (L_run) sum to %.9g s, the own tasks (L) to "
                            "%.9g s" % (p["phase"], ran, own))
    before = r_imb([p["L"] for p in phases])
    after = r_imb([p["L_run"] for p in phases])
    where = "L_run against L, phases %d..%d" % (args.skip_phases, len(doc["phases"]) - 1)
    return before, after, where, failures


def object_loads(obj):
    """TIDE_GLOBAL_LB: (R_imb before, R_imb of the new mapping, what was judged, failures)."""
    if not obj["reschedules"]:
        sys.exit("lb_effect: the run made no rescheduling")
    first = obj["reschedules"][0]
    if first["avg"] <= 0:
        sys.exit("lb_effect: the first rescheduling saw no load")
    return (first["max_before"] / first["avg"] - 1, first["max_after"] / first["avg"] - 1,
            "the mapping of the first rescheduling, iteration %d" % first["iteration"], [])


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    strategy = os.environ.get(args.knob, "none")
    if strategy == "none":
        sys.exit("lb_effect: %s is none: there is no strategy to judge" % args.knob)

    out, doc, obj = run(args, strategy)
    sys.stdout.write(out)
    if args.expect and not re.search(args.expect, out):
        sys.exit("lb_effect: the %s run did not print /%s/" % (strategy, args.expect))
    if args.knob == "TIDE_LB":
        moved, what = doc["summary"]["tasks_offloaded"], "tasks offloaded"
        before, after, where, failures = task_loads(args, doc)
    else:
        moved, what = obj["summary"]["moved_total"], "objects migrated"
        before, after, where, failures = object_loads(obj)
    print("lb_effect: %s=%s: %d %s; R_imb %.3f after the strategy's moves, %.3f before (%s)"
          % (args.knob, strategy, moved, what, after, before, where))
    if moved <= 0:
        failures.append("nothing moved")
    if before < args.min_baseline:
        failures.append("R_imb before the moves %.3f is below %.3f: this input cannot show an "
                        "effect" % (before, args.min_baseline))
    elif after > args.max_ratio * before:
        failures.append("R_imb %.3f is above %.2f x the %.3f before the moves"
                        % (after, args.max_ratio, before))
    if failures:
        sys.exit("lb_effect: %s: %s" % (strategy, "; ".join(failures)))


if __name__ == "__main__":
    main()
