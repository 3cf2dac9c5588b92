#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# count-mode — counting mode (wppcc -fwpp-mode=count, issue 26) against
# tracing as the oracle: each deterministic program is built once with
# paths mode and once with count mode, both are recorded through shm and
# through BPF, and `wpptrace paths` (every path, every count) and the
# program's output must be the same for all four recordings.  The corpus
# programs plus tests/e2e/count/count_mix.c (a 2^24-path function counted
# in a sparse array range, a 2^31-path one in the runtime's hash, threads
# leaving through return and pthread_exit, a signal handler, a fork child
# that must not count its parent's paths again) cover threads, fork, exec, vfork, signals, longjmp and a shared
# library.  Also: a program mixing a count TU and a paths TU; -O0 and the
# static runtime; the edge profile (`edges`) equal to the paths build's;
# report/annotate/cfg/export read a count recording; wpp, hot, kpaths and
# script refuse it in one line.
. "$(dirname "$0")/bpf-lib.sh"
COUNT_SRC=$ROOT/tests/e2e/count

# paths_of FILE.wpp: the path profile without its title line (file name).
paths_of() { "$WPPTRACE" paths "$1" 2>"${1%.wpp}.paths.err" | tail -n +2 >"${1%.wpp}.paths"; }

# record TAG DIR WANT_RC ARGS...: record DIR/MODE/prog (MODE by TAG, run
# in its directory) through shm and BPF into DIR/TAG-{shm,bpf}.wpp (+ .out,
# .paths); 1 if either failed or exited otherwise than WANT_RC (said).
record() {
	local tag=$1 dir=$2 want=$3 t rc sub=$2/paths
	shift 3
	[ "$tag" = c ] && sub=$dir/count
	for t in shm bpf; do
		(cd "$sub" && "$WPPTRACE" record -q --transport=$t -o "$dir/$tag-$t.wpp" -- ./prog "$@" \
			>"$dir/$tag-$t.out" 2>"$dir/$tag-$t.err")
		rc=$?
		if [ $rc -ne "$want" ] || [ ! -s "$dir/$tag-$t.wpp" ]; then
			fail "$(basename "$dir") $tag: $t record exited $rc: $(head -1 "$dir/$tag-$t.err")"
			return 1
		fi
		paths_of "$dir/$tag-$t.wpp"
	done
}

# same_profiles NAME DIR: the paths build's shm profile is the reference.
same_profiles() {
	local name=$1 dir=$2 ref=$2/p-shm.paths f
	[ -s "$ref" ] || { fail "$name: empty path profile"; return 1; }
	for f in p-bpf c-shm c-bpf; do
		if ! cmp -s "$ref" "$dir/$f.paths"; then
			fail "$name: $f paths differ from p-shm: $(diff "$ref" "$dir/$f.paths" | sed -n 2p)"
			return 1
		fi
		if ! cmp -s "$dir/p-shm.out" "$dir/$f.out"; then
			fail "$name: $f output differs"
			return 1
		fi
	done
	pass "$name: same paths and counts in paths/count x shm/bpf ($(sed -n 1p "$ref" | cut -d, -f1))"
}

# build_mode DIR MODE SOURCE [FLAGS...]: wppcc -O2 in MODE into DIR/MODE/prog
# (each mode's binary stays, so its recordings can be read later).
build_mode() {
	local dir=$1/$2 mode=$2 src=$3
	shift 3
	mkdir -p "$dir"
	"$WPPCC" -O2 -g -pthread -I"$CORPUS" -fwpp-mode=$mode "$@" -o "$dir/prog" "$src" \
		>"$dir/build.log" 2>&1 ||
		{ fail "$(basename "$1"): $mode build: $(head -1 "$dir/build.log")"; return 1; }
}

