#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wet-query — the WET builder and its queries (issue 28, docs/wet.md
# "Queries"):
#  - every answer from the compressed WET against a brute force over the
#    uncompressed record of the same run (`wet dump --format jsonl`,
#    tests/e2e/wet/wet_query_check.py): whole value and address sequences
#    of random statements, control flow both ways from random instances,
#    memory dependences of random loads — corpus programs (threads, signals,
#    longjmp, callbacks through qsort, cut paths) and the wet oracle program,
#    through shm and BPF, with -fwpp-wet-values=all too;
#  - every label stream of a built WET read whole forward and backward
#    (`wet info --verify`);
#  - slices with a hand-written answer (tests/e2e/wet/wet_slice.c);
#  - hostile input: bad instance names, a torn recording, damaged or
#    foreign WET files: one error line, the right exit status.
. "$(dirname "$0")/bpf-lib.sh"
WET_SRC=$ROOT/tests/e2e/wet
CHECK=$WET_SRC/wet_query_check.py

# record NAME SRC TRANSPORT [WPPCC-FLAGS...] -- [ARGS...]: $WORK/NAME/run.wpp
# and its jsonl dump.
record() {
	local name=$1 src=$2 t=$3 d=$WORK/$1 flags=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	mkdir -p "$d/run"
	"$WPPCC" -g -pthread -I"$CORPUS" -fwpp-mode=wet "${flags[@]}" -o "$d/prog" "$src" \
		>"$d/build.log" 2>&1 || { fail "$name: build: $(head -1 "$d/build.log")"; return 1; }
	(cd "$d/run" && "$WPPTRACE" record -q --transport="$t" -o "$d/run.wpp" -- "$d/prog" "$@" \
		>"$d/run.out" 2>"$d/run.err")
	[ -s "$d/run.wpp" ] || { fail "$name: record: $(head -1 "$d/run.err")"; return 1; }
	"$WPPTRACE" wet dump --format jsonl "$d/run.wpp" >"$d/dump.jsonl" 2>"$d/dump.err" ||
		{ fail "$name: wet dump: $(head -1 "$d/dump.err")"; return 1; }
}

# check NAME QUERIES SEED: the queries against the brute force.
check() {
	local out
	if out=$(python3 "$CHECK" "$WPPTRACE" "$WORK/$1/run.wpp" "$WORK/$1/dump.jsonl" "$2" "$3" --mem); then
		pass "$1: $out"
	else
		fail "$1: $(echo "$out" | head -3 | tr '\n' ' ')"
	fi
}

# verify NAME: every stream forward and backward, and the figures parse.
verify() {
	local out
	if out=$("$WPPTRACE" wet info --verify --format json "$WORK/$1/run.wpp" 2>"$WORK/$1/verify.err") &&
		echo "$out" | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert o["verified_streams"] > 0 and o["verified_values"] > 0, o
assert o["total"]["orig"] > 0 and o["total"]["tier2"] > 0, o
print("%d streams, %d values read both ways; %.1fx overall" %
      (o["verified_streams"], o["verified_values"], o["total"]["orig"] / o["total"]["tier2"]))
' >"$WORK/$1/verify.txt" 2>&1; then
		pass "$1: wet info --verify: $(cat "$WORK/$1/verify.txt")"
	else
		fail "$1: wet info --verify: $(head -1 "$WORK/$1/verify.err") $(tail -1 "$WORK/$1/verify.txt")"
	fi
}

seed=1
for spec in branches:shm switches:shm recursion:shm callbacks:shm interp:bpf signals:shm \
	threads:shm longjmp:shm wide_paths:shm; do
	IFS=: read -r name t <<<"$spec"
	record "$name" "$CORPUS/$name.c" "$t" -O2 -- || continue
	check "$name" 12 $((seed++))
	verify "$name"
