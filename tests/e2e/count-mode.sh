#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# count-mode — counting mode (wppcc -fwpp-mode=count, issue 26) against
# tracing as the oracle: each deterministic program is built once with
# paths mode and once with count mode, both are recorded through shm and
# through BPF, and `wpptrace paths` (every path, every count) and the
# program's output must be the same for all four recordings.  The corpus
# programs plus tests/e2e/count/count_mix.c (a 4096-path function counted
# in the runtime's hash, threads leaving through return and pthread_exit,
# a signal handler, a fork child that must not count its parent's paths
# again) cover threads, fork, exec, vfork, signals, longjmp and a shared
# library.  Also: a program mixing a count TU and a paths TU; -O0 and the
# static runtime; the edge profile (`edges`) equal to the paths build's;
# report/annotate/cfg/export read a count recording; wpp, hot, kpaths and
# script refuse it in one line.
. "$(dirname "$0")/bpf-lib.sh"
COUNT_SRC=$ROOT/tests/e2e/count

# paths_of FILE.wpp: the path profile without its title line (file name).
paths_of() { "$WPPTRACE" paths "$1" 2>"${1%.wpp}.paths.err" | tail -n +2 >"${1%.wpp}.paths"; }

# record TAG DIR ARGS...: record ./prog in DIR through shm and BPF into
# DIR/TAG-{shm,bpf}.wpp (+ .out, .paths); 1 if either failed (said).
record() {
	local tag=$1 dir=$2 t
	shift 2
	for t in shm bpf; do
		if ! (cd "$dir" && "$WPPTRACE" record -q --transport=$t -o "$tag-$t.wpp" -- ./prog "$@" \
			>"$tag-$t.out" 2>"$tag-$t.err"); then
			fail "$(basename "$dir") $tag: $t record failed: $(head -1 "$dir/$tag-$t.err")"
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

# build_mode DIR MODE SOURCE [FLAGS...]: wppcc -O2 in MODE into DIR/prog.
build_mode() {
	local dir=$1 mode=$2 src=$3
	shift 3
	"$WPPCC" -O2 -g -pthread -I"$CORPUS" -fwpp-mode=$mode "$@" -o "$dir/prog" "$src" \
		>"$dir/build-$mode.log" 2>&1 ||
		{ fail "$(basename "$dir"): $mode build: $(head -1 "$dir/build-$mode.log")"; return 1; }
}

# run_pair NAME SOURCE [ARGS...]: the four recordings of one program.
run_pair() {
	local name=$1 src=$2 dir=$WORK/$1 mode
	shift 2
	mkdir -p "$dir"
	for mode in paths count; do
		build_mode "$dir" $mode "$src" || return 1
		# exec and vfork run ./recursion from their directory: same mode
		if [ "$name" = exec ] || [ "$name" = vfork ]; then
			"$WPPCC" -O2 -g -I"$CORPUS" -fwpp-mode=$mode -o "$dir/recursion" \
				"$CORPUS/recursion.c" || { fail "$name: recursion build"; return 1; }
		fi
		record "${mode:0:1}" "$dir" "$@" || return 1
	done
	same_profiles "$name" "$dir"
}

for spec in branches: switches: computed_goto: noreturn: longjmp: variadic: recursion:12 \
	inline_asm: callbacks: wide_paths: interp: threads: fork: exec: vfork: signals:; do
	name=${spec%%:*} args=${spec#*:}
	run_pair "$name" "$CORPUS/$name.c" $args
done
run_pair count_mix "$COUNT_SRC/count_mix.c"

# The hash was used where a function has too many paths for an array.
if nm "$WORK/count_mix/prog" | grep -q " U __wpp_count_hash"; then
	pass "count_mix counts its 4096-path function in the runtime's hash"
else
	fail "count_mix does not call __wpp_count_hash"
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

# -O0, and the static runtime.
for variant in O0:-O0 static:-fwpp-static-rt; do
	tag=${variant%%:*} flag=${variant#*:}
	d=$WORK/variant-$tag
	mkdir -p "$d"
	for mode in paths count; do
		"$WPPCC" $flag -g -pthread -fwpp-mode=$mode -o "$d/$mode" "$COUNT_SRC/count_mix.c" ||
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
if cmp -s "$d/p.edges" "$d/c.edges" && [ -s "$d/p.edges" ]; then
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

# Counting writes far fewer words than tracing.
s_p=$(stat -c %s "$WORK/count_mix/p-shm.wpp") s_c=$(stat -c %s "$WORK/count_mix/c-shm.wpp")
[ "$s_c" -lt "$s_p" ] && pass "count_mix recording: $s_p bytes traced, $s_c bytes counted" ||
	fail "count recording not smaller ($s_c vs $s_p bytes)"
finish
