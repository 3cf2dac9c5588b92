#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wppcc as CC: one small project (separate -c compiles, a link step, a
# -shared -fPIC library) built twice, by a plain Makefile and by CMake
# (compiler identification and try-compiles through wppcc), each with
# CC=clang-19 and CC=bin/wppcc.  Each wppcc build behaves like its clang-19
# build, carries metadata in every object, and its recorded trace names
# functions of every TU.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"
command -v cmake >/dev/null || {
	echo "FAIL: cmake is not installed (scripts/install-deps installs it)"
	exit 1
}
src=$ROOT/tests/e2e/cc_project
w=$WORK/cc_project
rm -rf "$w" && mkdir -p "$w"

# build SYSTEM CC DIR: the project built by SYSTEM (make | cmake) in DIR.
build() {
	local system=$1 compiler=$2 dir=$3
	mkdir -p "$dir"
	case $system in
	make) make -s -C "$dir" -f "$src/Makefile" SRC="$src" CC="$compiler" ;;
	cmake)
		CC=$compiler cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=None \
			-DCMAKE_C_FLAGS="-O1 -g -Wall" && cmake --build "$dir"
		;;
	esac
}

# same_behaviour SYSTEM DIR: plain, wppcc and recorded runs of calc print
# the same and exit alike; the recording goes to DIR/rec.wpp.
same_behaviour() {
	local system=$1 d=$2
	check_done
	(cd "$d/plain" && ./calc >../plain.stdout; echo $? >../plain.status)
	(cd "$d/wppcc" && ./calc >../wppcc.stdout; echo $? >../wppcc.status)
	(cd "$d/wppcc" && timeout -k 5 "$RUN_TIMEOUT" "$WPPTRACE" record --transport=shm \
		-o ../rec.wpp -- ./calc >../rec.stdout 2>../rec.stderr; echo $? >../rec.status)
	if cmp -s "$d/plain.stdout" "$d/wppcc.stdout" && cmp -s "$d/plain.status" "$d/wppcc.status" &&
		cmp -s "$d/plain.stdout" "$d/rec.stdout" && cmp -s "$d/plain.status" "$d/rec.status"; then
		pass "$system: same output and status ($(cat "$d/plain.status")) plain / wppcc / recorded"
	else
		fail "$system: output differs: status plain $(cat "$d/plain.status")" \
			"wppcc $(cat "$d/wppcc.status") recorded $(cat "$d/rec.status")"
		diff "$d/plain.stdout" "$d/rec.stdout" | head | sed 's/^/    /'
		show_file_head "$d/rec.stderr"
	fi
}

# metadata_everywhere SYSTEM DIR: every object, the library and the
# executable of the wppcc build carry a wpp_meta section.
metadata_everywhere() {
	local system=$1 d=$2 o n=0 missing=
	check_done
	while IFS= read -r o; do
		n=$((n + 1))
		readelf -S "$o" 2>/dev/null | grep -q ' wpp_meta ' || missing="$missing ${o#"$d/wppcc/"}"
	done < <(find "$d/wppcc" -type f \( -name '*.o' -o -name libfmt.so -o -name calc \))
	if [ "$n" -ge 4 ] && [ -z "$missing" ]; then
		pass "$system: wpp_meta section in all $n objects"
	else
		fail "$system: $n objects, without a wpp_meta section:$missing"
	fi
}

# trace_covers SYSTEM DIR: the decoded trace names functions of main.c,
# stack.c and the library.
trace_covers() {
	local system=$1 d=$2 fn absent=
	check_done
	if "$WPPTRACE" script "$d/rec.wpp" --format jsonl >"$d/rec.jsonl" 2>"$d/script.stderr"; then
		for fn in main stack_push stack_pop fmt_result; do
			grep -q "\"$fn\"" "$d/rec.jsonl" || absent="$absent $fn"
		done
		[ -z "$absent" ] && pass "$system: trace covers main.c, stack.c and libfmt.so" ||
			fail "$system: functions absent from the decoded trace:$absent"
	else
		fail "$system: wpptrace script failed on the project's trace"
		show_file_head "$d/script.stderr"
	fi
}

for system in make cmake; do
	d=$w/$system
	built=1
	for cc in plain wppcc; do
		check_done
		compiler=$CLANG
		[ $cc = wppcc ] && compiler=$WPPCC
		if build $system "$compiler" "$d/$cc" >"$d.$cc.log" 2>&1; then
			pass "$system with CC=$compiler"
		else
			fail "$system with CC=$compiler failed:"
			show_file_head "$d.$cc.log" 20
			built=0
		fi
	done
	[ $built = 1 ] || continue
	same_behaviour $system "$d"
	metadata_everywhere $system "$d"
	trace_covers $system "$d"
done
finish
