#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wet_query_check.py WPPTRACE RUN.wpp DUMP.jsonl QUERIES SEED [--mem [--mem-n M]] [--thread K]

Every answer of the WET queries (`wpptrace wet values|addrs|flow|deps`,
read from the compressed WET) against a brute force over the uncompressed
record of the same run (`wpptrace wet dump --format jsonl`): for QUERIES
statements of the process's main thread chosen at random (SEED), their
whole value and address sequences, the control flow 15 paths forward and
backward from a random instance (of the process's main thread, or with
--thread K the dump's K-th thread), and with --mem the memory dependences of
a random load instance, and M more (the last store to each byte it reads, in any
thread of the process where the batches' publish times prove it came
last: docs/wet.md "Threads"; the times read here from the recording's
batch heads).  Half the statements are drawn from the most executed ones.
Prints one summary line; exits 1 with the first differences."""
import json
import os
import random
import re
import struct
import subprocess
import sys

MARGIN = 1000  # ns: wet_xorder.h's WET_XORDER_MARGIN_NS
INF = 2**64 - 1


def batch_intervals(wpp):
    """{(pid, tid): {seq: (lo, hi, signal)}} from the recording's BATCH and
    BATCH_Z heads, and the set of (pid, tid) with GAP chunks."""
    data = open(wpp, "rb").read()
    heads, gaps, pos = {}, set(), 32
    head = struct.Struct("<IIQQIIQII")  # pid tid seq parent_seq parent_off flags time gen nwords
    while pos + 16 <= len(data):
        magic, typ, flags, length, crc = struct.unpack_from("<IHHII", data, pos)
        body = pos + 16
        if typ == 5:
            heads.setdefault(head.unpack_from(data, body)[:2], []).append(head.unpack_from(data, body))
        elif typ == 14:
            for i in range(struct.unpack_from("<I", data, body)[0]):
                h = head.unpack_from(data, body + 16 + 48 * i)
                heads.setdefault(h[:2], []).append(h)
        elif typ == 6:
            gaps.add(struct.unpack_from("<II", data, body))
        pos = body + length
    out = {}
    for key, hs in heads.items():
        prev_main, ivs = 0, {}
        for h in sorted(hs, key=lambda h: h[2]):
            seq, fl, tm = h[2], h[5], h[6]
            signal = bool(fl & 1)
            hi = tm if tm and not fl & 2 else INF
            lo = 0 if signal or hi == INF else prev_main
            ivs.setdefault(seq, (min(lo, hi), hi, signal))
            if not signal and hi != INF:
                prev_main = max(prev_main, hi)
        out[key] = ivs
    return out, gaps


def precedes(hi_x, lo_y):
    return hi_x < INF - MARGIN and hi_x + MARGIN < lo_y


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    wpptrace, wpp, dump, nq, seed = sys.argv[1:6]
    mem = "--mem" in sys.argv[6:]
    mem_n = int(sys.argv[sys.argv.index("--mem-n") + 1]) if "--mem-n" in sys.argv[6:] else 0
    rnd = random.Random(int(seed))
    recs = []
    with open(dump) as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") == "path":
                recs.append(o)
    threads = []
    for r in recs:
        if (r["pid"], r["tid"], r["gen"]) not in threads:
            threads.append((r["pid"], r["tid"], r["gen"]))
    main_t = next(((r["pid"], r["tid"], r["gen"]) for r in recs if r["tid"] == r["pid"]), None)
    if "--thread" in sys.argv[6:]:  # the K-th thread of the dump instead (from 0)
        k = int(sys.argv[sys.argv.index("--thread") + 1])
        main_t = threads[k] if k < len(threads) else None
    if main_t is None:
        print("FAIL no such thread in the dump")
        return 1
    # Pages other threads of the process store to: the WET cannot order
    # their stores against this thread's loads, so it must say unknown.
    shared = set()
    for r in recs:
        if r["pid"] == main_t[0] and r["gen"] == main_t[2] and r["tid"] != main_t[1]:
            for it in r["items"]:
                if it["kind"] in ("store", "rmw") and it["what"] == "addr" and it["access"]:
                    for pg in range(it["raw"] >> 12, ((it["raw"] + it["access"] - 1) >> 12) + 1):
                        shared.add(pg)
    # Every store of the process's other threads, with its batch's
    # interval: (addr, size, lo, hi, tid, ts, insn, order in its thread).
    ivs, gapped = batch_intervals(wpp)
    others_gap = any(k[0] == main_t[0] and k[1] != main_t[1] for k in gapped)
    xstores = []
    for r in recs:
        if r["pid"] == main_t[0] and r["gen"] == main_t[2] and r["tid"] != main_t[1]:
            lo, hi, _ = ivs.get((r["pid"], r["tid"]), {}).get(r["batch"], (0, INF, True))
            for j, it in enumerate(r["items"]):
                if it["kind"] in ("store", "rmw") and it["what"] == "addr" and it["access"]:
                    xstores.append((it["raw"], it["access"], lo, hi, r["tid"], r["ts"], it["insn"], j))
    xby_byte = {}
    for x in xstores:
        for b in range(x[1]):
            xby_byte.setdefault((x[0] + b) & (2**64 - 1), []).append(x)
    own_ivs = ivs.get((main_t[0], main_t[1]), {})
    recs = [r for r in recs if (r["pid"], r["tid"], r["gen"]) == main_t]
    sel = ["--pid", str(main_t[0]), "--tid", str(main_t[1]), "--gen", str(main_t[2])]
    # per (function, insn): its instances [(ts, {what: raw})] and position
    insts, where = {}, {}
    for r in recs:
        last = None
        for it in r["items"]:
            key = (r["function"], it["insn"])
            if last is None or last[0] != key or it["what"] in last[1]:
                last = (key, {})
                insts.setdefault(key, []).append((r["ts"], last[1]))
            last[1][it["what"]] = it["raw"]
            where[key] = (os.path.basename(it["file"]), it["line"], it["col"], it["kind"],
                          it.get("access", 0))
    keys = sorted(k for k in where if where[k][1])
    if not keys:
        print("FAIL no recorded statements")
        return 1
    fails, checked = [], {"values": 0, "addrs": 0, "flow": 0, "mem": 0, "xthread": 0}
    by_ts = {r["ts"]: r for r in recs}

    def spec_of(key):
        f, line, col, _, _ = where[key]
        spec = "%s:%d:%d" % (f, line, col)
        rc, out, err = run([wpptrace, "wet", "values", wpp, spec, "-n", "0"] + sel)
        if rc == 2:  # several instructions there: pick ours
            for l in err.splitlines():
                m = re.match(r"\s+@(\d+)\s+\S+\s+(\S+) %(\d+) ", l)
                if m and m.group(2) == key[0] and int(m.group(3)) == key[1]:
                    return spec + "@" + m.group(1)
            return None
        return spec

    # half the statements among the most executed (streams of several
    # segments, long merges), half any
    nq = min(int(nq), len(keys))
    hot = sorted(keys, key=lambda k: (-len(insts[k]), k))[:max(nq, 20)]
    chosen = rnd.sample(hot, nq // 2)
    chosen += rnd.sample([k for k in keys if k not in chosen], nq - len(chosen))
    for key in chosen:
        spec = spec_of(key)
        if spec is None:
            fails.append("%s %%%d: not found by position" % key)
            continue
        want_all = insts[key]
        for what, cmd in (("value", "values"), ("addr", "addrs")):
            if what not in want_all[0][1]:
                continue
            rc, out, err = run([wpptrace, "wet", cmd, wpp, spec, "--format", "json"] + sel)
            if rc != 0:
                fails.append("%s %s: exit %d: %s" % (cmd, spec, rc, err.strip()[:200]))
                continue
            got = [(i["ts"], i.get("raw")) for i in json.loads(out)["instances"]]
            want = [(ts, v[what]) for ts, v in want_all]
            if got != want:
                diff = next((a, b) for a, b in zip(got + [None] * len(want), want + [None] * len(got)) if a != b)
                fails.append("%s %s: %d vs %d instances, first difference %s" %
                             (cmd, spec, len(got), len(want), diff))
            checked[cmd] += len(want)
        n = rnd.randrange(len(want_all)) + 1
        ts0 = want_all[n - 1][0]
        for back in (False, True):
            rc, out, err = run([wpptrace, "wet", "flow", wpp, "--from", "%s#%d" % (spec, n),
                                "-n", "15", "--format", "json"] + (["--backward"] if back else []) + sel)
            if rc != 0:
                fails.append("flow %s#%d: exit %d: %s" % (spec, n, rc, err.strip()[:200]))
                continue
            got = [(p["ts"], p["function"], p["path"]) for p in json.loads(out)["paths"]]
            tss = range(ts0, max(0, ts0 - 15), -1) if back else range(ts0, ts0 + 15)
            want = [(t, by_ts[t]["function"], by_ts[t]["path"]) for t in tss if t in by_ts]
            if got != want:
                fails.append("flow %s#%d%s: %s vs %s" % (spec, n, " back" if back else "", got[:3], want[:3]))
            checked["flow"] += len(want)
        if mem and where[key][3] in ("load", "rmw") and where[key][4]:
            # the flow's instance, and --mem-n more of them at random
            for n in [n] + [rnd.randrange(len(want_all)) + 1 for _ in range(mem_n)]:
                ts0 = want_all[n - 1][0]
                size = where[key][4]
                addr = want_all[n - 1][1]["addr"]
                # brute force: the last store to each byte before this load
                writer = {}
                for r in recs:
                    if r["ts"] > ts0:
                        break
                    for j, it in enumerate(r["items"]):
                        if r["ts"] == ts0 and (r["function"], it["insn"]) == key:
                            break
                        if it["kind"] in ("store", "rmw") and it["what"] == "addr" and it["access"]:
                            for b in range(it["access"]):
                                writer[(it["raw"] + b) & (2**64 - 1)] = (r["ts"], it["insn"], r["batch"], j)
                want = set()
                lo_l, hi_l, sig_l = own_ivs.get(by_ts[ts0]["batch"], (0, INF, True))
                for b in range(size):
                    a = (addr + b) & (2**64 - 1)
                    w = writer.get(a)
                    if others_gap or sig_l:  # unordered: any page another thread stores to
                        want.add("unknown" if a >> 12 in shared else w and w[:2])
                        continue
                    xs = xby_byte.get(a, [])
                    if any(not precedes(x[3], lo_l) and not precedes(hi_l, x[2]) for x in xs):
                        want.add("unknown")  # a store of another thread concurrent with the load
                        continue
                    # the candidates: the own last store, every other thread's
                    # store known to precede the load; the last one if it
                    # provably follows all the others
                    cands = [("x", x[4], x[5], x[6], x[7], x[2], x[3]) for x in xs if precedes(x[3], lo_l)]
                    if w is not None:
                        wlo, whi, _ = own_ivs.get(w[2], (0, INF, True))
                        cands.append(("own", main_t[1], w[0], w[1], w[3], wlo, whi))
                    if not cands:
                        want.add(None)
                        continue

                    def before(y, x):  # y known to precede x
                        if y[1] == x[1]:
                            return (y[2], y[4]) < (x[2], x[4])
                        return precedes(y[6], x[5])
                    last = [x for x in cands if all(y is x or before(y, x) for y in cands)]
                    if len(last) != 1:
                        want.add("unknown")
                    elif last[0][0] == "own":
                        want.add((last[0][2], last[0][3]))
                    else:
                        want.add(("x", last[0][1], last[0][2], last[0][3]))
                rc, out, err = run([wpptrace, "wet", "deps", wpp, "%s#%d" % (spec, n), "--format", "json"] + sel)
                if rc != 0:
                    fails.append("deps %s#%d: exit %d: %s" % (spec, n, rc, err.strip()[:200]))
                    continue
                got = set()
                for d in json.loads(out)["deps"]:
                    if d["kind"] != "mem":
                        continue
                    got.add((d["def"]["ts"], d["def"]["insn"]) if d["status"] == "found"
                            else ("x", d["tid"], d["def"]["ts"], d["def"]["insn"])
                            if d["status"] == "other_thread"
                            else None if d["status"] == "none" else "unknown")
                checked["xthread"] += any(isinstance(w, tuple) and w[0] == "x" for w in want)
                if got != want:
                    fails.append("deps %s#%d mem: %s vs %s" % (spec, n, sorted(map(str, got)), sorted(map(str, want))))
                checked["mem"] += 1
    if fails:
        for f in fails[:5]:
            print("FAIL " + f)
        return 1
    print("%d statements: %d values, %d addresses, %d flow steps, %d load dependences equal"
          " (%d on another thread's store)" %
          (nq, checked["values"], checked["addrs"], checked["flow"], checked["mem"], checked["xthread"]))
    if checked["values"] + checked["addrs"] == 0 or checked["flow"] == 0:
        print("FAIL nothing was compared")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
