#!/usr/bin/env python3
"""samoa-bench on a tiny case with seeded noise: the options reach samoa_proxy (with --disturb 1:3
every task sleeps 3 times its cost, so the summed loads of the kept stats document are more than
twice those of a run without noise), results.md names the setting, results.csv has it in every
row, and a bad --jitter stops it with exit code 2 before any run. --reps 2 runs the matrix twice:
results.csv has a row per repetition and results.md gives the mean with the range; --reps 0 exits 2.
Usage: test_samoa_bench.py <samoa-bench> <samoa_proxy binary> <scratch dir> <mpiexec command...>"""
import csv
import json
import os
import shutil
import subprocess
import sys

bench, proxy, scratch, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
shutil.rmtree(scratch, ignore_errors=True)


def run(name, extra, code=0):
    out = os.path.join(scratch, name)
    cmd = [sys.executable, bench, "--proxy", proxy, "--ranks", "2", "--modes", "none", "--depth",
           "7", "--sections", "2", "--steps", "12", "--train", "10", "--cost-us", "5,25,100",
           "--mpiexec", " ".join(mpiexec), "--out", out] + extra
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=100)
    if res.returncode != code:
        sys.exit("FAIL: %s exited %d, expected %d\n%s%s" % (name, res.returncode, code, res.stdout,
                                                            res.stderr))
    return out, res


def total_load(out):
    with open(os.path.join(out, "stats-2-none.json")) as f:
        return sum(sum(ph["L"]) for ph in json.load(f)["phases"])


plain, _ = run("plain", [])
noisy, _ = run("noisy", ["--jitter", "0.2:3", "--disturb", "1:3", "--noise-seed", "4"])
with open(os.path.join(plain, "results.md")) as f:
    if "no noise" not in f.read():
        sys.exit("FAIL: results.md of the run without noise does not say so")
with open(os.path.join(noisy, "results.md")) as f:
    if "noise jitter 0.2:3 disturb 1:3 seed 4" not in f.read():
        sys.exit("FAIL: results.md does not name the noise setting")
rows = list(csv.DictReader(open(os.path.join(noisy, "results.csv"))))
got = [tuple(r[k] for k in ["jitter_p", "jitter_f", "disturb_p", "disturb_f", "noise_seed"])
       for r in rows]
if got != [("0.2", "3.0", "1.0", "3.0", "4")]:
    sys.exit("FAIL: results.csv records the noise as %s" % got)
if not total_load(noisy) > 2 * total_load(plain):
    sys.exit("FAIL: loads %.4f s with --disturb 1:3, %.4f s without: the noise did not reach "
             "samoa_proxy" % (total_load(noisy), total_load(plain)))
_, res = run("bad", ["--jitter", "0.5"], code=2)
if "--jitter: expected P:F" not in res.stderr:
    sys.exit("FAIL: a bad --jitter was refused without saying why\n%s" % res.stderr)
twice, _ = run("reps", ["--reps", "2"])
reps = [r["rep"] for r in csv.DictReader(open(os.path.join(twice, "results.csv")))]
if reps != ["0", "1"] or not all(os.path.exists(os.path.join(twice, "stats-2-none-r%d.json" % k))
                                 for k in (0, 1)):
    sys.exit("FAIL: --reps 2 gave the rows %s and not a stats document per repetition" % reps)
with open(os.path.join(twice, "results.md")) as f:
    if "Mean of 2 repetitions" not in f.read():
        sys.exit("FAIL: results.md of --reps 2 does not say it gives means")
_, res = run("noreps", ["--reps", "0"], code=2)
if "--reps must be >= 1" not in res.stderr:
    sys.exit("FAIL: --reps 0 was refused without saying why\n%s" % res.stderr)
print("samoa-bench noise ok: loads %.4f s plain, %.4f s noisy" % (total_load(plain),
                                                                  total_load(noisy)))
