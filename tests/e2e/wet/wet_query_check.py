#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wet_query_check.py WPPTRACE RUN.wpp DUMP.jsonl QUERIES SEED [--mem] [--thread K]

Every answer of the WET queries (`wpptrace wet values|addrs|flow|deps`,
read from the compressed WET) against a brute force over the uncompressed
record of the same run (`wpptrace wet dump --format jsonl`): for QUERIES
statements of the process's main thread chosen at random (SEED), their
whole value and address sequences, the control flow 15 paths forward and
backward from a random instance (of the process's main thread, or with
--thread K the dump's K-th thread), and with --mem the memory dependences of
a random load instance (the last store to each byte it reads).  Half the
statements are drawn from the most executed ones.  Prints one
summary line; exits 1 with the first differences."""
import json
import os
import random
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    wpptrace, wpp, dump, nq, seed = sys.argv[1:6]
    mem = "--mem" in sys.argv[6:]
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
    fails, checked = [], {"values": 0, "addrs": 0, "flow": 0, "mem": 0}
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
            size = where[key][4]
            addr = want_all[n - 1][1]["addr"]
            # brute force: the last store to each byte before this load
            writer = {}
            for r in recs:
                if r["ts"] > ts0:
                    break
                held = None
                for it in r["items"]:
                    if r["ts"] == ts0 and (r["function"], it["insn"]) == key:
                        break
                    if it["kind"] in ("store", "rmw") and it["what"] == "addr" and it["access"]:
                        for b in range(it["access"]):
                            writer[(it["raw"] + b) & (2**64 - 1)] = (r["ts"], it["insn"])
            want = set()
            for b in range(size):
                w = writer.get((addr + b) & (2**64 - 1))
                want.add(w)
            if any(pg in shared for pg in range(addr >> 12, ((addr + size - 1) >> 12) + 1)):
                want = {"unknown"}
            rc, out, err = run([wpptrace, "wet", "deps", wpp, "%s#%d" % (spec, n), "--format", "json"] + sel)
            if rc != 0:
                fails.append("deps %s#%d: exit %d: %s" % (spec, n, rc, err.strip()[:200]))
                continue
            got = set()
            for d in json.loads(out)["deps"]:
                if d["kind"] != "mem":
                    continue
                got.add((d["def"]["ts"], d["def"]["insn"]) if d["status"] == "found"
                        else None if d["status"] == "none" else "unknown")
            if got != want:
                fails.append("deps %s#%d mem: %s vs %s" % (spec, n, sorted(map(str, got)), sorted(map(str, want))))
            checked["mem"] += 1
    if fails:
        for f in fails[:5]:
            print("FAIL " + f)
        return 1
    print("%d statements: %d values, %d addresses, %d flow steps, %d load dependences equal" %
          (nq, checked["values"], checked["addrs"], checked["flow"], checked["mem"]))
    if checked["values"] + checked["addrs"] == 0 or checked["flow"] == 0:
        print("FAIL nothing was compared")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
