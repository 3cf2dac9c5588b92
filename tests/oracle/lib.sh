# SPDX-License-Identifier: MIT
# lib.sh — shared by the end-to-end oracle scripts (sourced, bash).
#
# Builds corpus programs (tests/corpus/manifest) in named variants, runs them
# under `wpptrace record`, decodes them, and reports failures uniformly.
#
#   variant   compiler                     flags
#   plain-OX  clang-19                     -OX
#   paths-OX  bin/wppcc -fwpp-mode=paths   -OX
#   blocks-OX bin/wppcc -fwpp-mode=blocks  -OX
#   cyg-OX    bin/wppcc -fwpp-mode=paths   -OX -finstrument-functions-after-inlining
#             + tests/oracle/cyg_recorder.c (plain clang-19, uninstrumented)
#
# Outputs go under tests/work/oracle/: build/<variant>/<name> and run/<...>.
# A variant is rebuilt only when a source, the compiler or the runtime is
# newer than its stamp.

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CORPUS=$ROOT/tests/corpus
ORACLE=$ROOT/tests/oracle
WORK=${ORACLE_WORK:-$ROOT/tests/work/oracle}
WPPCC=${ORACLE_WPPCC:-$ROOT/bin/wppcc}
WPPTRACE=${ORACLE_WPPTRACE:-$ROOT/bin/wpptrace}
CLANG=${WPP_CLANG:-clang-19}
PY=python3
CMP="$PY $ORACLE/wppcmp.py"
RUN_TIMEOUT=${ORACLE_RUN_TIMEOUT:-60}
JOBS=${ORACLE_JOBS:-2}

FAILURES=0
CHECKS=0

fail() {
	FAILURES=$((FAILURES + 1))
	echo "FAIL: $*"
}
pass() { echo "ok:   $*"; }
check_done() { CHECKS=$((CHECKS + 1)); }

# Exit with a summary; non-zero if anything failed or nothing was checked.
finish() {
	echo "$CHECKS checks, $FAILURES failures"
	[ "$CHECKS" -gt 0 ] && [ "$FAILURES" -eq 0 ]
	exit $?
}

require_tools() {
	local t
	for t in "$@"; do
		if [ ! -x "$t" ]; then
			echo "FAIL: $t does not exist (run make first)"
			exit 1
		fi
	done
}

# corpus_names: every program name in the manifest.
corpus_names() { awk '!/^#/ && NF { print $1 }' "$CORPUS/manifest"; }

# corpus_field NAME KEY: the value of option KEY (or SOURCE) of program NAME.
corpus_field() {
	awk -v n="$1" -v k="$2" '!/^#/ && $1 == n {
		if (k == "SOURCE") { print $2; exit }
		for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit }
	}' "$CORPUS/manifest"
}

# corpus_flag NAME FLAG: true if program NAME has the bare option FLAG.
corpus_flag() {
	awk -v n="$1" -v f="$2" '!/^#/ && $1 == n { for (i = 3; i <= NF; i++) if ($i == f) found = 1 }
		END { exit !found }' "$CORPUS/manifest"
}

variant_compiler() {
	case $1 in
	plain-*) echo "$CLANG" ;;
	*) echo "$WPPCC" ;;
	esac
}

variant_flags() {
	local opt=${1##*-}
	case $1 in
	plain-*) echo "-$opt" ;;
	paths-*) echo "-fwpp-mode=paths -$opt" ;;
	blocks-*) echo "-fwpp-mode=blocks -$opt" ;;
	cyg-*) echo "-fwpp-mode=paths -$opt -finstrument-functions-after-inlining" ;;
	*) echo "unknown variant $1" >&2; return 1 ;;
	esac
}

# build_one VARIANT NAME: compile one corpus program (and its library).
build_one() {
	local variant=$1 name=$2 dir=$WORK/build/$1
	local cc flags src lib extra=() log=$WORK/build/$1/$2.buildlog
	cc=$(variant_compiler "$variant")
	flags=$(variant_flags "$variant") || return 1
	src=$(corpus_field "$name" SOURCE)
	lib=$(corpus_field "$name" lib)
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	{
		if [ -n "$lib" ]; then
			$cc $flags -g -Wall -pthread -I"$CORPUS" -shared -fPIC \
				-o "$dir/libcorpusshared.so" "$CORPUS/$lib" || return 1
			extra=(-L"$dir" -lcorpusshared -Wl,-rpath,"$dir")
		fi
		if [ "${variant%%-*}" = cyg ]; then
			extra+=("$WORK/build/cyg_recorder.o" -ldl)
		fi
		$cc $flags -g -Wall -pthread -I"$CORPUS" -o "$dir/$name" "$CORPUS/$src" "${extra[@]}"
	} >"$log" 2>&1
	local rc=$?
	if [ $rc -ne 0 ]; then
		echo "build of $variant/$name failed (status $rc):"
		sed 's/^/    /' "$log" | head -n 30
	fi
	return $rc
}

# build_recorder: the uninstrumented cyg recorder object (plain clang-19).
build_recorder() {
	mkdir -p "$WORK/build"
	$CLANG -O2 -g -fPIC -Wall -Wextra -Werror -c "$ORACLE/cyg_recorder.c" \
		-o "$WORK/build/cyg_recorder.o" || { fail "cyg_recorder.c does not compile"; return 1; }
}

