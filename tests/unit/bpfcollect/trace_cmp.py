#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace_cmp.py — compare two decoded traces (`wpptrace script X.wpp --format
jsonl`) of the same deterministic program, one recorded through shm (the
reference: lossless, the producer waits) and one through BPF.

Threads are matched by content, never by pid/tid (those differ per run).

  trace_cmp.py same REF.jsonl BPF.jsonl
      every thread's block sequence is identical, as a multiset of threads;
      no gaps, unattributed or corrupt events in either.
  trace_cmp.py gaps REF.jsonl BPF.jsonl LOST_WORDS
      every BPF thread is a reference thread with whole stretches removed,
      each removal sitting exactly where a gap event is and exactly as long
      as the gap says (one event per word: use a narrow-path program); the
      gaps add up to LOST_WORDS (what the recorder reported) and to the
      difference in events.
Prints one line per problem; exit 0 when all is well.
"""
import json
import sys
from collections import Counter


def load(path):
    threads = {}
    bad = Counter()
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            key = (e["pid"], e["gen"], e["tid"])
            t = threads.setdefault(key, [])
            kind = e["type"]
            if kind in ("path", "block"):
                t.append(("ev", e["function"], tuple(b["block"] for b in e["blocks"]),
                          e.get("signal_depth", 0)))
            elif kind == "gap":
                t.append(("gap", e["lost_words"], e["lost_batches"]))
            else:
                bad[kind] += 1
    return threads, bad


def events(t):
    return [x for x in t if x[0] == "ev"]


def cmd_same(ref_path, bpf_path):
    ref, ref_bad = load(ref_path)
    bpf, bpf_bad = load(bpf_path)
    problems = []
    for name, bad in (("reference", ref_bad), ("bpf", bpf_bad)):
        for kind, n in bad.items():
            problems.append(f"{name}: {n} {kind} events")
    for name, threads in (("reference", ref), ("bpf", bpf)):
        for key, t in threads.items():
            if any(x[0] == "gap" for x in t):
                problems.append(f"{name}: thread {key} has a gap")
    want = Counter(tuple(events(t)) for t in ref.values())
    got = Counter(tuple(events(t)) for t in bpf.values())
    if want != got:
        problems.append(f"thread block sequences differ: reference {len(ref)} threads "
                        f"({sum(len(events(t)) for t in ref.values())} events), bpf {len(bpf)} "
                        f"threads ({sum(len(events(t)) for t in bpf.values())} events); "
                        f"{sum((want - got).values())} reference threads unmatched")
    if not ref:
        problems.append("reference has no threads")
    return problems, len(ref), sum(len(events(t)) for t in ref.values())


def aligns(ref_events, bpf_thread):
    """Walk the BPF thread over the reference: events must match one for one;
    a gap skips exactly its lost_words reference events."""
    i = 0
    gaps = 0
    for x in bpf_thread:
        if x[0] == "gap":
            if x[1] is None:
                return None
            i += x[1]
            gaps += x[1]
            if i > len(ref_events):
                return None
            continue
        if i >= len(ref_events) or ref_events[i] != x:
            return None
        i += 1
    return gaps if i == len(ref_events) else None


def cmd_gaps(ref_path, bpf_path, lost_words):
    ref, ref_bad = load(ref_path)
    bpf, bpf_bad = load(bpf_path)
    problems = [f"{n} {k} events" for k, n in (ref_bad + bpf_bad).items()]
    unused = {k: events(t) for k, t in ref.items()}
    total_gap = 0
    for key, t in bpf.items():
        match = None
        for rk, rev in unused.items():
            g = aligns(rev, t)
            if g is not None:
                match = (rk, g)
                break
        if match is None:
            problems.append(f"bpf thread {key}: no reference thread it is a gapped copy of")
            continue
        del unused[match[0]]
        total_gap += match[1]
    for rk, rev in unused.items():
        # A thread whose every batch was lost has no stream at all.
        problems.append(f"reference thread {rk} ({len(rev)} events) missing from bpf")
    ref_total = sum(len(events(t)) for t in ref.values())
    bpf_total = sum(len(events(t)) for t in bpf.values())
    if total_gap != lost_words:
        problems.append(f"gaps add up to {total_gap} words, the recorder reported {lost_words}")
    if ref_total - bpf_total != lost_words:
        problems.append(f"reference has {ref_total} events, bpf {bpf_total}: "
                        f"difference {ref_total - bpf_total} != reported loss {lost_words}")
    return problems, total_gap, sum(1 for t in bpf.values() for x in t if x[0] == "gap")


def main(argv):
    if len(argv) == 4 and argv[1] == "same":
        problems, nthreads, nevents = cmd_same(argv[2], argv[3])
        info = f"{nthreads} threads, {nevents} events identical"
    elif len(argv) == 5 and argv[1] == "gaps":
        problems, lost, ngaps = cmd_gaps(argv[2], argv[3], int(argv[4]))
        info = f"{ngaps} gaps, {lost} words lost, every gap where the words are missing"
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print("trace_cmp:", p)
    if not problems:
        print("trace_cmp:", info)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
