#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Brute-force k-path reference for the kpaths e2e tests (stdlib only).

    kpaths-ref.py K SCRIPT.jsonl KPATHS.json     exit 0 iff equal

Reads `wpptrace script --format jsonl`, rebuilds each thread's stream of path
labels with the marks of docs/kpaths.md (gap, corrupt, and unattributed
records of unregistered modules cut a k-path), counts every n-gram n <= K
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
    k, jsonl, got_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    want = count(streams(jsonl), k)
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
