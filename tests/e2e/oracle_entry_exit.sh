#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Function entry/exit oracle: every corpus program is built with
# `wppcc -finstrument-functions-after-inlining` (clang inserts
# __cyg_profile_func_enter/exit in codegen, after our pass, on the same IR)
# and linked with tests/oracle/cyg_recorder.c (uninstrumented).  In one
# recorded run, the entry/exit events derived from the decoded trace (paths
# starting at function entry / ending at a return) must equal, per thread,
# the recorder's log.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"

for opt in ${ORACLE_OPTS:-O0 O2}; do
	build_variant "cyg-$opt"
	for name in ${ORACLE_PROGRAMS:-$(corpus_names)}; do
		corpus_flag "$name" no-cyg && { echo "skip: entry/exit $opt $name (no-cyg in the manifest)"; continue; }
		check_done
		what="entry/exit $opt $name"
		[ -x "$WORK/build/cyg-$opt/$name" ] || { fail "$what: not built"; continue; }
		r=$WORK/run/entry-exit/$name.cyg-$opt
		run_prog record "cyg-$opt" "$name" "$r"
		if [ ! -s "$r.wpp" ]; then
			fail "$what: no trace file written (status $(cat "$r.status"))"
			show_file_head "$r.stderr" 5
			continue
		fi
		decode "$r" || { fail "$what: decode failed"; continue; }
		if out=$($CMP cyg "$r.jsonl" "$r.cyg" 2>&1); then
			pass "$what: $(tail -n 1 <<<"$out")"
		else
			fail "$what"
			head -n 40 <<<"$out"
		fi
	done
done
finish