done
if record interp-all "$CORPUS/interp.c" shm -O1 -fwpp-wet-values=all --; then
	check interp-all 12 42
	verify interp-all
fi
if record oracle "$WET_SRC/wet_oracle.c" shm -O1 -- "$WORK/oracle/run" 5; then
	check oracle 20 7
	verify oracle
fi

# Hand-written slices: every line goes through a volatile global.
d=$WORK/slice
record slice "$WET_SRC/wet_slice.c" shm -O1 -- || true
lines_of() { # TAG...: the source lines tagged SLICE:TAG, sorted
	local tag
	for tag; do grep -n "SLICE:$tag \*/" "$WET_SRC/wet_slice.c" | cut -d: -f1; done | sort -n | tr '\n' ' '
}
slice_lines() { # ARGS...: the distinct lines of a slice, sorted
	"$WPPTRACE" wet slice "$d/run.wpp" "$@" --format json 2>"$d/slice.err" | python3 -c '
import json, sys
print(" ".join(str(l) for l in sorted({i["line"] for i in json.load(sys.stdin)["instances"]})) + " ")'
}
s5=$(grep -n 'SLICE:s5 ' "$WET_SRC/wet_slice.c" | cut -d: -f1)
s1=$(grep -n 'SLICE:s1 ' "$WET_SRC/wet_slice.c" | cut -d: -f1)
got=$(slice_lines "wet_slice.c:$s5:4#1")
want=$(lines_of s1 s3 s5)
[ "$got" = "$want" ] && pass "backward slice of e = c + 5: lines $got exactly" ||
	fail "backward slice of e = c + 5: lines $got, want $want ($(head -1 "$d/slice.err"))"
got=$(slice_lines "wet_slice.c:$s1:4#1" --forward)
want=$(lines_of s1 s3 s5 s6)
[ "$got" = "$want" ] && pass "forward slice of a = argc: lines $got exactly" ||
	fail "forward slice of a = argc: lines $got, want $want ($(head -1 "$d/slice.err"))"

# expect_err NAME WANT_RC ARGS...: one error line and that exit status.
expect_err() {
	local name=$1 want=$2
	shift 2
	"$WPPTRACE" "$@" >/dev/null 2>"$WORK/err.txt"
	local rc=$?
	if [ $rc -eq "$want" ] && [ "$(grep -c 'error' "$WORK/err.txt")" -eq 1 ]; then
		pass "$name: exit $rc, $(grep error "$WORK/err.txt")"
	else
		fail "$name: exit $rc (want $want): $(head -2 "$WORK/err.txt" | tr '\n' ' ')"
	fi
}
expect_err "an instance without #N" 2 wet deps "$d/run.wpp" "wet_slice.c:$s5:4"
expect_err "an instance that never ran" 1 wet deps "$d/run.wpp" "wet_slice.c:$s5:4#2"
expect_err "a line without code" 1 wet values "$d/run.wpp" "wet_slice.c:1"
expect_err "a line with several instructions" 2 wet values "$d/run.wpp" "wet_slice.c:$s5"
expect_err "flow without --from" 2 wet flow "$d/run.wpp"
expect_err "an unknown format" 2 wet info --format xml "$d/run.wpp"
expect_err "a thread that is not there" 2 wet info --tid 1 "$d/run.wpp"

# A torn recording: the WET of what is intact, exit 3.
o=$WORK/oracle/run.wpp
head -c $(($(stat -c %s "$o") * 2 / 3)) "$o" >"$WORK/torn.wpp"
"$WPPTRACE" wet info "$WORK/torn.wpp" >"$WORK/torn.out" 2>"$WORK/torn.err"
rc=$?
[ $rc -eq 3 ] && grep -q 'path executions' "$WORK/torn.out" &&
	pass "wet info of a torn recording: exit 3, $(head -1 "$WORK/torn.out")" ||
	fail "wet info of a torn recording: exit $rc: $(head -1 "$WORK/torn.err")"
finish
