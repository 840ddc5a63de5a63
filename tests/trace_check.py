#!/usr/bin/env python3
"""Checks a TIDE_TRACE JSON trace against the run's TIDE_STATS document (docs/trace.md).

    trace_check.py TRACE.json STATS.json [--expect-moves] [--expect-replicas]

Fails (exit 1, one line per problem) unless:
- the trace is valid JSON in the Chrome trace-event format Tide writes;
- there is one execution event per task: per phase and origin rank as many non-replica task
  events as the stats say the rank submitted, each task (origin, seq) once; replica copies that
  ran add exactly sum(received) - sum(offloaded) events (docs/stats.md);
- the tasks that ran offloaded are as many as the stats' `offloaded`, each on another rank;
- every send has exactly one receive on its peer with the same bytes and records, and each flow
  start one flow end; no receive ends before its send began and no event comes before time 0
  (clocks aligned within 2 ms);
- every rank has one phase event per phase; tidePlan has every phase, and with --expect-moves
  the plan moved tasks and some phase had predictions.
"""
import json
import sys
from collections import Counter, defaultdict

CLOCK_TOLERANCE_US = 2000.0


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    flags = {a for a in argv[1:] if a.startswith("--")}
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0]) as f:
        trace = json.load(f)
    with open(args[1]) as f:
        stats = json.load(f)
    problems = []
    events = trace["traceEvents"]
    phases = stats["phases"]
    nranks = len(phases[0]["tasks"])
    tasks = [e for e in events if e.get("cat") == "task" and e["ph"] == "X"]
    copies = [e for e in tasks if e["name"] == "replica"]
    own = [e for e in tasks if e["name"] != "replica"]
    received = sum(sum(p["received"]) for p in phases)
    offloaded = sum(sum(p["offloaded"]) for p in phases)

    # One execution per task.
    ids = Counter((e["args"]["origin"], e["args"]["seq"]) for e in own)
    twice = [k for k, n in ids.items() if n > 1]
    if twice:
        problems.append(f"{len(twice)} tasks executed twice outside replicas, e.g. {twice[0]}")
    per = Counter((e["args"]["phase"], e["args"]["origin"]) for e in tasks)
    for p, ph in enumerate(phases, 1):
        for r in range(nranks):
            want = ph["tasks"][r]
            got = per[(p, r)]
            if not copies and got != want:
                problems.append(f"phase {p}, rank {r}: {got} task events, stats say {want} tasks")
    total_tasks = sum(sum(p["tasks"]) for p in phases)
    if len(tasks) != total_tasks + received - offloaded:
        problems.append(f"{len(tasks)} task events; expected {total_tasks} tasks + "
                        f"{received - offloaded} replica copies that lost")
    ran_remote = [e for e in tasks if e["name"] == "offloaded"]
    if not copies and len(ran_remote) != offloaded:
        problems.append(f"{len(ran_remote)} offloaded task events, stats say {offloaded}")
    if any(e["pid"] == e["args"]["origin"] for e in ran_remote + copies):
        problems.append("a task marked offloaded or replica ran on its origin rank")
    if "--expect-replicas" in flags and not copies:
        problems.append("no replica copy in the trace")

    # Messages: sends and receives pair up, flows too, causality holds.
    sends = {(e["pid"], e["args"]["to"], e["args"]["n"]): e for e in events
             if e.get("cat") == "msg" and e["ph"] == "X" and e["name"].startswith("send")}
    recvs = {(e["args"]["from"], e["pid"], e["args"]["n"]): e for e in events
             if e.get("cat") == "msg" and e["ph"] == "X" and e["name"].startswith("recv")}
    if set(sends) != set(recvs):
        problems.append(f"{len(set(sends) - set(recvs))} sends without receive, "
                        f"{len(set(recvs) - set(sends))} receives without send")
    late = 0
    for key in set(sends) & set(recvs):
        s, r = sends[key], recvs[key]
        if (s["args"]["bytes"], s["args"]["records"], s["name"][5:]) != \
                (r["args"]["bytes"], r["args"]["records"], r["name"][5:]):
            problems.append(f"message {key}: sent {s['name']} {s['args']}, received "
                            f"{r['name']} {r['args']}")
        if r["ts"] + r["dur"] < s["ts"] - CLOCK_TOLERANCE_US:
            late += 1
    if late:
        problems.append(f"{late} messages received before they were sent (clock offsets)")
    first = min(e["ts"] for e in events if e["ph"] == "X")
    if first < -CLOCK_TOLERANCE_US:
        problems.append(f"an event at {first:.1f} us, before the trace's origin")
    flows = Counter((e["ph"], e["id"]) for e in events if e["ph"] in ("s", "f"))
    starts = {i for (ph, i) in flows if ph == "s"}
    ends = {i for (ph, i) in flows if ph == "f"}
    if starts != ends or any(n != 1 for n in flows.values()):
        problems.append("flow starts and ends do not pair up one to one")
    if len(sends) == 0 and offloaded > 0:
        problems.append("tasks were offloaded but no message is in the trace")

    # Phases and the plan.
    phase_events = Counter(e["pid"] for e in events if e.get("cat") == "phase")
    for r in range(nranks):
        if phase_events[r] != len(phases):
            problems.append(f"rank {r}: {phase_events[r]} phase events, {len(phases)} phases")
    plan = trace.get("tidePlan", [])
    if len(plan) != len(phases):
        problems.append(f"tidePlan has {len(plan)} phases, the run {len(phases)}")
    if "--expect-moves" in flags:
        if not any(p["moves"] for p in plan):
            problems.append("the plan moved nothing")
        if not any(any(x is not None for x in p["L_pred"]) for p in plan):
            problems.append("no phase had predictions")
    if trace["otherData"]["dropped_events"] != 0:
        problems.append(f"{trace['otherData']['dropped_events']} events dropped")

    for p in problems:
        print("trace_check:", p)
    if problems:
        return 1
    print(f"trace_check: ok: {len(tasks)} task events ({len(copies)} replica copies) for "
          f"{total_tasks} tasks in {len(phases)} phases on {nranks} ranks, {len(sends)} messages "
          f"paired, {sum(len(p['moves']) for p in plan)} plan entries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
