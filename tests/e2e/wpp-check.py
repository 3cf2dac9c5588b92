#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# wpp-check.py — independent references for tests/e2e/wpp-*.sh (stdlib only).
#
#   stream  SCRIPT.jsonl EXPAND.txt
#       the path stream of every thread taken from `wpptrace script --format
#       jsonl` equals the grammar's expansion (`wpptrace wpp --expand`)
#   hot     SCRIPT.jsonl PATHS.json HOT.json MIN MAX COST insns|count
#       `wpptrace hot --format json` equals a brute force over every
#       substring of the decoded stream (segments split at gaps)
#   raw     SCRIPT.jsonl PID TID GEN RAW.u32
#       `wpptrace wpp --raw-out` of that thread is its decoded stream,
#       segments joined, each distinct (fid, path) numbered in order of
#       first appearance, as little-endian 32-bit words
#   same-grammar A.json B.json
#       two `wpptrace wpp --format json` reports of one thread each describe
#       the same grammar: counts, serialized size, every rule's body and
#       frequency, every path's number and frequency
import collections
import json
import sys


def streams(jsonl):
    """{(pid, tid, gen): [segment, ...]}, a segment = [(fid, value, function), ...]."""
    out = collections.OrderedDict()
    with open(jsonl) as f:
        for line in f:
            e = json.loads(line)
            key = (e["pid"], e["tid"], e["gen"])
            segs = out.setdefault(key, [[]])
            t = e["type"]
            if t == "path":
                segs[-1].append((e["fid"], e["path"], e["function"]))
            elif t == "block":
                segs[-1].append((e["fid"], e["blocks"][0]["block"], e["function"]))
            elif t == "unattributed":
                segs[-1].append((e["fid"], e["payload"], None))
            elif t == "corrupt" and ("DAG" in e["reason"] or "block index" in e["reason"]):
                segs[-1].append((e["fid"], e["payload"], None))
            elif t == "gap":
                segs.append([])
    return out


def expanded(path):
    out = collections.OrderedDict()
    key = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "thread":
                key = (int(w[1]), int(w[2]), int(w[3]))
                out[key] = [[]]
            elif w[0] == "gap":
                out[key].append([])
            else:
                out[key][-1].append((int(w[0]), int(w[1])))
    return out


def cmd_stream(jsonl, exp):
    want = streams(jsonl)
    got = expanded(exp)
    # Threads that recorded nothing have no script events but a grammar.
    for k in list(got):
        if k not in want and all(not s for s in got[k]):
            del got[k]
    if set(want) != set(got):
        sys.exit("threads differ: script %s, grammar %s" % (sorted(want), sorted(got)))
    total = 0
    for k in want:
        w = [[(f, v) for f, v, _ in seg] for seg in want[k]]
        if w != got[k]:
            for i, (a, b) in enumerate(zip(w, got[k])):
                if a != b:
                    sys.exit("thread %s segment %d differs (len %d vs %d)" % (k, i, len(a), len(b)))
            sys.exit("thread %s: %d vs %d segments" % (k, len(w), len(got[k])))
        total += sum(len(s) for s in w)
    print("stream: %d threads, %d paths identical" % (len(want), total))


def cmd_hot(jsonl, paths_json, hot_json, lo, hi, min_cost, kind):
    lo, hi, min_cost = int(lo), int(hi), int(min_cost)
    insns = {}
    for p in json.load(open(paths_json))["paths"]:
        insns[(p["function"], p["path"])] = p["insns"]
    hot = json.load(open(hot_json))
    got = {}
    for th in hot["threads"]:
        got[(th["pid"], th["tid"], th["gen"])] = sorted(
            (tuple((s["fid"], s["path"]) for s in h["sequence"]), h["frequency"], h["cost"])
            for h in th["subpaths"])
    n = 0
    for key, segs in streams(jsonl).items():
        occ = collections.Counter()
        cost = {}
        for seg in segs:
            for i in range(len(seg)):
                for L in range(1, min(hi, len(seg) - i) + 1):
                    occ[tuple((f, v) for f, v, _ in seg[i:i + L])] += 1
            for f, v, fn in seg:
                cost[(f, v)] = 1 if kind == "count" else insns.get((fn, v), 0)

        def is_hot(x):
            return lo <= len(x) <= hi and occ[x] * sum(cost[s] for s in x) >= min_cost

        want = sorted((x, occ[x], occ[x] * sum(cost[s] for s in x)) for x in occ
                      if is_hot(x) and not any(is_hot(x[:m]) for m in range(lo, len(x))))
        if want != got.get(key, []):
            sys.exit("thread %s: brute force finds %d minimal hot subpaths, hot printed %d; "
                     "first difference: %s" % (key, len(want), len(got.get(key, [])),
                     next((a, b) for a, b in zip(want + [None], got.get(key, []) + [None]) if a != b)))
        n += len(want)
    print("hot: %d minimal hot subpaths identical to the brute force" % n)


def cmd_raw(jsonl, pid, tid, gen, raw):
    import struct
    segs = streams(jsonl).get((int(pid), int(tid), int(gen)), [[]])
    ids, want = {}, []
    for seg in segs:
        for f, v, _ in seg:
            want.append(ids.setdefault((f, v), len(ids)))
    data = open(raw, "rb").read()
    if len(data) % 4:
        sys.exit("%s: %d bytes, not whole 32-bit words" % (raw, len(data)))
    got = [v for (v,) in struct.iter_unpack("<I", data)]
    if got != want:
        i = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        sys.exit("raw stream differs at symbol %d (%d vs %d symbols)" % (i, len(got), len(want)))
    print("raw: %d symbols, %d distinct, %d segment(s) joined" % (len(got), len(ids), len(segs)))


def cmd_same_grammar(a, b):
    keys = ("paths", "distinct_paths", "rules", "grammar_symbols", "serialized_bytes",
            "rules_shown")
    ta, tb = (json.load(open(p))["threads"] for p in (a, b))
    if len(ta) != 1 or len(tb) != 1:
        sys.exit("expected one thread each, got %d and %d" % (len(ta), len(tb)))
    ta, tb = ta[0], tb[0]
    for k in keys:
        if ta[k] != tb[k]:
            sys.exit("%s differs: %.200s vs %.200s" % (k, ta[k], tb[k]))
    pa = [(p["terminal"], p["frequency"]) for p in ta["paths_shown"]]
    pb = [(p["terminal"], p["frequency"]) for p in tb["paths_shown"]]
    if sorted(pa) != sorted(pb):
        sys.exit("path frequencies differ")
    print("same grammar: %d rules, %d symbols, %d bytes" % (ta["rules"], ta["grammar_symbols"],
                                                            ta["serialized_bytes"]))


if __name__ == "__main__":
    if sys.argv[1] == "stream":
        cmd_stream(*sys.argv[2:4])
    elif sys.argv[1] == "hot":
        cmd_hot(*sys.argv[2:9])
    elif sys.argv[1] == "raw":
        cmd_raw(*sys.argv[2:7])
    elif sys.argv[1] == "same-grammar":
        cmd_same_grammar(*sys.argv[2:4])
    else:
        sys.exit("usage: wpp-check.py stream|hot|raw|same-grammar ...")
