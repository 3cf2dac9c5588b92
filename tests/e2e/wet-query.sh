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
#  - cross-thread memory dependences (tests/e2e/wet/wet_xthread.c): a
#    hand-written answer each way, and the brute force over both threads'
#    stores and the recording's batch times, through shm and BPF;
#  - the WET stored after END (docs/wet.md "The WET in the .wpp file"):
#    built by the first query, read back by the next ones (the checks above
#    run on the stored form), other readers unaffected, nothing appended
#    to a read-only or damaged file;
#  - hostile input: bad instance names, a torn recording, WET chunks
#    damaged or crafted with every checksum made right again
#    (tests/e2e/wet/wet_craft.py): one error line, exit 1, the WET built
#    again from the batches and the query still answered.
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
# Another thread than main: its own WET, chosen with --tid.
if out=$(python3 "$CHECK" "$WPPTRACE" "$WORK/threads/run.wpp" "$WORK/threads/dump.jsonl" 10 5 --mem --thread 1); then
	pass "threads, the second thread: $out"
else
	fail "threads, the second thread: $(echo "$out" | head -3 | tr '\n' ' ')"
fi
if record interp-all "$CORPUS/interp.c" shm -O1 -fwpp-wet-values=all --; then
	check interp-all 12 42
	verify interp-all
fi
if record oracle "$WET_SRC/wet_oracle.c" shm -O1 -- "$WORK/oracle/run" 5; then
	check oracle 20 7
	verify oracle
fi

