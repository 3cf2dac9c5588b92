#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-identity — the same deterministic multi-threaded programs recorded
# through BPF (default settings) and through shm decode to identical block
# sequences per thread (threads matched by content), with no loss; so do
# BPF recordings with a small batch size (--buffer-words, passed to the
# program's runtime), which must show in the batch count.
. "$(dirname "$0")/bpf-lib.sh"

build mtwork "$PROGS/mtwork.c" || finish
build threads "$CORPUS/threads.c" || finish
build signals "$CORPUS/signals.c" || finish

# check NAME [BPF-OPTIONS --] PROGRAM ARGS...
check() {
	local name=$1 bpf_opts=()
	shift
	if [ "${1:-}" != "${1#--}" ]; then
		while [ "$1" != -- ]; do bpf_opts+=("$1") && shift; done
		shift
	fi
	(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm -o "$name-shm.wpp" -- "$@" >"$name-shm.out") ||
		{ fail "$name: shm record failed"; return; }
	(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q ${bpf_opts[@]+"${bpf_opts[@]}"} -o "$name-bpf.wpp" -- "$@" \
		>"$name-bpf.out" 2>"$name-bpf.err") ||
		{ fail "$name: bpf record failed: $(head -3 "$WORK/$name-bpf.err")"; return; }
	cmp -s "$WORK/$name-shm.out" "$WORK/$name-bpf.out" || fail "$name: program output differs"
	if grep -q "lost" "$WORK/$name-bpf.err"; then
		fail "$name: loss at default settings: $(grep lost "$WORK/$name-bpf.err")"
		return
	fi
	jsonl "$WORK/$name-shm.wpp" && jsonl "$WORK/$name-bpf.wpp" || { fail "$name: decode failed"; return; }
	if out=$($CMP same "$WORK/$name-shm.jsonl" "$WORK/$name-bpf.jsonl"); then
		pass "$name: $out"
	else
		fail "$name: $out"
	fi
}

check mtwork ./mtwork 8 200000
check threads ./threads
check signals ./signals
check threads-b64 --transport=bpf --buffer-words 64 -- ./threads
# A 64-word batch holds at most 64 trace words, so the run needs at least
# words/64 batches; with the default (thousands of words) every thread of
# this small program fits one batch.  Compare with the words actually
# written: loop runs make the count of words, not of paths, what decides.
info_field() { info "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
b64=$(info_field "$WORK/threads-b64-bpf.wpp" batches) w64=$(info_field "$WORK/threads-b64-bpf.wpp" words)
b8k=$(info_field "$WORK/threads-bpf.wpp" batches)
if [ -n "$b64" ] && [ -n "$w64" ] && [ -n "$b8k" ] && [ "$w64" -gt 0 ] &&
	[ $((b64 * 64)) -ge "$w64" ] && [ "$b64" -gt "$b8k" ] && [ $((b8k * 64)) -lt "$w64" ]; then
	pass "--buffer-words 64 reaches the program: $b64 batches for $w64 words (default: $b8k)"
else
	fail "--buffer-words 64 did not set the batch size: $b64 batches for $w64 words (default: $b8k)"
fi

# The comparison must be able to fail: a different workload is not "same".
(cd "$WORK" && "$WPPTRACE" record -q -o other.wpp -- ./mtwork 8 200001 >/dev/null) && jsonl "$WORK/other.wpp"
if $CMP same "$WORK/mtwork-shm.jsonl" "$WORK/other.jsonl" >/dev/null; then
	fail "trace_cmp accepted traces of different runs"
else
	pass "trace_cmp rejects a different run"
fi
finish
