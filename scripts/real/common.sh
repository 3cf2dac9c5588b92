# scripts/real/common.sh — shared settings for the real-program scripts
# (fetch, build, workloads, oracles, bench).  Sourced, not run.

REAL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REAL_WORK=${WPP_REAL_WORK:-$REAL_ROOT/scripts/work/real}
REAL_SRC=$REAL_WORK/src
REAL_BUILD=$REAL_WORK/build
REAL_CLANG=${WPP_CLANG:-clang-19}
REAL_WPPCC=${WPP_WPPCC:-$REAL_ROOT/bin/wppcc}
REAL_WPPTRACE=${WPP_WPPTRACE:-$REAL_ROOT/bin/wpptrace}

# xz is the multi-threaded one (xz -T N: a pthreads worker pool).  pigz was
# the first choice, but this mirror answers 404 for its bookworm source
# files; `scripts/real/fetch pigz` tries again.
REAL_PROGRAMS=(lua zlib bzip2 xz)
# The programs tests/real/run-oracles (and so `make test`) checks by default.
REAL_ORACLE_PROGRAMS=(lua zlib bzip2 xz)
REAL_MODES=(plain pgo wpp wpp-blocks pgo-relayout pgo-atomic wpp-guided wpp-guided-place wpp-count wpp-count-8k
	wpp-count-nocache wpp-ppp wpp-wet wpp-tpp11 wpp-tpp55 wpp-tpp515 wpp-tpp515-mem wpp-dual wpp-guided-traced)

die() { echo "real: $*" >&2; exit 1; }

# The wpptrace tools a wpp build depends on: the driver and what it finds
# next to itself (pass plugin, runtime libraries), given the driver's path.
wpp_tool_files() {
	local libdir
	libdir=$(dirname "$1")/../lib/wpptrace
	echo "$1"
	ls "$libdir"/wpp-pass.so "$libdir"/libwpprt.* 2>/dev/null
}

# Point REAL_WPPCC and REAL_WPPTRACE (and children, through WPP_WPPCC and
# WPP_WPPTRACE) at a frozen copy of the tree's tools, so that a long test
# or benchmark is not hit by a rebuild of the tree half way (a pass plugin
# relinked under a running compile is "file too short").  The copy lives in
# $REAL_WORK/toolchains/HASH of the contents and is kept: binaries built
# with it point their RUNPATH at its lib/, and builds are keyed to the
# contents (scripts/real/build), so the same tools give the same directory
# and reuse the builds.  A caller's WPP_WPPCC or WPP_WPPTRACE is kept.
freeze_tools() {
	[ -z "${WPP_WPPCC:-}" ] || [ -z "${WPP_WPPTRACE:-}" ] || return 0
	[ -x "$REAL_ROOT/bin/wppcc" ] && [ -x "$REAL_ROOT/bin/wpptrace" ] || return 0
	local try files hash dir tmp
	for try in 1 2 3 4 5 6 7 8 9 10; do
		files=$(wpp_tool_files "$REAL_ROOT/bin/wppcc")
		# shellcheck disable=SC2086
		hash=$(cat $files "$REAL_ROOT/bin/wpptrace" | sha1sum | cut -c1-16)
		dir=$REAL_WORK/toolchains/$hash
		if [ ! -d "$dir" ]; then
			tmp=$dir.tmp.$$
			mkdir -p "$tmp/bin" "$tmp/lib/wpptrace"
			cp "$REAL_ROOT/bin/wppcc" "$REAL_ROOT/bin/wpptrace" "$tmp/bin/"
			# shellcheck disable=SC2046
			cp $(wpp_tool_files "$REAL_ROOT/bin/wppcc" | tail -n +2) "$tmp/lib/wpptrace/"
			# keep the copy only if nothing changed while it was taken
			# shellcheck disable=SC2086
			if [ "$(cat $(wpp_tool_files "$tmp/bin/wppcc") "$tmp/bin/wpptrace" | sha1sum | cut -c1-16)" != "$hash" ] ||
				[ "$(cat $files "$REAL_ROOT/bin/wpptrace" | sha1sum | cut -c1-16)" != "$hash" ]; then
				rm -rf "$tmp"
				sleep 3
				continue
			fi
			mv "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp" # lost a race: same contents
		fi
		[ -n "${WPP_WPPCC:-}" ] || REAL_WPPCC=$dir/bin/wppcc
		[ -n "${WPP_WPPTRACE:-}" ] || REAL_WPPTRACE=$dir/bin/wpptrace
		export WPP_WPPCC=$REAL_WPPCC WPP_WPPTRACE=$REAL_WPPTRACE
		return 0
	done
	die "the wpptrace tools in $REAL_ROOT keep changing; cannot take a stable copy"
}