# run_pair NAME SOURCE WANT_RC [ARGS...]: the four recordings of one program.
run_pair() {
	local name=$1 src=$2 want=$3 dir=$WORK/$1 mode
	shift 3
	mkdir -p "$dir"
	for mode in paths count; do
		build_mode "$dir" $mode "$src" || return 1
		# exec and vfork run ./recursion from their directory: same mode
		if [ "$name" = exec ] || [ "$name" = vfork ]; then
			"$WPPCC" -O2 -g -I"$CORPUS" -fwpp-mode=$mode -o "$dir/$mode/recursion" \
				"$CORPUS/recursion.c" || { fail "$name: recursion build"; return 1; }
		fi
		record "${mode:0:1}" "$dir" "$want" "$@" || return 1
	done
	same_profiles "$name" "$dir"
}

# NAME:ARGS:EXIT-STATUS (noreturn exits 3 from an atexit-reported recursion)
for spec in branches:: switches:: computed_goto:: noreturn::3 longjmp:: variadic:: \
	recursion:12: inline_asm:: callbacks:: wide_paths:: interp:: threads:: fork:: exec:: \
	vfork:: signals::; do
	IFS=: read -r name args want <<<"$spec"
	# shellcheck disable=SC2086
	run_pair "$name" "$CORPUS/$name.c" "${want:-0}" $args
done
run_pair count_mix "$COUNT_SRC/count_mix.c" 0

# A count build never records: no reference to the cursor or the flush.
if nm "$WORK/count_mix/count/prog" | grep -q "__wpp_cursor\|__wpp_flush$"; then
	fail "count_mix's count build refers to the record path"
else
	pass "count_mix's count build has no record sequence (no __wpp_cursor, no __wpp_flush)"
fi
# The hash (behind its path cache) was used where a function has too many
# paths for an array, and never through a lazily bound PLT entry: its
# preserve_most callers keep values in registers the resolver clobbers
# (r10: xz decoded garbage).
if objdump -d "$WORK/count_mix/count/prog" | grep -qE "call.*<__wpp_count_(hash|cache_miss)@plt>"; then
	fail "count_mix calls __wpp_count_hash or __wpp_count_cache_miss through the PLT"
elif nm "$WORK/count_mix/count/prog" | grep -q " U __wpp_count_cache_miss"; then
	pass "count_mix counts its 2^31-path function in a path cache and the hash (through the GOT)"
else
	fail "count_mix does not call __wpp_count_cache_miss"
fi

# A shared library in count mode under a paths-mode main program (modes mix
# per TU), against the all-paths build.
d=$WORK/mixed
mkdir -p "$d/p" "$d/m"
for v in p m; do
	lmode=paths
	[ $v = m ] && lmode=count
	"$WPPCC" -O2 -g -I"$CORPUS" -fwpp-mode=$lmode -shared -fPIC -o "$d/$v/libcorpusshared.so" \
		"$CORPUS/shlib_lib.c" &&
		"$WPPCC" -O2 -g -I"$CORPUS" -o "$d/$v/prog" "$CORPUS/shlib_main.c" -L"$d/$v" \
			-lcorpusshared -Wl,-rpath,"$d/$v" || fail "mixed: $v build"
	(cd "$d/$v" && "$WPPTRACE" record -q -o run.wpp -- ./prog >run.out 2>&1) || fail "mixed: $v record"
	paths_of "$d/$v/run.wpp"
done
if cmp -s "$d/p/run.paths" "$d/m/run.paths" && [ -s "$d/p/run.paths" ]; then
	pass "a count-mode library under a paths-mode program: same profile as all paths"
else
	fail "mixed modes: $(diff "$d/p/run.paths" "$d/m/run.paths" | sed -n 2p)"
fi