# Cross-thread memory dependences (docs/wet.md "Threads"): recorded where
# the batches' publish times prove the order, unknown otherwise; the
# brute force decides each load from the batch heads in the recording.
xt_src=$WET_SRC/wet_xthread.c
xt_line() { grep -n "XT:$1 " "$xt_src" | cut -d: -f1; }
for t in shm bpf; do
	export WPP_BUFFER_WORDS=512
	record "xthread-$t" "$xt_src" "$t" -O1 -- || { unset WPP_BUFFER_WORDS; continue; }
	unset WPP_BUFFER_WORDS
	xd=$WORK/xthread-$t
	if out=$(python3 "$CHECK" "$WPPTRACE" "$xd/run.wpp" "$xd/dump.jsonl" 8 3 --mem --mem-n 30) &&
		! echo "$out" | grep -q '(0 on another'; then
		pass "xthread ($t): $out"
	else
		fail "xthread ($t): $(echo "$out" | head -3 | tr '\n' ' ')"
	fi
	# by hand: x read after main published batches since the join is the
	# worker's store; y read in main's first batch is unknown
	worker=$(python3 -c '
import json, sys
print(next(o["tid"] for o in map(json.loads, open(sys.argv[1])) if o.get("type") == "path" and o["tid"] != o["pid"]))' "$xd/dump.jsonl")
	got=$("$WPPTRACE" wet deps "$xd/run.wpp" "wet_xthread.c:$(xt_line late)#1" --format json 2>&1 |
		python3 -c '
import json, sys
m = [d for d in json.load(sys.stdin)["deps"] if d["kind"] == "mem"]
print(" ".join("%s:%s:%s" % (d["status"], d.get("tid"), d.get("def", {}).get("line")) for d in m))' 2>&1)
	[ "$got" = "other_thread:$worker:$(xt_line store-x)" ] &&
		pass "xthread ($t): x after the join and published batches: the worker's store (line $(xt_line store-x))" ||
		fail "xthread ($t): x after the join: $got, want other_thread:$worker:$(xt_line store-x)"
	got=$("$WPPTRACE" wet deps "$xd/run.wpp" "wet_xthread.c:$(xt_line early)#1" --format json 2>&1 |
		python3 -c '
import json, sys
print(" ".join(d["status"] for d in json.load(sys.stdin)["deps"] if d["kind"] == "mem"))' 2>&1)
	[ "$got" = "unknown" ] && pass "xthread ($t): y in main's first batch: unknown" ||
		fail "xthread ($t): y in main's first batch: $got, want unknown"
done
# FILE:LINE#N past the merge's reach (wet_insn_nth bisects the timestamps
# of the nodes holding the instruction) against the merged listing.
xd=$WORK/xthread-shm
spec=wet_xthread.c:$(xt_line race)
"$WPPTRACE" wet addrs "$xd/run.wpp" "$spec" -n 0 >/dev/null 2>"$xd/race.err" ||
	spec=$spec@$(awk '$5 == "load" { sub("@", "", $1); print $1; exit }' "$xd/race.err")
if out=$("$WPPTRACE" wet addrs "$xd/run.wpp" "$spec" --format json 2>&1 | python3 -c '
import json, random, subprocess, sys
W, f, spec = sys.argv[1:4]
v = json.load(sys.stdin)["instances"]
ns = sorted(random.Random(5).sample(range(4097, len(v) + 1), 12) + [len(v)])
bad = []
for n in ns:
    o = json.loads(subprocess.run([W, "wet", "flow", f, "--from", "%s#%d" % (spec, n), "-n", "1",
                                   "--format", "json"], capture_output=True, text=True).stdout)
    if o["from"] != v[n - 1]["ts"]:
        bad.append((n, o["from"], v[n - 1]["ts"]))
print("%d of %d instances" % (len(ns) - len(bad), len(ns)), bad or "")
sys.exit(1 if bad else 0)' "$WPPTRACE" "$xd/run.wpp" "$spec"); then
	pass "FILE:LINE#N by bisection equals the merge: $out"
else
	fail "FILE:LINE#N by bisection: $out"
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

# The text slice shows the source line of each run of instances.
if "$WPPTRACE" wet slice "$d/run.wpp" "wet_slice.c:$s5:4#1" 2>/dev/null | grep -q '^ *| c = a + 1;'; then
	pass "the slice shows its source lines"
else
	fail "the slice shows no source lines"
fi

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

# The stored WET: the checks above stored the oracle's on their first
# query and read it back since; other readers skip its chunks.
o=$WORK/oracle/run.wpp
if "$WPPTRACE" wet info "$o" 2>/dev/null | grep -q 'read from the file' &&
	"$WPPTRACE" wet build "$o" 2>/dev/null | grep -q 'already stored'; then
	pass "the oracle's WET was stored by its first query and is read back"
else
	fail "the oracle's WET is not read back from the file"
fi
"$WPPTRACE" paths "$o" >"$WORK/paths-with-wet.txt" 2>/dev/null
rc=$?
[ $rc -eq 0 ] && [ -s "$WORK/paths-with-wet.txt" ] && pass "paths reads a recording with WET chunks" ||
	fail "paths on a recording with WET chunks: exit $rc"
# A read-only copy: answered, not written.
cp "$WORK/branches/run.wpp" "$WORK/ro.wpp"
python3 - "$WORK/ro.wpp" <<'PY'
import struct, sys
# keep the recording up to its END chunk: a copy without a stored WET
d = open(sys.argv[1], "rb").read(); pos = 32
while pos + 16 <= len(d):
    magic, typ, flags, length, crc = struct.unpack_from("<IHHII", d, pos)
    pos += 16 + length
    if typ == 7:
        break
open(sys.argv[1], "wb").write(d[:pos])
PY
chmod a-w "$WORK/ro.wpp"
size=$(stat -c %s "$WORK/ro.wpp")
if "$WPPTRACE" wet info "$WORK/ro.wpp" 2>/dev/null | grep -q 'built in' && [ "$(stat -c %s "$WORK/ro.wpp")" -eq "$size" ]; then
	pass "a read-only recording: the WET is built and answers, the file is unchanged"
else
	fail "a read-only recording was changed or not answered"
fi

# Crafted WET chunks (every checksum right again): one error line, exit 1,
# the WET built again and the question answered.
for mode in version nodes truncate streamlen streamref "flip 1" "flip 2" "flip 3" "flip 4" "flip 5"; do
	rm -f "$WORK/craft.wpp"
	# shellcheck disable=SC2086
	python3 "$WET_SRC/wet_craft.py" "$o" "$WORK/craft.wpp" $mode || { fail "craft $mode"; continue; }
	chmod a-w "$WORK/craft.wpp"
	"$WPPTRACE" wet info "$WORK/craft.wpp" >"$WORK/craft.out" 2>"$WORK/craft.err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$WORK/craft.err")" -eq 1 ] && grep -q 'unusable' "$WORK/craft.err" &&
		grep -q 'built in' "$WORK/craft.out"; then
		pass "crafted WET ($mode): exit 1, $(sed 's/.*unusable/unusable/' "$WORK/craft.err")"
	else
		fail "crafted WET ($mode): exit $rc: $(head -2 "$WORK/craft.err" | tr '\n' ' ')"
	fi
	# A query parses only the streams it reads: damage it meets is one
	# error line and exit 1, damage it does not meet leaves it answering.
	"$WPPTRACE" wet flow "$WORK/craft.wpp" --from @1 -n 100000 >/dev/null 2>"$WORK/craft.q.err"
	rc=$?
	if [ $rc -le 1 ] && [ "$(wc -l <"$WORK/craft.q.err")" -le 1 ]; then
		pass "crafted WET ($mode), the whole flow: exit $rc $(head -c 120 "$WORK/craft.q.err")"
	else
		fail "crafted WET ($mode), the whole flow: exit $rc: $(head -2 "$WORK/craft.q.err" | tr '\n' ' ')"
	fi
done
# A WET of an older format (version 1) in a writable recording: not
# damage — built again without an error, stored, and read from the file
# by the next query.
rm -f "$WORK/old.wpp"
python3 "$WET_SRC/wet_craft.py" "$o" "$WORK/old.wpp" oldversion || fail "craft oldversion"
"$WPPTRACE" wet info "$WORK/old.wpp" >"$WORK/old.out" 2>"$WORK/old.err"
rc=$?
"$WPPTRACE" wet info "$WORK/old.wpp" >"$WORK/old2.out" 2>>"$WORK/old.err"
rc2=$?
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ ! -s "$WORK/old.err" ] && grep -q 'built in' "$WORK/old.out" &&
	grep -q 'read from the file' "$WORK/old2.out"; then
	pass "a WET of format version 1: built again and stored, then read from the file"
else
	fail "a WET of format version 1: exit $rc then $rc2: $(head -2 "$WORK/old.err" | tr '\n' ' ')"
fi

# A WET chunk with a bad checksum (the last thread's: `wet build` above
# stored every thread's): the recording's damage, reported once, the query
# answered; nothing appended behind it.
cp "$o" "$WORK/bad.wpp"
printf '\x55' | dd of="$WORK/bad.wpp" bs=1 seek=$(($(stat -c %s "$o") - 100)) conv=notrunc status=none
size=$(stat -c %s "$WORK/bad.wpp")
"$WPPTRACE" wet info "$WORK/bad.wpp" >"$WORK/bad.out" 2>"$WORK/bad.err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$WORK/bad.err")" -eq 1 ] && [ "$(stat -c %s "$WORK/bad.wpp")" -eq "$size" ] &&
	grep -q 'path executions' "$WORK/bad.out"; then
	pass "a WET chunk with a bad checksum: exit 1, $(cat "$WORK/bad.err"); nothing appended"
else
	fail "a WET chunk with a bad checksum: exit $rc, $(head -2 "$WORK/bad.err" | tr '\n' ' ')"
fi

# A torn recording: the WET of what is intact, exit 3.
head -c $(($(stat -c %s "$WORK/ro.wpp") * 2 / 3)) "$WORK/ro.wpp" >"$WORK/torn.wpp"
"$WPPTRACE" wet info "$WORK/torn.wpp" >"$WORK/torn.out" 2>"$WORK/torn.err"
rc=$?
[ $rc -eq 3 ] && grep -q 'path executions' "$WORK/torn.out" &&
	pass "wet info of a torn recording: exit 3, $(head -1 "$WORK/torn.out")" ||
	fail "wet info of a torn recording: exit $rc: $(head -1 "$WORK/torn.err")"
finish
