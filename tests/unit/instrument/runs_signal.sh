#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs (WPP_CTRL_REPEAT) with the real runtime and transport: a counting
# loop interrupted by a signal whose handler loops (progs/runs_signal.c),
# and the run-heavy loops of progs/runs.c, built with runs, with
# -fwpp-no-runs and in blocks mode (the oracle) at -O0 and -O2, recorded
# with `wpptrace record --transport=shm` (also with 16-word buffers, so
# runs and their REPEAT words straddle batches), decoded with
# `wpptrace script --format jsonl` and compared block by block with
# tests/oracle/wppcmp.py.  A signal that arrives in the middle of a path
# puts the handler's paths before the interrupted path in paths mode, but
# after the interrupted block in blocks mode, so the interrupted level and
# the handlers' level are compared separately (each in its own order).
# The runs build must have written REPEAT words (decoded instances with a
# "repeat" field), the others none.
set -u
cd "$(dirname "$0")/../../.."
W=tests/work/instrument/runs-shm
mkdir -p "$W"
CMP="python3 tests/oracle/wppcmp.py"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

record() { # exe out [record options...]
	local exe=$1 out=$2
	shift 2
	bin/wpptrace record --transport=shm "$@" -o "$out.wpp" -- "$exe" >"$out.stdout" 2>"$out.stderr" &&
		bin/wpptrace script "$out.wpp" --format jsonl >"$out.jsonl" && rm -f "$out.wpp"
}

# split_levels X: X.jsonl -> X.main.jsonl (records at signal depth 0, and
# every other line) and X.handler.jsonl (depth >= 1, and every other line).
split_levels() {
	python3 - "$1" <<'PY'
import json, sys
base = sys.argv[1]
with open(base + ".jsonl") as f, open(base + ".main.jsonl", "w") as m, open(base + ".handler.jsonl", "w") as h:
    for line in f:
        rec = json.loads(line)
        if rec.get("type") not in ("path", "block"):
            m.write(line); h.write(line)
        elif rec.get("signal_depth", 0):
            h.write(line)
        else:
            m.write(line)
PY
}

for prog in runs_signal runs; do
	for opt in O0 O2; do
		for v in runs noruns blocks; do
			flags="-fwpp-mode=paths"
			[ $v = noruns ] && flags="$flags -fwpp-no-runs"
			[ $v = blocks ] && flags="-fwpp-mode=blocks"
			bin/wppcc -$opt $flags tests/unit/instrument/progs/$prog.c -o "$W/$prog.$opt.$v" ||
				{ fail "$prog $opt $v: build"; continue 2; }
			record "$W/$prog.$opt.$v" "$W/$prog.$opt.$v" || fail "$prog $opt $v: record/decode"
		done
		record "$W/$prog.$opt.runs" "$W/$prog.$opt.tiny" --buffer-words 16 --ring-slots 2 ||
			fail "$prog $opt tiny: record/decode"
		b=$W/$prog.$opt.blocks
		split_levels "$b"
		for v in runs noruns tiny; do
			x=$W/$prog.$opt.$v
			cmp -s "$x.stdout" "$b.stdout" || fail "$prog $opt $v: output differs"
			split_levels "$x"
			levels=main
			[ $prog = runs_signal ] && levels="main handler"
			for level in $levels; do
				out=$($CMP blocks "$x.$level.jsonl" "$b.$level.jsonl" 2>&1)
				if grep -q '^blocks: identical' <<<"$out"; then
					echo "ok:   $prog $opt $v $level: $out"
				else
					fail "$prog $opt $v $level vs blocks"
					head -n 20 <<<"$out"
				fi
			done
		done
		[ $prog = runs_signal ] && ! grep -q '"signal_depth":1' "$W/$prog.$opt.runs.jsonl" &&
			fail "$prog $opt: the handler left no paths"
		grep -q '"repeat":' "$W/$prog.$opt.runs.jsonl" || fail "$prog $opt: no REPEAT word written"
		grep -q '"repeat":' "$W/$prog.$opt.tiny.jsonl" || fail "$prog $opt tiny: no REPEAT word written"
		! grep -q '"repeat":' "$W/$prog.$opt.noruns.jsonl" || fail "$prog $opt: REPEAT with -fwpp-no-runs"
		rm -f "$W/$prog.$opt".*.jsonl
	done
done
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "runs with the shm transport: all identical to blocks mode"