# -O0, the static runtime, and every function counted through the hash
# (WPP_COUNT_ARRAY_MAX_PATHS=0: no array ranges at all) behind a path
# cache of the default size, of 2 pairs (most paths lose their pair to
# another: the hash behind it counts them) and of none (the plain hash
# probe).
for variant in O0:-O0:1: static:-fwpp-static-rt:1: allhash:-O2:0: allhash-2pairs:-O2:0:2 \
	allhash-nocache:-O2:0:0; do
	IFS=: read -r tag flag arrays pairs <<<"$variant"
	d=$WORK/variant-$tag
	mkdir -p "$d"
	for mode in paths count; do
		max=
		[ "$arrays" = 0 ] && [ $mode = count ] && max=0
		WPP_COUNT_ARRAY_MAX_PATHS=$max WPP_COUNT_CACHE_PAIRS=$pairs "$WPPCC" $flag -g -pthread \
			-I"$CORPUS" -fwpp-mode=$mode -o "$d/$mode" "$COUNT_SRC/count_mix.c" ||
			fail "$tag: $mode build"
		(cd "$d" && "$WPPTRACE" record -q -o $mode.wpp -- ./$mode >$mode.out 2>&1) ||
			fail "$tag: $mode record"
		paths_of "$d/$mode.wpp"
	done
	if cmp -s "$d/paths.paths" "$d/count.paths" && [ -s "$d/paths.paths" ]; then
		pass "$tag: count_mix has the same profile in both modes"
	else
		fail "$tag: profiles differ: $(diff "$d/paths.paths" "$d/count.paths" | sed -n 2p)"
	fi
done

# The count-based commands read a count recording as they read a trace.
d=$WORK/interp
"$WPPTRACE" edges -q "$d/p-shm.wpp" -o "$d/p.edges" && "$WPPTRACE" edges -q "$d/c-shm.wpp" -o "$d/c.edges"
# (but the "# from FILE" comment)
if cmp -s <(grep -v '^# from' "$d/p.edges") <(grep -v '^# from' "$d/c.edges") && [ -s "$d/p.edges" ]; then
	pass "edges: the same edge profile from both recordings"
else
	fail "edges: the edge profiles differ"
fi
# report, annotate and cfg print the same for both (but the file name).
for cmd in report "annotate run" "cfg run"; do
	read -r sub arg <<<"$cmd"
	for r in p c; do
		# shellcheck disable=SC2086
		"$WPPTRACE" $sub "$d/$r-shm.wpp" $arg 2>"$d/$r.cmd.err" |
			sed "s|$r-shm\.wpp|X.wpp|g" >"$d/$r.cmd.out"
	done
	if [ -s "$d/c.cmd.out" ] && cmp -s "$d/p.cmd.out" "$d/c.cmd.out"; then
		pass "${cmd%% *} prints the same for the count recording"
	else
		fail "${cmd%% *} on a count recording: $(head -1 "$d/c.cmd.err") $(diff "$d/p.cmd.out" "$d/c.cmd.out" | sed -n 2p)"
	fi
done
if "$WPPTRACE" export "$d/c-shm.wpp" --format pprof -o "$d/c.pb.gz" 2>"$d/export.err" &&
	[ -s "$d/c.pb.gz" ]; then
	pass "export reads a count recording"
else
	fail "export on a count recording: $(head -1 "$d/export.err")"
fi

# Commands that need the order refuse, in one line, exit 1.
for cmd in wpp hot kpaths script; do
	"$WPPTRACE" $cmd "$d/c-shm.wpp" >/dev/null 2>"$d/refuse.err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$d/refuse.err")" -eq 1 ] &&
		grep -q "fwpp-mode=count" "$d/refuse.err"; then
		pass "$cmd refuses: $(cut -c1-80 "$d/refuse.err")..."
	else
		fail "$cmd on a count recording: rc=$rc, $(head -1 "$d/refuse.err")"
	fi
	"$WPPTRACE" $cmd "$d/p-shm.wpp" >/dev/null 2>&1 || fail "$cmd fails on the paths recording"
done

