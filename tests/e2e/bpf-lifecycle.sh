#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-lifecycle — fork and exec are followed: the corpus fork and exec
# programs decode through BPF exactly as through shm (every process image,
# every thread), and the process structure (forked, exec'd) is the same.
. "$(dirname "$0")/bpf-lib.sh"

build fork "$CORPUS/fork.c" || finish
build exec "$CORPUS/exec.c" || finish
build recursion "$CORPUS/recursion.c" || finish

for prog in fork exec; do
	(cd "$WORK" && "$WPPTRACE" record -q --transport=shm -o $prog-shm.wpp -- ./$prog >$prog-shm.out) ||
		fail "$prog: shm record failed"
	(cd "$WORK" && "$WPPTRACE" record -q -o $prog-bpf.wpp -- ./$prog >$prog-bpf.out 2>$prog-bpf.err) ||
		fail "$prog: bpf record failed: $(cat "$WORK/$prog-bpf.err")"
	jsonl "$WORK/$prog-shm.wpp"
	jsonl "$WORK/$prog-bpf.wpp"
	if out=$($CMP same "$WORK/$prog-shm.jsonl" "$WORK/$prog-bpf.jsonl"); then
		pass "$prog: $out"
	else
		fail "$prog: $out"
	fi
	shape() { info "$1" | awk '/^  pid /{n++} /forked by/{f++} /image [0-9]/{e++} END{printf "%d processes, %d forked, %d exec images\n", n, f, e}'; }
	s=$(shape "$WORK/$prog-shm.wpp")
	b=$(shape "$WORK/$prog-bpf.wpp")
	case $b in
	"0 processes"*) fail "$prog: wpptrace info lists no processes" ;;
	"$s") pass "$prog: same process structure ($b)" ;;
	*) fail "$prog: shm $s, bpf $b" ;;
	esac
done
finish
