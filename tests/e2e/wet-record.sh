#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wet-record — recording whole execution traces (wppcc -fwpp-mode=wet,
# issue 28, docs/wet.md "Recording values and addresses"):
#  - the corpus programs built in paths mode and in wet mode, the same
#    deterministic run recorded through shm and through BPF: `wpptrace
#    paths` and `report` read the wet recordings exactly as the paths ones
#    (value words skipped by every reader), and the programs' output is the
#    same;
#  - an independent oracle: tests/e2e/wet/wet_oracle.c writes down the
#    address and value of chosen loads, stores and external calls itself,
#    per thread (three threads, a signal handler); `wet dump` must give the
#    same for those lines, in order — at -O1, at -O0, with
#    -fwpp-wet-values=all, through both transports;
#  - hostile input: a truncated wet recording, a wrong subcommand.
. "$(dirname "$0")/bpf-lib.sh"
WET_SRC=$ROOT/tests/e2e/wet

# profile FILE.wpp: the path profile without its title line (file name).
profile() { "$WPPTRACE" paths "$1" 2>"${1%.wpp}.paths.err" | tail -n +2 >"${1%.wpp}.paths"; }
# report_of FILE.wpp: the report (json), less what names this file, its
# binary or processes (pids; how a transport sees a vfork child), and the
# source text, whose inlined-function labels come from the binary's DWARF
# (a wet build's line table is another).
report_of() {
	"$WPPTRACE" report "$1" --top 50 --format json 2>"${1%.wpp}.report.err" | python3 -c '
import json, sys
def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()
                if k not in ("file", "object", "source", "pid", "pids", "exe",
                             "processes", "processes_total")}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x
print(json.dumps(clean(json.load(sys.stdin)), indent=0, sort_keys=True))
' >"${1%.wpp}.report"
}

# build_mode DIR MODE SOURCE [FLAGS...]: wppcc -O2 in MODE into DIR/MODE/prog.
build_mode() {
	local dir=$1/$2 mode=$2 src=$3
	shift 3
	mkdir -p "$dir"
	"$WPPCC" -O2 -g -pthread -I"$CORPUS" -fwpp-mode=$mode "$@" -o "$dir/prog" "$src" \
		>"$dir/build.log" 2>&1 ||
		{ fail "$(basename "$1"): $mode build: $(head -1 "$dir/build.log")"; return 1; }
}

# record_all NAME DIR WANT_RC ARGS...: DIR/{paths,wet}/prog through shm and
# BPF into DIR/{p,w}-{shm,bpf}.wpp with .out, .paths and .report.
record_all() {
	local name=$1 dir=$2 want=$3 mode t rc tag
	shift 3
	for mode in paths wet; do
		tag=${mode:0:1}
		for t in shm bpf; do
			(cd "$dir/$mode" && "$WPPTRACE" record -q --transport=$t -o "$dir/$tag-$t.wpp" \
				-- ./prog "$@" >"$dir/$tag-$t.out" 2>"$dir/$tag-$t.err")
			rc=$?
			if [ $rc -ne "$want" ] || [ ! -s "$dir/$tag-$t.wpp" ]; then
				fail "$name $mode: $t record exited $rc: $(head -1 "$dir/$tag-$t.err")"
				return 1
			fi
			profile "$dir/$tag-$t.wpp"
			report_of "$dir/$tag-$t.wpp"
		done
	done
}

# same_reads NAME DIR [cut]: every recording reads as the paths build's shm
# one.  With `cut`, the wet build's paths were cut where a path would have
# written more than 256 value words (ir_wet.h): its recordings are compared
# with each other.
same_reads() {
	local name=$1 dir=$2 cut=${3:-} ref=$2/p-shm f
	[ -s "$ref.paths" ] || { fail "$name: empty path profile"; return 1; }
	for f in p-bpf w-shm w-bpf; do
		[ -z "$cut" ] || [ "$f" != w-bpf ] || ref=$dir/w-shm
		[ -z "$cut" ] || [ "$f" != w-shm ] || continue
		if ! cmp -s "$ref.paths" "$dir/$f.paths"; then
			fail "$name: $f paths differ from p-shm: $(diff "$ref.paths" "$dir/$f.paths" | sed -n 2p)"
			return 1
		fi
		if ! cmp -s "$ref.report" "$dir/$f.report"; then
			fail "$name: $f report differs from p-shm: $(diff "$ref.report" "$dir/$f.report" | sed -n 2p)"
			return 1
		fi
		if ! cmp -s "$dir/p-shm.out" "$dir/$f.out"; then
			fail "$name: $f output differs"
			return 1
		fi
	done
	# The wet recordings hold values, all of them readable.
	"$WPPTRACE" wet dump "$dir/w-shm.wpp" >"$dir/w-shm.dump" 2>"$dir/w-shm.dump.err" ||
		{ fail "$name: wet dump: $(head -1 "$dir/w-shm.dump.err")"; return 1; }
	local sum
	sum=$(tail -1 "$dir/w-shm.dump")
	if ! [[ $sum =~ ([0-9]+)\ wet\ path\ executions,\ ([0-9]+)\ values\;\ 0\ with\ values\ lost,\ 0\ value ]]; then
		fail "$name: wet dump: $sum"
		return 1
	fi
	if [ -n "$cut" ] && cmp -s "$dir/p-shm.paths" "$dir/w-shm.paths"; then
		fail "$name: the wet build's paths were not cut"
		return 1
	fi
	pass "$name: same ${cut:+(cut) }paths, report and output in paths/wet x shm/bpf; ${BASH_REMATCH[1]} wet path executions, ${BASH_REMATCH[2]} values"
}