# Live counts (user/bpfcollect/count_snapshot.c through count_peek): a
# count build of count_phases pauses after phase A and after phase B while
# recorded; the snapshot at the first pause must hold exactly phase A's
# paths of alpha and shared (one thread's counts in a block of its own, the
# helper's in another), and the delta to the second exactly phase B's
# (beta, beta_wide through the hash, beta_sparse in a sparse array range,
# shared), each against paths-mode recordings of runs that stop after A
# (`a`) and after B (`b`); the recording of the paused run must still hold
# every count.
PEEK=$ROOT/build/tests/e2e/count_peek
d=$WORK/live
mkdir -p "$d"
fns_of() { # FILE.wpp FUNCTION... -> "function path count" lines, sorted
	local f=$1
	shift
	"$WPPTRACE" paths --format json "$f" | python3 -c '
import json, sys
keep = set(sys.argv[1:])
rows = json.load(sys.stdin)["paths"]
for r in sorted((r["function"], r["path"], r["count"]) for r in rows if r["function"] in keep):
    print(*r)' "$@"
}
# only "F..." : the lines of those functions (both sides come sorted by function, then path)
only() { awk -v f="$1" 'BEGIN { n = split(f, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 } $1 in want'; }
if [ ! -x "$PEEK" ]; then
	fail "live: $PEEK not built (make $PEEK)"
elif "$WPPCC" -O2 -g -pthread -o "$d/paths" "$COUNT_SRC/count_phases.c" &&
	"$WPPCC" -O2 -g -pthread -fwpp-mode=count -o "$d/count" "$COUNT_SRC/count_phases.c"; then
	(cd "$d" && "$WPPTRACE" record -q -o a.wpp -- ./paths a >a.out &&
		"$WPPTRACE" record -q -o b.wpp -- ./paths b >b.out) || fail "live: paths records"
	fns_of "$d/a.wpp" alpha shared >"$d/want1"
	python3 - "$WPPTRACE" "$d/a.wpp" "$d/b.wpp" >"$d/want2" <<'PY' || fail "live: oracle"
import json, subprocess, sys
def prof(f):
    out = subprocess.run([sys.argv[1], "paths", "--format", "json", f], capture_output=True, text=True).stdout
    return {(r["function"], r["path"]): r["count"] for r in json.loads(out)["paths"]
            if r["function"] in ("beta", "beta_wide", "beta_sparse", "shared")}
a, b = prof(sys.argv[2]), prof(sys.argv[3])
for k in sorted(b):
    if b[k] - a.get(k, 0):
        print(k[0], k[1], b[k] - a.get(k, 0))
PY
	rm -f "$d/in"
	mkfifo -m 600 "$d/in"
	(cd "$d" && exec "$WPPTRACE" record -q -o live.wpp -- ./count p <in >live.out 2>live.err) &
	rec=$!
	exec 7>"$d/in"
	peek_snap() { # -> the snapshot's lines, until "end"
		echo snap >&"$peek_in" || return 1
		while IFS= read -r -t 60 line <&"$peek_out"; do
			[ "${line%% *}" = end ] && return 0
			echo "$line"
		done
		return 1
	}
	wait_line() { wait_until "$2" grep -q "^$1" "$d/live.out"; }
	if wait_line "paused 1" "the first pause"; then
		pid=$(sed -n 's/^paused 1 //p' "$d/live.out")
		coproc PEEK_IO { "$PEEK" "$pid"; }
		# plain copies: the array goes away if the reader dies
		peek_in=${PEEK_IO[1]} peek_out=${PEEK_IO[0]}
		peek_snap >"$d/snap1" || fail "live: first snapshot"
		echo go >&7
		wait_line "paused 2" "the second pause" && { peek_snap >"$d/snap2" || fail "live: second snapshot"; }
		echo go >&7
		exec {peek_in}>&-
	fi
	exec 7>&-
	wait $rec || fail "live: the recording failed: $(head -1 "$d/live.err")"
	if only "alpha shared" <"$d/snap1" | cmp -s - "$d/want1" && [ -s "$d/want1" ]; then
		pass "live snapshot after phase A: every path of alpha and shared, every count"
	else
		fail "live snapshot 1: $(only "alpha shared" <"$d/snap1" | diff - "$d/want1" | sed -n 2p)"
	fi
	if only "beta beta_wide beta_sparse shared" <"$d/snap2" | cmp -s - "$d/want2" &&
		[ -s "$d/want2" ] && grep -q "^beta_sparse " "$d/want2"; then
		pass "live delta over phase B: beta, beta_wide (hash), beta_sparse (sparse array) and shared, every count"
	else
		fail "live delta 2: $(only "beta beta_wide beta_sparse shared" <"$d/snap2" | diff - "$d/want2" | sed -n 2p)"
	fi
	if [ "$(fns_of "$d/live.wpp" alpha beta beta_wide beta_sparse shared)" = "$(fns_of "$d/b.wpp" alpha beta beta_wide beta_sparse shared)" ]; then
		pass "the paused, snapshotted run still records every count"
	else
		fail "live: the recording of the paused run differs from the paths build's"
	fi
