#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dual.sh — dual builds (wppcc -fwpp-dual, docs/instrumentation.md "Dual
# builds"): every corpus program built dual and recorded under shm (the
# flags set from the start) decodes to the same per-thread block sequences
# as its ordinary paths build, at -O2 and -O0, and every path id of the
# dual recording is regenerated from the objects' metadata by the
# independent reader (wppmeta.py).  The program's output and status are the
# plain clang build's, run directly (flags clear: the plain copies) and
# under record.  Without the runtime setting the flags a dual recording is
# empty: the last check says the comparison notices.
export ORACLE_WORK=${ORACLE_WORK:-$(cd "$(dirname "$0")/../.." && pwd)/tests/work/dual}
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"

# The oracle's variants, and dual-OX.
eval "$(declare -f variant_flags | sed '1s/^variant_flags/oracle_variant_flags/')"
variant_flags() {
	case $1 in
	dual-*) echo "-fwpp-mode=paths -fwpp-dual -${1##*-}" ;;
	*) oracle_variant_flags "$1" ;;
	esac
}

same_output() { # REF OTHER WHAT
	cmp -s "$1.stdout" "$2.stdout" && cmp -s "$1.status" "$2.status" && return 0
	fail "$3: output or status differs (status $(cat "$1.status") vs $(cat "$2.status"))"
	return 1
}

for opt in ${ORACLE_OPTS:-O2 O0}; do
	build_variant "plain-$opt"
	build_variant "paths-$opt"
	build_variant "dual-$opt"
	for name in ${ORACLE_PROGRAMS:-$(corpus_names)}; do
		check_done
		what="dual $opt $name"
		d=$WORK/run/dual/$name
		run_prog direct "plain-$opt" "$name" "$d.plain-$opt"
		run_prog direct "dual-$opt" "$name" "$d.direct-$opt"
		run_prog record "paths-$opt" "$name" "$d.paths-$opt"
		run_prog record "dual-$opt" "$name" "$d.dual-$opt"
		same_output "$d.plain-$opt" "$d.direct-$opt" "$what (run directly)" || continue
		same_output "$d.plain-$opt" "$d.dual-$opt" "$what (under record)" || continue
		decode "$d.paths-$opt" && decode "$d.dual-$opt" || { fail "$what: decode"; continue; }
		flags=()
		corpus_flag "$name" crash && flags=(--crashed)
		if [ ${#flags[@]} -eq 0 ]; then
			flags=(--meta "$(meta_objects "dual-$opt" "$name")")
		fi
		if out=$($CMP blocks "$d.paths-$opt.jsonl" "$d.dual-$opt.jsonl" "${flags[@]}" 2>&1); then
			pass "$what: $(wc -l <"$d.dual-$opt.jsonl") paths as the paths build's"
		else
			fail "$what: differs from the paths build"
			echo "$out" | head -n 12 | sed 's/^/    /'
		fi
	done
done

# The comparison can fail: a dual program whose flags stay clear (probe
# mode, nobody listening, no WPP_TRACE_ON) records nothing, and its
# probe-mode recording through the shm reader of an empty run differs.
name=recursion
d=$WORK/run/dual/$name
check_done
if [ -f "$d.paths-O2.jsonl" ] && : >"$d.empty.jsonl" &&
	! $CMP blocks "$d.paths-O2.jsonl" "$d.empty.jsonl" >/dev/null 2>&1; then
	pass "an empty dual recording would not pass as the paths build's"
else
	fail "the comparison accepts an empty recording"
fi
finish
