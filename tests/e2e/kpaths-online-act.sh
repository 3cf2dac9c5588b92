#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kpaths-online-act.sh — the per-activation online k-path consumer
# (kslab_online.h with the metadata kinds of kipf_kinds_live.h) on real
# traces: build_dir/tests/kslab/replay_online_act tells it every PROCESS and
# MODULE record of a recorded .wpp, as the collector does while writing
# them, feeds it each thread's words and gaps in execution order, and
# checks every thread's stored forest against the offline per-activation
# forest of the same file, every k-path and count, at k = 1, 4 and 16, on
# programs with loops, recursion, threads, callbacks, signal handlers,
# longjmp, a fork and a shared library.
. "$(dirname "$0")/kpaths-lib.sh"
REPLAY=$ROOT/build/tests/kslab/replay_online_act
[ -x "$REPLAY" ] || { echo "FAIL: $REPLAY missing (make test builds it)"; exit 1; }

runs=(interp "recursion 12" threads callbacks signals longjmp fork)
for run in "${runs[@]}"; do
	set -- $run
	name=$1
	shift
	record "$name" "$@" || continue
	for k in 1 4 16; do
		if out=$("$REPLAY" "$WORK/$name.wpp" $k 2>&1); then
			ok "$name k = $k: $(printf '%s\n' "$out" | grep -c '^same') threads identical," \
				"$(printf '%s\n' "$out" | head -1 | sed 's/.*: //')"
		else
			fail "$name k = $k: $out"
		fi
	done
	rm -f "$WORK/$name.wpp"
done
finish