else
	fail "live: count_phases builds"
fi

# wpptrace top on the same program, not recorded: intervals while it waits
# after phase A are empty; summed over the intervals after it is let go
# (until it exits, and top with it), the paths of phase B's functions are
# exactly phase B's (the phase may straddle two intervals), and the first
# interval with paths has one of them among its hottest (main's loop runs
# as often as beta).
d=$WORK/top
mkdir -p "$d"
if [ -x "$WORK/live/count" ] && [ -s "$WORK/live/want2" ]; then
	rm -f "$d/in"
	mkfifo -m 600 "$d/in"
	(cd "$d" && exec "$WORK/live/count" p <in >prog.out 2>&1) &
	prog=$!
	exec 7>"$d/in"
	if wait_until "the pause before phase B" grep -q "^paused 1" "$d/prog.out"; then
		pid=$(sed -n 's/^paused 1 //p' "$d/prog.out")
		# top's output through a fifo: it exits with the program, and a
		# coproc's descriptors would go with it
		rm -f "$d/top.fifo"
		mkfifo -m 600 "$d/top.fifo"
		"$WPPTRACE" top -p "$pid" -d 0.2 --top 100000 --format json >"$d/top.fifo" 2>"$d/top.err" &
		topjob=$!
		exec 8<"$d/top.fifo"
		IFS= read -r -t 60 i1 <&8 && IFS= read -r -t 60 i2 <&8
		echo go >&7
		wait_until "the pause after phase B" grep -q "^paused 2" "$d/prog.out"
		# Phase B's counts leave memory when the program exits, so top
		# must read them while it waits: take the intervals printed so
		# far, then two more (the second began after the pause for
		# sure), then let it exit: top ends with it.
		: >"$d/after"
		while read -r -t 0 <&8 && IFS= read -r -t 60 line <&8; do
			echo "$line" >>"$d/after"
		done
		for _ in 1 2; do
			IFS= read -r -t 60 line <&8 && echo "$line" >>"$d/after" ||
				fail "top: no interval after phase B"
		done
		echo go >&7
		while IFS= read -r -t 60 line <&8; do
			echo "$line" >>"$d/after"
		done
		exec 8<&-
		wait $topjob
		echo "${i1:-}" >"$d/before"
		echo "${i2:-}" >>"$d/before"
		if python3 - "$d/before" "$d/after" "$WORK/live/want2" <<'PY'; then
import json, sys
before = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
after = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
assert len(before) == 2 and all(i["total"] == 0 for i in before), "intervals before B not empty"
got = {}
hot = None
for i in after:
    for p in i["paths"]:
        k = (p["function"], p["path"])
        got[k] = got.get(k, 0) + p["count"]
    if i["paths"] and hot is None:  # the hottest (ties included)
        hot = {p["function"] for p in i["paths"] if p["count"] == i["paths"][0]["count"]}
want = {}
for l in open(sys.argv[3]):
    f, p, c = l.split()
    want[(f, int(p))] = int(c)
mine = {k: v for k, v in got.items() if k[0] in ("beta", "beta_wide", "beta_sparse", "shared")}
assert mine == want, "phase B paths differ"
assert hot & {"beta", "beta_wide", "beta_sparse", "shared"}, "hottest paths in %s" % hot
PY
			pass "top: nothing while waiting, then exactly phase B's paths, $(sed -n 's/.*(\(.*\) of one CPU)/\1/p' "$d/top.err" | head -1) own CPU"
		else
			fail "top: intervals do not show phase B as expected (see $d)"
		fi
	fi
	exec 7>&-
	wait $prog
	grep -q "own CPU" "$d/top.err" || fail "top: no own-CPU line: $(head -1 "$d/top.err")"
