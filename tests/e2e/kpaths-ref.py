#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Brute-force k-path reference for the kpaths e2e tests (stdlib only).

    kpaths-ref.py [--flat] [--costs HITS.jsonl] K SCRIPT.jsonl KPATHS.json
                                                          exit 0 iff equal

Reads `wpptrace script --format jsonl`, rebuilds each thread's stream of path
labels with the marks of docs/kpaths.md (gap, corrupt, and unattributed
records of unregistered modules cut a k-path), splits it into one sequence
per routine activation (the default view, docs/kpaths.md: a path starting
at "entry" opens an activation, one ending at "return" closes it, any other
path continues the innermost open activation of its function, closing those
above it, or, if none is open, closes all and opens one -- on top of the
open ones, closing none, for records without kinds; a mark closes all) or,
with --flat,
keeps one sequence per thread, counts every n-gram n <= K of every sequence
per process image by listing windows, and compares with every node of
`wpptrace kpaths -k K --all --top 0 --format json`: same k-paths, same counts.

With --costs, HITS.jsonl holds a counter's samples attributed to path
instances (build/tests/kslab/dump_hits: pid, gen, tid, event = ordinal of
the instance among its thread's path/block events, weight); each window's
cost is the sum of its own instances' weights, and every k-path's "cost"
(`kpaths --cost COUNTER`) must be the sum over its windows.
"""
import collections
import json
import sys

UNREGISTERED = (1 << 24) - 1


class Weights:
    """Each path/block event's weight (0 without --costs): the events are
    numbered per thread in stream order, as the attribution numbers them."""

    def __init__(self, hits):
        self.w = collections.defaultdict(collections.Counter)
        self.ordinal = collections.Counter()
        for line in open(hits) if hits else ():
            h = json.loads(line)
            self.w[(h["pid"], h["gen"], h["tid"])][h["event"]] += h["weight"]

    def of(self, key, ev):
        if ev["type"] not in ("path", "block"):
            return 0
        n = self.ordinal[key]
        self.ordinal[key] += 1
        return self.w[key][n]


def streams(jsonl, wt):
    threads = collections.OrderedDict()
    for line in open(jsonl):
        ev = json.loads(line)
        key = (ev["pid"], ev["gen"], ev["tid"])
        s = threads.setdefault(key, [])
        t = ev["type"]
        w = wt.of(key, ev)
        if t == "path":
            s.append(((ev["fid"], ev["path"]), w))
        elif t == "block":
            s.append(((ev["fid"], ev["blocks"][0]["block"]), w))
        elif t == "unattributed" and ev["fid"] not in (0, UNREGISTERED):
            s.append(((ev["fid"], ev["payload"]), w))
        else:
            s.append(None)  # a mark
    return threads


def activations(jsonl, wt):
    """Per thread, the list of activation sequences (marks end all)."""
    out = collections.OrderedDict()
    open_acts = {}  # thread -> stack of (fid, sequence)
    for line in open(jsonl):
        ev = json.loads(line)
        key = (ev["pid"], ev["gen"], ev["tid"])
        seqs = out.setdefault(key, [])
        stack = open_acts.setdefault(key, [])
        t = ev["type"]
        w = wt.of(key, ev)
        if t == "path":
            label, start, end = (ev["fid"], ev["path"]), ev["start"], ev["end"]
        elif t == "block":
            label, start, end = (ev["fid"], ev["blocks"][0]["block"]), None, None
        elif t == "unattributed" and ev["fid"] not in (0, UNREGISTERED):
            label, start, end = (ev["fid"], ev["payload"]), None, None
        else:
            stack.clear()
            continue
        fid = label[0]
        depth = 0
        if start != "entry":
            depth = max((i + 1 for i, (f, _) in enumerate(stack) if f == fid), default=0)
            if depth:
                del stack[depth:]  # unwound: closed without a return
            elif start is not None:
                stack.clear()  # its entry came before all open ones
        if not depth:
            seq = []
            seqs.append(seq)
            stack.append((fid, seq))
        stack[-1][1].append((label, w))
        if end == "return":
            stack.pop()
    return out


def count(threads, k):
    """Per process: each window's labels -> [occurrences, summed weights]."""
    per_proc = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    for (pid, gen, _tid), s in threads.items():
        c = per_proc[(pid, gen)]
        for i in range(len(s)):
            cost = 0
            for n in range(1, k + 1):
                if i + n > len(s) or s[i + n - 1] is None:
                    break
                cost += s[i + n - 1][1]
                entry = c[tuple(x[0] for x in s[i:i + n])]
                entry[0] += 1
                entry[1] += cost
    return per_proc


def reported(path):
    doc = json.load(open(path))
    out = {}
    for p in doc["processes"]:
        c = {}
        for kp in p["kpaths"]:
            labels = tuple((st["fid"], st["path"] if "path" in st else st["block"])
                           for st in kp["paths"])
            if labels in c:
                raise SystemExit("k-path listed twice: %r" % (labels,))
            c[labels] = [kp["count"], kp.get("cost")]
            if kp["paths"][-1]["count"] != kp["count"]:
                raise SystemExit("k-path count differs from its last step")
        out[(p["pid"], p["gen"])] = c
    return out


def main():
    args = sys.argv[1:]
    flat = args[0] == "--flat"
    if flat:
        args = args[1:]
    hits = None
    if args[0] == "--costs":
        hits, args = args[1], args[2:]
    k, jsonl, got_path = int(args[0]), args[1], args[2]
    wt = Weights(hits)
    if flat:
        want = count(streams(jsonl, wt), k)
    else:
        # Each activation's sequence, joined to the next with a mark.
        joined = collections.OrderedDict()
        for key, seqs in activations(jsonl, wt).items():
            joined[key] = [x for seq in seqs for x in seq + [None]]
        want = count(joined, k)
    got = reported(got_path)
    want = {key: c for key, c in want.items() if c}
    got = {key: c for key, c in got.items() if c}
    if set(want) != set(got):
        print("processes differ: want %s got %s" % (sorted(want), sorted(got)))
        return 1
    bad = 0
    for key in want:
        w, g = want[key], got[key]
        for gram in set(w) | set(g):
            ref = w.get(gram, [0, 0])
            out = g.get(gram, [0, None])
            if ref[0] != out[0] or (hits and out[1] != ref[1]):
                if bad < 5:
                    print("process %s: %r reference count %d cost %s, kpaths count %d cost %s"
                          % (key, gram, ref[0], ref[1], out[0], out[1]))
                bad += 1
    total = sum(len(c) for c in want.values())
    if bad:
        print("%d of %d k-paths differ (k = %d)" % (bad, total, k))
        return 1
    print("k = %d: %d k-paths in %d process(es) identical%s" %
          (k, total, len(want), ", costs too" if hits else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
