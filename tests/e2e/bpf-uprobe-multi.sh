#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-uprobe-multi — both ways the BPF transport attaches its probes record
# the same trace: one uprobe_multi link per object (the default where the
# kernel has them; the probes' arguments come from the link's cookies) and
# a libbpf USDT link per probe (WPP_BPF_UPROBE_MULTI=0, what a kernel
# without uprobe_multi gets; the programs then load the ordinary libbpf
# way).  Where the kernel has them, a third way: the programs loaded by
# their generated loader and every object refused the multi link
# (WPP_BPF_UPROBE_MULTI=per-object, what an object whose probe sites cannot
# be described gets), so the per-probe programs load late, in a second
# object sharing the first one's maps.  Each is compared with the shm transport's
# recording of the same deterministic run (an independent path from probe
# to file): threads' batches (the batch probe), TU registration (the
# register probe: every path attributed) and words salvaged from threads
# killed with them unpublished (the thread probe's positions), and the
# counters' probes (-e: threads registered, per-batch counts).  -v says
# which way each object was attached.
. "$(dirname "$0")/bpf-lib.sh"

build mtwork "$PROGS/mtwork.c" || finish
build unflushed "$PROGS/unflushed.c" || finish

if [ -n "$(grep -m1 -o ' bpf_uprobe_multi_link_attach$' /proc/kallsyms 2>/dev/null)" ]; then
	modes="multi single perobject"
else
	# A kernel without them must fall back, and say so.
	modes="nomulti single"
fi

# mode_env MODE: the environment that asks for MODE (one word).
mode_env() {
	case $1 in
	single) echo WPP_BPF_UPROBE_MULTI=0 ;;
	perobject) echo WPP_BPF_UPROBE_MULTI=per-object ;;
	*) echo WPP_BPF_UPROBE_MULTI= ;;
	esac
}

# record_mode MODE NAME PROG [ARG...]: PROG through BPF attached MODE's
# way, with -v, into NAME-MODE.wpp (+ .err, .jsonl); 1 if record failed.
record_mode() {
	local mode=$1 name=$2 env
	shift 2
	env=$(mode_env $mode)
	(cd "$WORK" && run_bounded "wpptrace at line $LINENO" env $env "$WPPTRACE" -v record -o $name-$mode.wpp -- "$@" \
		>$name-$mode.out 2>$name-$mode.err)
	local got=$?
	[ $got -eq "${WANT_RC:-0}" ] ||
		{ fail "$name ($mode): record exited $got: $(tail -3 "$WORK/$name-$mode.err")"; return 1; }
	jsonl "$WORK/$name-$mode.wpp"
}

# attached_how MODE NAME: the -v lines saying how libwpprt was attached
# match the mode.
attached_how() {
	local want
	case $1 in
	multi) want='attached to .*libwpprt.* (one uprobe_multi link)' ;;
	*) want='attached to .*libwpprt.* (a uprobe link per probe)' ;;
	esac
	if grep -q "$want" "$WORK/$2-$1.err"; then
		pass "$2 ($1): -v says: $(grep -o 'attached to .*' "$WORK/$2-$1.err" | head -1 | sed 's|/.*/||')"
	else
		fail "$2 ($1): no -v line matching '$want': $(grep 'bpf:' "$WORK/$2-$1.err" | head -3)"
	fi
	if [ "$1" = nomulti ]; then
		grep -q "no uprobe_multi links on this kernel" "$WORK/$2-$1.err" &&
			pass "$2: -v says the kernel has no uprobe_multi links" ||
			fail "$2: the fallback is not explained"
	fi
	# How the programs were loaded: by their generated loader wherever
	# the multi program is used, the ordinary way otherwise.
	local loader=no late=no
	grep -q "programs loaded by their generated loader" "$WORK/$2-$1.err" && loader=yes
	grep -q "per-probe programs loaded for an object without a uprobe_multi link" \
		"$WORK/$2-$1.err" && late=yes
	case $1:$loader:$late in
	multi:yes:no | perobject:yes:yes | single:no:no | nomulti:no:no)
		pass "$2 ($1): generated loader $loader, per-probe programs loaded late $late" ;;
	*) fail "$2 ($1): generated loader $loader, per-probe programs loaded late $late" ;;
	esac
}

(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm -o mt-shm.wpp -- ./mtwork 4 3000 >/dev/null) ||
	fail "mtwork: shm record failed"
jsonl "$WORK/mt-shm.wpp"
for mode in $modes; do
	record_mode $mode mt ./mtwork 4 3000 || continue
	attached_how $mode mt
	if out=$($CMP same "$WORK/mt-shm.jsonl" "$WORK/mt-$mode.jsonl"); then
		pass "mtwork 4 threads ($mode): $out"
	else
		fail "mtwork 4 threads ($mode): $out"
	fi
done

# Killed threads: their words are salvaged through the positions the thread
# probe registered.
(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm -o kill-shm.wpp -- ./unflushed kill 2 \
	>/dev/null 2>&1)
jsonl "$WORK/kill-shm.wpp"
for mode in $modes; do
	WANT_RC=137 record_mode $mode kill ./unflushed kill 2 || continue
	salvaged=$(grep -o "[0-9]* events in [0-9]* batches salvaged" "$WORK/kill-$mode.err")
	if out=$($CMP same "$WORK/kill-shm.jsonl" "$WORK/kill-$mode.jsonl") && [ -n "$salvaged" ]; then
		pass "unflushed kill 2 ($mode): $out; $salvaged"
	else
		fail "unflushed kill 2 ($mode): $out; salvage reported: ${salvaged:-none}"
	fi
done
# The counters' programs (-e) go the same way as the transport's: their
# thread probe registers every thread's position (samples are placed in
# the stream) and their batch probe counts each thread's last batch.
for mode in $modes; do
	env=$(mode_env $mode)
	(cd "$WORK" && run_bounded "wpptrace at line $LINENO" env $env "$WPPTRACE" record -e cpu-clock -o e-$mode.wpp -- ./mtwork 4 3000 \
		>/dev/null 2>e-$mode.err) || { fail "-e ($mode): record failed"; continue; }
	# A sample that lands in the few instructions of a buffer switch has
	# no position by design (docs/counters.md); a missing thread probe
	# would leave most samples without one, so allow at most 1 %.
	line=$(grep -o "counters: [0-9]* samples ([0-9]* without a stream position), [0-9]* per-batch counts, [0-9]* threads registered" "$WORK/e-$mode.err")
	set -- $(echo "$line" | sed 's/[^0-9 ]//g')
	if [ -n "$line" ] && [ "$1" -gt 0 ] && [ $(($2 * 100)) -le "$1" ] &&
		echo "$line" | grep -q " 5 per-batch counts, 5 threads registered"; then
		pass "-e ($mode): $line"
	else
		fail "-e ($mode): want samples placed (at most 1 % in a buffer switch), 5 threads registered and counted: $(grep counters: "$WORK/e-$mode.err")"
	fi
done
finish