else
	fail "top: needs the live section's build"
fi
if "$WPPTRACE" top -a -n 2 -d 0.1 --format json >"$d/all.out" 2>"$d/all.err" &&
	[ "$(grep -c '^{"interval":[12],' "$d/all.out")" -eq 2 ]; then
	pass "top -a: two intervals, $(sed -n 's/.*(\(.*\) of one CPU)/\1/p' "$d/all.err") own CPU"
else
	fail "top -a: $(head -1 "$d/all.err")"
fi
# SIGINT ends top -a after its interval: exit 0, the own-CPU line printed.
"$WPPTRACE" top -a -d 0.1 --format json >"$d/int.out" 2>"$d/int.err" &
topjob=$!
if wait_until "top -a's first interval" grep -q '^{"interval":1,' "$d/int.out"; then
	kill -INT $topjob
	wait $topjob
	rc=$?
	[ $rc -eq 0 ] && grep -q "own CPU" "$d/int.err" && pass "top -a ends on SIGINT: status 0, $(cat "$d/int.err")" ||
		fail "top -a on SIGINT: rc=$rc, $(head -1 "$d/int.err")"
else
	kill $topjob 2>/dev/null
	wait $topjob
fi
"$WPPTRACE" top -p 999999999 >/dev/null 2>"$d/bad.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$d/bad.err")" -eq 1 ] && pass "top on no such process: $(cat "$d/bad.err")" ||
	fail "top on no such process: rc=$rc, $(head -1 "$d/bad.err")"

# Counting writes far fewer words than tracing.
s_p=$(stat -c %s "$WORK/count_mix/p-shm.wpp") s_c=$(stat -c %s "$WORK/count_mix/c-shm.wpp")
[ "$s_c" -lt "$s_p" ] && pass "count_mix recording: $s_p bytes traced, $s_c bytes counted" ||
	fail "count recording not smaller ($s_c vs $s_p bytes)"

# The TU's array budget (WPP_COUNT_TU_MAX_SLOTS, 2^30 counters): three
# functions of 2^29 paths each, in order: two take array ranges, the third
# would take the TU past the budget and counts in the hash.
d=$WORK/budget
mkdir -p "$d"
{
	for f in one two three; do
		echo "volatile unsigned acc_$f;"
		echo "void $f(unsigned x);"
		echo "void $f(unsigned x) {"
		for ((i = 0; i < 29; i++)); do echo "  if (x & (1u << $i)) acc_$f += $i;"; done
		echo "}"
	done
	echo "int main(int argc, char **argv) { (void)argv; one(argc); two(argc); three(argc); return 0; }"
} >"$d/budget.c"
if "$WPPCC" -O2 -fwpp-mode=count --wpp-stats="$d/stats" -o "$d/count" "$d/budget.c" &&
	"$WPPCC" -O2 -o "$d/paths" "$d/budget.c" &&
	[ "$(awk '$2 ~ /^(one|two|three)$/ { print $2, $3, $(NF - 1) }' "$d/stats" | tr '\n' ' ')" = \
		"one paths=536870912 counting=array two paths=536870912 counting=array three paths=536870912 counting=hash " ] &&
	(cd "$d" && "$WPPTRACE" record -q -o count.wpp -- ./count 1 2 3 &&
		"$WPPTRACE" record -q -o paths.wpp -- ./paths 1 2 3) &&
	paths_of "$d/count.wpp" && paths_of "$d/paths.wpp" && [ -s "$d/paths.paths" ] &&
	cmp -s "$d/count.paths" "$d/paths.paths"; then
	pass "TU budget: two 2^29-path functions in arrays, the third in the hash, counts as traced"
else
	fail "TU budget: $(grep -E ' (one|two|three) ' "$d/stats" | tr '\n' ';') $(diff "$d/count.paths" "$d/paths.paths" 2>&1 | sed -n 2p)"
fi
finish