# The pinned source of PROGRAM: "PACKAGE VERSION DSC-SHA256" from
# scripts/real/sources.lock (WPP_REAL_LOCK names another lock, for tests).
REAL_LOCK=${WPP_REAL_LOCK:-$REAL_ROOT/scripts/real/sources.lock}
lock_entry() {
	local line
	line=$(awk -v p="$1" '$1 == p && !/^#/ { print $2, $3, $4 }' "$REAL_LOCK")
	[ -n "$line" ] || die "unknown program '$1' (not in $REAL_LOCK; known: ${REAL_PROGRAMS[*]})"
	echo "$line"
}

# Unpacked source tree of PROGRAM (fetching it if needed).
source_dir() {
	local line
	line=$("$REAL_ROOT/scripts/real/fetch" "$1") || exit $? # 3: pinned source missing
	echo "${line##* }"
}

# Directory holding the helper tools (gendata, cputime, detmalloc.so),
# built on demand with plain clang: they are never instrumented.
real_tools() {
	local dir=$REAL_WORK/tools t src flags
	mkdir -p "$dir"
	for t in gendata cputime detmalloc.so; do
		case $t in
		*.so) src=$REAL_ROOT/tests/real/${t%.so}.c flags="-fPIC -shared" ;;
		*) src=$REAL_ROOT/scripts/real/$t.c flags= ;;
		esac
		if [ ! -x "$dir/$t" ] || [ "$src" -nt "$dir/$t" ]; then
			# shellcheck disable=SC2086
			$REAL_CLANG -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE $flags \
				"$src" -o "$dir/$t.$$" || die "cannot build $t"
			mv "$dir/$t.$$" "$dir/$t"
		fi
	done
	echo "$dir"
}

# Generate the inputs of workload SIZE (once); print their directory.
prepare_data() {
	local size=$1 dir=$REAL_WORK/data/$1 tools file kind bytes seed
	tools=$(real_tools)
	mkdir -p "$dir"
	while read -r file kind bytes seed; do
		if [ ! -f "$dir/$file" ] || [ "$(stat -c %s "$dir/$file")" != "$bytes" ] ||
			[ "$tools/gendata" -nt "$dir/$file" ]; then
			"$tools/gendata" "$kind" "$bytes" "$seed" >"$dir/$file.$$" ||
				die "gendata $kind failed"
			mv "$dir/$file.$$" "$dir/$file"
		fi
	done < <(workload_data "$size")
	echo "$dir"
}

# "WORDS BYTES" of a .wpp file.  WORDS comes from its last chunk, which in a
# cleanly closed file is WPP_CHUNK_END (wpp_file.h: a 16-byte chunk header,
# then batches, words, ... as u64); "?" if the file was not closed cleanly.
trace_stats() {
	local f=$1 magic type words="?"
	magic=$(tail -c 56 "$f" | od -An -tu4 -N4 | tr -d ' ')
	type=$(tail -c 56 "$f" | od -An -tu2 -j4 -N2 | tr -d ' ')
	if [ "$magic" = 1262702679 ] && [ "$type" = 7 ]; then
		words=$(tail -c 56 "$f" | od -An -tu8 -j24 -N8 | tr -d ' ')
	fi
	echo "$words $(stat -c %s "$f")"
}
