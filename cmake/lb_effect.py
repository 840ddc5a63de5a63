#!/usr/bin/env python3
"""Checks that a balancing strategy had an effect, not only that the results stayed right.

Runs COMMAND twice, reading each run's TIDE_STATS document (docs/stats.md):
  1. as the environment gives it: KNOB (TIDE_LB or TIDE_GLOBAL_LB) names the strategy under test;
  2. with KNOB=none: the baseline, the same input with nothing moved.
Both must exit 0, and --expect REGEX must occur in the first run's output (this replaces a
PASS_REGULAR_EXPRESSION, which would make ctest ignore the exit status). Then:
  - something moved: TIDE_STATS summary.tasks_offloaded > 0 (TIDE_LB), or the objects layer's
    summary.moved_total > 0 (TIDE_GLOBAL_LB, from TIDE_OBJECTS_STATS);
  - the baseline is imbalanced: its R_imb >= --min-baseline, or the input cannot show anything;
  - the imbalance fell: R_imb <= --max-ratio x the baseline's R_imb.
R_imb is summary.R_imb's formula, sum over phases of max_i W_i / sum of mean_i W_i - 1, over
the phases from --skip-phases on (phases[].W), so that a strategy is judged where it acts.

Usage: lb_effect.py --out DIR --knob TIDE_LB|TIDE_GLOBAL_LB [--skip-phases K] [--max-ratio F]
                    [--min-baseline R] [--expect REGEX] -- COMMAND [ARGS...]
Exit 0 when every check holds, 1 otherwise (with the reason on stderr)."""
import argparse
import json
import os
import re
import subprocess
import sys


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="folder for the runs' JSON documents")
    p.add_argument("--knob", required=True, choices=("TIDE_LB", "TIDE_GLOBAL_LB"))
    p.add_argument("--skip-phases", type=int, default=1)
    p.add_argument("--max-ratio", type=float, default=0.7)
    p.add_argument("--min-baseline", type=float, default=0.2)
    p.add_argument("--expect", help="a regular expression the strategy run must print")
    p.add_argument("command", nargs="+")
    return p.parse_args()


def run(args, tag, strategy):
    """Runs the command with KNOB=strategy; returns (output, TIDE_STATS, TIDE_OBJECTS_STATS)."""
    stats = os.path.join(args.out, tag + ".json")
    objects = os.path.join(args.out, tag + "-objects.json")
    for path in (stats, objects):
        if os.path.exists(path):
            os.remove(path)
    env = dict(os.environ, TIDE_STATS=stats, TIDE_OBJECTS_STATS=objects)
    env[args.knob] = strategy
    p = subprocess.run(args.command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        sys.exit("lb_effect: the %s run (%s=%s) exited with %d" % (tag, args.knob, strategy,
                                                                  p.returncode))
    with open(stats) as f:
        doc = json.load(f)
    obj = None
    if args.knob == "TIDE_GLOBAL_LB":
        with open(objects) as f:
            obj = json.load(f)
    return p.stdout, doc, obj


def r_imb(doc, skip):
    """sum_p max_i W_i / sum_p mean_i W_i - 1 over phases skip.. (summary.R_imb's formula)."""
    phases = doc["phases"][skip:]
    if not phases:
        sys.exit("lb_effect: the run has %d phases, none after --skip-phases %d"
                 % (len(doc["phases"]), skip))
    w_par = sum(max(p["W"]) for p in phases)
    w_avg = sum(sum(p["W"]) / len(p["W"]) for p in phases)
    return w_par / w_avg - 1 if w_avg > 0 else 0.0


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    strategy = os.environ.get(args.knob, "none")
    if strategy == "none":
        sys.exit("lb_effect: %s is none: there is no strategy to judge" % args.knob)

    out, doc, obj = run(args, "strategy", strategy)
    sys.stdout.write(out)
    if args.expect and not re.search(args.expect, out):
        sys.exit("lb_effect: the %s run did not print /%s/" % (strategy, args.expect))
    _, base, _ = run(args, "baseline", "none")

    if args.knob == "TIDE_LB":
        moved, what = doc["summary"]["tasks_offloaded"], "tasks offloaded"
    else:
        moved, what = obj["summary"]["moved_total"], "objects migrated"
    mine, none = r_imb(doc, args.skip_phases), r_imb(base, args.skip_phases)
    print("lb_effect: %s=%s: %d %s; R_imb %.3f against %.3f with none (phases %d..%d)"
          % (args.knob, strategy, moved, what, mine, none, args.skip_phases,
             len(doc["phases"]) - 1))
    failures = []
    if moved <= 0:
        failures.append("nothing moved")
    if none < args.min_baseline:
        failures.append("the baseline's R_imb %.3f is below %.3f: this input cannot show an effect"
                        % (none, args.min_baseline))
    elif mine > args.max_ratio * none:
        failures.append("R_imb %.3f is above %.2f x the baseline's %.3f"
                        % (mine, args.max_ratio, none))
    if failures:
        sys.exit("lb_effect: %s: %s" % (strategy, "; ".join(failures)))


if __name__ == "__main__":
    main()
