#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-exec-static — a program with the runtime linked statically, exec'd by
# a traced process, is recorded from its first batch: the exec program holds
# the new image until the collector has attached to it (wpp_brec_exec.held).
# 16-word buffers (WPP_BUFFER_WORDS; --buffer-words for shm) make the exec'd
# program publish right away, so a late attachment misses batches (the
# collector before the hold lost the whole image in about half the runs).
# The shm transport is the reference.
. "$(dirname "$0")/bpf-lib.sh"

build exec "$CORPUS/exec.c" || finish
build recursion "$CORPUS/recursion.c" -fwpp-static-rt || finish
if ldd "$WORK/recursion" | grep -q libwpprt; then
	fail "recursion links libwpprt.so: the static runtime was not used"
	finish
fi

(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm --buffer-words 16 -o shm.wpp -- ./exec >shm.out) ||
	fail "shm record failed"
(cd "$WORK" && WPP_BUFFER_WORDS=16 run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q -o bpf.wpp -- ./exec >bpf.out 2>bpf.err) ||
	fail "bpf record failed: $(cat "$WORK/bpf.err")"
cmp -s "$WORK/shm.out" "$WORK/bpf.out" && pass "program output unchanged" || fail "program output differs"

# batches of the exec'd image (the second process entry of `info`)
image_batches() { info "$1" | awk '/^  pid .*recursion$/ { want = 1; next } want && /batches/ {
	for (i = 1; i < NF; i++) if ($i == "batches") { sub(/,$/, "", $(i + 1)); print $(i + 1); exit } }'; }
s=$(image_batches "$WORK/shm.wpp")
b=$(image_batches "$WORK/bpf.wpp")
if ! [ "$s" -ge 10 ] 2>/dev/null; then
	fail "the reference has ${s:-no} batches for the exec'd image (expected many with 16-word buffers)"
elif [ "$b" = "$s" ]; then
	pass "exec'd static-runtime image: all $b batches recorded"
else
	fail "exec'd static-runtime image: $b of $s batches recorded"
fi
# Each image under its own executable's name, however late the collector
# read the exec records (it once named the first image after the second).
names=$(info "$WORK/bpf.wpp" | sed -n 's|^  pid [0-9]*\( (image [0-9]*)\)\{0,1\}  ppid [0-9]*  .*/||p' | tr '\n' ' ')
[ "$names" = "exec recursion " ] && pass "images named exec, recursion" ||
	fail "images named '$names', not 'exec recursion '"
[ "$(lost_words "$WORK/bpf.wpp")" = 0 ] && pass "nothing lost" || fail "lost $(lost_words "$WORK/bpf.wpp") events"
jsonl "$WORK/shm.wpp"
jsonl "$WORK/bpf.wpp"
if out=$($CMP same "$WORK/shm.jsonl" "$WORK/bpf.jsonl"); then
	pass "traces identical: $out"
else
	fail "$out"
fi
finish
