#!/usr/bin/env python3
"""The bench harness on a tiny case: it prints a table, writes table.txt, results.csv, runs.csv
and the two PNG plots; a mode the runtime rejects is flagged and skipped without failing; a run
that fails is reported with its command and log, and makes the harness exit 1; --jitter, --disturb
and --noise-seed reach mxm and are recorded in the header and the CSVs.
Usage: test_bench.py <scripts/bench> <mxm binary> <scratch dir>"""
import csv
import os
import shutil
import subprocess
import sys

bench, mxm, scratch = sys.argv[1:4]
shutil.rmtree(scratch, ignore_errors=True)
ok_dir, bad_dir = os.path.join(scratch, "ok"), os.path.join(scratch, "bad")
common = [sys.executable, bench, "--mxm", mxm, "--ranks", "2", "--threads", "2", "--kernel", "sleep",
          "--task-ms", "2", "--size", "16", "--iters", "2", "--tasks-per-rank", "4", "--reps", "2"]


def fail(msg, res=None):
    sys.exit("FAIL: %s\n%s" % (msg, "" if res is None else res.stdout + res.stderr))


res = subprocess.run(common + ["--imb", "0,1", "--modes", "none,random,bogus_mode", "--out", ok_dir],
                     capture_output=True, text=True, timeout=110)
if res.returncode != 0:
    fail("harness exited %d on a good case" % res.returncode, res)
for name in ["table.txt", "results.csv", "runs.csv", "r_imb.png", "speedup.png"]:
    p = os.path.join(ok_dir, name)
    if not os.path.exists(p) or os.path.getsize(p) == 0:
        fail("missing output " + name, res)
with open(os.path.join(ok_dir, "r_imb.png"), "rb") as f:
    if f.read(8) != b"\x89PNG\r\n\x1a\n":
        fail("r_imb.png is not a PNG")
rows = list(csv.DictReader(open(os.path.join(ok_dir, "results.csv"))))
got = {(r["scenario"], r["mode"]): r for r in rows}
if sorted(got) != sorted((s, m) for s in ["Imb.0", "Imb.1"] for m in ["none", "random", "bogus_mode"]):
    fail("results.csv rows: %s" % sorted(got))
for s in ["Imb.0", "Imb.1"]:
    for m in ["none", "random"]:
        r = got[(s, m)]
        if r["status"] != "ok" or r["n"] != "2" or not float(r["time"]) > 0:
            fail("row %s %s: %s" % (s, m, r))
    if abs(float(got[(s, "none")]["speedup"]) - 1.0) > 1e-9:
        fail("speedup of none is not 1")
    if got[(s, "bogus_mode")]["status"] != "unavailable":
        fail("bogus_mode not flagged: %s" % got[(s, "bogus_mode")])
# Imb.1 on 2 ranks under none: the counts give R_imb 0.5; the measured one must show imbalance.
if not float(got[("Imb.1", "none")]["R_imb"]) > 0.2:
    fail("Imb.1 under none shows no imbalance: %s" % got[("Imb.1", "none")])
if "Imb.1" not in res.stdout or "bogus_mode" not in res.stdout or "unavailable" not in res.stdout:
    fail("table not printed", res)
if "no noise" not in res.stdout or rows[0]["jitter_p"] != "0.0" or rows[0]["noise_seed"] != "1":
    fail("the header or results.csv does not record that there was no noise", res)

res = subprocess.run(common + ["--imb", "0", "--modes", "none", "--reps", "1", "--mxm-args=--no-such-option", "--out", bad_dir, "--no-plot"],
                     capture_output=True, text=True, timeout=60)
log = os.path.join(bad_dir, "runs", "Imb.0_none_rep1.log")
if res.returncode == 0 or "FAILED" not in res.stdout or log not in res.stdout or "--no-such-option" not in res.stdout:
    fail("a failed run was not reported with its command and log", res)
noise_dir = os.path.join(scratch, "noise")
res = subprocess.run(common + ["--imb", "0", "--modes", "none", "--reps", "1", "--no-plot", "--jitter",
                               "0.2:3", "--disturb", "0.5:2", "--noise-seed", "5", "--out", noise_dir],
                     capture_output=True, text=True, timeout=60)
setting = "noise jitter 0.2:3 disturb 0.5:2 seed 5"
if res.returncode != 0 or setting not in res.stdout:
    fail("the noise setting is not in the header", res)
with open(os.path.join(noise_dir, "table.txt")) as f:
    if setting not in f.read():
        fail("the noise setting is not in table.txt")
for name in ["results.csv", "runs.csv"]:
    row = next(csv.DictReader(open(os.path.join(noise_dir, name))))
    got = [row[k] for k in ["jitter_p", "jitter_f", "disturb_p", "disturb_f", "noise_seed"]]
    if got != ["0.2", "3.0", "0.5", "2.0", "5"]:
        fail("%s records the noise as %s" % (name, got))
with open(os.path.join(noise_dir, "runs", "Imb.0_none_rep1.log")) as f:
    if setting not in f.read():  # mxm's own summary line: the options reached it
        fail("mxm did not get the noise options")
res = subprocess.run(common + ["--jitter", "0.5:0.5", "--out", bad_dir], capture_output=True,
                     text=True, timeout=60)
if res.returncode != 2 or "--jitter: expected P:F" not in res.stderr:
    fail("a bad --jitter was not refused", res)
print("bench harness ok")
