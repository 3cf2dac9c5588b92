#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Profile-guided placement in every counting mode (wppcc --wpp-profile;
# issue 27): placement changes where increments go, never what a path's id
# means.  profile-placement.sh checks the trace (paths) mode; here, for
# deterministic corpus programs, with the edge profile of a static trace
# build's recording:
#   - count:  -fwpp-mode=count guided vs static
#   - ppp:    -fwpp-mode=ppp (interesting set from the same recording)
#             guided vs static
#   - tpp:    -fwpp-mode=tpp --tpp-cold=0 --tpp-loop=0, whose placement is
#             always the profile's, vs the static count build (nothing is
#             cold or disconnected, so every path is counted or obvious)
# each pair runs with the same output and `wpptrace paths` reads the same
# path profile, byte for byte but the file name.  So that the check
# cannot pass by the profile being ignored, the guided code must differ
# from the static code on at least one program in each of count and ppp.
. "$(dirname "$0")/corpus-lib.sh"

run() { # BINARY TAG: record ./BINARY in $d as TAG.wpp, its output in TAG.out
	(cd "$d" && "$WPPTRACE" record -q -o "$2.wpp" -- "./$1" $args >"$2.out" 2>&1)
}
code() { objdump -d "$1" | tail -n +3; }

# same_profile TAG_A TAG_B WHAT: outputs and path profiles of two recordings
same_profile() {
	cmp -s "$d/$1.out" "$d/$2.out" || { fail "$name $3: output differs"; return 1; }
	"$WPPTRACE" paths "$d/$1.wpp" | tail -n +2 >"$d/$1.paths"
	"$WPPTRACE" paths "$d/$2.wpp" | tail -n +2 >"$d/$2.paths"
	[ -s "$d/$1.paths" ] || { fail "$name $3: empty path profile"; return 1; }
	if ! cmp -s "$d/$1.paths" "$d/$2.paths"; then
		fail "$name $3: path profiles differ: $(diff "$d/$1.paths" "$d/$2.paths" | sed -n 2p)"
		return 1
	fi
}

declare -A moved=([count]=0 [ppp]=0)
for spec in branches: switches: interp: recursion:12 wide_paths: callbacks: variadic:; do
	corpus_prepare "$spec"
	cc() { "$WPPCC" -O2 "$@" "$src" 2>>"$d/build.err"; }
	if ! cc -o "$d/trace" || ! run trace t ||
		! "$WPPTRACE" edges -q "$d/t.wpp" -o "$d/t.edges" ||
		! "$WPPTRACE" interesting -q "$d/t.wpp" -o "$d/t.int"; then
		fail "$name: training recording: $(head -1 "$d/build.err")"
		continue
	fi
	prof=--wpp-profile=$d/t.edges
	for mode in count ppp; do
		extra=()
		[ $mode = ppp ] && extra=(--wpp-interesting="$d/t.int")
		if ! cc -fwpp-mode=$mode "${extra[@]}" -o "$d/$mode-s" ||
			! cc -fwpp-mode=$mode "${extra[@]}" "$prof" -o "$d/$mode-g"; then
			fail "$name $mode: build: $(head -1 "$d/build.err")"
			continue
		fi
		[ -s "$d/build.err" ] && fail "$name $mode: the build said: $(head -1 "$d/build.err")"
		run $mode-s $mode-s && run $mode-g $mode-g || { fail "$name $mode: record"; continue; }
		same_profile $mode-s $mode-g "$mode guided" || continue
		cmp -s <(code "$d/$mode-s") <(code "$d/$mode-g") || moved[$mode]=$((moved[$mode] + 1))
		ok "$name $mode: guided and static builds read the same paths"
	done
	if cc -fwpp-mode=tpp "$prof" --tpp-cold=0 --tpp-loop=0 -o "$d/tpp-g" && run tpp-g tpp-g; then
		same_profile count-s tpp-g "tpp(0,0) guided vs static count" &&
			ok "$name tpp: TPP(0,0) guided reads the static count build's paths"
	else
		fail "$name tpp: build or record: $(head -1 "$d/build.err")"
	fi
done
for mode in count ppp; do
	if [ "${moved[$mode]}" -gt 0 ]; then
		ok "$mode: the profile moved increments in ${moved[$mode]} program(s)"
	else
		fail "$mode: the profile changed no program's code (is it ignored?)"
	fi
done

finish
