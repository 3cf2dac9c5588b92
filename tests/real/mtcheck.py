#!/usr/bin/env python3
"""mtcheck.py — schedule-independent oracle for a multi-threaded real-program step.

  mtcheck.py FUNC UNITS MIN_WORKERS TRACE.jsonl... [--perturb drop-entry]

A program that hands units of work (xz: the blocks of a .xz stream) to a pool
of worker threads does not assign them deterministically: which thread takes
which unit, how often a thread waits, and in how many pieces a unit's input
arrives depend on timing.  Two runs therefore cannot be compared thread by
thread, block by block (the single-threaded steps get that differential).
What does not depend on the schedule, and is checked here for every decoded
trace given (`wpptrace script --format jsonl`, typically the Ball-Larus
paths build and the blocks build of the same step):

  * the stream is whole: no gap, no unattributed or corrupt record;
  * FUNC, a function entered exactly once per unit, is entered UNITS times
    summed over all threads, where UNITS comes from outside the traces (the
    caller reads the block count of the .xz file with the plain xz build);
  * at least MIN_WORKERS threads besides the process's main thread
    (tid == pid) left a trace: the pool really ran.

An entry of FUNC is an entry into its block 0: LLVM's entry block has no
predecessors, so it is entered once per call in both encodings.

--perturb drop-entry removes one entry of FUNC from the last trace; the
check must then fail (self-test of the comparator).

Prints, per trace, the entries of FUNC per thread (the schedule of that run).
Exit status 0 = all hold, 1 = a check failed, 2 = unusable input.
"""
import json
import re
import sys

TID = re.compile(r'"tid":\s*(\d+)')
PID = re.compile(r'"pid":\s*(\d+)')
BAD_TYPES = ("gap", "unattributed", "corrupt")


class Unusable(Exception):
    pass


def block_index(b):
    return b.get("block") if isinstance(b, dict) else b


def summarize(path, func):
    """Per-thread entries of FUNC, thread ids, main thread, damaged records."""
    entries, threads, damaged, main = {}, {}, [], None
    needle = '"' + func + '"'
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise Unusable(f"{path}: {e}")
    with f:
        for lineno, line in enumerate(f, 1):
            m = TID.search(line)
            if m is None:
                continue  # not a per-thread record
            tid = int(m.group(1))
            if tid not in threads:
                pm = PID.search(line)
                threads[tid] = int(pm.group(1)) if pm else None
                if threads[tid] == tid:
                    main = tid
            if needle not in line and not any('"' + t + '"' in line for t in BAD_TYPES):
                continue
            try:
                rec = json.loads(line)
            except ValueError as e:
                raise Unusable(f"{path}:{lineno}: not JSON: {e}")
            if rec.get("type") in BAD_TYPES:
                damaged.append(f"{path}:{lineno}: {line.strip()[:160]}")
                continue
            if rec.get("function") != func:
                continue
            n = sum(1 for b in rec.get("blocks") or [] if block_index(b) == 0)
            if n:
                entries[tid] = entries.get(tid, 0) + n
    if not threads:
        raise Unusable(f"{path}: no per-thread records")
    return entries, threads, main, damaged


def check(path, func, units, min_workers, entries, threads, main, damaged):
    problems = []
    if damaged:
        problems.append(f"{len(damaged)} damaged record(s), first: {damaged[0]}")
    total = sum(entries.values())
    if total != units:
        problems.append(f"{func} entered {total} times over all threads, want {units} (one per unit)")
    if main is None:
        problems.append("no main thread (tid == pid) in the trace")
    workers = [t for t in threads if t != main]
    if len(workers) < min_workers:
        problems.append(f"{len(workers)} worker thread(s) traced, want at least {min_workers}")
    shares = " ".join(
        ("main" if t == main else "w") + f"={entries.get(t, 0)}" for t in threads)
    return problems, f"{len(threads)} threads, {func} entries per thread: {shares}"


def main(argv):
    perturb = None
    if "--perturb" in argv:
        i = argv.index("--perturb")
        perturb = argv[i + 1] if i + 1 < len(argv) else None
        if perturb != "drop-entry":
            print("mtcheck: --perturb takes drop-entry", file=sys.stderr)
            return 2
        del argv[i:i + 2]
    if len(argv) < 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    func, traces = argv[0], argv[3:]
    try:
        units, min_workers = int(argv[1]), int(argv[2])
    except ValueError:
        print("mtcheck: UNITS and MIN_WORKERS are integers", file=sys.stderr)
        return 2
    failed = False
    for k, path in enumerate(traces):
        try:
            entries, threads, main_tid, damaged = summarize(path, func)
        except Unusable as e:
            print(f"mtcheck: {e}", file=sys.stderr)
            return 2
        if perturb and k == len(traces) - 1 and entries:
            victim = next(iter(entries))
            entries[victim] -= 1
        problems, summary = check(path, func, units, min_workers, entries, threads, main_tid, damaged)
        print(f"{path}: {summary}")
        for p in problems:
            print(f"{path}: {p}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
