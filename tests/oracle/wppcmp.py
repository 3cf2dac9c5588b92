#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wppcmp.py — comparators for the end-to-end oracles (python3 stdlib only).

  wppcmp.py blocks A.jsonl B.jsonl [--perturb KIND]
      The per-thread basic-block sequences of two decoded traces
      (`wpptrace script --format jsonl`) of the same deterministic program must
      be identical: same function (name and stable id) and block index at every
      position.  Threads are matched within a process group (exe, exec
      generation, fork depth) as a multiset, since tids differ between runs.

  wppcmp.py cyg TRACE.jsonl CYGPREFIX [--perturb KIND]
      Function entry/exit events derived from the decoded trace (a path that
      starts at function entry = enter; a path that ends at a return = exit)
      must equal, per thread, the log written by cyg_recorder.c in the same run
      (files CYGPREFIX.<pid>.<generation>).  Same run: pids and tids match.

  wppcmp.py blocks A B --meta OBJ[,OBJ...]   (OBJ may be G:PATH
      for an object of exec generation G)
      Also regenerate every decoded path id from the objects' wpp_meta with
      an independent reader (wppmeta.py) and require the decoder's blocks and
      start/end kinds.  The decoder lists the blocks a path instance entered
      (docs/cli.md): a call's block goes with the path that ended before the
      call, so the regenerated DAG path is put in that order before comparing.

  wppcmp.py blocks A B --same-as T
      Also require trace T (A's build recorded differently, e.g. with tiny
      buffers) to decode to exactly A's sequences, compared first and strictly.

  wppcmp.py blocks PATHS.jsonl BLOCKS.jsonl --crashed
      For a program that died of a signal: each paths-mode thread must be a
      prefix of its blocks-mode partner, missing at most one path's tail.

  wppcmp.py wide TRACE.jsonl
      The wide_paths program really produced path ids >= 2^40 (diamonds45)
      and truncation cuts (diamonds70).

  --perturb drop-block | swap-paths | rename | bump-id   (self-check of the comparator:
      applied to the second trace; the comparison must then fail)

