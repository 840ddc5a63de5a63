#!/usr/bin/env python3
"""Run one Task Packing MPI scenario and check it.

run_case.py --mpiexec CMD --lib libtaskpack.so --np N [--env K=V ...] [--expect-freed F]
            [--expect-packed] [--compare-plain] [--expect-error TEXT] [--fortran] -- PROGRAM ARGS

Checks (each may fail the test):
  * the affinity every rank prints just before MPI_Finalize equals the report's cpus_after for
    that rank, and equals the planned cpu when the report plans a move;
  * the report's cpus_freed equals --expect-freed and is consistent with the per-node data;
  * with --compare-plain, the program's checksum equals the one of a run without the library;
  * with --expect-error, the run fails and stderr holds exactly one line starting with TEXT.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def cpus(text):
    out = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def run(args, extra_env, preload, timeout=60):
    env = dict(os.environ)
    env.update(extra_env)
    cmd = shlex.split(args.mpiexec) + ["-n", str(args.np)]
    for key in sorted(extra_env):
        cmd += ["-x", key]
    # Only the ranks load the library (-x NAME=VALUE), not mpiexec itself.
    if preload:
        cmd += ["-x", "LD_PRELOAD=" + args.lib]
    return subprocess.run(cmd + args.program, env=env, capture_output=True, text=True,
                          timeout=timeout)


def fail(msg, p=None):
    print("FAIL:", msg)
    if p is not None:
        print("--- stdout\n" + p.stdout + "--- stderr\n" + p.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--expect-freed", type=int)
    ap.add_argument("--expect-packed", action="store_true")
    ap.add_argument("--expect-iterations", type=int)
    ap.add_argument("--compare-plain", action="store_true")
    ap.add_argument("--expect-error")
    ap.add_argument("--no-preload", action="store_true", help="program links the library")
    ap.add_argument("program", nargs="+")
    args = ap.parse_args()

    extra = dict(kv.split("=", 1) for kv in args.env)
    report = None
    if args.expect_error is None:
        fd, report = tempfile.mkstemp(prefix="taskpack-", suffix=".json")
        os.close(fd)
        extra["TASKPACK_REPORT"] = report
    p = run(args, extra, preload=not args.no_preload)

    if args.expect_error is not None:
        if p.returncode == 0:
            fail("run succeeded despite a bad configuration", p)
        lines = [l for l in p.stderr.splitlines() if l.startswith("taskpack:")]
        if len(lines) != 1 or not lines[0].startswith(args.expect_error):
            fail("expected one line starting with %r, got %r" % (args.expect_error, lines), p)
        print("ok: %s" % lines[0])
        return

    if p.returncode != 0:
        fail("run failed (rc %d)" % p.returncode, p)
    try:
        with open(report) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        fail("no valid report: %s" % e, p)
    finally:
        os.unlink(report)
    line = [l for l in p.stderr.splitlines() if l.startswith("taskpack: freed")]
    if len(line) != 1:
        fail("expected one 'taskpack: freed' line on stderr, got %d" % len(line), p)

    printed = {}
    checksum = None
    for l in p.stdout.splitlines():
        w = l.split()
        if len(w) == 4 and w[0] == "rank" and w[2] == "cpus":
            printed[int(w[1])] = cpus(w[3])
        elif len(w) == 2 and w[0] == "checksum":
            checksum = w[1]
    if len(printed) != args.np or checksum is None:
        fail("program output incomplete", p)

    seen = set()
    total_freed = 0
    for node in rep["per_node"]:
        in_use = set()
        for a in node["assignment"]:
            r = a["rank"]
            seen.add(r)
            after = cpus(a["cpus_after"])
            if printed[r] != after:
                fail("rank %d runs on %s but the report says %s" % (r, printed[r], after), p)
            if a["cpu"] is not None and after != {a["cpu"]}:
                fail("rank %d planned on CPU %d but ended on %s" % (r, a["cpu"], after), p)
            if a["cpu"] is None and after != cpus(a["cpus_before"]):
                fail("rank %d was not to move but its affinity changed" % r, p)
            in_use |= after
        freed = len(set(node["pool"]) - in_use)
        if freed != node["freed"]:
            fail("node freed %d but affinities free %d" % (node["freed"], freed), p)
        if node["cpus"] > args.np:
            fail("node holds %d CPUs for %d ranks" % (node["cpus"], args.np), p)
        total_freed += freed
    if seen != set(range(args.np)):
        fail("report covers ranks %s" % sorted(seen), p)
    if total_freed != rep["cpus_freed"]:
        fail("cpus_freed %d != sum over nodes %d" % (rep["cpus_freed"], total_freed), p)
    if args.expect_packed and not rep["packed"]:
        fail("times never became stable: not packed", p)
    if args.expect_freed is not None and rep["cpus_freed"] != args.expect_freed:
        fail("freed %d CPUs, expected %d" % (rep["cpus_freed"], args.expect_freed), p)
    if args.expect_iterations is not None and rep["iterations"] != args.expect_iterations:
        fail("saw %d iterations, expected %d" % (rep["iterations"], args.expect_iterations), p)
    if args.compare_plain:
        q = run(args, {}, preload=False)
        plain = [l.split()[1] for l in q.stdout.splitlines() if l.startswith("checksum ")]
        if q.returncode != 0 or plain != [checksum]:
            fail("checksum %s with taskpack, %s without" % (checksum, plain), q)
    print(line[0])
    print("ok: freed %d of %d, iterations %d, packed %s, slowdown %s" % (
        rep["cpus_freed"], rep["cpus_assigned"], rep["iterations"], rep["packed"],
        rep["slowdown"]))


if __name__ == "__main__":
    main()
