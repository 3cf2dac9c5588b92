#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Brute-force k-path reference for the kpaths e2e tests (stdlib only).

    kpaths-ref.py [--flat] K SCRIPT.jsonl KPATHS.json     exit 0 iff equal

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
"""
import collections
import json
import sys

UNREGISTERED = (1 << 24) - 1


def streams(jsonl):
    threads = collections.OrderedDict()
    for line in open(jsonl):
        ev = json.loads(line)
        key = (ev["pid"], ev["gen"], ev["tid"])
        s = threads.setdefault(key, [])
        t = ev["type"]
        if t == "path":
            s.append((ev["fid"], ev["path"]))
        elif t == "block":
            s.append((ev["fid"], ev["blocks"][0]["block"]))
        elif t == "unattributed" and ev["fid"] not in (0, UNREGISTERED):
            s.append((ev["fid"], ev["payload"]))
        else:
            s.append(None)  # a mark
    return threads


def activations(jsonl):
    """Per thread, the list of activation sequences (marks end all)."""
    out = collections.OrderedDict()
    open_acts = {}  # thread -> stack of (fid, sequence)
    for line in open(jsonl):
        ev = json.loads(line)
        key = (ev["pid"], ev["gen"], ev["tid"])
        seqs = out.setdefault(key, [])
        stack = open_acts.setdefault(key, [])
        t = ev["type"]
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
        stack[-1][1].append(label)
        if end == "return":
            stack.pop()
    return out


def count(threads, k):
    per_proc = collections.defaultdict(collections.Counter)
    for (pid, gen, _tid), s in threads.items():
        c = per_proc[(pid, gen)]
        for i in range(len(s)):
            for n in range(1, k + 1):
                if i + n > len(s) or s[i + n - 1] is None:
                    break
                c[tuple(s[i:i + n])] += 1
    return per_proc


def reported(path):
    doc = json.load(open(path))
    out = {}
    for p in doc["processes"]:
        c = collections.Counter()
        for kp in p["kpaths"]:
            labels = tuple((st["fid"], st["path"] if "path" in st else st["block"])
                           for st in kp["paths"])
            if labels in c:
                raise SystemExit("k-path listed twice: %r" % (labels,))
            c[labels] = kp["count"]
            if kp["paths"][-1]["count"] != kp["count"]:
                raise SystemExit("k-path count differs from its last step")
        out[(p["pid"], p["gen"])] = c
    return out


def main():
    args = sys.argv[1:]
    flat = args[0] == "--flat"
    if flat:
        args = args[1:]
    k, jsonl, got_path = int(args[0]), args[1], args[2]
    if flat:
        want = count(streams(jsonl), k)
    else:
        # Each activation's sequence, joined to the next with a mark.
        joined = collections.OrderedDict()
        for key, seqs in activations(jsonl).items():
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
            if w.get(gram, 0) != g.get(gram, 0):
                if bad < 5:
                    print("process %s: %r reference %d kpaths %d" % (key, gram, w.get(gram, 0),
                                                                    g.get(gram, 0)))
                bad += 1
    total = sum(len(c) for c in want.values())
    if bad:
        print("%d of %d k-paths differ (k = %d)" % (bad, total, k))
        return 1
    print("k = %d: %d k-paths in %d process(es) identical" % (k, total, len(want)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