Exit status 0 = equal, 1 = different (first mismatch printed with context),
2 = unusable input.
"""
import collections
import json
import os
import subprocess
import sys

CONTEXT = 6


class Unusable(Exception):
    pass


# ---------------------------------------------------------------- trace input
# The decoder's JSON lines are read through this one adapter, so a change of
# field names touches only this section.

def pick(rec, *names, default=None):
    for n in names:
        if n in rec:
            return rec[n]
    return default


def record_type(rec):
    t = pick(rec, "type", "kind", "event", "rec")
    return t if isinstance(t, str) else None


def fn_of(rec):
    f = pick(rec, "function", "func", "fn", "name", "symbol")
    sid = pick(rec, "stable_id", "fn_stable_id", "func_id", "stable")
    if isinstance(f, dict):
        sid = pick(f, "stable_id", "id", default=sid)
        f = pick(f, "name", "function", "symbol")
    return f, (str(sid) if sid is not None else None)


def blocks_of(rec):
    b = pick(rec, "blocks", "block_indices")
    if b is None:
        one = pick(rec, "block", "block_index", "bb")
        if one is None:
            return None
        b = [one]
    out = []
    for x in b:
        if isinstance(x, dict):
            x = pick(x, "index", "block", "id", "bb")
        out.append(int(x))
    return out


class Trace:
    """Decoded trace: threads keyed (pid, generation, tid) -> list of paths."""

    def __init__(self, path):
        self.path = path
        self.threads = collections.OrderedDict()
        self.procs = {}  # (pid, gen) -> dict(exe, ppid, flags)
        self.gaps = []
        self.unattributed = 0  # unattributed or corrupt words
        self.first_bad = None
        self.first_path_record = None
        self.load()

    def load(self):
        try:
            f = open(self.path, encoding="utf-8")
        except OSError as e:
            raise Unusable(f"{self.path}: {e}")
        with f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except ValueError as e:
                    raise Unusable(f"{self.path}:{lineno}: not JSON: {e}")
                if not isinstance(rec, dict):
                    raise Unusable(f"{self.path}:{lineno}: not a JSON object")
                self.add(rec, lineno)

    def add(self, rec, lineno):
        t = record_type(rec)
        pid = pick(rec, "pid")
        gen = pick(rec, "generation", "gen", default=0)
        if t in ("process", "proc", "image"):
            self.procs[(pid, gen)] = {
                "exe": pick(rec, "exe", "path", "command", default=""),
                "ppid": pick(rec, "ppid"),
                "flags": pick(rec, "flags", default=0),
                "forked": pick(rec, "forked"),
            }
            return
        if t in ("gap", "lost"):
            self.gaps.append(rec)
            return
        if t in ("unattributed", "corrupt"):
            self.unattributed += 1
            if self.first_bad is None:
                self.first_bad = rec
            return
        blocks = blocks_of(rec)
        if blocks is None:
            return  # thread start/exit, module, info ...: not part of the sequence
        tid = pick(rec, "tid")
        if tid is None:
            raise Unusable(f"{self.path}:{lineno}: path record without tid: {json.dumps(rec)[:200]}")
        name, sid = fn_of(rec)
        if name is None and sid is None:
            raise Unusable(f"{self.path}:{lineno}: path record without function: {json.dumps(rec)[:200]}")
        if self.first_path_record is None:
            self.first_path_record = rec
        p = {
            "fn": name,
            "sid": sid,
            "blocks": blocks,
            "start": pick(rec, "start", "start_kind", "begin"),
            "end": pick(rec, "end", "end_kind", "stop"),
            "line": lineno,
            "id": pick(rec, "path", "path_id"),
        }
        self.threads.setdefault((pid, gen, tid), []).append(p)

    def proc_key(self, pid, gen):
        """A run-independent name for a process image: exe basename, exec
        generation and fork depth (pids differ between runs)."""
        info = self.procs.get((pid, gen))
        if not info:
            return ("?", gen, 0)
        depth, seen, cur = 0, set(), info
        while cur and cur.get("ppid") is not None and (cur.get("forked") or (int(cur.get("flags") or 0) & 1)):
            ppid = cur["ppid"]
            if ppid in seen:
                break
            seen.add(ppid)
            parents = [v for (p, g), v in self.procs.items() if p == ppid]
            if not parents:
                break
            depth += 1
            cur = parents[-1]
        return (os.path.basename(str(info.get("exe") or "?")), gen, depth)


def check_regeneration(trace, objects):
    """Regenerate every decoded path from its id with wppmeta.py (an
    independent reader of the metadata) and compare blocks and start/end
    kinds with the decoder's.  The decoder reports the blocks entered, in
    block-entry order: a path that ends before a call gains the call block
    (the final edge's cfg_dst), a path that resumes at a call block does not
    enter it again.  Returns #differences."""
    import wppmeta
    # "N:path" names an object of exec generation N (default 0): after an
    # exec the same pid runs another program whose main is another main.
    by_gen = collections.defaultdict(list)
    for o in objects:
        gen, sep, path = o.partition(":")
        if sep and gen.isdigit():
            by_gen[int(gen)].append(path)
        else:
            by_gen[0].append(o)
    funcs = {g: wppmeta.load_functions(objs) for g, objs in by_gen.items()}
    bad = 0
    for (_pid, gen, _tid), paths in trace.threads.items():
        for p in paths:
            if p.get("id") is None:
                continue  # blocks-mode event
            f = funcs.get(int(gen or 0), {}).get(p["fn"])
            if f is None:
                print(f"FAIL {trace.path}:{p['line']}: function {p['fn']} not in the metadata of {objects}")
                bad += 1
                continue
            try:
                blocks, start, end, last = f.regenerate(p["id"])
            except wppmeta.MetaError as e:
                print(f"FAIL {trace.path}:{p['line']}: {e}")
                bad += 1
                continue
            if start == "call-entry":
                blocks = blocks[1:]
            if end == "call-exit":
                blocks = blocks + [last[5]]
            mine = (blocks, wppmeta.START_NAME.get(start, start), wppmeta.END_NAME.get(end, end))
            theirs = (p["blocks"], p["start"], p["end"])
            if mine != theirs:
                if bad < 5:
                    print(f"FAIL {trace.path}:{p['line']}: {p['fn']} path {p['id']}: decoder says "
                          f"{theirs}, independent regeneration says {mine}")
                bad += 1
                continue
    if bad:
        print(f"regeneration: {bad} path(s) differ from the independent regeneration")
    return bad


def block_seq(paths):
    """Flatten a thread's paths into (function, stable id, block) triples,
    remembering which path (decoder output line) each came from."""
    seq, origin = [], []
    for p in paths:
        for b in p["blocks"]:
            seq.append((p["fn"], p["sid"], b))
            origin.append(p["line"])
    return seq, origin


# ------------------------------------------------------------- perturbations

def perturb_trace(trace, kind):
    """Damage the longest thread of a trace in a small, realistic way."""
    if not trace.threads:
        raise Unusable("nothing to perturb: trace has no threads")
    key = max(trace.threads, key=lambda k: sum(len(p["blocks"]) for p in trace.threads[k]))
    paths = trace.threads[key]
    mid = len(paths) // 2
    if kind == "drop-block":
        for p in paths[mid:] + paths[:mid]:
            if len(p["blocks"]) > 0:
                del p["blocks"][len(p["blocks"]) // 2]
                return
    elif kind == "swap-paths":
        for i in range(mid, len(paths) - 1):
            if (paths[i]["fn"], paths[i]["blocks"]) != (paths[i + 1]["fn"], paths[i + 1]["blocks"]):
                paths[i], paths[i + 1] = paths[i + 1], paths[i]
                return
    elif kind == "bump-id":
        for p in paths[mid:] + paths[:mid]:
            if p.get("id") is not None:
                p["id"] += 1
                return
    elif kind == "rename":
        paths[mid]["fn"] = str(paths[mid]["fn"]) + "_renamed"
        return
    raise Unusable(f"cannot apply perturbation {kind}")


# ---------------------------------------------------------------- reporting

def first_mismatch(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else None


def fmt_item(x):
    if x is None:
        return "<end>"
    if len(x) == 3:
        fn, sid, b = x
        return f"{fn}#{b}" + (f" [{sid}]" if sid is not None else "")
    return " ".join(str(v) for v in x)


def show_diff(a, b, label_a, label_b, origin_a=None, origin_b=None):
    i = first_mismatch(a, b)
    print(f"    first mismatch at position {i} (lengths {len(a)} vs {len(b)})")
    lo = max(0, i - CONTEXT)
    hi = i + CONTEXT
    print(f"    {'pos':>7}  {label_a:<40} {label_b}")
    for k in range(lo, hi):
        xa = a[k] if k < len(a) else None
        xb = b[k] if k < len(b) else None
        if xa is None and xb is None:
            break
        mark = ">>" if k == i else ("!=" if xa != xb else "  ")
        la = f" (line {origin_a[k]})" if origin_a and k < len(origin_a) else ""
        lb = f" (line {origin_b[k]})" if origin_b and k < len(origin_b) else ""
        print(f"{mark} {k:>7}  {(fmt_item(xa) + la):<40} {fmt_item(xb) + lb}")


def common_prefix(a, b):
    i = first_mismatch(a, b)
    return len(a) if i is None else i


def match_multiset(groups_a, groups_b, label_a, label_b):
    """groups: key -> list of (thread name, seq, origin).  Returns #failures."""
    failures = 0
    for key in sorted(set(groups_a) | set(groups_b), key=str):
        ta = list(groups_a.get(key, []))
        tb = list(groups_b.get(key, []))
        if len(ta) != len(tb):
            print(f"FAIL group {key}: {len(ta)} threads in {label_a}, {len(tb)} in {label_b}")
            failures += 1
        unmatched_b = list(tb)
        unmatched_a = []
        for t in ta:
            hit = next((j for j, u in enumerate(unmatched_b) if u[1] == t[1]), None)
            if hit is None:
                unmatched_a.append(t)
            else:
                unmatched_b.pop(hit)
        for t in unmatched_a:
            failures += 1
            if not unmatched_b:
                print(f"FAIL group {key}: thread {t[0]} of {label_a} ({len(t[1])} blocks) has no counterpart")
                continue
            best = max(range(len(unmatched_b)), key=lambda j: common_prefix(t[1], unmatched_b[j][1]))
            u = unmatched_b.pop(best)
            print(f"FAIL group {key}: thread {t[0]} of {label_a} differs from thread {u[0]} of {label_b}")
            show_diff(t[1], u[1], label_a, label_b, t[2], u[2])
        for u in unmatched_b:
            if len(ta) == len(tb):
                failures += 1
            print(f"FAIL group {key}: thread {u[0]} of {label_b} ({len(u[1])} blocks) has no counterpart")
    return failures


def match_crashed(groups_a, groups_b, label_a, label_b, max_tail=64):
    """A program that died of a signal: paths mode cannot record the path in
    progress, so each thread of A (paths) must be a prefix of its partner in
    B (blocks), and the missing tail must be short and inside one function.
    Threads are paired by the longest common prefix."""
    failures = 0
    ta = [t for k in groups_a for t in groups_a[k]]
    tb = [t for k in groups_b for t in groups_b[k]]
    if len(ta) != len(tb):
        print(f"FAIL: {len(ta)} threads in {label_a}, {len(tb)} in {label_b}")
        failures += 1
    for t in ta:
        if not tb:
            break
        j = max(range(len(tb)), key=lambda j: common_prefix(t[1], tb[j][1]))
        u = tb.pop(j)
        n = common_prefix(t[1], u[1])
        tail = u[1][n:]
        if n != len(t[1]) or len(tail) > max_tail or len({x[0] for x in tail}) > 1:
            failures += 1
            print(f"FAIL thread {t[0]} of {label_a} is not a prefix of thread {u[0]} of {label_b} "
                  f"missing at most one path ({len(t[1])} vs {len(u[1])} blocks, tail {len(tail)})")
            show_diff(t[1], u[1], label_a, label_b, t[2], u[2])
    return failures


def thread_groups(trace):
    groups = collections.defaultdict(list)
    for (pid, gen, tid), paths in trace.threads.items():
        seq, origin = block_seq(paths)
        groups[trace.proc_key(pid, gen)].append((f"{pid}/{gen}/{tid}", seq, origin))
    return groups


def check_sane(trace):
    bad = 0
    if trace.gaps:
        print(f"FAIL {trace.path}: {len(trace.gaps)} gap record(s) (shm transport must be lossless): "
              f"{json.dumps(trace.gaps[0])[:200]}")
        bad += 1
    if trace.unattributed:
        print(f"FAIL {trace.path}: {trace.unattributed} unattributed/corrupt record(s), first: "
              f"{json.dumps(trace.first_bad)[:300]}")
        bad += 1
    if not trace.threads:
        print(f"FAIL {trace.path}: no path records at all")
        bad += 1
    return bad


def cmd_same(a, t_path):
    """Trace t (the same build recorded another way, e.g. tiny buffers) must
    decode to exactly a's block sequences.  Returns #failures."""
    t = Trace(t_path)
    failures = check_sane(t) + match_multiset(thread_groups(a), thread_groups(t),
                                              os.path.basename(a.path), os.path.basename(t_path))
    nblocks = sum(len(p["blocks"]) for ps in t.threads.values() for p in ps)
    print(f"same-as: {'identical' if not failures else 'DIFFERENT'} ({os.path.basename(t_path)}: "
          f"{len(t.threads)} threads, {nblocks} blocks)")
    return failures


def cmd_blocks(a_path, b_path, perturb, crashed=False, meta=None, same_as=None):
    a, b = Trace(a_path), Trace(b_path)
    same_failures = cmd_same(a, same_as) if same_as else 0
    if perturb:
        perturb_trace(b, perturb)
    regen_bad = 0
    if meta:
        regen_bad = check_regeneration(a, meta) + check_regeneration(b, meta)
    failures = check_sane(a) + check_sane(b) + regen_bad
    match = match_crashed if crashed else match_multiset
    failures += match(thread_groups(a), thread_groups(b), os.path.basename(a_path),
                      os.path.basename(b_path))
    nthreads = len(a.threads)
    nblocks = sum(len(p["blocks"]) for ps in a.threads.values() for p in ps)
    if failures:
        print(f"blocks: {failures} difference(s) ({nthreads} threads, {nblocks} blocks in {a_path})")
        return 1
    print(f"blocks: identical ({nthreads} threads, {nblocks} blocks)")
    return 1 if same_failures else 0


# ------------------------------------------------------------ cyg oracle

START_ENTRY = {"entry", "function_entry", "func_entry", "fn_entry", "enter"}
END_RETURN = {"return", "ret", "exit", "function_return"}


class Symbols:
    """Object file -> {link-time address: names} via nm."""

    def __init__(self):
        self.cache = {}

    def table(self, obj):
        if obj not in self.cache:
            names = collections.defaultdict(set)
            is_exec = False
            try:
                with open(obj, "rb") as f:
                    hdr = f.read(18)
                is_exec = len(hdr) >= 18 and int.from_bytes(hdr[16:18], "little") == 2
                out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True,
                                     check=False).stdout
            except OSError:
                out = ""
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "tTwWiI":
                    names[int(parts[0], 16)].add(parts[2])
            self.cache[obj] = (names, is_exec)
        return self.cache[obj]

    def names(self, addr, base, obj):
        names, is_exec = self.table(obj)
        return frozenset(names.get(addr if is_exec else addr - base, {f"?{addr:x}"}))


def load_cyg(prefix):
    """All logs of a run: (pid, gen, tid) -> [(kind, names)]."""
    d = os.path.dirname(prefix) or "."
    base = os.path.basename(prefix) + "."
    syms = Symbols()
    threads = {}
    files = sorted(f for f in os.listdir(d) if f.startswith(base))
    if not files:
        raise Unusable(f"no cyg logs {prefix}.*")
    for fname in files:
        pid = gen = None
        cur = None
        with open(os.path.join(d, fname)) as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 3)
                if parts[0] == "P":
                    pid, gen = int(parts[1]), int(parts[2])
                elif parts[0] == "T":
                    if "overflow" in line:
                        raise Unusable(f"{fname}: cyg log overflowed")
                    cur = threads.setdefault((pid, gen, int(parts[1])), [])
                elif parts[0] in ("E", "X"):
                    cur.append((parts[0], syms.names(int(parts[1], 16), int(parts[2], 16), parts[3])))
    return threads


def wpp_events(paths):
    ev, origin = [], []
    for p in paths:
        name = p["fn"]
        if p["start"] is None or p["end"] is None:
            raise Unusable("decoded paths carry no start/end kinds; cannot derive entry/exit")
        if str(p["start"]).lower() in START_ENTRY:
            ev.append(("E", name))
            origin.append(p["line"])
        if str(p["end"]).lower() in END_RETURN:
            ev.append(("X", name))
            origin.append(p["line"])
    return ev, origin


def cmd_cyg(trace_path, prefix, perturb):
    tr = Trace(trace_path)
    failures = check_sane(tr)
    cyg = load_cyg(prefix)
    if perturb:
        key = max(cyg, key=lambda k: len(cyg[k]))
        ev = cyg[key]
        if perturb == "drop-block":
            exits = [i for i, e in enumerate(ev) if e[0] == "X"]
            if not exits:
                raise Unusable("no exit event to drop")
            del ev[exits[len(exits) // 2]]
        elif perturb == "swap-paths":
            i = next(i for i in range(len(ev) // 2, len(ev) - 1) if ev[i] != ev[i + 1])
            ev[i], ev[i + 1] = ev[i + 1], ev[i]
        else:
            ev[len(ev) // 2] = (ev[len(ev) // 2][0], frozenset({"renamed"}))
    # The decoder may not know the generation of every record the same way
    # the recorder counts it: match on (pid, tid) and fall back to pid+gen.
    total = 0
    wkeys = {(pid, tid): k for k in tr.threads for (pid, gen, tid) in [k]}
    for key in sorted(set(cyg) | set((k[0], k[1], k[2]) for k in tr.threads), key=str):
        pid, gen, tid = key
        wp = tr.threads.get(key)
        if wp is None and (pid, tid) in wkeys and gen == 0:
            wp = tr.threads.get(wkeys[(pid, tid)])
        ce = cyg.get(key, [])
        we, worigin = wpp_events(wp or [])
        total += len(ce)
        if not ce and not we:
            continue
        if wp is None and key not in tr.threads:
            print(f"FAIL thread {pid}/{gen}/{tid}: {len(ce)} cyg events, no such thread in the trace")
            failures += 1
            continue
        if key not in cyg:
            print(f"FAIL thread {pid}/{gen}/{tid}: {len(we)} entry/exit events in the trace, no cyg log")
            failures += 1
            continue
        i = next((k for k in range(min(len(ce), len(we)))
                  if ce[k][0] != we[k][0] or we[k][1] not in ce[k][1]), None)
        if i is None and len(ce) == len(we):
            continue
        failures += 1
        print(f"FAIL thread {pid}/{gen}/{tid}: entry/exit events differ (cyg {len(ce)}, wpp {len(we)})")
        i = min(len(ce), len(we)) if i is None else i
        print(f"    first mismatch at event {i}")
        print(f"    {'pos':>7}  {'cyg (-finstrument-functions)':<40} wpp (decoded paths)")
        for k in range(max(0, i - CONTEXT), i + CONTEXT):
            a = f"{ce[k][0]} {'|'.join(sorted(ce[k][1]))}" if k < len(ce) else "<end>"
            b = f"{we[k][0]} {we[k][1]} (line {worigin[k]})" if k < len(we) else "<end>"
            if k >= len(ce) and k >= len(we):
                break
            print(f"{'>>' if k == i else '  '} {k:>7}  {a:<40} {b}")
    if failures:
        print(f"cyg: {failures} difference(s)")
        return 1
    print(f"cyg: identical ({len(cyg)} threads, {total} events)")
    return 0


def cmd_wide(trace_path):
    """The corpus program wide_paths must really exercise wide records and
    truncation: diamonds45 (2^45 paths) needs path ids >= 2^40, diamonds70
    (2^70 paths) needs truncation cuts.  Guards against a corpus that
    silently stops testing what it claims (e.g. the optimizer folding the
    diamonds into selects)."""
    tr = Trace(trace_path)
    ids = collections.defaultdict(int)
    cuts = collections.Counter()
    for paths in tr.threads.values():
        for p in paths:
            ids[p["fn"]] = max(ids[p["fn"]], p.get("id") or 0)
            if "cut" in (p["start"], p["end"]):
                cuts[p["fn"]] += 1
    bad = 0
    if ids["diamonds45"] < 1 << 40:
        print(f"FAIL diamonds45: largest path id {ids['diamonds45']} < 2^40 (no wide record exercised)")
        bad += 1
    if not cuts["diamonds70"]:
        print("FAIL diamonds70: no truncation cut in any path (2^70 paths must be cut)")
        bad += 1
    if bad:
        return 1
    print(f"wide: diamonds45 max id {ids['diamonds45']} (>= 2^40), diamonds70 {cuts['diamonds70']} cut paths")
    return 0


def main(argv):
    perturb = None
    crashed = "--crashed" in argv
    argv = [a for a in argv if a != "--crashed"]
    same_as = None
    if "--same-as" in argv:
        i = argv.index("--same-as")
        same_as = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    meta = None
    if "--meta" in argv:
        i = argv.index("--meta")
        meta = [m for m in argv[i + 1].split(",") if m]
        argv = argv[:i] + argv[i + 2:]
    if "--perturb" in argv:
        i = argv.index("--perturb")
        perturb = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    try:
        if len(argv) == 3 and argv[0] == "blocks":
            return cmd_blocks(argv[1], argv[2], perturb, crashed, meta, same_as)
        if len(argv) == 2 and argv[0] == "wide":
            return cmd_wide(argv[1])
        if len(argv) == 3 and argv[0] == "cyg":
            return cmd_cyg(argv[1], argv[2], perturb)
    except Unusable as e:
        print(f"wppcmp: {e}")
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