# run_pair NAME SOURCE WANT_RC CUT [ARGS...]
run_pair() {
	local name=$1 src=$2 want=$3 cut=$4 dir=$WORK/$1 mode
	shift 4
	mkdir -p "$dir"
	for mode in paths wet; do
		build_mode "$dir" $mode "$src" || return 1
		# exec and vfork run ./recursion from their directory: same mode
		if [ "$name" = exec ] || [ "$name" = vfork ]; then
			"$WPPCC" -O2 -g -I"$CORPUS" -fwpp-mode=$mode -o "$dir/$mode/recursion" \
				"$CORPUS/recursion.c" || { fail "$name: recursion build"; return 1; }
		fi
	done
	record_all "$name" "$dir" "$want" "$@" || return 1
	same_reads "$name" "$dir" "$cut"
}

# NAME:ARGS:EXIT-STATUS[:cut] (noreturn exits 3 from an atexit-reported
# recursion; wide_paths' 45 diamonds of loads and stores write more than 256
# value words a path, so wet mode cuts them)
for spec in branches:: switches:: computed_goto:: noreturn::3 longjmp:: variadic:: \
	recursion:12: inline_asm:: callbacks:: wide_paths:::cut interp:: threads:: fork:: exec:: \
	vfork:: signals::; do
	IFS=: read -r name args want cut <<<"$spec"
	# shellcheck disable=SC2086
	run_pair "$name" "$CORPUS/$name.c" "${want:-0}" "$cut" $args
done

# The oracle: addresses and values the program wrote down itself.
oracle() { # TAG TRANSPORT WPPCC-FLAGS...
	local tag=$1 t=$2 d=$WORK/oracle-$1 out
	shift 2
	mkdir -p "$d/run"
	"$WPPCC" -g -pthread -fwpp-mode=wet "$@" -o "$d/prog" "$WET_SRC/wet_oracle.c" \
		>"$d/build.log" 2>&1 || { fail "oracle $tag: build: $(head -1 "$d/build.log")"; return; }
	"$WPPTRACE" record -q --transport=$t -o "$d/run.wpp" -- "$d/prog" "$d/run" 5 \
		>"$d/run.out" 2>"$d/run.err" || { fail "oracle $tag: record: $(head -1 "$d/run.err")"; return; }
	"$WPPTRACE" wet dump --format jsonl "$d/run.wpp" >"$d/dump.jsonl" 2>"$d/dump.err" ||
		{ fail "oracle $tag: wet dump: $(head -1 "$d/dump.err")"; return; }
	if out=$(python3 "$WET_SRC/wet_check.py" "$WET_SRC/wet_oracle.c" "$d/dump.jsonl" "$d/run"); then
		pass "oracle $tag ($t): $(echo "$out" | wc -l) thread x line sequences equal, e.g. $(echo "$out" | grep sig_store | head -1 | cut -c7-)"
	else
		fail "oracle $tag ($t): $(echo "$out" | grep -m3 FAIL | tr '\n' ' ')"
	fi
}
oracle O1 shm -O1
oracle O1-bpf bpf -O1
oracle O2-all shm -O2 -fwpp-wet-values=all
oracle O0 shm -O0

# The text dump names the statements and their source.
d=$WORK/oracle-O1
line=$(grep -n 'WET:load_int' "$WET_SRC/wet_oracle.c" | cut -d: -f1)
if "$WPPTRACE" wet dump -n 3000 "$d/run.wpp" 2>/dev/null | grep -q "wet_oracle.c:$line:[0-9]*  %[0-9]* load  addr=0x[0-9a-f]*  value=-\{0,1\}[0-9]"; then
	pass "wet dump text: wet_oracle.c:$line's load with its address and value"
else
	fail "wet dump text lacks wet_oracle.c:$line's load"
fi

# Hostile input: a truncated recording is read up to the tear, exit 3.
head -c $(($(stat -c %s "$d/run.wpp") * 2 / 3)) "$d/run.wpp" >"$WORK/torn.wpp"
"$WPPTRACE" wet dump "$WORK/torn.wpp" >/dev/null 2>"$WORK/torn.err"
rc=$?
[ $rc -eq 3 ] && pass "wet dump of a torn recording: exit 3, $(head -1 "$WORK/torn.err")" ||
	fail "wet dump of a torn recording: exit $rc: $(head -2 "$WORK/torn.err" | tr '\n' ' ')"
"$WPPTRACE" wet frob "$d/run.wpp" >/dev/null 2>"$WORK/sub.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$WORK/sub.err")" -eq 1 ] && pass "wet with an unknown subcommand: $(cat "$WORK/sub.err")" ||
	fail "wet frob: exit $rc: $(head -1 "$WORK/sub.err")"
# A paths recording has no values to dump: said per path, not invented.
if "$WPPTRACE" wet dump -n 5 "$WORK/branches/p-shm.wpp" 2>/dev/null | grep -q "(not a wet build)"; then
	pass "wet dump of a paths recording says its paths carry no values"
else
	fail "wet dump of a paths recording"
fi
finish
