#!/usr/bin/env bash
# A traced run and its checks (docs/trace.md):
#   trace_test.sh KIND DIR [CHECK-OPTION ...] -- MPIEXEC ... PROGRAM ARGS ...
# runs the command with TIDE_STATS=DIR/stats.json and TIDE_TRACE in DIR, then
#   json:  trace_check.py (one execution event per task of the stats, messages paired, ...)
#   gantt: the same trace through scripts/trace-gantt: a PNG of the expected size comes out, with
#          every phase on its phase axis and every task message drawn
#   otf2:  TIDE_TRACE=DIR/trace.otf2; otf2-print reads the archive and finds one task region
#          (task local / offloaded / replica) per task of the stats
# CHECK-OPTIONs go to trace_check.py (--expect-moves, --expect-replicas).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kind=$1 dir=$2
shift 2
check=()
while [[ $1 != -- ]]; do check+=("$1"); shift; done
shift
rm -rf "$dir" && mkdir -p "$dir"
export TIDE_STATS=$dir/stats.json
if [[ $kind == otf2 ]]; then export TIDE_TRACE=$dir/trace.otf2; else export TIDE_TRACE=$dir/trace.json; fi
"$@"
tasks=$(python3 -c 'import json,sys; print(int(sum(sum(p["tasks"]) for p in json.load(open(sys.argv[1]))["phases"])))' "$TIDE_STATS")
case $kind in
json)
  python3 "$here/trace_check.py" "$TIDE_TRACE" "$TIDE_STATS" "${check[@]}" ;;
gantt)
  "$here/../scripts/trace-gantt" "$TIDE_TRACE" -o "$dir/gantt.png" --width 800 --height 400 \
    | tee "$dir/gantt.out"
  python3 - "$dir/gantt.png" "$dir/gantt.out" "$TIDE_TRACE" "$TIDE_STATS" <<'PY'
import json, re, struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (800, 400), f"PNG is {w}x{h}, asked 800x400"
assert len(data) > 5000, f"PNG of {len(data)} bytes: nothing drawn?"
# Every phase is on the picture's phase axis and every task message is drawn.
said = open(sys.argv[2]).read()
events = json.load(open(sys.argv[3]))["traceEvents"]
phases = len(json.load(open(sys.argv[4]))["phases"])
sends = sum(1 for e in events if e.get("cat") == "msg" and e.get("name") == "send tasks")
m = re.search(r"(\d+) phases \(labelled every (\d+)\), messages: (.*)", said)
assert m and int(m.group(1)) == phases, f"trace-gantt drew {m and m.group(1)} phases of {phases}"
drawn = dict((k, int(n)) for n, k in re.findall(r"(\d+) (\w+)", m.group(3)))
assert drawn.get("tasks", 0) == sends, f"{drawn.get('tasks', 0)} task messages drawn of {sends}"
print(f"trace_test: gantt ok: {w}x{h}, {len(data)} bytes, {phases} phases, {sends} task messages")
PY
  ;;
otf2)
  regions=$(otf2-print "$TIDE_TRACE" | grep -cE '^ENTER .*Region: "task (local|offloaded|replica)"' || true)
  echo "trace_test: otf2-print: $regions task regions, stats: $tasks tasks"
  [[ $regions -eq $tasks ]] ;;
*)
  echo "trace_test.sh: unknown kind '$kind'" >&2; exit 2 ;;
esac
