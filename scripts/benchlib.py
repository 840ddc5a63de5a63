"""What the benchmark scripts share: mxm's calibration of the sleep kernel, and the resource
figures of a command run under /usr/bin/time -v."""
import re
import subprocess
import sys


def mxm_calibrate(mxm, size, env=None, who="bench"):
    """The task time in ms that `mxm --calibrate --kernel sleep` gives a size-SIZE multiply;
    exits with the reason when mxm gives none."""
    out = subprocess.run([mxm, "--calibrate", "--kernel", "sleep", "--size", str(size)],
                         capture_output=True, text=True, env=env, timeout=300)
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "task_ms" and float(f[2]) > 0:
            return float(f[2])
    sys.exit("%s: calibration failed (%s --calibrate): %s" % (who, mxm, out.stderr.strip()))


def _field(text, label):
    m = re.search(r"^\s*" + re.escape(label) + r":\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else None


def time_v(stderr):
    """{"wall", "cpu" (user + system, s), "rss_mb"} from /usr/bin/time -v's report in stderr."""
    wall = _field(stderr, "Elapsed (wall clock) time (h:mm:ss or m:ss)")
    parts = [float(x) for x in wall.split(":")]
    return {"wall": sum(x * 60 ** (len(parts) - 1 - i) for i, x in enumerate(parts)),
            "cpu": float(_field(stderr, "User time (seconds)")) +
                   float(_field(stderr, "System time (seconds)")),
            "rss_mb": int(_field(stderr, "Maximum resident set size (kbytes)")) / 1024}
