#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wet_check.py SOURCE DUMP.jsonl ORACLE_DIR — the addresses and values
`wpptrace wet dump --format jsonl` gives for the tagged lines of SOURCE
(`/* WET:NAME */`, NAME starting with load/store/call/sig) against what the
program wrote down itself (tests/e2e/wet/wet_oracle.c), per thread, in
execution order.  Prints one line per tag and thread; exits 1 on any
difference, on a lost record, or when a tag never ran.

At -O0 a tagged line also loads its operands from their stack slots
(`int x = l->ints[k]` loads l and k too); those loads are told apart by
their addresses, which are no address the oracle names for the line: a
wrong address the trace recorded would make the counts differ."""
import glob
import json
import os
import re
import sys


def kind_of(tag):
    if tag.startswith("load"):
        return "load"
    if tag.startswith("call"):
        return "extcall"
    return "store"  # store_*, sig_store


def main():
    src, dump, odir = sys.argv[1:4]
    base = os.path.basename(src)
    tags = {}
    with open(src) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"/\* WET:(\w+) \*/", line)
            if m:
                tags[n] = m.group(1)
    got = {}
    lost = 0
    with open(dump) as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") != "path":
                continue
            if o["values"] == "lost":
                lost += 1
                continue
            held = None  # an address waiting for its statement's value
            for it in o["items"]:
                if os.path.basename(it["file"]) != base:
                    continue
                tag = tags.get(it["line"])
                if tag is None or it["kind"] != kind_of(tag):
                    continue
                if it["what"] == "addr":
                    held = it["raw"]
                    continue
                got.setdefault((o["tid"], tag), []).append((held, it["raw"]))
                held = None
    want = {}
    for path in sorted(glob.glob(os.path.join(odir, "oracle.*.txt"))):
        with open(path) as f:
            tid = int(f.readline().split()[1])
            for line in f:
                tag, addr, value = line.split()
                a = None if addr == "-" else int(addr, 16)
                want.setdefault((tid, tag), []).append((a, int(value)))
    # Stack-slot loads of -O0 (see above) are not the tagged access.
    addrs = {}
    for (tid, tag), seq in want.items():
        addrs.setdefault((tid, tag), set()).update(a for a, _ in seq if a is not None)
    for key, seq in got.items():
        if key in addrs and addrs[key] and key[1].startswith("load"):
            got[key] = [(a, v) for a, v in seq if a in addrs[key]]
    bad = 0
    if lost:
        print(f"FAIL: {lost} path executions with their values lost")
        bad += 1
    seen_tags = set()
    for key in sorted(want):
        tid, tag = key
        w, g = want[key], got.get(key, [])
        seen_tags.add(tag)
        if w == g:
            print(f"ok:   tid {tid} {tag}: {len(w)} executions, addresses and values equal")
            continue
        bad += 1
        first = next((i for i in range(min(len(w), len(g))) if w[i] != g[i]), min(len(w), len(g)))
        print(f"FAIL: tid {tid} {tag}: oracle {len(w)} executions, dump {len(g)}; first "
              f"difference at {first}: oracle {w[first] if first < len(w) else None}, "
              f"dump {g[first] if first < len(g) else None}")
    for key in sorted(set(got) - set(want)):
        bad += 1
        print(f"FAIL: tid {key[0]} {key[1]}: in the dump, not in the oracle")
    for tag in sorted(set(tags.values()) - seen_tags):
        bad += 1
        print(f"FAIL: {tag} never ran")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
