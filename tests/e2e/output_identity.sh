#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output identity: each corpus program built with plain `clang-19 -OX` and
# with `wppcc -OX` must print byte-identical stdout and exit with the same
# status, run directly and under `wpptrace record --transport=shm`.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"

same() { # same REF OTHER WHAT
	if cmp -s "$1.stdout" "$2.stdout" && cmp -s "$1.status" "$2.status"; then
		return 0
	fi
	fail "$3: status $(cat "$1.status") vs $(cat "$2.status")"
	diff "$1.stdout" "$2.stdout" | head -n 10 | sed 's/^/    /'
	show_file_head "$2.stderr" 5
	return 1
}

for opt in ${ORACLE_OPTS:-O2 O0}; do
	build_variant "plain-$opt"
	build_variant "paths-$opt"
	for name in ${ORACLE_PROGRAMS:-$(corpus_names)}; do
		check_done
		what="output $opt $name"
		d=$WORK/run/identity/$name
		run_prog direct "plain-$opt" "$name" "$d.plain-$opt"
		if [ ! -s "$d.plain-$opt.stdout" ]; then
			fail "$what: plain build printed nothing (status $(cat "$d.plain-$opt.status"))"
			continue
		fi
		run_prog direct "paths-$opt" "$name" "$d.wppcc-$opt"
		run_prog record "paths-$opt" "$name" "$d.record-$opt"
		same "$d.plain-$opt" "$d.wppcc-$opt" "$what (wppcc build, run directly)" &&
			same "$d.plain-$opt" "$d.record-$opt" "$what (wppcc build under wpptrace record)" &&
			pass "$what: status $(cat "$d.plain-$opt.status"), $(wc -l <"$d.plain-$opt.stdout") lines"
		# The tracer speaks only in "wpptrace: " lines on stderr.
		if grep -v '^wpptrace: ' "$d.record-$opt.stderr" | grep -q .; then
			fail "$what: unexpected stderr under record:"
			show_file_head "$d.record-$opt.stderr" 5
		fi
	done
done
finish