# build_variant VARIANT: build every corpus program; prints failures.
# Returns non-zero if any build failed (each failure is counted).
build_variant() {
	local variant=$1 dir=$WORK/build/$1 stamp=$WORK/build/$1.stamp
	mkdir -p "$dir"
	if [ "${variant%%-*}" = cyg ]; then
		build_recorder || return 1
	fi
	if [ -f "$stamp" ] && [ -z "$(find "$CORPUS" "$ORACLE/cyg_recorder.c" "$ROOT/bin" "$ROOT/lib" \
		-newer "$stamp" -type f 2>/dev/null | head -n 1)" ]; then
		return 0
	fi
	rm -f "$stamp"
	local name bad=0 pids=() names=() i
	for name in $(corpus_names); do
		build_one "$variant" "$name" >"$dir/$name.buildmsg" 2>&1 &
		pids+=($!)
		names+=("$name")
		if [ ${#pids[@]} -ge "$JOBS" ]; then
			wait "${pids[0]}" || { bad=1; fail "build $variant/${names[0]}"; cat "$dir/${names[0]}.buildmsg"; }
			pids=("${pids[@]:1}")
			names=("${names[@]:1}")
		fi
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { bad=1; fail "build $variant/${names[$i]}"; cat "$dir/${names[$i]}.buildmsg"; }
	done
	[ $bad -eq 0 ] && touch "$stamp"
	return $bad
}

# run_prog MODE VARIANT NAME OUT: run a built program; MODE is "direct" or
# "record" (extra record options from $RECORD_OPTS).  Writes OUT.stdout, OUT.stderr, OUT.status (and OUT.wpp when
# recording; OUT.cyg.* logs for cyg variants).
run_prog() {
	local mode=$1 variant=$2 name=$3 out=$4
	local bin=$WORK/build/$variant/$name stdin args argv=()
	stdin=$(corpus_field "$name" stdin)
	args=$(corpus_field "$name" args)
	[ -n "$args" ] && IFS=, read -r -a argv <<<"$args"
	[ -n "$stdin" ] && stdin=$CORPUS/$stdin || stdin=/dev/null
	mkdir -p "$(dirname "$out")"
	rm -f "$out".stdout "$out".stderr "$out".status "$out".wpp "$out".cyg.*
	local cmd=("$bin" "${argv[@]}")
	local ropts=()
	[ -n "${RECORD_OPTS:-}" ] && read -r -a ropts <<<"$RECORD_OPTS"
	[ "$mode" = record ] && cmd=("$WPPTRACE" record --transport=shm "${ropts[@]}" -o "$out.wpp" -- "${cmd[@]}")
	# The outer redirection keeps bash's "Segmentation fault" job report
	# (corpus program crash) out of the test log; the status says it all.
	{ WPP_CYG_LOG=$out.cyg timeout -k 5 "$RUN_TIMEOUT" "${cmd[@]}" <"$stdin" >"$out.stdout" 2>"$out.stderr"; } 2>/dev/null
	echo $? >"$out.status"
}

# decode OUT: wpptrace script OUT.wpp --format jsonl > OUT.jsonl; 0 on success.
decode() {
	local out=$1
	timeout -k 5 "$RUN_TIMEOUT" "$WPPTRACE" script "$out.wpp" --format jsonl >"$out.jsonl" 2>"$out.decode.stderr"
	local rc=$?
	if [ $rc -ne 0 ]; then
		echo "wpptrace script $out.wpp failed (status $rc):"
		head -n 5 "$out.decode.stderr" | sed 's/^/    /'
	fi
	return $rc
}

# meta_objects VARIANT NAME: comma-separated objects whose wpp_meta describes
# the program's functions (the executable, its library, an exec target, which
# runs as exec generation 1).
meta_objects() {
	local dir=$WORK/build/$1 objs=$WORK/build/$1/$2 needs
	corpus_field "$2" lib | grep -q . && objs=$objs,$dir/libcorpusshared.so
	needs=$(corpus_field "$2" needs)
	[ -n "$needs" ] && objs=$objs,1:$dir/$needs
	echo "$objs"
}

# show_file_head FILE: a few lines of a file, indented (for failure reports).
show_file_head() { [ -f "$1" ] && head -n "${2:-8}" "$1" | sed 's/^/    | /'; }

# bounded_wpptrace OUT LABEL ARGS...: one check that `wpptrace ARGS` ends
# well within 20 s and 1 GB of address space (a crafted file must not make
# the work follow the counts it declares); stdout in OUT, stderr in
# OUT.err.  Returns the check's outcome.
bounded_wpptrace() {
	local out=$1 label=$2
	shift 2
	check_done
	(ulimit -v 1000000 && timeout -k 5 20 "$WPPTRACE" "$@") >"$out" 2>"$out.err"
	local rc=$?
	if [ $rc -ne 0 ]; then
		fail "$label: status $rc (time or memory unbounded?)"
		show_file_head "$out.err" 3
		return 1
	fi
	pass "$label: done within 20 s and 1 GB"
}
